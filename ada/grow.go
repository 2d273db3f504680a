package ada

import (
	"math"
)

// # The δ form's growing regulariser (Config.Grow)
//
// Wan & Zhang (TPAMI 2022), Alg. 1–4 precondition with H_t = δI +
// (S_tᵀS_t)^{1/2}, δ fixed: outside the sketch's τ directions every
// coordinate steps by η/δ for the whole run. That is constant-rate SGD
// on the features the sketch does not hold — on sparse text almost all
// of them — and under squared loss, whose ℓ′ does not shrink as the
// model fits, the frequent ones overshoot: news20, one pass, test error
// 12.71 % (ADA-FD, mirror descent) against AdaGrad's 6.11 %, and no δ of
// a grid reached AdaGrad + 1 pp (docs/algorithms.md §19).
//
// What FD discarded bounds the rest: 0 ⪯ G_t − S_tᵀS_t ⪯ r_t·I, r_t the
// escaped mass (ρ_{1:t}, with the gate's drops and skips at 1/τ as the
// escaped form counts them, gate.go). Since √ is operator monotone and
// (A + rI)^{1/2} ⪯ A^{1/2} + √r·I for A ⪰ 0, H_t = (δ + √r_t)I +
// (S_tᵀS_t)^{1/2} dominates δI + G_t^{1/2}, full-matrix AdaGrad's: the
// step outside the sketch shrinks as the mass the sketch could not hold
// grows, the role r plays in Yang et al.'s (ICML 2025) escaped form. As
// there, that global factor is wrong for the rare features, and the
// per-coordinate completion (diag.go) gives each coordinate back at
// least AdaGrad's step, cut at δ_t: e_j = G_jj^{−1/2} − 1/δ_t where
// G_jj < δ_t². The CLI takes both under --ada_scale auto (model options
// ada_grow and ada_diag); --ada_scale paper keeps δ fixed. The cost is a
// square root per sketch factoring and the completion's.

// delta is δ_t: δ + √r_t with Config.Grow, else δ.
func (a *Learner) delta() float64 {
	if a.cfg.Grow {
		return a.cfg.Delta + math.Sqrt(math.Max(a.escapedMass(), 0))
	}
	return a.cfg.Delta
}

// savesSkips says whether the model carries the skipped gradients' mass:
// the escaped form's skips (Config.Skip) and the growing δ count it in r.
func (c Config) savesSkips() bool { return c.Skip > 0 || c.Grow }
