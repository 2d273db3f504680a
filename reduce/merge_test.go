package reduce

import (
	"math"
	"testing"

	"github.com/sparseson/sparseson/gd"
	"github.com/sparseson/sparseson/loss"
	"github.com/sparseson/sparseson/sparse"
)

// TestOAAMerge: each part numbers its slots in its own order, so the
// merged OAA must map them back: class k of the merge is exactly the
// first-order merge of the parts' class-k learners over the slots (checked
// against gd's Merge of separately trained K binary learners), the merge
// of one OAA predicts as it, and OAA parts of another K are refused.
func TestOAAMerge(t *testing.T) {
	const k = 4
	data := classStream(1500, k, 3)
	parts := make([]*OAA, 3)
	sep := make([][]*gd.GD, 3) // the same K binary learners, in slot space
	for i := range parts {
		o, err := NewOAA(k, 12, gdFactory(t))
		if err != nil {
			t.Fatal(err)
		}
		sep[i] = make([]*gd.GD, k)
		for c := range sep[i] {
			sep[i][c], _ = gd.New(adagrad, loss.Logistic{})
		}
		// Different slices, so the parts number the slots differently.
		for j := 300 + 400*i; j < 700+400*i && j < len(data); j++ {
			ex := &data[j]
			o.Learn(ex)
			y := ex.Label
			for c := range sep[i] {
				ex.Label = -1
				if c+1 == int(y) {
					ex.Label = 1
				}
				sep[i][c].Learn(ex)
			}
			ex.Label = y
		}
		parts[i] = o
	}
	one, _ := NewOAA(k, 12, gdFactory(t))
	if err := one.Merge(&sparse.MergeArgs{Parts: []sparse.Learner{parts[0]}}); err != nil {
		t.Fatal(err)
	}
	for j := 0; j < 300; j++ {
		if a, b := one.Predict(&data[j]), parts[0].Predict(&data[j]); a != b {
			t.Fatalf("example %d: merge of one predicts class %v, the model %v", j, a, b)
		}
	}
	m, _ := NewOAA(k, 12, gdFactory(t))
	all := []sparse.Learner{parts[0], parts[1], parts[2]}
	if err := m.Merge(&sparse.MergeArgs{Parts: all}); err != nil {
		t.Fatal(err)
	}
	for c := 0; c < k; c++ {
		ref, _ := gd.New(adagrad, loss.Logistic{})
		if err := ref.Merge(&sparse.MergeArgs{Parts: []sparse.Learner{sep[0][c], sep[1][c], sep[2][c]}}); err != nil {
			t.Fatal(err)
		}
		want := map[uint32]float64{}
		ref.Weights(func(s uint32, v float64) { want[s] = v })
		n := 0
		m.ClassWeights(c+1, func(s uint32, v float64) {
			n++
			if math.Abs(want[s]-v) > 1e-12*(1+math.Abs(v)) {
				t.Fatalf("class %d slot %d: %v, want %v", c+1, s, v, want[s])
			}
		})
		if n != len(want) {
			t.Fatalf("class %d: %d slots, want %d", c+1, n, len(want))
		}
	}
	other, _ := NewOAA(k+1, 12, gdFactory(t))
	fresh, _ := NewOAA(k, 12, gdFactory(t))
	if err := fresh.Merge(&sparse.MergeArgs{Parts: []sparse.Learner{parts[0], other}}); err == nil {
		t.Fatal("merged OAA models with different K")
	}
}
