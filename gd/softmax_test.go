package gd

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sparseson/sparseson/internal/dense"
	"github.com/sparseson/sparseson/model"
	"github.com/sparseson/sparseson/sparse"
)

// classStream draws n examples of s distinct features out of d, values
// N(0,1) times a per-feature scale e^{U(−spread, spread)}, the class the
// argmax of a hidden K×d rule plus noise, importance weights in [0.5, 2].
func classStream(n, d, s, k int, spread float64, seed uint64) []sparse.Example {
	rng := rand.New(rand.NewPCG(seed, 0x50f7))
	scale := make([]float64, d)
	theta := make([][]float64, k)
	for j := range scale {
		scale[j] = math.Exp(spread * (2*rng.Float64() - 1))
	}
	for c := range theta {
		theta[c] = make([]float64, d)
		for j := range theta[c] {
			theta[c][j] = rng.NormFloat64() / scale[j]
		}
	}
	out := make([]sparse.Example, n)
	for t := range out {
		ex := &out[t]
		ex.HasLabel, ex.Weight = true, 0.5+1.5*rng.Float64()
		for _, j := range rng.Perm(d)[:s] {
			ex.Idx = append(ex.Idx, uint32(j))
			ex.Val = append(ex.Val, rng.NormFloat64()*scale[j])
		}
		best := math.Inf(-1)
		for c := range theta {
			m := rng.NormFloat64()
			for i, j := range ex.Idx {
				m += theta[c][j] * ex.Val[i]
			}
			if m > best {
				best, ex.Label = m, float64(c+1)
			}
		}
	}
	return out
}

var softmaxCases = []struct {
	name string
	cfg  Config
}{
	{"adaptive+normalized", Config{Adaptive: true, Normalized: true, Eta: 0.5, PowerT: 0.5}},
	{"adaptive", Config{Adaptive: true, Eta: 0.5, PowerT: 0.5}},
	{"adaptive power_t 0.4", Config{Adaptive: true, Normalized: true, Eta: 0.3, PowerT: 0.4}},
	{"normalized", Config{Normalized: true, Eta: 0.5, PowerT: 0.5}},
	{"sgd", Config{Eta: 0.05, PowerT: 0.5, InitialT: 1}},
	{"adaptive+normalized l2", Config{Adaptive: true, Normalized: true, Eta: 0.5, PowerT: 0.5, L2: 1e-3}},
}

// TestSoftmaxMatchesDense: the sparse rows equal the dense K×d reference
// to 1e-9 relative in every score of 1000 progressive predictions and in
// every final weight, for each update rule. The loop is closed (each step
// depends on the weights so far), so the reference's sensitivity to a
// 1e-15 perturbation of the data is measured first: it must be far below
// the tolerance, or the comparison would test the stream, not the code.
func TestSoftmaxMatchesDense(t *testing.T) {
	const k, d, s, T = 4, 30, 8, 1000
	data := classStream(T, d, s, k, 2, 1)
	for _, tc := range softmaxCases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg
			cfg.Bits = 8
			mkDense := func() *dense.Softmax {
				return dense.NewSoftmax(k, d, cfg.Adaptive, cfg.Normalized, cfg.Eta, cfg.PowerT, cfg.InitialT, cfg.L2)
			}
			ref, pert := mkDense(), mkDense()
			pd := dense.Perturb(data, 3)
			var sens float64
			for i := range data {
				a, b := ref.Learn(&data[i]), pert.Learn(&pd[i])
				for c := range a {
					sens = max(sens, dense.Rel(a[c], b[c]))
				}
			}
			if sens > 1e-11 {
				t.Fatalf("the reference amplifies a 1e-15 perturbation to %.2g: too chaotic for a 1e-9 comparison", sens)
			}
			sm, err := NewSoftmax(cfg, k)
			if err != nil {
				t.Fatal(err)
			}
			ref = mkDense()
			var worst float64
			for i := range data {
				want := ref.Learn(&data[i])
				pred := sm.Learn(&data[i])
				for c := range want {
					worst = max(worst, dense.Rel(sm.s[c], want[c]), dense.Rel(sm.p[c], ref.P[c]))
				}
				// Early on several classes can tie up to rounding.
				if top := argmaxOf(want); pred != float64(top) && dense.Rel(want[top-1], want[int(pred)-1]) > 1e-9 {
					t.Fatalf("step %d: predicted class %v, reference %d (%v vs %v)", i, pred, top, sm.s, want)
				}
			}
			for c := 1; c <= k; c++ {
				seen := 0
				sm.ClassWeights(c, func(slot uint32, w float64) {
					seen++
					worst = max(worst, dense.Rel(w, ref.W[c-1][slot]))
				})
				if seen != d {
					t.Fatalf("class %d: %d weights, want %d", c, seen, d)
				}
			}
			if worst > 1e-9 {
				t.Fatalf("sparse vs dense: worst relative difference %.3g > 1e-9 (sensitivity %.2g)", worst, sens)
			}
			t.Logf("worst relative difference %.2g, sensitivity %.2g", worst, sens)
		})
	}
}

func argmaxOf(s []float64) int {
	arg := 0
	for c := range s {
		if s[c] > s[arg] {
			arg = c
		}
	}
	return arg + 1
}

func encodeSoftmax(t *testing.T, m *Softmax) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := model.Encode(&buf, model.Options{}, m.Save); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestSoftmaxSaveLoadContinue: saving, loading and continuing gives the
// same predictions and the same saved bytes as never stopping.
func TestSoftmaxSaveLoadContinue(t *testing.T) {
	data := classStream(1000, 50, 10, 5, 1, 2)
	for _, tc := range softmaxCases {
		cfg := tc.cfg
		cfg.Bits = 10
		a, _ := NewSoftmax(cfg, 5)
		for i := range data[:500] {
			a.Learn(&data[i])
		}
		_, r, err := model.Parse(encodeSoftmax(t, a))
		if err != nil {
			t.Fatal(err)
		}
		b, err := LoadSoftmax(r, cfg, 5)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		for i := range data[500:] {
			ex := &data[500+i]
			if pa, pb := a.Learn(ex), b.Learn(ex); pa != pb || a.p[0] != b.p[0] {
				t.Fatalf("%s: step %d after load: %v vs %v", tc.name, i, pa, pb)
			}
		}
		if !bytes.Equal(encodeSoftmax(t, a), encodeSoftmax(t, b)) {
			t.Fatalf("%s: saved states differ after continuing", tc.name)
		}
	}
}

// TestSoftmaxLoadRefuses: a model whose class count, counters or rows are
// damaged is refused as corrupt.
func TestSoftmaxLoadRefuses(t *testing.T) {
	cfg := Config{Bits: 8, Adaptive: true, Normalized: true, Eta: 0.5, PowerT: 0.5}
	a, _ := NewSoftmax(cfg, 3)
	for _, ex := range classStream(50, 20, 5, 3, 0, 3) {
		a.Learn(&ex)
	}
	cases := []struct {
		name string
		save func(w *model.Writer) error
		k    int
	}{
		{"wrong K", a.Save, 4},
		{"NaN scale", func(w *model.Writer) error {
			w.Uint32(3)
			for _, v := range []float64{math.NaN(), 1, 1, 1} {
				w.Float64(v)
			}
			w.Uint32s(nil)
			w.Float64s(nil)
			return nil
		}, 3},
		{"negative AdaGrad sum", func(w *model.Writer) error {
			w.Uint32(3)
			for _, v := range []float64{1, 1, 1, 1} {
				w.Float64(v)
			}
			w.Uint32s([]uint32{5})
			w.Float64s([]float64{1, 0, 0, 0, 1, -1, 1})
			return nil
		}, 3},
		{"rows of the wrong width", func(w *model.Writer) error {
			w.Uint32(3)
			for _, v := range []float64{1, 1, 1, 1} {
				w.Float64(v)
			}
			w.Uint32s([]uint32{5})
			w.Float64s([]float64{1, 0, 0})
			return nil
		}, 3},
		{"trailing bytes", func(w *model.Writer) error {
			a.Save(w)
			w.Uint32(0)
			return nil
		}, 3},
	}
	for _, c := range cases {
		var buf bytes.Buffer
		if err := model.Encode(&buf, model.Options{}, c.save); err != nil {
			t.Fatal(err)
		}
		_, r, err := model.Parse(buf.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := LoadSoftmax(r, cfg, c.k); !errors.Is(err, model.ErrCorrupt) {
			t.Errorf("%s: got %v, want a corrupt-model error", c.name, err)
		}
	}
}

// TestSoftmaxBadInput: an example whose label is not a class is predicted,
// not learned from; huge values leave the model finite.
func TestSoftmaxBadInput(t *testing.T) {
	cfg := Config{Bits: 8, Adaptive: true, Normalized: true, Eta: 0.5, PowerT: 0.5}
	m, _ := NewSoftmax(cfg, 3)
	for _, y := range []float64{0, 4, 1.5, -1, math.NaN()} {
		ex := sparse.Example{Label: y, HasLabel: true, Weight: 1, Idx: []uint32{1}, Val: []float64{1}}
		m.Learn(&ex)
	}
	if m.tab.Len() != 0 || m.t != 0 {
		t.Fatal("an example without a valid class changed the model")
	}
	sgd, _ := NewSoftmax(Config{Bits: 8, Eta: 10, PowerT: 0}, 3)
	for _, mm := range []*Softmax{m, sgd} {
		ex := sparse.Example{Label: 2, HasLabel: true, Weight: 1e18, Idx: []uint32{1, 2}, Val: []float64{1e18, -1e18}}
		for i := 0; i < 100; i++ {
			mm.Learn(&ex)
		}
		mm.Weights(func(_ uint32, w float64) {
			if math.IsNaN(w) || math.IsInf(w, 0) {
				t.Fatalf("non-finite weight %v", w)
			}
		})
		p := make([]float64, 3)
		mm.Probabilities(p)
		if s := p[0] + p[1] + p[2]; math.Abs(s-1) > 1e-12 {
			t.Fatalf("probabilities sum to %v", s)
		}
	}
}

// BenchmarkSoftmax: K = 20 on the news20-like stream with random classes,
// against which BenchmarkAdaGrad's binary learner is the per-class unit.
func BenchmarkSoftmax(b *testing.B) {
	data := dense.News(18)
	rng := rand.New(rand.NewPCG(4, 5))
	cls := make([]sparse.Example, len(data))
	for i := range data {
		cls[i].CopyFrom(&data[i])
		cls[i].Label = float64(1 + rng.IntN(20))
	}
	m, _ := NewSoftmax(Config{Bits: 18, Adaptive: true, Normalized: true, Eta: 0.5, PowerT: 0.5}, 20)
	dense.Steady(b, m, cls)
}
