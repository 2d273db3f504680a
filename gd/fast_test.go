package gd

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sparseson/sparseson/loss"
	"github.com/sparseson/sparseson/sparse"
)

// TestAdaNormMatchesGeneral trains the default learner's fast path and the
// general loop of Learn side by side on the same stream and requires the
// same predictions and weights bit for bit: learnAdaNorm promises the
// general loop's arithmetic in its order.
func TestAdaNormMatchesGeneral(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	data := separable(rng, 600, 5000, 40)
	// Scales that grow, vanish and explode, importance weights, a zero
	// gradient and a rejected one, as well as the common case.
	odd := []sparse.Example{
		{Label: 1, Weight: 3, Idx: []uint32{1, 2, 3}, Val: []float64{0.5, 2, -8}},
		{Label: -1, Weight: 1, Idx: []uint32{1, 2, 3}, Val: []float64{40, 1e-3, 1e-160}},
		{Label: 1, Weight: 0.5, Idx: []uint32{4, 1}, Val: []float64{1e200, 1}},
		{Label: 1, Weight: 1e-300, Idx: []uint32{5}, Val: []float64{0}},
		{Label: -1, Weight: 2, Idx: []uint32{2, 6}, Val: []float64{-7, 1e-200}},
		// Values no parser makes, but a library caller may: the fast
		// path reads |x| without NaN's care (the prediction is NaN first).
		{Label: 1, Weight: 1, Idx: []uint32{1, 7}, Val: []float64{math.NaN(), 2}},
		{Label: -1, Weight: 1, Idx: []uint32{7, 2}, Val: []float64{3, math.Inf(-1)}},
	}
	for i := range data {
		if i%3 == 0 {
			data[i].Weight = 0.7 + float64(i%5)*0.13 // importance weights
		}
	}
	for i := range odd {
		odd[i].HasLabel = true
	}
	stream := append(append(append([]sparse.Example{}, odd...), data...), odd...)
	cases := []struct {
		name string
		cfg  Config
		l    loss.Loss
	}{
		{"default", Config{Bits: 18, Adaptive: true, Normalized: true, Eta: 0.5, PowerT: 0.5}, loss.Logistic{}},
		{"squared l2", Config{Bits: 18, Adaptive: true, Normalized: true, Eta: 0.3, PowerT: 0.5, L2: 1e-3}, &loss.Squared{}},
		{"hash index", Config{Bits: 26, Adaptive: true, Normalized: true, Eta: 0.5, PowerT: 0.5, InitialT: 1}, loss.Logistic{}},
		{"delta", Config{Bits: 18, Adaptive: true, Normalized: true, Eta: 0.5, PowerT: 0.5, Delta: 0.1}, loss.Logistic{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fast, err := New(c.cfg, c.l)
			if err != nil {
				t.Fatal(err)
			}
			slow, _ := New(c.cfg, c.l)
			if !fast.adaNorm {
				t.Fatalf("%+v: the fast path is not selected", c.cfg)
			}
			slow.adaNorm = false
			for i := range stream {
				pf, ps := fast.Learn(&stream[i]), slow.Learn(&stream[i])
				if math.Float64bits(pf) != math.Float64bits(ps) {
					t.Fatalf("example %d: fast path predicts %v, general loop %v", i, pf, ps)
				}
			}
			ws := map[uint32]float64{}
			slow.Weights(func(slot uint32, w float64) { ws[slot] = w })
			n := 0
			fast.Weights(func(slot uint32, w float64) {
				n++
				if math.Float64bits(ws[slot]) != math.Float64bits(w) {
					t.Fatalf("slot %d: fast path weight %v, general loop %v", slot, w, ws[slot])
				}
			})
			if n != len(ws) || fast.Rejected() != slow.Rejected() || fast.normSum != slow.normSum || fast.scale != slow.scale {
				t.Fatalf("state differs: %d vs %d features, %d vs %d rejected, normSum %v vs %v, scale %v vs %v",
					n, len(ws), fast.Rejected(), slow.Rejected(), fast.normSum, slow.normSum, fast.scale, slow.scale)
			}
		})
	}
}
