package fd

import "math"

// SetAlpha implements sparse.Sketch: α ← a, plus RFD's growth ½Σλ_m for a
// robust sketch, so that the SON core's scaled-space form (which sets α
// every round) and RFD's escaped-mass regulariser add up. In the diagonal
// state H's factor is diag √(α+E), O(p); with a doubled buffer partly
// filled N = αI + SSᵀ is refactored, O(p³).
func (s *Sketch) SetAlpha(a float64) {
	if s.cfg.Robust {
		a += s.sumRho / 2
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

// Rank implements sparse.Sketch: the rows of S (live and buffered).
func (s *Sketch) Rank() int { return s.q }

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
	G := s.g[:q*q]
	s.gramInto(G, q)
	for i := 0; i < q; i++ {
		v += G[i*q+i]
	}
	return v
}
