package reduce

import (
	"bytes"
	"math"
	"runtime"
	"testing"

	"github.com/sparseson/sparseson/gd"
	"github.com/sparseson/sparseson/loss"
	"github.com/sparseson/sparseson/model"
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

// TestOAAMergeParallel: the classes merge on several cores with the bytes
// of a merge on one, with and without a base.
func TestOAAMergeParallel(t *testing.T) {
	const k = 6
	data := classStream(900, k, 5)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	train := func(from, to int, init []byte) *OAA {
		var o *OAA
		var err error
		if init == nil {
			o, err = NewOAA(k, 12, gdFactory(t))
		} else {
			_, r, perr := model.Parse(init)
			if perr != nil {
				t.Fatal(perr)
			}
			o, err = LoadOAA(r, k, 12, gdFactory(t))
		}
		if err != nil {
			t.Fatal(err)
		}
		for j := from; j < to; j++ {
			o.Learn(&data[j])
		}
		return o
	}
	merged := func(procs int) []byte {
		runtime.GOMAXPROCS(procs)
		m, _ := NewOAA(k, 12, gdFactory(t))
		if err := m.Merge(&sparse.MergeArgs{Parts: []sparse.Learner{train(0, 300, nil), train(300, 600, nil)}}); err != nil {
			t.Fatal(err)
		}
		base := encode(t, m)
		b, _ := LoadOAA(mustReader(t, base), k, 12, gdFactory(t))
		m2, _ := NewOAA(k, 12, gdFactory(t))
		if err := m2.Merge(&sparse.MergeArgs{Parts: []sparse.Learner{train(600, 750, base), train(750, 900, base)}, Base: b}); err != nil {
			t.Fatal(err)
		}
		return append(base, encode(t, m2)...)
	}
	want := merged(1)
	for _, procs := range []int{2, 8} {
		if !bytes.Equal(merged(procs), want) {
			t.Fatalf("GOMAXPROCS %d: the merges differ from GOMAXPROCS 1's", procs)
		}
	}
}

func mustReader(t *testing.T, data []byte) *model.Reader {
	t.Helper()
	_, r, err := model.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
