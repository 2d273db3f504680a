package mix_test

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sparseson/sparseson/fd"
	"github.com/sparseson/sparseson/gd"
	"github.com/sparseson/sparseson/loss"
	"github.com/sparseson/sparseson/mix"
	"github.com/sparseson/sparseson/model"
	"github.com/sparseson/sparseson/oja"
	"github.com/sparseson/sparseson/son"
	"github.com/sparseson/sparseson/sparse"
)

// family builds the command's default configurations of a learner (the
// options `sparseson --loss_function logistic [--oja|--fd]` records), one
// learner per call, each with its own loss and sketch.
type family struct {
	name string
	new  func(total int, r *model.Reader) (sparse.Learner, error)
}

const bits = 18

func gdFamily() family {
	cfg := gd.Config{Bits: bits, Adaptive: true, Normalized: true, Eta: 0.5, PowerT: 0.5, L1State: true}
	return family{"gd", func(_ int, r *model.Reader) (sparse.Learner, error) {
		if r == nil {
			return gd.New(cfg, loss.Logistic{})
		}
		return gd.Load(r, cfg, loss.Logistic{})
	}}
}

func sonFamily(sketch string, m int) family {
	return family{sketch + "-son", func(total int, r *model.Reader) (sparse.Learner, error) {
		cfg := son.Config{Bits: bits, C: math.Inf(1), Eta0: 1, EtaPower: 0.5, Diag: true, Scaled: true, Rate: 5, Total: total}
		var sk sparse.Sketch
		var err error
		if sketch == "fd" {
			sk, err = fd.New(fd.Config{M: m, Alpha: 1, HostAlpha: true, Gate: 0.3})
		} else {
			sk, err = oja.New(oja.Config{M: m, Alpha: 1, Rate: 1})
		}
		if err != nil {
			return nil, err
		}
		if r == nil {
			return son.New(cfg, loss.Logistic{}, sk)
		}
		return son.Load(r, cfg, loss.Logistic{}, sk)
	}}
}

// config is a Mixer configuration of f in k shards.
func (f family) config(k int, every int64) mix.Config {
	return mix.Config{
		K:     k,
		New:   func(int) (sparse.Learner, error) { return f.new(k, nil) },
		Load:  func(r *model.Reader) (sparse.Learner, error) { return f.new(k, r) },
		Every: every,
	}
}

// warmed is config with a warm-up of the first warmup examples by one
// learner of the whole stream (total 1).
func (f family) warmed(k int, every, warmup int64) mix.Config {
	c := f.config(k, every)
	c.Warmup = warmup
	c.Warm = func() (sparse.Learner, error) { return f.new(1, nil) }
	return c
}

// stream is a synthetic sparse binary classification stream: a Zipf-like
// vocabulary of d features, nnz features per example, labels from a
// hidden linear model with 10% label noise.
func stream(n, d, nnz int, seed uint64) []sparse.Example {
	rng := rand.New(rand.NewPCG(seed, 7))
	truth := make([]float64, d)
	for j := range truth {
		truth[j] = rng.NormFloat64()
	}
	exs := make([]sparse.Example, n)
	for i := range exs {
		seen := map[uint32]bool{}
		ex := &exs[i]
		ex.Weight, ex.HasLabel = 1, true
		var s float64
		for len(ex.Idx) < nnz {
			j := int(float64(d) * math.Pow(rng.Float64(), 3))
			if seen[uint32(j)] {
				continue
			}
			seen[uint32(j)] = true
			v := 1 + rng.Float64()
			ex.Idx = append(ex.Idx, uint32(j*2654435761)&(1<<bits-1))
			ex.Val = append(ex.Val, v)
			s += truth[j] * v
		}
		ex.Label = 1
		if s < 0 {
			ex.Label = -1
		}
		if rng.Float64() < 0.1 {
			ex.Label = -ex.Label
		}
	}
	return exs
}

func save(t testing.TB, l sparse.Learner) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := model.Encode(&b, model.Options{}, l.Save); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
