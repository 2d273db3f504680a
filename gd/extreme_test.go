package gd

import (
	"bytes"
	"testing"

	"github.com/sparseson/sparseson/internal/linalg"
	"github.com/sparseson/sparseson/loss"
	"github.com/sparseson/sparseson/model"
	"github.com/sparseson/sparseson/sparse"
)

// saveLoadFinite checks that g's weights are finite and that its saved
// model loads and saves the same bytes again.
func saveLoadFinite(t *testing.T, g *GD, cfg Config, l loss.Loss) {
	t.Helper()
	g.Weights(func(slot uint32, w float64) {
		if !linalg.IsFinite(w) {
			t.Fatalf("weight of slot %d is %v", slot, w)
		}
	})
	var buf bytes.Buffer
	if err := model.Encode(&buf, model.Options{}, g.Save); err != nil {
		t.Fatal(err)
	}
	_, r, err := model.Parse(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	b, err := Load(r, cfg, l)
	if err != nil {
		t.Fatalf("the saved model does not load: %v", err)
	}
	var again bytes.Buffer
	if err := model.Encode(&again, model.Options{}, b.Save); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), again.Bytes()) {
		t.Error("the loaded model saves other bytes")
	}
}

// TestADADiagDualExtreme (FuzzLearners 6aa0545e6a36f5fd): under dual
// averaging with --power_t 0 a weight grows with ḡ, the classic loss's
// derivative with the score, and h·(ℓ′x)² overflowed G_j (and then ḡ_j):
// the model was saved with +Inf and did not load. A feature's gradient
// beyond ±1e150 is now refused (counted), and G_j saturates.
func TestADADiagDualExtreme(t *testing.T) {
	cfg := Config{Bits: 8, Adaptive: true, Dual: true, Eta: 0.5, PowerT: 0}
	l := &loss.Classic{}
	g, err := New(cfg, l)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []float64{1e72, 1e54, 1e54, 1e72, 1e-300} {
		ex := sparse.Example{HasLabel: true, Label: 1, Weight: 1e9, Idx: []uint32{3}, Val: []float64{v}}
		if p := g.Learn(&ex); !linalg.IsFinite(p) {
			t.Fatalf("prediction %v", p)
		}
	}
	if g.Rejected() == 0 {
		t.Error("no step refused")
	}
	saveLoadFinite(t, g, cfg, l)
	// A tiny importance weight with a huge ℓ′·x: h·ℓ′·x is in range, but
	// h·(ℓ′x)² is not; G_j saturates.
	g, _ = New(cfg, l)
	ex := sparse.Example{HasLabel: true, Label: 1e18, Weight: 1e-300, Idx: []uint32{3}, Val: []float64{1e200}}
	g.Learn(&ex)
	saveLoadFinite(t, g, cfg, l)
}

// TestNASAUnderflowLoads (FuzzLearners 62707d444edb602a): with importance
// weights of 1e-300 the squares of the gradient sums underflow; the
// incremental ‖G‖² (0) and its exact re-sum (1e-312) then differ by more
// than the loader's relative tolerance, and the saved model was refused.
func TestNASAUnderflowLoads(t *testing.T) {
	cfg := Config{Bits: 8, Eta: 0.5, Step: StepNASAStrong, NasaH: 1}
	l := &loss.Expectile{Q: 0.25}
	l.Observe(-2)
	g, err := New(cfg, l)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range []float64{1e-18, 1e72, 1e54, 1e54, 1e54, 1e144} {
		ex := sparse.Example{HasLabel: true, Label: -2, Weight: 1e-300, Idx: []uint32{uint32(1 + min(i, 1))}, Val: []float64{v}}
		g.Learn(&ex)
	}
	saveLoadFinite(t, g, cfg, l)
}

// TestNASANonNegativeSumSq (FuzzLearners 4e68b426672e1c89): the
// incremental ‖G‖² += 2·gs·(G·x) + ‖g‖² cancelled below zero (a gradient of
// importance 1e18 undoing a sum of 1e-300 ones, x spanning 1e9…2e-18),
// and the saved model was refused ("negative sum of squares"). It is
// kept ≥ 0, as ‖G‖² is.
func TestNASANonNegativeSumSq(t *testing.T) {
	cfg := Config{Bits: 10, Eta: 0.5, Step: StepNASAStrong, NasaH: 1}
	l := &loss.Squared{}
	g, err := New(cfg, l)
	if err != nil {
		t.Fatal(err)
	}
	for _, ex := range []sparse.Example{
		{Label: -1e18, Weight: 1e-300, Idx: []uint32{816}, Val: []float64{3.0000000000000002e-18}},
		{Label: -1e18, Weight: 1e-300, Idx: []uint32{816}, Val: []float64{3.0000000000000005e-36}},
		{Label: 1e18, Weight: 1e-300},
		{Label: 100, Weight: 1e-300, Initial: -1e18, Idx: []uint32{961, 82}, Val: []float64{1e9, 2e-18}},
		{Label: 100, Weight: 1e18, Initial: -1e18, Idx: []uint32{961, 82}, Val: []float64{1e9, 2e-18}},
		{Label: 100, Weight: 1e18, Initial: -1e18, Idx: []uint32{961, 82}, Val: []float64{1e9, 2e-18}},
	} {
		ex.HasLabel = true
		l.Observe(ex.Label)
		g.Learn(&ex)
	}
	saveLoadFinite(t, g, cfg, l)
}
