package son_test

import (
	"bytes"
	"fmt"
	"math"
	"testing"

	"github.com/sparseson/sparseson/internal/dense"
	"github.com/sparseson/sparseson/loss"
	"github.com/sparseson/sparseson/model"
	"github.com/sparseson/sparseson/son"
	"github.com/sparseson/sparseson/sparse"
)

// scaleExamples returns a copy of data with feature j's values × k(j).
func scaleExamples(data []sparse.Example, k func(j uint32) float64) []sparse.Example {
	out := make([]sparse.Example, len(data))
	for i, ex := range data {
		out[i] = ex
		out[i].Val = make([]float64, len(ex.Val))
		for n, j := range ex.Idx {
			out[i].Val[n] = ex.Val[n] * k(j)
		}
	}
	return out
}

// unitScales are the features' scales the units tests run at: as given,
// ×1/255, ×255, and one scale per feature from 10⁻³ to 10³.
var unitScales = []struct {
	name string
	k    func(j uint32) float64
}{
	{"x1", func(uint32) float64 { return 1 }},
	{"x1/255", func(uint32) float64 { return 1.0 / 255 }},
	{"x255", func(uint32) float64 { return 255 }},
	{"per_feature", func(j uint32) float64 { return math.Pow(10, float64(j%7)-3) }},
}

func unitLoss(name string) loss.Loss {
	if name == "squared" {
		return &loss.Squared{Range: loss.LabelRange{Min: -1e9, Max: 1e9}}
	}
	return loss.Logistic{}
}

// TestUnitMatchesDense: with Config.Unit, SON with m = 0 (the paper form
// and the scaled-space form) and full ONS match their dense references
// (dense.SON and dense.FullONS with Unit, written from units.go's
// definition) at every step to 1e-9 relative, and end with the same raw
// weights, at every scale of unitScales.
func TestUnitMatchesDense(t *testing.T) {
	const d = 40
	for _, lossName := range []string{"logistic", "squared"} {
		for _, sc := range unitScales {
			data := scaleExamples(dense.Problem{D: d, S: 6, T: 500, Loss: lossName, Seed: 31}.Examples(), sc.k)
			for i := range data {
				if i%9 == 4 {
					data[i].Weight = 0 // not in the RMS sums
				}
			}
			for _, form := range []string{"paper", "scaled", "full"} {
				for _, kind := range unitKinds {
					t.Run(fmt.Sprintf("%s_%s_%s_%s", lossName, sc.name, form, kind), func(t *testing.T) {
						sp, dn := unitKindPair(t, form, kind, lossName, d)
						for i := range data {
							a, b := sp.Learn(&data[i]), dn.Learn(&data[i])
							if dense.Rel(a, b) > 1e-9 {
								t.Fatalf("step %d: sparse %.15g dense %.15g", i, a, b)
							}
						}
						want := dn.Weights()
						var scale float64
						for _, v := range want {
							scale = math.Max(scale, math.Abs(v))
						}
						sp.Weights(func(slot uint32, w float64) {
							if math.Abs(w-want[slot]) > 1e-9*(1+scale) {
								t.Errorf("w[%d]: sparse %.15g dense %.15g", slot, w, want[slot])
							}
						})
					})
				}
			}
		}
	}
}

type denseLearner interface {
	Learn(*sparse.Example) float64
	Weights() []float64
}

// unitPair builds a sparse learner with Config.Unit and its dense
// reference: form paper or scaled is SON with m = 0, full is full ONS.
func unitPair(t *testing.T, form, lossName string, d int) (sparse.Learner, denseLearner) {
	return unitKindPair(t, form, "max", lossName, d)
}

// unitKinds are the two units of Config.Unit: the largest |x_j| and
// (Config.UnitRMS) the root mean square.
var unitKinds = []string{"max", "rms"}

// unitKindPair is unitPair with the units of kind (unitKinds).
func unitKindPair(t *testing.T, form, kind, lossName string, d int) (sparse.Learner, denseLearner) {
	t.Helper()
	rms := kind == "rms"
	cfg := son.Config{Bits: 8, C: math.Inf(1), Eta0: 1, Diag: true, Unit: true, UnitRMS: rms}
	switch form {
	case "full":
		sp, err := son.NewFull(cfg, 2, unitLoss(lossName))
		if err != nil {
			t.Fatal(err)
		}
		dn := dense.NewFullONS(d, 2, cfg.C, 0, 1, 0, true, unitLoss(lossName))
		dn.Unit, dn.UnitRMS = true, rms
		return sp, dn
	case "scaled":
		cfg.Eta0, cfg.Scaled, cfg.Alpha0 = 0, true, 0.5
		sp, err := son.New(cfg, unitLoss(lossName), &son.NoSketch{A: 1})
		if err != nil {
			t.Fatal(err)
		}
		dn := dense.NewSON(d, cfg.C, 0, 0, 0, true, unitLoss(lossName), dense.NewOja(0, d, 1, 1))
		dn.Scaled, dn.Alpha0, dn.Rate, dn.Prior, dn.Unit, dn.UnitRMS = true, 0.5, son.DefaultRate, son.Prior, true, rms
		return sp, dn
	}
	sp, err := son.New(cfg, unitLoss(lossName), &son.NoSketch{A: 2})
	if err != nil {
		t.Fatal(err)
	}
	dn := dense.NewSON(d, cfg.C, 0, 1, 0, true, unitLoss(lossName), dense.NewOja(0, d, 2, 1))
	dn.Unit, dn.UnitRMS = true, rms
	return sp, dn
}

// TestUnitFree: with Config.Unit the predictions do not depend on the
// features' scales (to 1e-9 relative: x' = x/u_j differs from the ×1
// stream's only by rounding), while without it they do (the test's
// premise: D₁ = 0.1·I is in the units of x²).
func TestUnitFree(t *testing.T) {
	const d = 40
	base := dense.Problem{D: d, S: 6, T: 500, Loss: "logistic", Seed: 32}.Examples()
	for _, form := range []string{"paper", "scaled", "full"} {
		for _, sc := range unitScales[1:] {
			for _, kind := range unitKinds {
				t.Run(form+"_"+sc.name+"_"+kind, func(t *testing.T) {
					data := scaleExamples(base, sc.k)
					ref, _ := unitKindPair(t, form, kind, "logistic", d)
					sp, _ := unitKindPair(t, form, kind, "logistic", d)
					var worst float64
					for i := range data {
						a, b := ref.Learn(&base[i]), sp.Learn(&data[i])
						worst = max(worst, dense.Rel(a, b))
					}
					if worst > 1e-9 {
						t.Fatalf("predictions differ from the ×1 stream's by %.3g", worst)
					}
					_, paper := unitPair(t, form, "logistic", d)
					_, paper1 := unitPair(t, form, "logistic", d)
					setUnit(paper, false)
					setUnit(paper1, false)
					var moved float64
					for i := range data {
						moved = max(moved, dense.Rel(paper.Learn(&data[i]), paper1.Learn(&base[i])))
					}
					if moved < 1e-3 {
						t.Fatalf("D₁ = 0.1·I moved the predictions by only %.3g at this scale: the test shows nothing", moved)
					}
				})
			}
		}
	}
}

func setUnit(l denseLearner, on bool) {
	switch l := l.(type) {
	case *dense.SON:
		l.Unit = on
	case *dense.FullONS:
		l.Unit = on
	}
}

// TestUnitBinaryIsPaper: on binary features u_j = 1, and a learner with
// Config.Unit predicts and learns bit for bit as the paper's D₁ = 0.1·I.
func TestUnitBinaryIsPaper(t *testing.T) {
	data := dense.Problem{D: 40, S: 6, T: 400, Loss: "logistic", Seed: 33}.Examples()
	for i := range data {
		for n := range data[i].Val {
			data[i].Val[n] = 1
		}
	}
	for _, form := range []string{"paper", "scaled", "full"} {
		for _, kind := range unitKinds {
			t.Run(form+"_"+kind, func(t *testing.T) {
				a, _ := unitKindPair(t, form, kind, "logistic", 40)
				b := paperTwin(t, form)
				for i := range data {
					if p, q := a.Learn(&data[i]), b.Learn(&data[i]); p != q {
						t.Fatalf("step %d: %v with units, %v without", i, p, q)
					}
				}
				wa, wb := weights(a), weights(b)
				for k, v := range wb {
					if wa[k] != v {
						t.Fatalf("w[%d]: %v with units, %v without", k, wa[k], v)
					}
				}
			})
		}
	}
}

// paperTwin is unitPair's sparse learner without Config.Unit.
func paperTwin(t *testing.T, form string) sparse.Learner {
	t.Helper()
	cfg := son.Config{Bits: 8, C: math.Inf(1), Eta0: 1, Diag: true}
	var l sparse.Learner
	var err error
	switch form {
	case "full":
		l, err = son.NewFull(cfg, 2, loss.Logistic{})
	case "scaled":
		cfg.Eta0, cfg.Scaled, cfg.Alpha0 = 0, true, 0.5
		l, err = son.New(cfg, loss.Logistic{}, &son.NoSketch{A: 1})
	default:
		l, err = son.New(cfg, loss.Logistic{}, &son.NoSketch{A: 2})
	}
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestUnitSaveLoad: a model with Config.Unit saved mid-stream and loaded
// predicts and learns on bit for bit as the uninterrupted learner (the
// units are model state), for SON and full ONS.
func TestUnitSaveLoad(t *testing.T) {
	data := scaleExamples(dense.Problem{D: 40, S: 6, T: 400, Loss: "logistic", Seed: 34}.Examples(), unitScales[3].k)
	for _, kind := range unitKinds {
		cfg := son.Config{Bits: 8, C: math.Inf(1), Diag: true, Scaled: true, Unit: true, UnitRMS: kind == "rms"}
		for _, form := range []string{"son", "full"} {
			t.Run(form+"_"+kind, func(t *testing.T) {
				var a sparse.Learner
				var err error
				if form == "full" {
					fc := cfg
					fc.Scaled, fc.Eta0 = false, 1
					a, err = son.NewFull(fc, 2, loss.Logistic{})
				} else {
					a, err = son.New(cfg, loss.Logistic{}, &son.NoSketch{A: 1})
				}
				if err != nil {
					t.Fatal(err)
				}
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
				var b sparse.Learner
				if form == "full" {
					fc := cfg
					fc.Scaled, fc.Eta0 = false, 1
					b, err = son.LoadFull(r, fc, 2, loss.Logistic{})
				} else {
					b, err = son.Load(r, cfg, loss.Logistic{}, &son.NoSketch{A: 1})
				}
				if err != nil {
					t.Fatal(err)
				}
				for i := 200; i < len(data); i++ {
					if p, q := a.Predict(&data[i]), b.Predict(&data[i]); p != q {
						t.Fatalf("example %d: loaded predicts %v, uninterrupted %v", i, q, p)
					}
					if p, q := a.Learn(&data[i]), b.Learn(&data[i]); p != q {
						t.Fatalf("step %d: loaded learns %v, uninterrupted %v", i, q, p)
					}
				}
			})
		}
	}
}
