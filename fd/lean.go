package fd

import (
	"math"

	"github.com/sparseson/sparseson/internal/linalg"
)

// The lean absorb of the gated FD.
//
// The common gated shrink keeps every direction of [S; ĝᵀ] (q + 1 of
// them, none shrunk), finds the absorb infeasible without computing it
// (leanCase), drops one direction d, and absorbs the other q. The absorb
// needs some δ with F_aδ = f (any solution gives the same sketch
// S′ = E′^{1/2}F_a(Z + δĝᵀ); the choice only conditions Z′), where
// F_a = Λ_K^{−1/2}U_{top,K}ᵀC over the kept columns K of the arrowhead's
// eigenvectors U, U_top its rows of S, u = U_{q,:} its row of ĝ, and
// f_i = u_i/√λ_i. The general candidate takes the least ‖D⁻¹δ‖ by a
// Householder LQ of F_aD, O(q²p). Here the structure gives one in
// O(q² + qp + p²): in the diagonal state CKCᵀ = diag(E) (K = ZZᵀ), and
// diag(E) is the top-left block of UΛUᵀ, so with UᵀU = I,
//
//	F_aKF_aᵀ = Λ_K^{−1/2}[(I − uuᵀ)Λ(I − uuᵀ)]_{KK}Λ_K^{−1/2}
//	         = I − abᵀ − baᵀ + κbbᵀ,  a_i = u_i√λ_i, b_i = u_i/√λ_i = f_i,
//
// κ = Σλ_ku_k² = ‖ĝ‖² (the arrowhead's corner). That is the identity
// less a rank-two term, solved by Woodbury's formula with a 2×2 system,
// and δ = K·F_aᵀy with (F_aKF_aᵀ)y = f is the solution of least δᵀK⁻¹δ —
// the general candidate's metric when Z's rows are orthogonal (K = D²).
// It rests on CKCᵀ = diag(E), which holds to rounding, so the candidate
// is certified by its residual: |(F_aδ − f)_i| ≤ leanTol·(|f_i| +
// Σ_j|F_a,ijδ_j|), else (and when the absorb it gives is refused for the
// band or θ) the general candidate is computed as before. It serves
// SON's gate only: a host with its own limit (SetGateLimit, package ada's
// FTSL and S-ADA) keeps the general candidate, and its models as they were.

// leanTol bounds the lean candidate's residual relative to the terms of
// each equation: far above the rounding of the products (≈1e-15), far
// below what would change the sketch measurably.
const leanTol = 1e-11

// leanDelta computes the lean candidate into dlt (p values) for the keep
// = q rows left after one drop from the lean case (cols, finv, fext; U
// and lam of the shrink's eigendecomposition; F_a formed), and reports
// whether it is finite and certified.
func (s *Sketch) leanDelta(keep int, kap float64) bool {
	q, p, pm, fs := s.q, s.p, s.pmax, s.pmax+1
	g := q + 1
	U, lam := s.u[:g*g], s.lam[:g]
	cols, finv, f := s.cols[:keep], s.finv[:keep], s.fext[:keep]
	// Woodbury: M = I − [a b][b c]ᵀ with c = a − κb; M⁻¹f =
	// f + [a b]·H⁻¹·[b·f; c·f], H = I₂ − [b c]ᵀ[a b].
	var ba, bb, ca, cb float64
	for i, b := range f {
		a := b * lam[cols[i]]
		c := a - kap*b
		ba += b * a
		bb += b * b
		ca += c * a
		cb += c * b
	}
	h00, h01, h10, h11 := 1-ba, -bb, -ca, 1-cb
	det := h00*h11 - h01*h10
	// r = [b·f; c·f] = [bb; cb] (f = b).
	s0 := (h11*bb - h01*cb) / det
	s1 := (h00*cb - h10*bb) / det
	if !(math.Abs(det) > 1e-8*(math.Abs(h00*h11)+math.Abs(h01*h10))) || math.IsNaN(s0+s1) || math.IsInf(s0+s1, 0) {
		return false
	}
	// t = Λ_K^{−1/2}y, y = f + a·s0 + b·s1, spread over U's g columns
	// (zero at the dropped one), so that v = U_{top,K}·t is one dot
	// product per row of U.
	t := s.y2[:g]
	clear(t)
	for i, b := range f {
		a := b * lam[cols[i]]
		t[cols[i]] = finv[i] * (b + a*s0 + b*s1)
	}
	v := s.y1[:q]
	for r := range v {
		v[r] = linalg.Dot(U[r*g:r*g+g], t)
	}
	// w = Cᵀv, then δ = K·w (K symmetric: a combination of its rows),
	// four rows per pass.
	w := s.vq[:p]
	combineRows(w, v, s.C, pm, p)
	d := s.dlt[:p]
	combineRows(d, w, s.K, pm, p)
	// The residual, equation by equation.
	for i, fi := range f {
		row := s.fa[i*fs:][:p]
		r, mag := -fi, math.Abs(fi)
		for j, fv := range row {
			x := fv * d[j]
			r += x
			mag += math.Abs(x)
		}
		if !(math.Abs(r) <= leanTol*mag) {
			return false
		}
	}
	return true
}

// combineRows sets dst (n values) to Σ_r x_r·A_r over the rows A_r of A
// (stride ld, first n values), r < len(x), four rows per pass.
func combineRows(dst, x, A []float64, ld, n int) {
	clear(dst)
	r := 0
	for ; r+4 <= len(x); r += 4 {
		o := r * ld
		linalg.Axpy4(x[r], A[o:o+n], x[r+1], A[o+ld:o+ld+n], x[r+2], A[o+2*ld:o+2*ld+n], x[r+3], A[o+3*ld:o+3*ld+n], dst)
	}
	for ; r < len(x); r++ {
		linalg.Axpy(x[r], A[r*ld:r*ld+n], dst)
	}
}
