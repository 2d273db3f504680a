package fd

import "math"

// SetAlpha implements sparse.Sketch: α ← a, plus RFD's growth for a
// robust sketch, so that the SON core's scaled-space form (which sets α
// every round) and RFD's escaped-mass regulariser add up. In the scaled
// form each discarded λ_m is in units of W_s (Σĝĝᵀ ≈ W·C), so RFD adds
// ½λ_m/W_s: its α stays ½·(the mean discarded eigenvalue of C) per round.
// Adding ½λ_m itself, as Luo et al. (JMLR 2019) does in its units, grew α like W² on
// news20 (every document brings new directions, so FD discards about
// ‖ĝ‖² each step): ten passes of news20 ended at an average logistic loss
// of 0.457, against 0.021 for FD. In the diagonal
// state H's factor is diag √(α+E), O(p); with a doubled buffer partly
// filled N = αI + SSᵀ is refactored, O(p³).
func (s *Sketch) SetAlpha(a float64) {
	if s.cfg.Robust {
		a += s.grow
	}
	if a == s.alpha {
		return
	}
	s.alpha = a
	if s.alpha == 0 {
		s.refreshPinv()
		return
	}
	if s.diag {
		for i := 0; i < s.q; i++ {
			s.L[i*s.lb+i] = math.Sqrt(s.alpha + s.E[i])
		}
		return
	}
	s.refactor()
}

// Rank implements sparse.Sketch: the rows of S, at most the m−1 a shrink
// keeps. A doubled buffer holds up to 2m−1 rows between shrinks; counting
// them would make the scaled form's ρ jump at every shrink (on heart_scale
// α₀ swung between the prior alone and several times ρ, and fast RFD lost
// 11 points).
func (s *Sketch) Rank() int { return min(s.q, s.cfg.M-1) }

// Captured implements sparse.Sketch: tr(SSᵀ), the energy the sketch holds
// (ΣE in the diagonal state).
func (s *Sketch) Captured() (v float64) {
	if s.diag {
		for _, e := range s.E[:s.q] {
			v += e
		}
		return v
	}
	q := s.q
	W := s.gramW()
	for i := 0; i < q; i++ {
		v += W[i*q+i]
	}
	return v
}
