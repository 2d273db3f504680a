package oja

import (
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"github.com/sparseson/sparseson/internal/dense"
	"github.com/sparseson/sparseson/model"
	"github.com/sparseson/sparseson/son"
	"github.com/sparseson/sparseson/sparse"
)

// scaledPair builds sparse and dense Oja-SON in the scaled-space form
// (son/scaled.go) on the same setup; alpha0 = 0 derives α₀ from the data.
func scaledPair(t testing.TB, c setup, alpha0 float64) (*son.Learner, *Sketch, *dense.SON) {
	return unitPair(t, c, alpha0, "")
}

// unitPair is scaledPair, with son.Config.Unit in both when unit is max
// or rms (and then UnitRMS with rms).
func unitPair(t testing.TB, c setup, alpha0 float64, unit string) (*son.Learner, *Sketch, *dense.SON) {
	t.Helper()
	sk, err := New(Config{M: c.m, Alpha: 1, Rate: 1})
	if err != nil {
		t.Fatal(err)
	}
	cfg := son.Config{Bits: 8, C: c.C, Diag: true, Scaled: true, Alpha0: alpha0, Unit: unit != "", UnitRMS: unit == "rms"}
	sp, err := son.New(cfg, dense.Loss(c.lossName), sk)
	if err != nil {
		t.Fatal(err)
	}
	dn := dense.NewSON(c.d, c.C, 0, 0, 0, true, dense.Loss(c.lossName), dense.NewOja(c.m, c.d, 1, 1))
	dn.Scaled, dn.Alpha0, dn.Rate, dn.Prior, dn.Unit, dn.UnitRMS = true, alpha0, son.DefaultRate, son.Prior, cfg.Unit, cfg.UnitRMS
	return sp, sk, dn
}

// TestUnitMatchesDense: Oja-SON in the scaled-space form with the
// features' units (son.Config.Unit: D_j = 0.1·u_j² + Σg_j², u_j the
// largest |x_j| or the root mean square) against dense.SON with Unit,
// closed loop, every step to 1e-9 relative and the final weights, on
// features of scales e^{±3} and ×1/255, both losses.
func TestUnitMatchesDense(t *testing.T) {
	seed := uint64(60)
	for _, lossName := range []string{"logistic", "squared"} {
		for _, spread := range []float64{3, -1} {
			for _, unit := range []string{"max", "rms"} {
				seed++
				c := setup{d: 80, m: 5, s: 10, lossName: lossName, C: math.Inf(1), diag: true, seed: seed}
				t.Run(fmt.Sprintf("%s_spread%g_%s", lossName, spread, unit), func(t *testing.T) {
					p := dense.Problem{D: c.d, S: c.s, T: 600, Loss: c.lossName, Spread: max(spread, 0), Seed: c.seed}
					data := p.Examples()
					if spread < 0 { // ×1/255
						for i := range data {
							for k := range data[i].Val {
								data[i].Val[k] /= 255
							}
						}
					}
					sens := dense.Sensitivity(func() interface{ Learn(*sparse.Example) float64 } {
						_, _, dn := unitPair(t, c, 0, unit)
						return dn
					}, data, c.seed)
					if sens > 1e-10 {
						t.Fatalf("the stream is too sensitive for a 1e-9 oracle: %.2e", sens)
					}
					sp, _, dn := unitPair(t, c, 0, unit)
					for i := range data {
						if a, b := sp.Learn(&data[i]), dn.Learn(&data[i]); dense.Rel(a, b) > 1e-9 {
							t.Fatalf("step %d: sparse %.15g dense %.15g (rel %.3g)", i, a, b, dense.Rel(a, b))
						}
					}
					compareWeights(t, sp, dn, c.d, 1e-9)
				})
			}
		}
	}
}

// TestScaledMatchesDense is the closed-loop oracle for the scaled-space
// form: sparse Oja-SON and the dense reference written from scaled.go's
// definition (dense.SON with Scaled) predict the same at every step to
// 1e-9 relative and end with the same weights, over 1000 steps, for both
// losses, α₀ from the data and fixed, with and without the projection.
// Unlike the paper form with small α (TestMatchesDense), these streams are
// mostly not chaotic: a 1e-15 relative perturbation of the input moves the
// dense predictions by at most ~1e-11 (measured below, and required to
// stay under 1e-10, so that 1e-9 is a meaningful bound); the exception,
// squared loss with a small fixed α₀, is run with a larger one.
func TestScaledMatchesDense(t *testing.T) {
	dims := [][3]int{{50, 1, 5}, {80, 5, 10}, {200, 10, 20}}
	seed := uint64(40)
	for _, lossName := range []string{"logistic", "squared"} {
		for _, C := range []float64{math.Inf(1), 1} {
			for _, a0 := range []float64{0, 0.5} {
				for _, dm := range dims {
					seed++
					c := setup{d: dm[0], m: dm[1], s: dm[2], lossName: lossName, C: C, diag: true, seed: seed}
					T := 1000
					if testing.Short() {
						T = 300
					}
					a0 := a0
					if lossName == "squared" && a0 > 0 {
						// Squared loss with a fixed α₀ = 0.5, below these
						// streams' residual curvature, is chaotic (a 1e-15
						// perturbation moves the dense learner by 2e-9
						// within 300 steps at d = 200); α₀ = 2 is not.
						a0 = 2
					}
					t.Run(fmt.Sprintf("%v_a0%g_T%d", c, a0, T), func(t *testing.T) {
						data := dense.Problem{D: c.d, S: c.s, T: T, Loss: c.lossName, Seed: c.seed}.Examples()
						sens := dense.Sensitivity(func() interface{ Learn(*sparse.Example) float64 } {
							_, _, dn := scaledPair(t, c, a0)
							return dn
						}, data, c.seed)
						if sens > 1e-10 {
							t.Fatalf("the stream is too sensitive for a 1e-9 oracle: %.2e", sens)
						}
						sp, sk, dn := scaledPair(t, c, a0)
						var worst float64
						for i := range data {
							a, b := sp.Learn(&data[i]), dn.Learn(&data[i])
							worst = max(worst, dense.Rel(a, b))
							if dense.Rel(a, b) > 1e-9 {
								t.Fatalf("step %d: sparse %.15g dense %.15g (rel %.3g)", i, a, b, dense.Rel(a, b))
							}
						}
						compareWeights(t, sp, dn, c.d, 1e-9)
						t.Logf("max rel %.2e (sensitivity %.2e), α₀ = %.4g, %d re-basings", worst, sens, sp.Alpha0(), sk.Rebases())
					})
				}
			}
		}
	}
}

// TestScaledSaveLoadContinue: a scaled-space model saved mid-stream,
// loaded and trained on predicts bit for bit what the uninterrupted learner
// predicts (W, the sketch's α and α₀ are model state).
func TestScaledSaveLoadContinue(t *testing.T) {
	c := setup{d: 80, m: 5, s: 10, lossName: "logistic", C: 1, diag: true, seed: 9}
	data := dense.Problem{D: c.d, S: c.s, T: 600, Loss: c.lossName, Seed: c.seed}.Examples()
	a, sk, _ := scaledPair(t, c, 0)
	for i := range data[:300] {
		a.Learn(&data[i])
	}
	b := a
	path := filepath.Join(t.TempDir(), "m")
	if err := model.Save(path, model.Options{}, b.Save); err != nil {
		t.Fatal(err)
	}
	_, r, err := model.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := New(sk.Config())
	if err != nil {
		t.Fatal(err)
	}
	cfg := son.Config{Bits: 8, C: c.C, Diag: true, Scaled: true}
	l, err := son.Load(r, cfg, dense.Loss(c.lossName), fresh)
	if err != nil {
		t.Fatal(err)
	}
	for i := range data[300:] {
		ex := &data[300+i]
		if p, q := a.Predict(ex), l.Predict(ex); p != q {
			t.Fatalf("example %d after load: predict %v, uninterrupted %v", 300+i, q, p)
		}
		if p, q := a.Learn(ex), l.Learn(ex); p != q {
			t.Fatalf("step %d after load: %v, uninterrupted %v", 300+i, q, p)
		}
	}
}
