package gd

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/sparseson/sparseson/internal/dense"
	"github.com/sparseson/sparseson/internal/linalg"
	"github.com/sparseson/sparseson/loss"
	"github.com/sparseson/sparseson/model"
	"github.com/sparseson/sparseson/sparse"
)

// drawSparse fills ex with smin..smax distinct features of d; values are
// mean + noise·N(0,1), the label bias + N(0, 1) and the importance weight
// in (0, 2], or with unit the label bias and the weight 1.
func drawSparse(rng *rand.Rand, ex *sparse.Example, d, smin, smax int, mean, noise, bias float64, unit bool) {
	ex.Reset()
	ex.HasLabel = true
	ex.Label = bias
	if !unit {
		ex.Weight = 2 * (1 - rng.Float64())
		ex.Label += rng.NormFloat64()
	}
	for _, j := range rng.Perm(d)[:smin+rng.IntN(smax-smin+1)] {
		ex.Idx = append(ex.Idx, uint32(j))
		ex.Val = append(ex.Val, mean+noise*rng.NormFloat64())
	}
}

// randomSparse draws n examples with drawSparse.
func randomSparse(rng *rand.Rand, n, d, smin, smax int, mean, noise, bias float64) []sparse.Example {
	out := make([]sparse.Example, n)
	for t := range out {
		drawSparse(rng, &out[t], d, smin, smax, mean, noise, bias, false)
	}
	return out
}

func squaredLoss() loss.Loss { return &loss.Squared{Range: loss.LabelRange{Min: -1e9, Max: 1e9}} }

// TestVariationIncremental: the O(s) ‖δ̄_t‖² (docs/algorithms.md §8) equals the
// direct O(d) computation from the dense running sum, step by step, across
// many exact re-sums of ‖G‖²: 10⁵ steps of sparse zero-mean gradients, and
// of sparse gradients with a large common mean; then 2·10⁴ steps of
// examples that hold all features but one, with unit importance and
// gradients that barely vary about a large mean, so that ‖δ̄_t‖² ≈ ‖ḡ‖²/d
// comes almost wholly from the complement term, a 10⁻³ part of N′; and
// 2·10⁴ steps of dense examples whose gradients vary by 10⁻⁵ of their mean
// (‖δ̄_t‖² ≈ 10⁻¹¹‖ḡ‖²), where both the expanded form
// ‖g‖² − 2g·G/t + N′/t² and the split with the complement taken as
// N′ − Σ_I G_j² are off by 10⁻⁵: the last two run the directly summed
// complement.
func TestVariationIncremental(t *testing.T) {
	for _, tc := range []struct {
		name                 string
		steps, d, smin, smax int
		mean, noise, bias, c float64
		minResums            int
		maxVarToMean         float64
	}{
		{"sparse zero-mean", 100000, 1000, 1, 30, 0, 1, 0, 0.1, 1000, math.Inf(1)},
		{"sparse with mean", 100000, 1000, 1, 30, 3, 1, 50, 1e-4, 1000, math.Inf(1)},
		{"all but one feature", 20000, 1000, 999, 999, 3, 0.01, 50, 1e-7, 10000, 2e-3},
		{"dense, nearly constant", 20000, 300, 300, 300, 3, 1e-5, 50, 1e-9, 10000, 1e-9},
	} {
		t.Run(tc.name, func(t *testing.T) {
			steps, d := tc.steps, tc.d
			if testing.Short() {
				steps /= 5
			}
			rng := rand.New(rand.NewPCG(11, 12))
			g, err := New(Config{Bits: 10, Eta: 1, Step: StepNASA, NasaC: tc.c}, squaredLoss())
			if err != nil {
				t.Fatal(err)
			}
			lf := squaredLoss()
			sum, gvec := make([]float64, d), make([]float64, d)
			var worst float64
			var ex sparse.Example
			for i := 0; i < steps; i++ {
				drawSparse(rng, &ex, d, tc.smin, tc.smax, tc.mean, tc.noise, tc.bias, tc.noise < 1)
				p := g.Learn(&ex)
				gs := ex.Weight * lf.Deriv(p, ex.Label)
				for k, j := range ex.Idx {
					gvec[j] = gs * ex.Val[k]
					sum[j] += gvec[j]
				}
				// δ̄_t = g_t − Σ_{i≤t} g_i / t, over all d features.
				tt := float64(i + 1)
				var direct, mean2 float64
				for j := range sum {
					dj := gvec[j] - sum[j]/tt
					direct += dj * dj
					mean2 += sum[j] * sum[j] / (tt * tt)
				}
				for _, j := range ex.Idx {
					gvec[j] = 0
				}
				if i == 0 {
					direct = gs * gs * ex.NormSq() // the first-step guard
				}
				rel := math.Abs(g.ns.lastVar-direct) / direct
				worst = math.Max(worst, rel)
				if rel > 1e-9 {
					t.Fatalf("step %d: incremental ‖δ̄‖² = %.17g, direct %.17g (rel %.3g)", i+1, g.ns.lastVar, direct, rel)
				}
				if i == steps-1 && direct/mean2 > tc.maxVarToMean {
					t.Fatalf("‖δ̄_T‖²/‖ḡ‖² = %.3g: the regime is not the one meant", direct/mean2)
				}
			}
			if g.ns.resums < tc.minResums*steps/tc.steps {
				t.Fatalf("only %d exact re-sums over %d steps", g.ns.resums, steps)
			}
			t.Logf("%d steps, %d re-sums, worst relative difference %.3g", steps, g.ns.resums, worst)
		})
	}
}

// oracleData is a small problem for the dense comparison: d features, up
// to smax per example, labels ±1 from a noisy linear rule (for squared loss
// too), so all three losses see informative gradients.
func oracleData(seed uint64, n, d, smax int) []sparse.Example {
	rng := rand.New(rand.NewPCG(seed, 13))
	theta := make([]float64, d)
	for j := range theta {
		theta[j] = rng.NormFloat64()
	}
	out := randomSparse(rng, n, d, 1, smax, 0, 1, 0)
	for i := range out {
		var m float64
		for k, j := range out[i].Idx {
			m += theta[j] * out[i].Val[k]
		}
		out[i].Label = math.Copysign(1, m+0.3*rng.NormFloat64())
		out[i].Initial = 0.1 * rng.NormFloat64()
	}
	return out
}

func newLoss(name string) loss.Loss {
	switch name {
	case "hinge":
		return &loss.Hinge{}
	case "logistic":
		return loss.Logistic{}
	}
	return squaredLoss()
}

// stepConfigs are the Ouyang & Gray (KDD 2012) steps with constants that move the model
// visibly on oracleData.
var stepConfigs = []struct {
	rule string
	cfg  Config
}{
	{"nasa", Config{Step: StepNASA, NasaC: 0.5}},
	{"nasa_strong", Config{Step: StepNASAStrong, NasaH: 4}},
	{"nasa_accel", Config{Step: StepNASAAccel, NasaC: 0.5, NasaL: 2}},
	{"scalar_adagrad", Config{Step: StepScalarAdaGrad, Eta: 0.5}},
	{"sadagrad", Config{Step: StepSAdaGrad, NasaH: 4}},
}

// TestNASAOracle: the sparse learner equals the dense one written from the
// paper (internal/dense/nasa.go) to 1e-12 over 1000 steps, for squared,
// hinge and logistic loss, with and without --l2. The closed loop is not
// chaotic here: a 1e-15 perturbation of the data moves the dense
// learner's predictions by at most ~1e-14 (logged), so 1e-12 is both
// attainable and a real test.
func TestNASAOracle(t *testing.T) {
	const steps = 1000
	data := oracleData(21, steps, 12, 6)
	for _, sc := range stepConfigs {
		for _, lossName := range []string{"squared", "hinge", "logistic"} {
			for _, l2 := range []float64{0, 1e-3} {
				name := fmt.Sprintf("%s/%s/l2=%g", sc.rule, lossName, l2)
				t.Run(name, func(t *testing.T) {
					cfg := sc.cfg
					cfg.Bits, cfg.L2 = 8, l2
					if cfg.Eta == 0 {
						cfg.Eta = 1
					}
					mkDense := func() *dense.NASA {
						n := dense.NewNASA(12, sc.rule, newLoss(lossName))
						n.C, n.H, n.L, n.Eta, n.L2 = cfg.NasaC, cfg.NasaH, cfg.NasaL, cfg.Eta, l2
						return n
					}
					sens := dense.Sensitivity(func() interface{ Learn(*sparse.Example) float64 } { return mkDense() }, data, 5)
					if sens > 1e-13 {
						t.Fatalf("the dense learner amplifies a 1e-15 perturbation to %.3g: 1e-12 would not be a fair bound", sens)
					}
					ref := mkDense()
					g, err := New(cfg, newLoss(lossName))
					if err != nil {
						t.Fatal(err)
					}
					var worst float64
					for i := range data {
						pg, pd := g.Learn(&data[i]), ref.Learn(&data[i])
						if r := dense.Rel(pg, pd); r > 1e-12 {
							t.Fatalf("step %d: sparse %.17g, dense %.17g (rel %.3g)", i+1, pg, pd, r)
						} else {
							worst = math.Max(worst, r)
						}
					}
					want := ref.X
					if sc.rule == "nasa_accel" {
						want = ref.Ag
					}
					var moved float64
					g.Weights(func(slot uint32, w float64) {
						moved = math.Max(moved, math.Abs(w))
						if r := dense.Rel(w, want[slot]); r > 1e-12 {
							t.Fatalf("w[%d] = %.17g, dense %.17g", slot, w, want[slot])
						}
					})
					if moved < 1e-2 {
						t.Fatalf("the model hardly moved (max |w| = %g): the comparison proves nothing", moved)
					}
					t.Logf("worst prediction difference %.3g, sensitivity %.3g, max |w| %.3g", worst, sens, moved)
				})
			}
		}
	}
}

// TestNASADiagOracle: per-feature NASA equals its dense reference, which
// updates every coordinate's V_j at every step, to 1e-12 over 1000 steps —
// so the lazy catch-up of V_j over the steps a feature missed (through the
// potential U_j) is exact — for the three losses, with and without VW's
// normalization and --l2. With 100 features and 1–4 per example, a feature
// is missed for 40 steps on average.
func TestNASADiagOracle(t *testing.T) {
	const steps, d = 1000, 100
	data := oracleData(22, steps, d, 4)
	for _, lossName := range []string{"squared", "hinge", "logistic"} {
		for _, normalized := range []bool{false, true} {
			for _, l2 := range []float64{0, 1e-3} {
				t.Run(fmt.Sprintf("%s/normalized=%v/l2=%g", lossName, normalized, l2), func(t *testing.T) {
					const c = 0.3
					mk := func() *dense.NASADiag {
						n := dense.NewNASADiag(d, c, normalized, newLoss(lossName))
						n.L2 = l2
						return n
					}
					sens := dense.Sensitivity(func() interface{ Learn(*sparse.Example) float64 } { return mk() }, data, 5)
					if sens > 1e-13 {
						t.Fatalf("the dense learner amplifies a 1e-15 perturbation to %.3g", sens)
					}
					ref := mk()
					g, err := New(Config{Bits: 8, Adaptive: true, Normalized: normalized, Eta: 1, PowerT: 0.5, L2: l2, Step: StepNASA, NasaC: c}, newLoss(lossName))
					if err != nil {
						t.Fatal(err)
					}
					var worst float64
					for i := range data {
						pg, pd := g.Learn(&data[i]), ref.Learn(&data[i])
						if r := dense.Rel(pg, pd); r > 1e-12 {
							t.Fatalf("step %d: sparse %.17g, dense %.17g (rel %.3g)", i+1, pg, pd, r)
						} else {
							worst = math.Max(worst, r)
						}
					}
					var moved float64
					g.Weights(func(slot uint32, w float64) {
						moved = math.Max(moved, math.Abs(w))
						if r := dense.Rel(w, ref.W[slot]); r > 1e-12 {
							t.Fatalf("w[%d] = %.17g, dense %.17g", slot, w, ref.W[slot])
						}
					})
					if moved < 1e-2 {
						t.Fatalf("the model hardly moved (max |w| = %g)", moved)
					}
					t.Logf("worst prediction difference %.3g, sensitivity %.3g, max |w| %.3g", worst, sens, moved)
				})
			}
		}
	}
}

// TestNASAFirstStep: the guarded first step of Eq. 10 moves x by exactly c
// (η_1 = c/‖g_1‖), and a stream of identical gradients keeps that step
// instead of dividing by a vanishing sum.
func TestNASAFirstStep(t *testing.T) {
	const c = 0.25
	g, _ := New(Config{Bits: 8, Eta: 1, Step: StepNASA, NasaC: c}, loss.Logistic{})
	ex := sparse.Example{Label: 1, HasLabel: true, Weight: 1, Idx: []uint32{1, 2, 3}, Val: []float64{1, -2, 0.5}}
	g.Learn(&ex)
	var n2 float64
	g.Weights(func(_ uint32, w float64) { n2 += w * w })
	if math.Abs(math.Sqrt(n2)-c) > 1e-15 {
		t.Fatalf("first step moved x by %v, want c = %v", math.Sqrt(n2), c)
	}
	// Zero-gradient examples (hinge beyond the margin) then identical ones.
	h, _ := New(Config{Bits: 8, Eta: 1, Step: StepNASA, NasaC: c}, &loss.Hinge{})
	for i := 0; i < 1000; i++ {
		p := h.Learn(&ex)
		if !linalg.IsFinite(p) || math.Abs(p) > 1e3 {
			t.Fatalf("step %d: prediction %v", i, p)
		}
	}
}

// withDiag adds per-feature NASA (plain and normalized) to stepConfigs.
var withDiag = append([]struct {
	rule string
	cfg  Config
}{
	{"nasa per feature", Config{Step: StepNASA, NasaC: 0.5, Adaptive: true, PowerT: 0.5}},
	{"nasa per feature, normalized", Config{Step: StepNASA, NasaC: 0.5, Adaptive: true, Normalized: true, PowerT: 0.5}},
}, stepConfigs...)

// TestNASASaveLoad: save → load → continue is bit-identical for every
// step, with re-sums of ‖G‖² and (accelerated) re-bases after the load.
func TestNASASaveLoad(t *testing.T) {
	for _, sc := range withDiag {
		for _, l2 := range []float64{0, 1e-3} {
			cfg := sc.cfg
			cfg.Bits, cfg.L2 = 12, l2
			if cfg.Eta == 0 {
				cfg.Eta = 1
			}
			rng := rand.New(rand.NewPCG(7, 8))
			data := separable(rng, 4000, 300, 15)
			a, err := New(cfg, loss.Logistic{})
			if err != nil {
				t.Fatal(err)
			}
			for i := range data[:1000] {
				a.Learn(&data[i])
			}
			path := filepath.Join(t.TempDir(), "m")
			if err := model.Save(path, nil, a.Save); err != nil {
				t.Fatal(err)
			}
			_, r, err := model.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			b, err := Load(r, cfg, loss.Logistic{})
			if err != nil {
				t.Fatalf("%s: %v", sc.rule, err)
			}
			resums, rebases := a.ns.resums, a.ns.rebases
			for i := range data[1000:] {
				ex := &data[1000+i]
				if pa, pb := a.Predict(ex), b.Predict(ex); pa != pb {
					t.Fatalf("%s l2=%g: predict %v vs %v", sc.rule, l2, pa, pb)
				}
				if pa, pb := a.Learn(ex), b.Learn(ex); pa != pb {
					t.Fatalf("%s l2=%g: learn %v vs %v", sc.rule, l2, pa, pb)
				}
			}
			if sc.cfg.Step.tracksVariation() && !sc.cfg.Adaptive && a.ns.resums == resums {
				t.Fatalf("%s: no re-sum after the load", sc.rule)
			}
			if sc.rule == "nasa_accel" && a.ns.rebases == rebases {
				t.Fatalf("no re-base of the split after the load (%v so far)", rebases)
			}
			a.Weights(func(slot uint32, w float64) {
				if r := b.tab.Find(slot); r < 0 {
					t.Fatalf("slot %d missing after load", slot)
				}
			})
		}
	}
}

// TestNASALoadRefusesCorrupt: a state no run can produce is refused.
func TestNASALoadRefusesCorrupt(t *testing.T) {
	cfg := Config{Bits: 10, Eta: 1, Step: StepNASAAccel, NasaC: 0.5, NasaL: 2}
	for _, tc := range []struct {
		name  string
		spoil func(s *scalarState)
	}{
		{"NaN sum", func(s *scalarState) { s.varSum = math.NaN() }},
		{"max above sum", func(s *scalarState) { s.varMax = 2*s.varSum + 1 }},
		{"negative", func(s *scalarState) { s.gradSum = -1 }},
		{"fractional steps", func(s *scalarState) { s.steps += 0.5 }},
		{"singular split", func(s *scalarState) { s.a, s.b, s.c, s.e = 1, 1, 1, 1 }},
		{"‖G‖² off", func(s *scalarState) { s.sumSq = 3*s.sumSq + 1e6 }},
	} {
		rng := rand.New(rand.NewPCG(1, 2))
		data := separable(rng, 200, 50, 5)
		a, _ := New(cfg, loss.Logistic{})
		for i := range data {
			a.Learn(&data[i])
		}
		tc.spoil(&a.ns)
		path := filepath.Join(t.TempDir(), "m")
		if err := model.Save(path, nil, a.Save); err != nil {
			t.Fatal(err)
		}
		_, r, err := model.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Load(r, cfg, loss.Logistic{}); !errors.Is(err, model.ErrCorrupt) {
			t.Errorf("%s: Load returned %v, want a corrupt-model error", tc.name, err)
		}
	}
}

func TestNASAConfigErrors(t *testing.T) {
	for _, cfg := range []Config{
		{Bits: 8, Eta: 1, Step: StepNASA},
		{Bits: 8, Eta: 1, Step: StepNASA, NasaC: 1, Normalized: true},
		{Bits: 8, Eta: 1, Step: StepNASAStrong, NasaH: 1, Adaptive: true},
		{Bits: 8, Eta: 1, Step: StepScalarAdaGrad, Normalized: true},
		{Bits: 8, Eta: 1, Step: StepNASAStrong, NasaH: math.Inf(1)},
		{Bits: 8, Eta: 1, Step: StepNASAAccel, NasaC: 1},
		{Bits: 8, Eta: 1, Step: StepSAdaGrad},
		{Bits: 8, Eta: 1, Step: Step(99)},
	} {
		if _, err := New(cfg, loss.Logistic{}); err == nil {
			t.Errorf("%+v: no error", cfg)
		}
	}
	for s := StepSchedule; s <= StepSAdaGrad; s++ {
		if p, err := ParseStep(s.String()); err != nil || p != s {
			t.Errorf("ParseStep(%q) = %v, %v", s, p, err)
		}
	}
}

func TestNASANoNaNFromHugeValues(t *testing.T) {
	for _, sc := range withDiag {
		cfg := sc.cfg
		cfg.Bits, cfg.L2 = 8, 1e-3
		if cfg.Eta == 0 {
			cfg.Eta = 10
		}
		g, _ := New(cfg, &loss.Squared{})
		ex := sparse.Example{Label: 1e18, HasLabel: true, Weight: 1e18, Idx: []uint32{1, 2}, Val: []float64{1e18, -1e18}}
		small := sparse.Example{Label: -1, HasLabel: true, Weight: 1, Idx: []uint32{1, 3}, Val: []float64{1e-18, 1}}
		for i := 0; i < 100; i++ {
			g.Learn(&ex)
			g.Learn(&small)
		}
		g.Weights(func(_ uint32, w float64) {
			if !linalg.IsFinite(w) {
				t.Fatalf("%s: non-finite weight %v", sc.rule, w)
			}
		})
		if err := g.checkScalarState(); err != nil {
			t.Fatalf("%s: %v", sc.rule, err)
		}
	}
}

func BenchmarkNASA(b *testing.B) {
	for _, sc := range withDiag {
		b.Run(sc.rule, func(b *testing.B) {
			cfg := sc.cfg
			cfg.Bits = 18
			if cfg.Eta == 0 {
				cfg.Eta = 0.5
			}
			rng := rand.New(rand.NewPCG(9, 10))
			data := separable(rng, 4096, 100000, 130)
			g, _ := New(cfg, loss.Logistic{})
			for i := range data {
				g.Learn(&data[i]) // every feature seen: steady state
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				g.Learn(&data[i%len(data)])
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "examples/s")
		})
	}
}

// TestTailInvSq checks R(n) = Σ_{i>n} 1/i² (per-feature NASA's potential)
// against π²/6 − Σ_{i≤n} 1/i² for small n and a compensated direct sum of
// the tail (10⁷ terms past n, plus Euler–Maclaurin beyond).
func TestTailInvSq(t *testing.T) {
	var head float64
	for n := 0; n <= 40; n++ {
		if n > 0 {
			head += 1 / float64(n*n)
		}
		if got, want := tailInvSq(float64(n)), math.Pi*math.Pi/6-head; math.Abs(got-want) > 4e-16 {
			t.Errorf("R(%d) = %.17g, want %.17g", n, got, want)
		}
	}
	for _, n := range []float64{25, 1000, 123456} {
		const m = 1e7
		// Σ_{i>n+m} by Euler–Maclaurin, then the terms, compensated (Neumaier).
		want, comp := 1/(n+m+0.5)+1/(12*math.Pow(n+m+0.5, 3)), 0.0
		for i := n + m; i > n; i-- {
			term := 1 / (i * i)
			sum := want + term
			if math.Abs(want) >= math.Abs(term) {
				comp += (want - sum) + term
			} else {
				comp += (term - sum) + want
			}
			want = sum
		}
		want += comp
		if got := tailInvSq(n); math.Abs(got-want) > 1e-14*want {
			t.Errorf("R(%v) = %.17g, direct %.17g (rel %.2g)", n, got, want, math.Abs(got-want)/want)
		}
	}
}
