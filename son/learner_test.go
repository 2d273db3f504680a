package son_test

import (
	"math"
	"runtime"
	"testing"

	"github.com/sparseson/sparseson/internal/dense"
	"github.com/sparseson/sparseson/loss"
	"github.com/sparseson/sparseson/son"
	"github.com/sparseson/sparseson/sparse"
)

// TestNoSketchMatchesDense: SON with m = 0 (A_t = αI) equals dense Alg. 1
// with an empty sketch, with and without pre-scaling and projection.
func TestNoSketchMatchesDense(t *testing.T) {
	for _, c := range []struct {
		lossName string
		C        float64
		diag     bool
	}{{"logistic", 1, false}, {"logistic", math.Inf(1), true}, {"squared", 0.5, false}, {"squared", 2, true}} {
		var l1, l2 loss.Loss = loss.Logistic{}, loss.Logistic{}
		if c.lossName == "squared" {
			l1 = &loss.Squared{Range: loss.LabelRange{Min: -1e9, Max: 1e9}}
			l2 = &loss.Squared{Range: loss.LabelRange{Min: -1e9, Max: 1e9}}
		}
		data := dense.Problem{D: 60, S: 8, T: 1000, Loss: c.lossName, Seed: 3}.Examples()
		sp, err := son.New(son.Config{Bits: 8, C: c.C, Eta0: 1, Diag: c.diag}, l1, &son.NoSketch{A: 2})
		if err != nil {
			t.Fatal(err)
		}
		dn := dense.NewSON(60, c.C, 0, 1, 0, c.diag, l2, dense.NewOja(0, 60, 2, 1))
		for i := range data {
			if a, b := sp.Learn(&data[i]), dn.Learn(&data[i]); dense.Rel(a, b) > 1e-9 {
				t.Fatalf("%+v step %d: sparse %v dense %v", c, i, a, b)
			}
		}
	}
}

// TestProjectionClips: after the projection of Lemma 1 the prediction is
// exactly clip(uᵀx, ±C).
func TestProjectionClips(t *testing.T) {
	data := dense.Problem{D: 40, S: 6, T: 300, Loss: "squared", Seed: 4}.Examples()
	const C = 0.25
	sp, _ := son.New(son.Config{Bits: 8, C: C, Eta0: 1}, &loss.Squared{Range: loss.LabelRange{Min: -9, Max: 9}}, &son.NoSketch{A: 0.5})
	clipped := 0
	for i := range data {
		p := sp.Learn(&data[i])
		if math.Abs(p) > C*(1+1e-12) {
			t.Fatalf("step %d: prediction %v outside ±%v", i, p, C)
		}
		if math.Abs(math.Abs(p)-C) < 1e-12 {
			clipped++
		}
	}
	if clipped == 0 {
		t.Fatal("the projection never acted; the test does not exercise it")
	}
}

// TestPredictCreatesNoState: predicting on unseen features leaves the
// model and its feature table untouched.
func TestPredictCreatesNoState(t *testing.T) {
	sp, _ := son.New(son.Config{Bits: 18, C: 1, Eta0: 1}, loss.Logistic{}, &son.NoSketch{A: 1})
	train := sparse.Example{Label: 1, HasLabel: true, Weight: 1, Idx: []uint32{1, 2}, Val: []float64{1, 1}}
	sp.Learn(&train)
	test := sparse.Example{Weight: 1, Idx: []uint32{1, 99, 100000}, Val: []float64{1, 5, 7}}
	before := sp.Predict(&test)
	if sp.Seen() != 2 {
		t.Fatalf("%d features with state after predicting on unseen ones", sp.Seen())
	}
	if again := sp.Predict(&test); again != before {
		t.Fatal("Predict changed the model")
	}
}

func TestTable(t *testing.T) {
	tab := sparse.NewTable(20, 3)
	if tab.Find(7) != -1 {
		t.Fatal("unseen slot found")
	}
	a, b := tab.Row(7), tab.Row(1<<19)
	if a != 0 || b != 1 || tab.Row(7) != 0 || tab.Len() != 2 || len(tab.Rows) != 6 {
		t.Fatalf("rows %d %d len %d", a, b, tab.Len())
	}
	tab.Rows[3] = 42
	copyTab := sparse.NewTable(20, 3)
	copyTab.Keys, copyTab.Rows = append([]uint32(nil), tab.Keys...), append([]float64(nil), tab.Rows...)
	if err := copyTab.Rebuild(); err != nil || copyTab.Find(1<<19) != 1 || copyTab.Rows[3] != 42 {
		t.Fatalf("rebuild: %v", err)
	}
	bad := sparse.NewTable(4, 1)
	bad.Keys, bad.Rows = []uint32{3, 3}, []float64{0, 0}
	if bad.Rebuild() == nil {
		t.Fatal("duplicate keys accepted")
	}
	bad.Keys = []uint32{99}
	bad.Rows = []float64{0}
	if bad.Rebuild() == nil {
		t.Fatal("out-of-range key accepted")
	}
}

// TestTableRowsDoNotMove: on Linux a table's rows live in reserved address
// space, so adding rows never copies them (the address of row 0 is stable
// up to one row per slot), and a key-only table (stride 0) works.
func TestTableRowsDoNotMove(t *testing.T) {
	tab := sparse.NewTable(10, 7)
	tab.Row(3)
	first := &tab.Rows[0]
	for slot := uint32(0); slot < 1<<10; slot++ {
		r := tab.Row(slot)
		tab.Rows[r*7+6] = float64(slot)
	}
	if tab.Len() != 1<<10 {
		t.Fatalf("%d rows", tab.Len())
	}
	if runtime.GOOS == "linux" && &tab.Rows[0] != first {
		t.Error("rows moved while the table grew")
	}
	for slot := uint32(0); slot < 1<<10; slot++ {
		if v := tab.Rows[tab.Find(slot)*7+6]; v != float64(slot) {
			t.Fatalf("slot %d holds %v", slot, v)
		}
	}
	keys := sparse.NewTable(8, 0)
	if r := keys.Row(200); r != 0 || keys.Find(200) != 0 || keys.Len() != 1 {
		t.Fatal("key-only table")
	}
}
