package gd

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sparseson/sparseson/loss"
	"github.com/sparseson/sparseson/model"
	"github.com/sparseson/sparseson/sparse"
)

func wideSquared() loss.Loss { return &loss.Squared{Range: loss.LabelRange{Min: -1e9, Max: 1e9}} }

// The hand computation of two plain SGD steps with --l1 0.1, -l 0.5,
// --power_t 0 on x = e₁, y = 1: p₁ = 0, ℓ' = −2, w = 1, gravity 0.05, so
// the model's weight is 0.95; p₂ = 0.95, ℓ' = −0.1, w = 1.05, gravity 0.1:
// weight 0.95 again. A feature whose stored weight stays below the gravity
// reads as exactly 0.
func TestL1HandComputed(t *testing.T) {
	g, err := New(Config{Bits: 8, Eta: 0.5, L1: 0.1, L1State: true}, wideSquared())
	if err != nil {
		t.Fatal(err)
	}
	ex := &sparse.Example{Idx: []uint32{1}, Val: []float64{1}, Label: 1, HasLabel: true, Weight: 1}
	if p := g.Learn(ex); p != 0 {
		t.Fatalf("p₁ = %v", p)
	}
	if w := g.SlotWeight(1); math.Abs(w-0.95) > 1e-15 {
		t.Fatalf("weight after one step %v, want 0.95", w)
	}
	if p := g.Learn(ex); math.Abs(p-0.95) > 1e-15 {
		t.Fatalf("p₂ = %v, want 0.95", p)
	}
	if w := g.SlotWeight(1); math.Abs(w-0.95) > 1e-15 || math.Abs(g.gravity-0.1) > 1e-15 {
		t.Fatalf("weight %v (want 0.95), gravity %v (want 0.1)", w, g.gravity)
	}
	// Slot 2 learns a tiny weight once; the gravity then exceeds it.
	small := &sparse.Example{Idx: []uint32{2}, Val: []float64{1}, Label: 0.02, HasLabel: true, Weight: 1}
	g.Learn(small) // p = 0, w₂ = 0.02 < gravity 0.15
	if w := g.SlotWeight(2); w != 0 {
		t.Errorf("weight below the gravity reads %v, want 0", w)
	}
	var n int
	g.Weights(func(slot uint32, w float64) {
		if slot == 2 && w != 0 {
			t.Errorf("Weights reports %v for the truncated slot", w)
		}
		n++
	})
	if n != 2 {
		t.Errorf("Weights visited %d slots", n)
	}
}

// A dense reference of VW's rule (plain SGD, --l2 and --l1 together):
// every weight kept, the prediction Σ scale·trunc(w_j, g)·x_j, the step on
// the stored weights divided by the scale. The sparse learner agrees to
// rounding over a run long enough for several syncs.
func TestL1MatchesDenseReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	data := separable(rng, 3000, 50, 6)
	cfg := Config{Bits: 8, Eta: 0.3, PowerT: 0.5, L2: 1e-4, L1: 0.02, L1State: true}
	g, err := New(cfg, loss.Logistic{})
	if err != nil {
		t.Fatal(err)
	}
	w := make([]float64, 256)
	scale, grav, tt := 1.0, 0.0, 0.0
	for i := range data {
		ex := &data[i]
		var dot float64
		for k, j := range ex.Idx {
			dot += trunc(w[j], grav) * ex.Val[k]
		}
		p := scale * dot
		got := g.Learn(ex)
		if math.Abs(got-p) > 1e-9*math.Max(1, math.Abs(p)) {
			t.Fatalf("example %d: sparse %v, dense %v", i, got, p)
		}
		d := loss.Logistic{}.Deriv(p, ex.Label)
		tt++
		eta := cfg.Eta * math.Pow(tt, -cfg.PowerT)
		for k, j := range ex.Idx {
			w[j] += -d * eta / scale * ex.Val[k]
		}
		scale *= 1 - cfg.L2*eta
		grav += cfg.L1 * eta
		if grav > maxGravity || scale < 1e-9 {
			for j := range w {
				w[j] = trunc(w[j], grav) * scale
			}
			grav, scale = 0, 1
		}
	}
}

// Save → load → continue is bit-identical with the gravity in the state;
// and a large --l1 folds the gravity into the weights (VW's sync) so that
// it never grows without bound.
func TestL1SaveLoadAndSync(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	data := separable(rng, 400, 40, 5)
	cfg := Config{Bits: 8, Adaptive: true, Normalized: true, Eta: 0.5, PowerT: 0.5, L1: 1e-3, L1State: true}
	a, _ := New(cfg, loss.Logistic{})
	for i := range data[:200] {
		a.Learn(&data[i])
	}
	var buf bytes.Buffer
	if err := model.Encode(&buf, model.Options{}, a.Save); err != nil {
		t.Fatal(err)
	}
	_, r, err := model.Parse(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	b, err := Load(r, cfg, loss.Logistic{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range data[200:] {
		ex := &data[200+i]
		if pa, pb := a.Learn(ex), b.Learn(ex); pa != pb {
			t.Fatalf("example %d after reload: %v vs %v", 200+i, pa, pb)
		}
	}
	big, _ := New(Config{Bits: 8, Eta: 1, L1: 1e5, L1State: true}, wideSquared())
	for i := range data[:20] {
		big.Learn(&data[i])
		if big.gravity > maxGravity {
			t.Fatalf("gravity %v not folded", big.gravity)
		}
	}
	big.Weights(func(_ uint32, w float64) {
		if w != 0 {
			t.Errorf("weight %v survives --l1 1e5", w)
		}
	})
	if _, err := New(Config{Bits: 8, Eta: 1, L1: 1, Step: StepNASA, NasaC: 1}, wideSquared()); err == nil {
		t.Error("--l1 with a NASA step accepted")
	}
}

// BenchmarkL1 is BenchmarkAdaGrad's steady state with --l1: the
// truncation costs a branch per feature read.
func BenchmarkL1(b *testing.B) {
	rng := rand.New(rand.NewPCG(9, 10))
	data := separable(rng, 4096, 100000, 130)
	g, _ := New(Config{Bits: 18, Adaptive: true, Normalized: true, Eta: 0.5, PowerT: 0.5, L1: 1e-7, L1State: true}, loss.Logistic{})
	for i := range data {
		g.Learn(&data[i])
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		g.Learn(&data[i%len(data)])
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "examples/s")
}
