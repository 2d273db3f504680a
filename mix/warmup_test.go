package mix_test

import (
	"bytes"
	"fmt"
	"runtime"
	"testing"

	"github.com/sparseson/sparseson/mix"
	"github.com/sparseson/sparseson/sparse"
)

// TestWarmupShortStream: a stream no longer than the warm-up is the one
// learner's (total 1): the same progressive predictions and model bytes
// as that learner alone, over two passes, per example or in batches.
func TestWarmupShortStream(t *testing.T) {
	exs := stream(300, 2000, 10, 11)
	for _, f := range families() {
		for _, batch := range []int{0, 64} {
			t.Run(fmt.Sprintf("%s/batch=%d", f.name, batch), func(t *testing.T) {
				m, err := mix.New(f.warmed(3, 0, 600))
				if err != nil {
					t.Fatal(err)
				}
				one, err := mix.New(f.warmed(1, 0, 0))
				if err != nil {
					t.Fatal(err)
				}
				got, gotModel := train(t, m, exs, 2, batch)
				want, wantModel := train(t, one, exs, 2, batch)
				for i := range want {
					if got[i] != want[i] {
						t.Fatalf("prediction %d: %v, one learner %v", i, got[i], want[i])
					}
				}
				if !bytes.Equal(gotModel, wantModel) {
					t.Fatal("the model differs from the one learner's")
				}
				if s := m.Stats(); s.Mixes != 0 {
					t.Fatalf("%d mixes within the warm-up", s.Mixes)
				}
			})
		}
	}
}

// TestWarmupHandOff: after the warm-up every shard starts from the
// warm-up learner's state: the first example after it is predicted as
// that learner predicts it, and the first mix merges with that state as
// its base (a shard that saw nothing since leaves it as it was: merging
// K copies of the base with the base is the base's predictions).
func TestWarmupHandOff(t *testing.T) {
	exs := stream(400, 2000, 10, 12)
	const warm = 250
	for _, f := range families() {
		t.Run(f.name, func(t *testing.T) {
			m, err := mix.New(f.warmed(2, 0, warm))
			if err != nil {
				t.Fatal(err)
			}
			ref, err := f.new(1, nil)
			if err != nil {
				t.Fatal(err)
			}
			out := make([]float64, warm)
			if err := m.LearnBatch(exs[:warm], out); err != nil {
				t.Fatal(err)
			}
			for i := range exs[:warm] {
				if p := ref.Learn(&exs[i]); p != out[i] {
					t.Fatalf("warm-up example %d: %v, one learner %v", i, out[i], p)
				}
			}
			var next [1]float64
			probe := exs[warm]
			probe.HasLabel = false // predicted, not learned: the shards stay the warm-up's state
			if err := m.LearnBatch([]sparse.Example{probe}, next[:]); err != nil {
				t.Fatal(err)
			}
			if want := ref.Predict(&exs[warm]); next[0] != want {
				t.Fatalf("first example after the warm-up: %v, the warm-up learner %v", next[0], want)
			}
			if err := m.Mix(); err != nil {
				t.Fatal(err)
			}
			for i := warm; i < len(exs); i++ {
				if got, want := m.Predict(&exs[i]), ref.Predict(&exs[i]); !near(got, want) {
					t.Fatalf("after a mix of unchanged shards, example %d: %v, the warm-up learner %v", i, got, want)
				}
			}
		})
	}
}

// near compares predictions to rounding: a merge recomputes the weights.
func near(a, b float64) bool {
	d := a - b
	if d < 0 {
		d = -d
	}
	return d <= 1e-9*(1+max(a, -a, b, -b))
}

// TestWarmupDeterministic: with a warm-up ending inside a batch and
// mixing points after it, the model does not depend on GOMAXPROCS nor on
// the batches.
func TestWarmupDeterministic(t *testing.T) {
	exs := stream(700, 3000, 12, 13)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, f := range families() {
		t.Run(f.name, func(t *testing.T) {
			var ref []byte
			for _, procs := range []int{1, 2, 8} {
				runtime.GOMAXPROCS(procs)
				for _, batch := range []int{0, 37, len(exs)} {
					m, err := mix.New(f.warmed(3, 200, 333))
					if err != nil {
						t.Fatal(err)
					}
					_, model := train(t, m, exs, 2, batch)
					if ref == nil {
						ref = model
						// 400, 600, the pass end 700, then 800 … 1400.
						if s := m.Stats(); s.Mixes != 7 {
							t.Fatalf("%d mixes, want 7", s.Mixes)
						}
						continue
					}
					if !bytes.Equal(model, ref) {
						t.Fatalf("GOMAXPROCS %d, batch %d: the model differs from the first run's", procs, batch)
					}
				}
			}
		})
	}
}
