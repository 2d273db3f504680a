package gd

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sparseson/sparseson/loss"
	"github.com/sparseson/sparseson/sparse"
)

func gdWeights(l sparse.Learner) map[uint32]float64 {
	w := map[uint32]float64{}
	l.Weights(func(slot uint32, v float64) { w[slot] = v })
	return w
}

func mergeGD(t *testing.T, cfg Config, wt sparse.Weighting, base sparse.Learner, parts ...sparse.Learner) *GD {
	t.Helper()
	out, err := New(cfg, loss.Logistic{})
	if err != nil {
		t.Fatal(err)
	}
	if err := out.Merge(&sparse.MergeArgs{Parts: parts, Base: base, Weighting: wt}); err != nil {
		t.Fatal(err)
	}
	return out
}

func trainGD(t *testing.T, cfg Config, data []sparse.Example) *GD {
	t.Helper()
	g, err := New(cfg, loss.Logistic{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range data {
		g.Learn(&data[i])
	}
	return g
}

// TestGDMerge checks the first-order merge rules for every update: the
// merge of one model is that model (weights, AdaGrad sums, scales and
// counters, and it trains on identically); the parts' order changes
// nothing but rounding; AdaGrad sums and counters add up exactly; a
// feature only one part has seen keeps that part's weight by evidence, and
// 1/k of it by example counts (k parts of equal counts).
func TestGDMerge(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	data := separable(rng, 900, 40, 6)
	// Features 1000+ occur in one part only.
	for i := range data[:300] {
		data[i].Idx = append(data[i].Idx, 1000+uint32(i%3))
		data[i].Val = append(data[i].Val, 1)
	}
	for _, cfg := range []Config{
		{Bits: 12, Adaptive: true, Normalized: true, Eta: 0.5, PowerT: 0.5},
		{Bits: 12, Adaptive: true, Eta: 0.5, PowerT: 0.5, L2: 1e-4},
		{Bits: 12, Normalized: true, Eta: 0.5, PowerT: 0.5},
		{Bits: 12, Eta: 0.1, PowerT: 0.5, L1: 1e-4, L1State: true},
	} {
		a := trainGD(t, cfg, data[:300])
		b := trainGD(t, cfg, data[300:600])
		c := trainGD(t, cfg, data[600:900])
		one := mergeGD(t, cfg, sparse.ByEvidence, nil, a)
		wa, w1 := gdWeights(a), gdWeights(one)
		for k, v := range wa {
			if math.Abs(w1[k]-v) > 1e-12*(1+math.Abs(v)) {
				t.Fatalf("%+v: merge of one: slot %d weight %v, want %v", cfg, k, w1[k], v)
			}
		}
		if one.t != a.t || one.normSum != a.normSum || one.totalWeight != a.totalWeight {
			t.Fatalf("%+v: merge of one: counters differ", cfg)
		}
		for _, wt := range []sparse.Weighting{sparse.ByEvidence, sparse.ByExamples} {
			m1 := mergeGD(t, cfg, wt, nil, a, b, c)
			m2 := mergeGD(t, cfg, wt, nil, c, a, b)
			w1, w2 := gdWeights(m1), gdWeights(m2)
			for k, v := range w1 {
				if math.Abs(w2[k]-v) > 1e-12*(1+math.Abs(v)) {
					t.Fatalf("%+v %v: order: slot %d %v against %v", cfg, wt, k, v, w2[k])
				}
			}
			if m1.t != a.t+b.t+c.t || m1.totalWeight != a.totalWeight+b.totalWeight+c.totalWeight {
				t.Fatalf("%+v: counters do not add up", cfg)
			}
			for _, slot := range []uint32{1000, 1001, 1002} {
				want := wa[slot]
				if wt == sparse.ByExamples || !cfg.Adaptive {
					want /= 3 // three parts of 300 examples, two never saw it
				}
				if math.Abs(w1[slot]-want) > 1e-12*(1+math.Abs(want)) {
					t.Fatalf("%+v %v: one-part slot %d: %v, want %v", cfg, wt, slot, w1[slot], want)
				}
			}
			if cfg.Adaptive {
				for r, k := range m1.tab.Keys {
					var want float64
					for _, p := range []*GD{a, b, c} {
						if pr := p.tab.Find(k); pr >= 0 {
							want += p.tab.Rows[pr*stride+colG]
						}
					}
					if got := m1.tab.Rows[r*stride+colG]; math.Abs(got-want) > 1e-12*want {
						t.Fatalf("slot %d: AdaGrad sum %v, want %v", k, got, want)
					}
				}
			}
		}
		// The merge of one trains on as the model (not with --l1, whose
		// pending truncation the merge applies; see Merge).
		if cfg.L1 > 0 {
			continue
		}
		for i := range data[:100] {
			if x, y := one.Learn(&data[i]), a.Learn(&data[i]); math.Abs(x-y) > 1e-12*(1+math.Abs(y)) {
				t.Fatalf("%+v: example %d: merge of one learns %v, the model %v", cfg, i, x, y)
			}
		}
	}
}

// TestGDMergeBase: parts that are copies of the base merge into the base;
// with a base, AdaGrad sums and counts are base + Σ(part − base); weights
// stay within the parts' range, by evidence averaged and on new examples
// (ByNewEvidence) with the parts' moves added up, which differs.
func TestGDMergeBase(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	data := separable(rng, 900, 30, 5)
	cfg := Config{Bits: 12, Adaptive: true, Normalized: true, Eta: 0.5, PowerT: 0.5}
	base := trainGD(t, cfg, data[:300])
	clone := func() *GD { return mergeGD(t, cfg, sparse.ByEvidence, nil, base) }
	same := mergeGD(t, cfg, sparse.ByEvidence, base, clone(), clone())
	wb, ws := gdWeights(base), gdWeights(same)
	for k, v := range wb {
		if math.Abs(ws[k]-v) > 1e-12*(1+math.Abs(v)) {
			t.Fatalf("copies of the base: slot %d %v, want %v", k, ws[k], v)
		}
	}
	if same.t != base.t {
		t.Fatalf("copies of the base: t %v, want %v", same.t, base.t)
	}
	a, b := clone(), clone()
	for i := 300; i < 600; i++ {
		a.Learn(&data[i])
	}
	for i := 600; i < 900; i++ {
		b.Learn(&data[i])
	}
	m := mergeGD(t, cfg, sparse.ByEvidence, base, a, b)
	if m.t != a.t+b.t-base.t {
		t.Fatalf("t = %v, want %v", m.t, a.t+b.t-base.t)
	}
	for r, k := range m.tab.Keys {
		g0 := base.tab.Rows[base.tab.Find(k)*stride+colG]
		ga := a.tab.Rows[a.tab.Find(k)*stride+colG]
		gb := b.tab.Rows[b.tab.Find(k)*stride+colG]
		if got, want := m.tab.Rows[r*stride+colG], ga+gb-g0; math.Abs(got-want) > 1e-12*want {
			t.Fatalf("slot %d: AdaGrad sum %v, want %v", k, got, want)
		}
	}
	n := mergeGD(t, cfg, sparse.ByNewEvidence, base, a, b)
	wa, wb, wm, wn := gdWeights(a), gdWeights(b), gdWeights(m), gdWeights(n)
	differ := 0
	for k, v := range wm {
		lo, hi := min(wa[k], wb[k]), max(wa[k], wb[k])
		tol := 1e-12 * (1 + math.Abs(lo) + math.Abs(hi))
		if v < lo-tol || v > hi+tol || wn[k] < lo-tol || wn[k] > hi+tol {
			t.Fatalf("slot %d: by evidence %v, on new examples %v, outside the parts' range [%v, %v]", k, v, wn[k], lo, hi)
		}
		if math.Abs(wn[k]-v) > 1e-9*(1+math.Abs(v)) {
			differ++
		}
	}
	if differ == 0 {
		t.Fatal("ByNewEvidence merged as ByEvidence: the parts' moves were not added up")
	}
}

// TestGDMergeRefuses: NASA's steps, other configurations and other
// learners are refused.
func TestGDMergeRefuses(t *testing.T) {
	cfg := Config{Bits: 12, Adaptive: true, Eta: 0.5, PowerT: 0.5}
	a, _ := New(cfg, loss.Logistic{})
	other, _ := New(Config{Bits: 12, Adaptive: true, Eta: 0.25, PowerT: 0.5}, loss.Logistic{})
	sm, _ := NewSoftmax(cfg, 3)
	for _, part := range []sparse.Learner{other, sm} {
		out, _ := New(cfg, loss.Logistic{})
		if err := out.Merge(&sparse.MergeArgs{Parts: []sparse.Learner{a, part}}); err == nil {
			t.Fatalf("merged a %T of another configuration", part)
		}
	}
	nasa := Config{Bits: 12, Adaptive: true, Eta: 0.5, Step: StepNASA, NasaC: 1}
	out, err := New(nasa, loss.Logistic{})
	if err != nil {
		t.Fatal(err)
	}
	if err := out.Merge(&sparse.MergeArgs{Parts: []sparse.Learner{out}}); err == nil {
		t.Fatal("merged NASA models")
	}
}

// TestSoftmaxMerge: the merge of one softmax model is that model, weight
// for weight, and trains on identically; K-class AdaGrad sums add up.
func TestSoftmaxMerge(t *testing.T) {
	data := classStream(600, 30, 6, 4, 1, 9)
	cfg := Config{Bits: 12, Adaptive: true, Normalized: true, Eta: 0.5, PowerT: 0.5}
	mk := func(d []sparse.Example) *Softmax {
		m, _ := NewSoftmax(cfg, 4)
		for i := range d {
			m.Learn(&d[i])
		}
		return m
	}
	a, b := mk(data[:300]), mk(data[300:])
	one, _ := NewSoftmax(cfg, 4)
	if err := one.Merge(&sparse.MergeArgs{Parts: []sparse.Learner{a}}); err != nil {
		t.Fatal(err)
	}
	for c := 1; c <= 4; c++ {
		w := map[uint32]float64{}
		a.ClassWeights(c, func(s uint32, v float64) { w[s] = v })
		one.ClassWeights(c, func(s uint32, v float64) {
			if math.Abs(w[s]-v) > 1e-12*(1+math.Abs(v)) {
				t.Fatalf("class %d slot %d: %v, want %v", c, s, v, w[s])
			}
		})
	}
	for i := range data[:50] {
		if x, y := one.Learn(&data[i]), a.Learn(&data[i]); x != y {
			t.Fatalf("example %d: %v against %v", i, x, y)
		}
	}
	m, _ := NewSoftmax(cfg, 4)
	if err := m.Merge(&sparse.MergeArgs{Parts: []sparse.Learner{a, b}}); err != nil {
		t.Fatal(err)
	}
	st := m.stride()
	for r, k := range m.tab.Keys {
		for c := 0; c < 4; c++ {
			var want float64
			for _, p := range []*Softmax{a, b} {
				if pr := p.tab.Find(k); pr >= 0 {
					want += p.tab.Rows[pr*st+1+4+c]
				}
			}
			if got := m.tab.Rows[r*st+1+4+c]; math.Abs(got-want) > 1e-12*(1+want) {
				t.Fatalf("slot %d class %d: AdaGrad sum %v, want %v", k, c+1, got, want)
			}
		}
	}
}
