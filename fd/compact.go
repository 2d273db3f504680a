package fd

import (
	"math"

	"github.com/sparseson/sparseson/internal/linalg"
	"github.com/sparseson/sparseson/sparse"
)

// compact folds b into w̄ and replaces Z by a well-conditioned basis of the
// sketch's row space over the seen features (docs/algorithms.md §4 step 5).
func (s *Sketch) compact(h sparse.Host, cond bool) {
	if compactProbe != nil {
		compactProbe(s, false)
		defer compactProbe(s, true)
	}
	s.cnt.Compactions++
	if cond {
		s.cnt.CondCompact++
	}
	defer s.invalidate()
	// Transform folds Zᵀb into w̄ first (deferred by the core, see
	// son/lazy.go).
	p, q, pm, lb := s.p, s.q, s.pmax, s.lb
	if q == 0 {
		h.Transform(s.tmat[:0], 0, nil)
		s.p = 0
		s.knorm = 0
		return
	}
	if s.diag {
		// T = F = E^{−1/2}C, so the new Z is V; then F ← K^{−1/2} (Löwdin).
		T := s.tmat[:q*p]
		for i := 0; i < q; i++ {
			inv := 1 / math.Sqrt(s.E[i])
			for j := 0; j < p; j++ {
				T[i*p+j] = s.C[i*pm+j] * inv
			}
		}
		gram := s.gram[:q*q]
		h.Transform(T, q, gram)
		s.setK(gram, q)
		s.lowdin(q)
		// C = E^{1/2}·K^{−1/2}.
		for i := 0; i < q; i++ {
			se := math.Sqrt(s.E[i])
			for j := 0; j < q; j++ {
				s.C[i*pm+j] = se * s.kfl[i*lb+j]
			}
		}
		return
	}
	// General state: SSᵀ = UΛUᵀ; new Z = Λ^{−1/2}UᵀC·Z (the right singular
	// vectors of S), C ← UΛ^{1/2}, which keeps S (up to rows below EigTol).
	G := s.g[:q*q]
	copy(G, s.gramW())
	lam, U := s.lam[:q], s.u[:q*q]
	if !linalg.EigSym(q, G, lam, U, s.work) || !(lam[0] > 0) {
		// Only a non-finite (or vanished) sketch gets here: drop it.
		s.cnt.Skipped++
		h.Transform(s.tmat[:0], 0, nil)
		s.p = 0
		s.knorm = 0
		s.setDiag(0)
		return
	}
	r := 0
	for r < q && lam[r] > EigTol*lam[0] {
		r++
	}
	T := s.tmat[:r*p]
	for k := 0; k < r; k++ {
		inv := 1 / math.Sqrt(lam[k])
		row := T[k*p : k*p+p]
		clear(row)
		for i := 0; i < q; i++ {
			if w := U[i*q+k]; w != 0 {
				linalg.Axpy(w*inv, s.C[i*pm:i*pm+p], row)
			}
		}
	}
	gram := s.gram[:r*r]
	h.Transform(T, r, gram)
	s.setK(gram, r)
	for i := 0; i < q; i++ {
		for k := 0; k < r; k++ {
			s.C[i*pm+k] = U[i*q+k] * math.Sqrt(lam[k])
		}
	}
	if s.alpha > 0 {
		s.refactor()
	}
}

// compactProbe, set only by a developer test (TestRealDataTurnover), sees
// the sketch as each compaction begins and ends.
var compactProbe func(s *Sketch, done bool)

// setK installs K = gram (r×r) and p = r.
func (s *Sketch) setK(gram []float64, r int) {
	s.invalidate()
	pm := s.pmax
	for i := 0; i < r; i++ {
		copy(s.K[i*pm:i*pm+r], gram[i*r:i*r+r])
	}
	s.p = r
	s.knorm = kBound(s.K, r, pm)
}

// lowdin sets kfl (stride lb) to K^{−1/2} for the r×r K.
func (s *Sketch) lowdin(r int) {
	lb, pm := s.lb, s.pmax
	a := s.kq[:r*r]
	for i := 0; i < r; i++ {
		copy(a[i*r:i*r+r], s.K[i*pm:i*pm+r])
	}
	th, Q := s.klam[:r], s.kl[:r*r]
	if !linalg.EigSym(r, a, th, Q, s.work) || !(th[0] > 0) {
		for i := 0; i < r; i++ {
			for j := 0; j < r; j++ {
				s.kfl[i*lb+j] = 0
			}
			s.kfl[i*lb+i] = 1
		}
		return
	}
	for k := range th {
		th[k] = 1 / math.Sqrt(math.Max(th[k], 1e-300))
	}
	for i := 0; i < r; i++ {
		for j := i; j < r; j++ {
			var v float64
			for k := 0; k < r; k++ {
				v += Q[i*r+k] * th[k] * Q[j*r+k]
			}
			s.kfl[i*lb+j] = v
			s.kfl[j*lb+i] = v
		}
	}
}
