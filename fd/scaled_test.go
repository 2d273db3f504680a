package fd

import (
	"fmt"
	"math"
	"testing"

	"github.com/sparseson/sparseson/internal/dense"
	"github.com/sparseson/sparseson/son"
	"github.com/sparseson/sparseson/sparse"
)

// scaled returns the setup's sparse and dense configurations in the
// scaled-space form (son/scaled.go): α₀ = c.alpha, 0 from the data.
func (c setup) scaledSON() son.Config {
	cfg := c.sonConfig()
	cfg.Sigma, cfg.Eta0 = 0, 0
	cfg.Diag, cfg.Scaled, cfg.Alpha0, cfg.Unit, cfg.UnitRMS = true, true, c.alpha, c.unit, c.rms
	return cfg
}

func (c setup) scaledPair(t testing.TB) (*son.Learner, *Sketch, *dense.SON) {
	t.Helper()
	sk, err := New(Config{M: c.m, Alpha: 1, Robust: c.robust, Fast: c.fast, HostAlpha: true})
	if err != nil {
		t.Fatal(err)
	}
	sp, err := son.New(c.scaledSON(), dense.Loss(c.lossName), sk)
	if err != nil {
		t.Fatal(err)
	}
	dn := dense.NewSON(c.d, c.C, 0, 0, 0, true, dense.Loss(c.lossName), dense.NewFD(c.m, c.d, 1, c.robust, c.fast))
	dn.Scaled, dn.Alpha0, dn.Rate, dn.Prior, dn.Unit, dn.UnitRMS = true, c.alpha, son.DefaultRate, son.Prior, c.unit, c.rms
	return sp, sk, dn
}

// TestScaledMatchesDense: FD, RFD and their doubled-buffer variants in the
// scaled-space form against the dense reference written from scaled.go's
// definition, closed loop, at every step to 1e-9 relative, with α₀ from
// the data (alpha 0) and fixed, deferred and eager compactions, and with
// the features' units (son.Config.Unit) on features of mixed scales. Each case
// first measures the dense learner's sensitivity to a 1e-15 perturbation
// of the input and requires it below 1e-10 (docs/algorithms.md §9: plain FD-SON
// with squared loss is chaotic in the paper form; here the horizons are
// chosen where it is not).
func TestScaledMatchesDense(t *testing.T) {
	var cases []setup
	seed := uint64(300)
	for _, kind := range [][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
		for _, lossName := range []string{"logistic", "squared"} {
			for _, a0 := range []float64{0, 2} {
				for _, ring := range []int{0, -1} {
					seed++
					cases = append(cases, setup{d: 60, m: 5, s: 8, lossName: lossName, alpha: a0, C: math.Inf(1),
						robust: kind[0], fast: kind[1], ring: ring, seed: seed})
				}
			}
			// D_j = 0.1·u_j² + Σg_j² (son.Config.Unit) on features of
			// scales e^{±3}, α₀ from the data, u_j the largest |x_j| and
			// the root mean square (UnitRMS).
			// (The root mean square's cases take seeds of their own, so
			// that the other cases keep theirs.)
			seed++
			for _, rms := range []bool{false, true} {
				sd := seed
				if rms {
					sd += 500
				}
				cases = append(cases, setup{d: 60, m: 5, s: 8, lossName: lossName, C: math.Inf(1),
					robust: kind[0], fast: kind[1], seed: sd, unit: true, rms: rms, spread: 3})
			}
		}
	}
	for _, c := range cases {
		T := 600
		if testing.Short() {
			T = 200
		}
		t.Run(fmt.Sprintf("%v_T%d", c, T), func(t *testing.T) {
			data := c.data(T)
			sens := dense.Sensitivity(func() interface{ Learn(*sparse.Example) float64 } {
				_, _, dn := c.scaledPair(t)
				return dn
			}, data, c.seed)
			if sens > 1e-10 {
				t.Fatalf("the stream is too sensitive for a 1e-9 oracle: %.2e", sens)
			}
			sp, sk, dn := c.scaledPair(t)
			var worst float64
			for i := range data {
				a, b := sp.Learn(&data[i]), dn.Learn(&data[i])
				worst = max(worst, dense.Rel(a, b))
				if dense.Rel(a, b) > 1e-9 {
					t.Fatalf("step %d: sparse %.15g dense %.15g (rel %.3g)", i, a, b, dense.Rel(a, b))
				}
			}
			ww := compareWeights(t, sp, dn, 1e-9)
			t.Logf("max rel %.2e (sensitivity %.2e), weights %.2e, α₀ = %.4g, %+v", worst, sens, ww, sp.Alpha0(), sk.Counts())
		})
	}
}

// TestScaledFullONS: with m > d FD never shrinks, so scaled-space FD-SON is
// the scaled-space form of full ONS (dense.FullSketch: SᵀS = Σĝĝᵀ exactly).
func TestScaledFullONS(t *testing.T) {
	for i, c := range []setup{
		{d: 8, m: 12, s: 3, lossName: "logistic"},
		{d: 10, m: 11, s: 5, lossName: "squared", alpha: 2},
	} {
		c.seed, c.C = uint64(320+i), math.Inf(1)
		t.Run(c.String(), func(t *testing.T) {
			data := c.data(800)
			sp, sk, _ := c.scaledPair(t)
			dn := dense.NewSON(c.d, c.C, 0, 0, 0, true, dense.Loss(c.lossName), dense.NewFullSketch(c.d, 1))
			dn.Scaled, dn.Alpha0, dn.Rate, dn.Prior = true, c.alpha, son.DefaultRate, son.Prior
			var worst float64
			for i := range data {
				a, b := sp.Learn(&data[i]), dn.Learn(&data[i])
				worst = max(worst, dense.Rel(a, b))
				if dense.Rel(a, b) > 1e-9 {
					t.Fatalf("step %d: sparse %.15g full %.15g (rel %.3g)", i, a, b, dense.Rel(a, b))
				}
			}
			if sk.SumRho() != 0 {
				t.Errorf("the sketch shrank: Σλ_m = %v", sk.SumRho())
			}
			t.Logf("max rel %.2e", worst)
		})
	}
}

// TestScaledSaveLoadContinue: save → load → continue is bit-identical in
// the scaled-space form (W, α₀ and the sketch's α are model state), for FD
// and RFD, with a projection so the restored α is used at once.
func TestScaledSaveLoadContinue(t *testing.T) {
	for _, robust := range []bool{false, true} {
		c := setup{d: 80, m: 6, s: 10, lossName: "logistic", C: 1, robust: robust, seed: 330}
		data := c.data(800)
		a, _, _ := c.scaledPair(t)
		for i := range data[:400] {
			a.Learn(&data[i])
		}
		b := saveLoadWith(t, a, c.scaledSON(), Config{M: c.m, Alpha: 1, Robust: robust, HostAlpha: true}, c.lossName)
		for i := range data[400:] {
			ex := &data[400+i]
			if p, q := a.Predict(ex), b.Predict(ex); p != q {
				t.Fatalf("robust=%v example %d: predict %v after load, %v uninterrupted", robust, i, q, p)
			}
			if p, q := a.Learn(ex), b.Learn(ex); p != q {
				t.Fatalf("robust=%v example %d: learn %v after load, %v uninterrupted", robust, i, q, p)
			}
		}
	}
}
