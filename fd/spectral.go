package fd

import (
	"math"

	"github.com/sparseson/sparseson/internal/linalg"
)

// Spectral products, for learners whose preconditioner is a function of
// the sketch's SᵀS rather than SON's (αI + SᵀS)⁻¹ — the FD-adaptive
// learners of package ada (Wan & Zhang's (TPAMI 2022) δI + (SᵀS)^{1/2}, Yang et al.'s (ICML 2025)
// (ρI + SᵀS)^{1/2}; docs/algorithms.md §7).
//
// With SSᵀ = CKCᵀ = UΛUᵀ the right singular vectors of S = CZ are
// V = Λ^{−1/2}UᵀCZ, so for any f with f(0) = 0
//
//	f(SᵀS) = Vᵀf(Λ)V = Zᵀ·CᵀU·diag(f(λ)/λ)·UᵀC·Z,
//
// a p×p matrix between Zᵀ and Z: MulSpectral applies it to z = Z·x in
// O(qp + q²). In the diagonal state (after every shrink of the per-step
// sketch) U = I and Λ = E, so Spectrum costs O(q); in the buffered state
// (the warm-up, and the doubled buffer between shrinks) it is one
// eigendecomposition of the q×q SSᵀ, O(q³), done once per sketch update
// however often it is asked for.

// spectral is the factor of the last Spectrum call.
type spectral struct {
	ok       bool
	at       int64 // Counts.Updates when computed
	q        int
	diag     bool // U = I
	lam, u   []float64
	g, work  []float64
	t1, t2   []float64
	scratchP []float64
}

func (sp *spectral) alloc(lb, pm int) {
	if sp.lam != nil {
		return
	}
	sp.lam = make([]float64, lb)
	sp.u = make([]float64, lb*lb)
	sp.g = make([]float64, lb*lb)
	sp.work = make([]float64, lb+linalg.EigWork(lb))
	sp.t1 = make([]float64, lb)
	sp.t2 = make([]float64, lb)
	sp.scratchP = make([]float64, pm)
}

// Spectrum returns the eigenvalues λ of SSᵀ (= the non-zero ones of SᵀS),
// largest first, with values ≤ EigTol·λ₁ (rounding noise) set to 0, and
// keeps the factor for MulSpectral until the next Update. The slice is
// the sketch's own: read it before the next Update.
func (s *Sketch) Spectrum() []float64 {
	sp := &s.spec
	q := s.q
	if sp.ok && sp.at == s.cnt.Updates && sp.q == q {
		return sp.lam[:q]
	}
	sp.alloc(s.lb, s.pmax)
	sp.ok, sp.at, sp.q = true, s.cnt.Updates, q
	lam := sp.lam[:q]
	if s.diag {
		sp.diag = true
		copy(lam, s.E[:q])
	} else {
		sp.diag = false
		G := sp.g[:q*q]
		s.gramInto(G, q)
		if !linalg.EigSym(q, G, lam, sp.u[:q*q], sp.work) {
			// Only a non-finite sketch gets here: no curvature at all.
			clear(lam)
			return lam
		}
	}
	if q > 0 {
		top := lam[0]
		for i, v := range lam {
			if !(v > EigTol*top) {
				lam[i] = 0
			}
		}
	}
	return lam
}

// MulSpectral sets dst (len ≥ Rows()) = CᵀU·diag(w)·UᵀC·z with the factor
// of the last Spectrum call, so that Zᵀ(·)Z = Σ_i w_i·λ_i·v_iv_iᵀ over the
// right singular vectors v_i of S; w has one weight per eigenvalue
// (len(w) = len(Spectrum())), and a weight for a zero eigenvalue is
// ignored. Take w_i = f(λ_i)/λ_i for f(SᵀS).
func (s *Sketch) MulSpectral(dst, z, w []float64) {
	sp := &s.spec
	q := sp.q
	y := sp.t1[:q]
	s.cz(y, z)
	if sp.diag {
		for i := range y {
			if sp.lam[i] > 0 {
				y[i] *= w[i]
			} else {
				y[i] = 0
			}
		}
	} else {
		t := sp.t2[:q]
		U := sp.u[:q*q]
		for k := range t {
			if !(sp.lam[k] > 0) {
				t[k] = 0
				continue
			}
			var v float64
			for i, yi := range y {
				v += U[i*q+k] * yi
			}
			t[k] = v * w[k]
		}
		for i := range y {
			y[i] = linalg.DotVec(U[i*q:i*q+q], t)
		}
	}
	s.ctz(dst, y)
	finiteOrZero(dst[:s.p])
}

// spanResidual returns ‖ĝ‖² − ‖P_S ĝ‖² for ĝ = c·x (z = Z·x, κ = ‖ĝ‖²),
// the squared distance of ĝ from the row space of S, and leaves
// CᵀU·Λ⁻¹·UᵀC·(c·z) in a (len p): ĝ's projection on that space is Zᵀa.
func (s *Sketch) spanResidual(z []float64, c, kap float64, a []float64) float64 {
	lam := s.Spectrum()
	sp := &s.spec
	q := len(lam)
	w := sp.t2[:q]
	// ‖P_S ĝ‖² = vᵀ(SSᵀ)†v with v = Sĝ = C·(c·z).
	v := s.y2[:q]
	s.cz(v, z)
	var proj float64
	if sp.diag {
		for i, vi := range v {
			vi *= c
			if lam[i] > 0 {
				proj += vi * vi / lam[i]
			}
		}
	} else {
		U := sp.u[:q*q]
		for k := range lam {
			if !(lam[k] > 0) {
				continue
			}
			var t float64
			for i, vi := range v {
				t += U[i*q+k] * vi
			}
			t *= c
			proj += t * t / lam[k]
		}
	}
	for k := range w {
		w[k] = 0
		if lam[k] > 0 {
			w[k] = c / lam[k]
		}
	}
	// w is overwritten by MulSpectral's own scratch only after it is read.
	wc := s.eNew[:q]
	copy(wc, w)
	s.MulSpectral(a, z, wc)
	return math.Max(kap-proj, 0)
}

// SpectralCZ sets y (len ≥ len(Spectrum())) = C·z when the last Spectrum's
// factor is diagonal (U = I, so that MulSpectral's weighted product is
// Σ_i w_i·(C·z)_i·(C·z′)_i), and reports whether it was.
func (s *Sketch) SpectralCZ(y, z []float64) bool {
	s.Spectrum()
	if !s.spec.diag {
		return false
	}
	s.cz(y[:s.spec.q], z)
	return true
}

// Unchanged reports whether the last Update left the sketch's factors C,
// E and Z as they were (a projected step that did not fold, project.go):
// a host's products with them still hold.
func (s *Sketch) Unchanged() bool { return s.proj.still }
