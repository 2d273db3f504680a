package mix_test

import (
	"bytes"
	"runtime"
	"testing"

	"github.com/sparseson/sparseson/mix"
	"github.com/sparseson/sparseson/model"
	"github.com/sparseson/sparseson/reduce"
	"github.com/sparseson/sparseson/sparse"
)

// TestOAAShards: --oaa models mix too (reduce.OAA merges class by class
// on several cores); the model is the same at GOMAXPROCS 1 and 8.
func TestOAAShards(t *testing.T) {
	const classes = 3
	exs := stream(600, 2000, 10, 6)
	for i := range exs {
		exs[i].Label = float64(1 + exs[i].Idx[0]%classes)
	}
	g := gdFamily()
	base := func(r *model.Reader) (sparse.Learner, error) { return g.new(2, r) }
	cfg := mix.Config{
		K:     2,
		New:   func(int) (sparse.Learner, error) { return reduce.NewOAA(classes, bits, base) },
		Load:  func(r *model.Reader) (sparse.Learner, error) { return reduce.LoadOAA(r, classes, bits, base) },
		Every: 128,
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	var want []byte
	for _, procs := range []int{1, 8} {
		runtime.GOMAXPROCS(procs)
		m, err := mix.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		_, got := train(t, m, exs, 2, 100)
		if want == nil {
			want = got
		} else if !bytes.Equal(got, want) {
			t.Fatalf("GOMAXPROCS %d: the model differs from GOMAXPROCS 1's", procs)
		}
	}
}
