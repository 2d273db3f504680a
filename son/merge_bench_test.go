package son_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/sparseson/sparseson/loss"
	"github.com/sparseson/sparseson/oja"
	"github.com/sparseson/sparseson/son"
	"github.com/sparseson/sparseson/sparse"
)

// BenchmarkSONMerge merges K Oja-SON learners (m = 10, 2^16 slots) that
// each learned 2,000 sparse examples of 40 features drawn from 2^15 with
// a Zipf law: frequent features in every part, rare ones in one or two —
// the merge of `--shards K` at a pass end (pass 1's Gram matrix of the
// K·m stacked rows is most of it).
func BenchmarkSONMerge(b *testing.B) {
	cfg := son.Config{Bits: 16, C: math.Inf(1), Diag: true, Scaled: true}
	build := func() *son.Learner {
		sk, err := oja.New(oja.Config{M: 10, Alpha: 1, Rate: 1})
		if err != nil {
			b.Fatal(err)
		}
		s, err := son.New(cfg, loss.Logistic{}, sk)
		if err != nil {
			b.Fatal(err)
		}
		return s
	}
	for _, k := range []int{4, 16} {
		r := rand.New(rand.NewPCG(uint64(k), 3))
		z := rand.NewZipf(r, 1.1, 4, 1<<15-1)
		parts := make([]sparse.Learner, k)
		for p := range parts {
			s := build()
			for range 2000 {
				ex := sparse.Example{Weight: 1, HasLabel: true, Label: 1}
				if r.IntN(2) == 0 {
					ex.Label = -1
				}
				for range 40 {
					ex.Idx = append(ex.Idx, uint32(z.Uint64()))
				}
				slices.Sort(ex.Idx)
				ex.Idx = slices.Compact(ex.Idx)
				for range ex.Idx {
					ex.Val = append(ex.Val, 1)
				}
				s.Learn(&ex)
			}
			parts[p] = s
		}
		b.Run(map[int]string{4: "K=4", 16: "K=16"}[k], func(b *testing.B) {
			for b.Loop() {
				if err := build().Merge(&sparse.MergeArgs{Parts: parts, Weighting: sparse.ByEvidence}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
