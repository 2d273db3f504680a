package fd

import (
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/sparseson/sparseson/internal/dense"
	"github.com/sparseson/sparseson/loss"
	"github.com/sparseson/sparseson/oja"
	"github.com/sparseson/sparseson/son"
	"github.com/sparseson/sparseson/sparse"
)

// The benchmarks time son.Learner.Learn with each sketch on a news20-like
// stream (newsLike: ≈130 distinct words per example from a Zipf law over
// 100k words, word counts as values, hashed to -b bits; logistic loss,
// C = 1, η_t = 1/√t). One op is one example. The stream is a ring of
// benchRing examples that is learnt once before the timer starts, so the
// feature table no longer grows (steady state); the ring then repeats.
// Besides ns/op, B/op and allocs/op each benchmark reports the sketch's
// absorbs, appends, compactions and the core's folds per example over the
// timed part.

const benchRing = 4000

var (
	benchData map[uint][]sparse.Example
	benchMu   sync.Mutex
)

func newsStream(bits uint) []sparse.Example {
	benchMu.Lock()
	defer benchMu.Unlock()
	if benchData == nil {
		benchData = map[uint][]sparse.Example{}
	}
	if d, ok := benchData[bits]; ok {
		return d
	}
	d := dense.NewsLike(benchRing, 100000, 130, bits, 1)
	benchData[bits] = d
	return d
}

func benchSON(b *testing.B, cfg Config, bits uint) {
	data := newsStream(bits)
	sk, err := New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	sl, err := son.New(son.Config{Bits: bits, C: 1, Eta0: 1}, loss.Logistic{}, sk)
	if err != nil {
		b.Fatal(err)
	}
	dense.Warm(sl, data)
	c0, f0 := sk.Counts(), sl.Folds()
	dense.Time(b, sl, data)
	c, n := sk.Counts(), float64(b.N)
	b.ReportMetric(float64(c.Absorbs-c0.Absorbs)/n, "absorbs/op")
	b.ReportMetric(float64(c.Appends-c0.Appends)/n, "appends/op")
	b.ReportMetric(float64(c.Compactions-c0.Compactions)/n, "compactions/op")
	b.ReportMetric(float64(sl.Folds()-f0)/n, "folds/op")
}

// BenchmarkSON: FD, fast FD and RFD₀ at m = 5, 10, 20, 50, Bits 18.
func BenchmarkSON(b *testing.B) {
	for _, v := range []struct {
		name string
		cfg  Config
	}{
		{"fd", Config{Alpha: 1}},
		{"fd_fast", Config{Alpha: 1, Fast: true}},
		{"rfd", Config{Robust: true}},
	} {
		for _, m := range []int{5, 10, 20, 50} {
			cfg := v.cfg
			cfg.M = m
			b.Run(fmt.Sprintf("%s/m=%d", v.name, m), func(b *testing.B) { benchSON(b, cfg, 18) })
		}
	}
}

// BenchmarkBits: FD at m = 10 for -b 16…24.
func BenchmarkBits(b *testing.B) {
	for _, bits := range []uint{16, 18, 20, 22, 24} {
		b.Run(fmt.Sprintf("fd/m=10/b=%d", bits), func(b *testing.B) { benchSON(b, Config{M: 10, Alpha: 1}, bits) })
	}
}

var (
	news20Data map[uint][]sparse.Example
	news20Mu   sync.Mutex
)

// BenchmarkNews20 (set FD_DATA to ../shared/data): Oja-SON, FD-SON and
// RFD₀-SON at m = 10 on news20.train as `sparseson --oja/--fd/--rfd -m 10
// --loss_function logistic` trains it (the hashed VW file and the
// scaled-space defaults, cliSON), FD and RFD₀ also with Dsyev in every
// shrink (Config.Dsyev), at -b 16, 18 and 24. Each learner first learns the
// whole set once, then b.N further examples are timed (run with
// -benchtime 11314x for a pass). With -count N the variants alternate, so
// that a shared machine's load hits them alike; take the fastest of each.
// cpu-ns/op is the process's CPU time per example (user + system, from
// getrusage), which waiting for a busy CPU does not inflate.
func BenchmarkNews20(b *testing.B) {
	dir := os.Getenv("FD_DATA")
	if dir == "" {
		b.Skip("set FD_DATA to the directory with news20.train.vw.gz")
	}
	load := func(bits uint) []sparse.Example {
		news20Mu.Lock()
		defer news20Mu.Unlock()
		if news20Data == nil {
			news20Data = map[uint][]sparse.Example{}
		}
		if d, ok := news20Data[bits]; ok {
			return d
		}
		d, err := readVW(dir+"/news20.train.vw.gz", bits)
		if err != nil {
			b.Fatal(err)
		}
		news20Data[bits] = d
		return d
	}
	dsyev := func(cfg Config) Config { cfg.Dsyev = true; return cfg }
	for _, bits := range []uint{16, 18, 24} {
		for _, v := range []struct {
			name string
			mk   func() (sparse.Sketch, error)
		}{
			{"oja", func() (sparse.Sketch, error) { return oja.New(oja.Config{M: 10, Alpha: 1, Rate: 1}) }},
			{"fd", func() (sparse.Sketch, error) { return New(cliFD(10, false)) }},
			{"fd_dsyev", func() (sparse.Sketch, error) { return New(dsyev(cliFD(10, false))) }},
			{"rfd", func() (sparse.Sketch, error) { return New(cliFD(10, true)) }},
			{"rfd_dsyev", func() (sparse.Sketch, error) { return New(dsyev(cliFD(10, true))) }},
		} {
			b.Run(fmt.Sprintf("b=%d/%s", bits, v.name), func(b *testing.B) {
				data := load(bits)
				sk, err := v.mk()
				if err != nil {
					b.Fatal(err)
				}
				sl, err := son.New(cliSON(bits), loss.Logistic{}, sk)
				if err != nil {
					b.Fatal(err)
				}
				dense.Warm(sl, data)
				cpu0 := cpuTime()
				dense.Time(b, sl, data)
				b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
			})
		}
	}
}
