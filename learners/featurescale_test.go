package learners

import (
	"bytes"
	"maps"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/sparseson/sparseson/ada"
	"github.com/sparseson/sparseson/gd"
	"github.com/sparseson/sparseson/loss"
	"github.com/sparseson/sparseson/model"
	"github.com/sparseson/sparseson/reduce"
	"github.com/sparseson/sparseson/sparse"
)

// gdScaleCase is a first-order update, as the command's flags set it.
type gdScaleCase struct {
	name string
	s    Settings
}

// gdScaleCases are the first-order updates that are not normalized (the
// registry's sgd … sadagrad), which feature_scale auto pre-scales.
func gdScaleCases() []gdScaleCase {
	base := Settings{LearningRate: 0.5, PowerT: 0.5, NasaC: DefaultNasaC, Delta: "auto"}
	with := func(f func(s *Settings)) Settings { s := base; f(&s); return s }
	return []gdScaleCase{
		{"sgd", with(func(s *Settings) { s.SGD = true })},
		{"adaptive", with(func(s *Settings) { s.Adaptive = true })},
		{"ada_diag_dual", with(func(s *Settings) { s.Adaptive, s.Dual = true, true })},
		{"nasa_strong", with(func(s *Settings) { s.SGD, s.Step, s.NasaH = true, gd.StepNASAStrong, 1 })},
		{"nasa_accel", with(func(s *Settings) { s.SGD, s.Step, s.NasaL = true, gd.StepNASAAccel, 1 })},
		{"scalar_adagrad", with(func(s *Settings) { s.SGD, s.Step = true, gd.StepScalarAdaGrad })},
		{"sadagrad", with(func(s *Settings) { s.SGD, s.Step, s.NasaH = true, gd.StepSAdaGrad, 1 })},
	}
}

// gdScaleOptions are the model options of s with logistic loss.
func gdScaleOptions(s Settings) model.Options {
	o := DefaultOptions(12)
	o["loss"] = "logistic"
	for k, v := range gdFamily.options(&s) {
		o[k] = v
	}
	return o
}

// scaleProblem is a sparse logistic problem whose features have values of
// very different magnitudes (1e-3 … 1e3), some of them negative.
func scaleProblem(n int) []sparse.Example {
	r := rand.New(rand.NewPCG(25, 19))
	const d = 40
	w, unit := make([]float64, d), make([]float64, d)
	for j := range w {
		w[j], unit[j] = r.NormFloat64(), math.Pow(10, 6*r.Float64()-3)
	}
	out := make([]sparse.Example, n)
	for i := range out {
		ex := sparse.Example{Weight: 1, HasLabel: true}
		m := 0.0
		for j := 0; j < d; j++ {
			if r.Float64() < 0.25 {
				v := r.NormFloat64()
				ex.Idx, ex.Val = append(ex.Idx, uint32(3*j+1)), append(ex.Val, v*unit[j])
				m += w[j] * v
			}
		}
		ex.Idx, ex.Val = append(ex.Idx, 0), append(ex.Val, 1) // the constant
		ex.Label = 1
		if m+0.3*r.NormFloat64() < 0 {
			ex.Label = -1
		}
		out[i] = ex
	}
	return out
}

// scaledBy returns a copy of ex with feature slot's value multiplied by
// k(slot).
func scaledBy(ex sparse.Example, k func(slot uint32) float64) sparse.Example {
	ex.Val = append([]float64(nil), ex.Val...)
	for i, slot := range ex.Idx {
		ex.Val[i] *= k(slot)
	}
	return ex
}

func relDiff(a, b float64) float64 {
	return math.Abs(a-b) / math.Max(1e-300, math.Max(math.Abs(a), math.Abs(b)))
}

// TestFeatureScaleOptions: feature_scale auto is written only where it
// acts (an update that is not normalized); the normalized updates and
// feature_scale raw write the options of the builds before it.
func TestFeatureScaleOptions(t *testing.T) {
	for _, tc := range gdScaleCases() {
		if got := gdScaleOptions(tc.s)["feature_scale"]; got != "auto" {
			t.Errorf("%s: feature_scale %q, want auto", tc.name, got)
		}
		raw := tc.s
		raw.FeatureScale = "raw"
		if v, ok := gdScaleOptions(raw)["feature_scale"]; ok {
			t.Errorf("%s, raw: feature_scale %q written", tc.name, v)
		}
	}
	for _, s := range []Settings{{}, {Normalized: true}, {Adaptive: true, Normalized: true}, {Step: gd.StepNASA}} {
		s.Delta = "auto"
		if v, ok := gdScaleOptions(s)["feature_scale"]; ok {
			t.Errorf("%+v: a normalized update writes feature_scale %q", s, v)
		}
	}
}

// TestFeatureScaleOracle: under feature_scale auto the learner is the
// raw learner of the same options run on x̃_j = x_j/s_j, s_j the root mean
// square of feature j's training values so far (the example learned
// included), computed here on the side; and the run on the features
// multiplied by any k_j > 0 predicts as the run on x.
func TestFeatureScaleOracle(t *testing.T) {
	data := scaleProblem(600)
	k := func(slot uint32) float64 {
		if slot == 0 {
			return 1 // the constant stays 1
		}
		return []float64{255, 1.0 / 255, 3.7, 1e3, 0.01}[slot%5]
	}
	for _, tc := range gdScaleCases() {
		t.Run(tc.name, func(t *testing.T) {
			o := gdScaleOptions(tc.s)
			rawOpts := maps.Clone(o)
			delete(rawOpts, "feature_scale")
			auto, err := FromModel(o, nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := auto.(*ada.Prescaled); !ok {
				t.Fatalf("feature_scale auto built a %T", auto)
			}
			scaled, _ := FromModel(o, nil)
			inner, err := FromModel(rawOpts, nil)
			if err != nil {
				t.Fatal(err)
			}
			sq, n := map[uint32]float64{}, map[uint32]float64{}
			tilde := func(ex sparse.Example) sparse.Example {
				ex.Val = append([]float64(nil), ex.Val...)
				for i, slot := range ex.Idx {
					ex.Val[i] /= math.Sqrt(sq[slot] / n[slot])
				}
				return ex
			}
			var worst, worstUnits float64
			for i := range data {
				ex := data[i]
				for j, slot := range ex.Idx {
					sq[slot] += ex.Val[j] * ex.Val[j]
					n[slot]++
				}
				xt, xk := tilde(ex), scaledBy(ex, k)
				p, want, pk := auto.Learn(&ex), inner.Learn(&xt), scaled.Learn(&xk)
				worst = math.Max(worst, relDiff(p, want))
				worstUnits = math.Max(worstUnits, relDiff(p, pk))
			}
			if worst > 1e-12 {
				t.Errorf("the wrapped learner's predictions differ from the raw learner's on x̃ by %.3g (relative)", worst)
			}
			if g, ok := auto.(*ada.Prescaled).Inner().(*gd.GD); !ok || g.Scaled() == 0 {
				t.Errorf("the scales are not folded into gd's rows (gd.Config.RMS): %T", auto.(*ada.Prescaled).Inner())
			}
			if worstUnits > 1e-9 {
				t.Errorf("features ×k_j: predictions differ by %.3g (relative)", worstUnits)
			}
			// The weights are reported in the raw features' units: the
			// run on ×k_j has the weights of the run on x divided by k_j.
			w := map[uint32]float64{}
			auto.Weights(func(slot uint32, v float64) { w[slot] = v })
			scaled.Weights(func(slot uint32, v float64) {
				if d := relDiff(v*k(slot), w[slot]); d > 1e-9 {
					t.Errorf("slot %d: weight %v on ×%v, %v on ×1", slot, v, k(slot), w[slot])
				}
			})
			if len(w) == 0 {
				t.Fatal("no weights")
			}
		})
	}
}

// TestFeatureScaleRaw: feature_scale raw (and a model without the option,
// written before it) builds the learner of the builds before it, gd.GD
// itself, which saves the same bytes as gd.New's.
func TestFeatureScaleRaw(t *testing.T) {
	data := scaleProblem(200)
	for _, tc := range gdScaleCases() {
		s := tc.s
		s.FeatureScale = "raw"
		o := gdScaleOptions(s)
		l, err := FromModel(o, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := l.(*gd.GD); !ok {
			t.Errorf("%s: feature_scale raw built a %T", tc.name, l)
		}
		cfg, _ := gdConfig(o)
		ref, _ := gd.New(cfg, mustLoss(t, o))
		for i := range data {
			if a, b := l.Learn(&data[i]), ref.Learn(&data[i]); a != b {
				t.Fatalf("%s: example %d: %v, gd.New's %v", tc.name, i, a, b)
			}
		}
	}
}

func mustLoss(t *testing.T, o model.Options) loss.Loss {
	t.Helper()
	l, err := NewLoss(o)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestFeatureScaleResume: a model saved under feature_scale auto loads
// with its scales, predicts as the saved learner, and goes on learning as
// the learner that was never saved.
func TestFeatureScaleResume(t *testing.T) {
	data := scaleProblem(400)
	dir := t.TempDir()
	for _, tc := range gdScaleCases() {
		o := gdScaleOptions(tc.s)
		a, err := FromModel(o, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := range data[:200] {
			a.Learn(&data[i])
		}
		path := filepath.Join(dir, tc.name)
		if err := model.Save(path, o, a.Save); err != nil {
			t.Fatal(err)
		}
		b, o2, err := Load(path)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if o2["feature_scale"] != "auto" {
			t.Errorf("%s: loaded feature_scale %q", tc.name, o2["feature_scale"])
		}
		for i := range data[200:] {
			ex := &data[200+i]
			if p, q := a.Predict(ex), b.Predict(ex); p != q {
				t.Fatalf("%s: example %d: loaded model predicts %v, the saved one %v", tc.name, 200+i, q, p)
			}
			if p, q := a.Learn(ex), b.Learn(ex); p != q {
				t.Fatalf("%s: example %d: resumed learner %v, the one never saved %v", tc.name, 200+i, q, p)
			}
		}
	}
}

// TestFeatureScaleFoldOAA: --oaa K over each update under feature_scale
// auto (the scales folded into every base's rows, gd.Config.RMS) learns,
// predicts and saves as K bases of the wrapper with its own table around
// gd.GD (ada.NewPrescaled, how the command built them before): the same
// bits, the same bytes.
func TestFeatureScaleFoldOAA(t *testing.T) {
	const k = 3
	data := scaleProblem(300)
	for i := range data {
		data[i].Label = float64(1 + i*7%k)
		if i%4 == 1 {
			data[i].Weight = 2
		}
	}
	for _, tc := range gdScaleCases() {
		t.Run(tc.name, func(t *testing.T) {
			o := gdScaleOptions(tc.s)
			o["oaa"] = strconv.Itoa(k)
			folded, err := FromModel(o, nil)
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := gdConfig(o)
			if err != nil {
				t.Fatal(err)
			}
			l := mustLoss(t, o)
			ObserveClasses(l)
			wrapped, err := reduce.NewOAA(k, cfg.Bits, func(*model.Reader) (sparse.Learner, error) {
				in, err := gd.New(cfg, l)
				return ada.NewPrescaled(in, cfg.Bits), err
			})
			if err != nil {
				t.Fatal(err)
			}
			for i := range data[:250] {
				if a, b := folded.Learn(&data[i]), wrapped.Learn(&data[i]); math.Float64bits(a) != math.Float64bits(b) {
					t.Fatalf("example %d: learns %v, the wrapper %v", i, a, b)
				}
			}
			for i := range data[250:] {
				if a, b := folded.Predict(&data[250+i]), wrapped.Predict(&data[250+i]); math.Float64bits(a) != math.Float64bits(b) {
					t.Fatalf("example %d: predicts %v, the wrapper %v", 250+i, a, b)
				}
			}
			var fb, wb bytes.Buffer
			if err := model.Encode(&fb, o, folded.Save); err != nil {
				t.Fatal(err)
			}
			if err := model.Encode(&wb, o, wrapped.Save); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(fb.Bytes(), wb.Bytes()) {
				t.Error("the saved models differ")
			}
		})
	}
}
