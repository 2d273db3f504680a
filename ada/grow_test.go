package ada

import (
	"math"
	"testing"

	"github.com/sparseson/sparseson/internal/dense"
	"gonum.org/v1/gonum/mat"
)

// TestGrowDominates checks the bound grow.go claims for the δ form's
// growing δ_t on exact FD (per-step and doubled buffer, both updates):
// after every example H_t = (δ + √ρ_{1:t})I + (S_tᵀS_t)^{1/2} ⪰ δI +
// G_t^{1/2}, G_t = Σ ĝĝᵀ the sketched gradients' Gram matrix, to 1e-7 of
// ‖H_t‖ (the square root turns G's rounding, ~1e-16·‖G‖, into ~1e-8·√‖G‖
// on a direction of eigenvalue near 0). It also checks that the bound has something to say: ρ_{1:t} > 0
// (FD has shrunk) and, without the growth, H_t ⪰ δI + G_t^{1/2} fails at
// some step.
func TestGrowDominates(t *testing.T) {
	for _, v := range variants() {
		if n, _ := Lookup(v.name); n.Precond != Delta {
			continue
		}
		c := oracleCase{v: v, d: 12, s: 5, t: 120, tau: 3, lossName: "logistic", eta: 0.5, seed: 3, grow: true}
		t.Run(c.String(), func(t *testing.T) {
			t.Parallel()
			a := dense.NewADA(c.denseConfig(), dense.Loss(c.lossName))
			d := c.d
			gram := mat.NewSymDense(d, nil)
			var worst, worstFixed float64
			for _, ex := range c.data() {
				x := make([]float64, d)
				for i, j := range ex.Idx {
					x[j] += ex.Val[i]
				}
				pred := a.Learn(&ex)
				g := math.Sqrt(ex.Weight) * a.Loss.Deriv(pred, ex.Label)
				gram.SymRankOne(gram, g*g, mat.NewVecDense(d, x))
				s, top := growGap(t, a, gram)
				worst = math.Min(worst, s/top)
				fixed, _ := growGap(t, a, gram, -math.Sqrt(a.Rho))
				worstFixed = math.Min(worstFixed, fixed/top)
			}
			t.Logf("λ_min/‖H‖: %.3g with the growth, %.3g without", worst, worstFixed)
			if worst < -1e-7 {
				t.Errorf("λ_min(H_t − δI − G_t^{1/2}) = %.3g·‖H_t‖ < 0", worst)
			}
			if !(a.Rho > 0) || !(worstFixed < -1e-3) {
				t.Errorf("the bound is idle: ρ = %v, without the growth λ_min/‖H‖ = %.3g", a.Rho, worstFixed)
			}
		})
	}
}

// growGap returns λ_min(H − δI − G^{1/2}) and ‖H‖ for the dense learner's
// H_t = (δ_t + shift)I + (SᵀS)^{1/2}.
func growGap(t *testing.T, a *dense.ADA, gram *mat.SymDense, shift ...float64) (min, top float64) {
	t.Helper()
	h := symSqrt(t, a.SketchMatrix())
	gs := symSqrt(t, gram)
	dt := a.DeltaNow()
	for _, s := range shift {
		dt += s
	}
	n := h.SymmetricDim()
	diff := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			v := h.At(i, j) - gs.At(i, j)
			if i == j {
				v += dt - a.Cfg.Delta
			}
			diff.SetSym(i, j, v)
		}
	}
	var es mat.EigenSym
	if !es.Factorize(diff, false) {
		t.Fatal("eigendecomposition failed")
	}
	vals := es.Values(nil)
	top = dt
	for i := 0; i < n; i++ {
		top = math.Max(top, dt+math.Abs(h.At(i, i)))
	}
	return vals[0], top
}

// symSqrt is the PSD square root of a (negative eigenvalues of rounding
// count as 0).
func symSqrt(t *testing.T, a *mat.SymDense) *mat.SymDense {
	t.Helper()
	var es mat.EigenSym
	if !es.Factorize(a, true) {
		t.Fatal("eigendecomposition failed")
	}
	vals := es.Values(nil)
	var u mat.Dense
	es.VectorsTo(&u)
	n := len(vals)
	out := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			var s float64
			for k, l := range vals {
				s += u.At(i, k) * u.At(j, k) * math.Sqrt(math.Max(l, 0))
			}
			out.SetSym(i, j, s)
		}
	}
	return out
}
