package mix_test

import (
	"fmt"

	"github.com/sparseson/sparseson/gd"
	"github.com/sparseson/sparseson/loss"
	"github.com/sparseson/sparseson/mix"
	"github.com/sparseson/sparseson/model"
	"github.com/sparseson/sparseson/sparse"
)

// Two AdaGrad shards, mixed every 1000 examples and at the end of each
// pass; the saved model is one ordinary gd model.
func Example() {
	cfg := gd.Config{Bits: 18, Adaptive: true, Normalized: true, Eta: 0.5, PowerT: 0.5, L1State: true}
	m, err := mix.New(mix.Config{
		K:     2,
		New:   func(int) (sparse.Learner, error) { return gd.New(cfg, loss.Logistic{}) },
		Load:  func(r *model.Reader) (sparse.Learner, error) { return gd.Load(r, cfg, loss.Logistic{}) },
		Every: 1000,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	exs := stream(2500, 1000, 10, 9)
	out := make([]float64, len(exs))
	for pass := 0; pass < 2; pass++ {
		for i := 0; i < len(exs); i += 300 { // the parser's batches
			j := min(i+300, len(exs))
			if err := m.LearnBatch(exs[i:j], out[i:j]); err != nil {
				fmt.Println(err)
				return
			}
		}
		if err := m.Mix(); err != nil { // the end of a pass
			fmt.Println(err)
			return
		}
	}
	right := 0
	for i := range exs {
		if (m.Predict(&exs[i]) > 0) == (exs[i].Label > 0) {
			right++
		}
	}
	fmt.Printf("%d mixes, training accuracy above 80%%: %v\n", m.Stats().Mixes, right*100 > 80*len(exs))
	// Output: 6 mixes, training accuracy above 80%: true
}
