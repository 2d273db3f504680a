package reduce

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/sparseson/sparseson/gd"
	"github.com/sparseson/sparseson/internal/dense"
	"github.com/sparseson/sparseson/loss"
	"github.com/sparseson/sparseson/model"
	"github.com/sparseson/sparseson/oja"
	"github.com/sparseson/sparseson/son"
	"github.com/sparseson/sparseson/sparse"
)

// ojaFactory builds Oja-SON bases (m = 4, the scaled-space form).
func ojaFactory(t testing.TB) Factory {
	cfg := son.Config{Bits: 12, C: 1e300, Eta0: 1, EtaPower: 0.5, Diag: true, Scaled: true, Rate: 5}
	return func(r *model.Reader) (sparse.Learner, error) {
		sk, err := oja.New(oja.Config{M: 4, Alpha: 1, Rate: 1})
		if err != nil {
			return nil, err
		}
		if r == nil {
			return son.New(cfg, loss.Logistic{}, sk)
		}
		return son.Load(r, cfg, loss.Logistic{}, sk)
	}
}

// TestOAALearnBatchIsSerial: LearnBatch is Learn on each example in turn —
// the same progressive classes, probabilities and model bytes — whatever
// GOMAXPROCS, the cores and the batch size, with the classes shared out
// on every batch; labels that are no class are predicted only, and the
// caller's examples are left as they were.
func TestOAALearnBatchIsSerial(t *testing.T) {
	const k = 7
	data := classStream(500, k, 11)
	for i := 0; i < len(data); i += 13 {
		data[i].Label = float64(k + 1) // no class: predicted only
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, base := range []struct {
		name string
		f    func(testing.TB) Factory
	}{{"adagrad", gdFactory}, {"oja", ojaFactory}} {
		ref, _ := NewOAA(k, 12, base.f(t))
		ref.SetCores(1)
		want := make([]float64, len(data))
		wantP := make([][]float64, len(data))
		for i := range data {
			want[i] = ref.Learn(&data[i])
			wantP[i] = make([]float64, k)
			ref.Probabilities(wantP[i])
		}
		wantModel := encode(t, ref)
		for _, procs := range []int{1, 2, 8} {
			runtime.GOMAXPROCS(procs)
			for _, batch := range []int{1, 6, 64, len(data)} {
				t.Run(fmt.Sprintf("%s/procs=%d/batch=%d", base.name, procs, batch), func(t *testing.T) {
					o, _ := NewOAA(k, 12, base.f(t))
					o.par.min = 0
					got := make([]float64, len(data))
					p := make([]float64, k)
					for i := 0; i < len(data); i += batch {
						j := min(i+batch, len(data))
						before := slices.Clone(data[i].Idx)
						o.LearnBatch(data[i:j], got[i:j])
						if !slices.Equal(data[i].Idx, before) {
							t.Fatalf("example %d: features changed", i)
						}
						for q := i; q < j; q++ {
							o.BatchProbabilities(q-i, p)
							if !slices.Equal(p, wantP[q]) {
								t.Fatalf("example %d: probabilities %v, serial %v", q, p, wantP[q])
							}
						}
						o.Probabilities(p)
						if !slices.Equal(p, wantP[j-1]) {
							t.Fatalf("example %d: Probabilities %v, serial %v", j-1, p, wantP[j-1])
						}
					}
					if !slices.Equal(got, want) {
						t.Fatal("progressive classes differ from the serial Learn's")
					}
					if !bytes.Equal(encode(t, o), wantModel) {
						t.Fatal("the model differs from the serial Learn's")
					}
				})
			}
		}
	}
}

// BenchmarkOAABatch: --oaa 20 on the news20-like stream with random
// classes, batches of 256 through LearnBatch against Learn per example,
// over the cores given to the classes (GOMAXPROCS stays as set: with more
// cores than the machine has, the threads take turns).
func BenchmarkOAABatch(b *testing.B) {
	data := dense.News(18)
	rng := rand.New(rand.NewPCG(4, 5))
	cls := make([]sparse.Example, len(data))
	for i := range data {
		cls[i].CopyFrom(&data[i])
		cls[i].Label = float64(1 + rng.IntN(20))
	}
	cfg := adagrad
	cfg.Bits = 18
	bases := []struct {
		name string
		f    Factory
	}{
		{"adagrad", func(r *model.Reader) (sparse.Learner, error) { return gd.New(cfg, loss.Logistic{}) }},
		{"oja", func(r *model.Reader) (sparse.Learner, error) {
			sk, err := oja.New(oja.Config{M: 10, Alpha: 1, Rate: 1})
			if err != nil {
				return nil, err
			}
			return son.New(son.Config{Bits: 18, C: 1e300, Eta0: 1, EtaPower: 0.5, Diag: true, Scaled: true, Rate: 5}, loss.Logistic{}, sk)
		}},
	}
	for _, base := range bases {
		for _, mode := range []string{"learn", "batch"} {
			for _, cores := range []int{1, 2, 4, 8} {
				b.Run(fmt.Sprintf("%s/%s/cores=%d", base.name, mode, cores), func(b *testing.B) {
					o, err := NewOAA(20, 18, base.f)
					if err != nil {
						b.Fatal(err)
					}
					o.SetCores(cores)
					out := make([]float64, 256)
					for i := range cls { // the tables grown, as in a steady stream
						o.Learn(&cls[i])
					}
					n := 0
					for b.Loop() {
						if mode == "learn" {
							for i := range cls {
								o.Learn(&cls[i])
							}
						} else {
							for i := 0; i < len(cls); i += 256 {
								j := min(i+256, len(cls))
								o.LearnBatch(cls[i:j], out)
							}
						}
						n += len(cls)
					}
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/example")
				})
			}
		}
	}
}
