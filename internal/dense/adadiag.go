package dense

import (
	"math"

	"github.com/sparseson/sparseson/sparse"
)

// DiagADA is the dense reference of package ada's per-coordinate
// completion (ada.Config.Diag, ada/diag.go): the
// preconditioner of Yang et al. (ICML 2025), Alg. 2, G̃_t^{−1/2} with
// G̃_t = r·I + S_tᵀS_t (r = ρ_{1:t} + ε), plus the diagonal
//
//	e_j = (G_jj + ε)^{−1/2} − r^{−1/2} where 0 < G_jj + ε < r and r > 0, else 0,
//
// G_jj = Σ_s ĝ_{s,j}² the coordinate's sketched gradients (the example
// being learned included), and η divided by √N, N = Σh·‖x‖²/Σh over the
// examples learned (the example being learned counted after its
// prediction, before its step). Mirror descent: β_{t+1} = β_t −
// η_t·P′_t·g_t; dual averaging: β_{t+1} = −η_t·P′_t·ḡ_t. In the δ form
// (Wan & Zhang (TPAMI 2022), H_t = δ_tI + (S_tᵀS_t)^{1/2}, δ_t = ADA.DeltaNow)
// r is δ_t², so e_j = (G_jj + ε)^{−1/2} − 1/δ_t. The sketch is the
// wrapped ADA's (its step, so GatedADA's gate and skips too); everything
// else of a round is ADA.Learn's.
type DiagADA struct {
	*ADA
	// A is G_jj per coordinate; NSum, NW are Σh·‖x‖² and Σh.
	A        []float64
	NSum, NW float64
}

// NewDiagADA wraps a (new, untrained) with the completion.
func NewDiagADA(a *ADA) *DiagADA {
	return &DiagADA{ADA: a, A: make([]float64, a.Cfg.D)}
}

// Eta is η/√N (η before any example is learned).
func (a *DiagADA) Eta() float64 {
	if a.NW > 0 {
		return a.Cfg.Eta / math.Sqrt(a.NSum/a.NW)
	}
	return a.Cfg.Eta
}

// extra is e_j.
func (a *DiagADA) extra(j int) float64 {
	r := a.Rho + a.Cfg.Eps
	if !a.Cfg.Escaped {
		d := a.DeltaNow()
		r = d * d
	}
	m := a.A[j] + a.Cfg.Eps
	if !(r > 0) || !(m > 0) || m >= r {
		return 0
	}
	return 1/math.Sqrt(m) - 1/math.Sqrt(r)
}

// precondition returns P′v.
func (a *DiagADA) precondition(v []float64) []float64 {
	out := a.ADA.precondition(v)
	for j := range out {
		out[j] += a.extra(j) * v[j]
	}
	return out
}

// Learn predicts ex, then takes one round with its gradient: ADA's,
// with N and G_jj counting the example before the sketch takes it, P′ in
// P's place and η/√N.
func (a *DiagADA) Learn(ex *sparse.Example) float64 {
	return a.round(ex, roundHooks{observe: a.observe, precondition: a.precondition, eta: a.Eta})
}

// observe adds the example to N's sums and its sketched gradient to G_jj.
func (a *DiagADA) observe(h float64, x, gs []float64) {
	if n := dotv(x, x); n > 0 && !math.IsInf(n, 0) {
		a.NSum += h * n
		a.NW += h
	}
	for j, v := range gs {
		a.A[j] += v * v
	}
}
