package rp

import (
	"math"

	"github.com/sparseson/sparseson/internal/linalg"
)

// The factored form of H, for a sketch whose α the SON core sets every
// round (Config.HostAlpha). A shift N ← N + δI is not low-rank, so an
// explicit H = N⁻¹ cannot follow it by Woodbury: it was re-inverted by
// Cholesky every round (factor, L⁻¹, L⁻ᵀL⁻¹: about m³/2 multiply-adds),
// and the Woodbury update of the same round was overwritten by the next
// round's shift unused. Instead the sketch keeps N and its Cholesky factor
// L (N = LLᵀ), refactored once per shift (m³/6), and applies H = L⁻ᵀL⁻¹ as
// two triangular solves (m²). The rank-two update needs no factor: N
// changes by addQRTo, and the check that N + UCUᵀ stays positive definite
// is the Woodbury 2×2 determinant, computed from L⁻¹a and L⁻¹r. The next
// round's shift refactors N anyway; with α unchanged, MulM refactors it
// lazily (factor).

// factored reports whether H is kept as the Cholesky factor of N rather
// than explicitly.
func (s *Sketch) factored() bool { return s.cfg.HostAlpha }

// factor makes s.L (with s.dinv) the Cholesky factor of N if it is not already, and
// reports whether N is numerically positive definite. L is a function of
// N alone, so a loaded or merged sketch refactors to the same bits.
func (s *Sketch) factor() bool {
	if !s.lok {
		s.lok = factorInto(s.L, s.dinv, s.N, s.m, 0)
	}
	return s.lok
}

// shiftFactored is SetAlpha in the factored form: N ← N + (a − α)I and L
// its factor, committed only if the shifted N is positive definite.
//
// The round's Update needs K + εI factored too (inRowSpace, the same N at
// the same α): cholesky2 factors both in one pass, which shares the loop
// overhead that dominates at m ≈ 10 and overlaps the two chains (m = 10:
// 15 % fewer instructions and 20 % less time than two cholesky calls).
func (s *Sketch) shiftFactored(a float64) {
	m := s.m
	d := a - s.alpha
	s.l2ok = false
	if e, ok := s.captureShift(d, a); ok && s.p > 0 {
		s.l2ok = cholesky2(s.L, s.L2, s.N, m, d, e)
	}
	if !s.l2ok && !cholesky(s.L, s.N, m, d) {
		s.lok = false // L held the failed attempt; N, α unchanged
		return
	}
	reciprocals(s.dinv, s.L, m)
	for i := 0; i < m; i++ {
		s.N[i*m+i] += d
	}
	s.lok = true
	s.alpha = a
	s.k2, s.nmax = s.norms()
}

// mulFactored sets dst = N⁻¹z by the factor; dst = 0 (the round's step
// ignores the sketch) if N is not numerically positive definite, which
// the checks of Update and SetAlpha make a case of rounding at the edge
// of float64 only.
func (s *Sketch) mulFactored(dst, z []float64) {
	if !s.factor() {
		clear(dst[:s.m])
		return
	}
	cholSolve(dst, s.L, s.dinv, z, s.m)
}

// updateFactored applies N ← N + qrᵀ + rqᵀ in the factored form and
// reports whether it did (false: the update is skipped). Without
// Config.Cholesky the check is Woodbury's determinant from the factor
// (O(m²)); if that is not sane, or with Config.Cholesky, N' is factored
// and committed only if it is positive definite (O(m³), counted).
func (s *Sketch) updateFactored(c float64, z []float64, kap float64) bool {
	m := s.m
	if !s.cfg.Cholesky {
		if s.factor() && s.rank2Sane(c, z, kap) {
			addQRTo(s.N, s.q, s.r, m)
			s.lok = false
			return true
		}
		s.fallbk++
	}
	copy(s.w1, s.N)
	addQRTo(s.w1, s.q, s.r, m)
	if !factorInto(s.L, s.dinv, s.w1, m, 0) {
		s.lok = false
		s.skips++
		return false
	}
	s.N, s.w1 = s.w1, s.N
	s.lok = true
	s.chols++
	return true
}

// rank2Sane reports whether the Woodbury system of the rank-two update
// (woodbury's K = C⁻¹ + UᵀHU, U = [c·z r]) has det K < 0 and finite
// entries, with UᵀHU = (L⁻¹U)ᵀ(L⁻¹U) from the current factor. By the
// inertia of the bordered matrix [[N, U], [Uᵀ, −C⁻¹]] (Haynsworth), det K
// < 0 is exactly the condition for N + UCUᵀ to be positive definite when
// N is, so this is the Cholesky path's test at O(m²).
func (s *Sketch) rank2Sane(c float64, z []float64, kap float64) bool {
	m := s.m
	shift := s.rank2Basis(c, z, kap)
	u, v := s.ha, s.hr
	fwd2(u, v, s.L, s.dinv, s.a, s.r, m)
	k11 := linalg.Dot(u, u) - shift
	k22 := linalg.Dot(v, v)
	k12 := 1 + linalg.Dot(u, v)
	det := k11*k22 - k12*k12
	return det < 0 && linalg.IsFinite(det) && linalg.IsFinite(k11) && linalg.IsFinite(k22) && linalg.IsFinite(k12)
}

// factoredH returns H = N⁻¹ (in scratch) for Save and the diagnostics of
// the factored form, or nil if N is not numerically positive definite.
func (s *Sketch) factoredH() []float64 {
	if !cholInverse(s.w3, s.N, s.w2, s.m) {
		return nil
	}
	return s.w3
}

// factorInto sets L to the Cholesky factor of A + shift·I by cholesky
// and dinv to 1/L_ii, and reports whether that matrix is numerically
// positive definite. The reciprocals are m divisions per factor, off any
// chain of dependent operations; each solve then multiplies, where a
// division would sit on the chain of its substitution (cholSolve at
// m = 10 took 30 % less time so).
func factorInto(L, dinv, A []float64, m int, shift float64) bool {
	if !cholesky(L, A, m, shift) {
		return false
	}
	reciprocals(dinv, L, m)
	return true
}

// reciprocals sets dinv_i = 1/L_ii.
func reciprocals(dinv, L []float64, m int) {
	dinv = dinv[:m]
	for i := range dinv {
		dinv[i] = 1 / L[i*m+i]
	}
}

// cholesky2 is cholesky of A + s1·I into L1 and of (A + s1·I) + s2·I into
// L2 in one pass, each to the bit of its own cholesky call (the diagonal
// of the second is rounded as if A + s1·I had been formed first, as
// SetAlpha commits it). It reports whether both are numerically positive
// definite.
func cholesky2(L1, L2, A []float64, m int, s1, s2 float64) bool {
	L1, L2, A = L1[:m*m], L2[:m*m], A[:m*m]
	for j := 0; j < m; j++ {
		l1j := L1[j*m : j*m+j]
		l2j := L2[j*m:]
		l2j = l2j[:len(l1j)]
		a := A[j*m+j] + s1
		d1 := a - linalg.Dot(l1j, l1j)
		d2 := a + s2 - linalg.Dot(l2j, l2j)
		if !(d1 > 0) || !linalg.IsFinite(d1) || !(d2 > 0) || !linalg.IsFinite(d2) {
			return false
		}
		p1, p2 := math.Sqrt(d1), math.Sqrt(d2)
		L1[j*m+j], L2[j*m+j] = p1, p2
		for i := j + 1; i < m; i++ {
			r1, r2 := L1[i*m:], L2[i*m:]
			r1, r2 = r1[:len(l1j)], r2[:len(l1j)] // no bounds checks below
			var v1, v2 float64
			for k, x := range l1j {
				v1 += r1[k] * x
				v2 += r2[k] * l2j[k]
			}
			a := A[i*m+j]
			L1[i*m+j] = (a - v1) / p1
			L2[i*m+j] = (a - v2) / p2
		}
	}
	return true
}

// fwd sets y = L⁻¹b for factorInto's L and dinv: y_i = (b_i − Σ_{k<i}
// L_ik y_k)·dinv_i. y and b may be the same slice.
func fwd(y, L, dinv, b []float64, m int) {
	y, b, dinv = y[:m], b[:m], dinv[:m]
	for i := range y {
		y[i] = (b[i] - linalg.Dot(L[i*m:i*m+i], y[:i])) * dinv[i]
	}
}

// fwd2 is fwd for two right-hand sides in one pass over L, to the bit:
// the two substitution chains are independent, so they overlap.
func fwd2(u, v, L, dinv, a, b []float64, m int) {
	u, v, a, b, dinv = u[:m], v[:m], a[:m], b[:m], dinv[:m]
	for i := range u {
		row := L[i*m : i*m+i]
		ui, vi := u[:i], v[:i]
		var su, sv float64
		for k, l := range row {
			su += l * ui[k]
			sv += l * vi[k]
		}
		u[i] = (a[i] - su) * dinv[i]
		v[i] = (b[i] - sv) * dinv[i]
	}
}

// cholSolve sets x = (LLᵀ)⁻¹b for factorInto's L and dinv: fwd, then
// Lᵀx = y by columns of Lᵀ, which are rows of L, each x_i subtracted from
// the rest as soon as it is known (independent updates, no dot-product
// chain). x and b may be the same slice.
func cholSolve(x, L, dinv, b []float64, m int) {
	fwd(x, L, dinv, b, m)
	x, dinv = x[:m], dinv[:m]
	for i := m - 1; i >= 0; i-- {
		xi := x[i] * dinv[i]
		x[i] = xi
		row := L[i*m : i*m+i]
		for k, l := range row {
			x[k] -= l * xi
		}
	}
}
