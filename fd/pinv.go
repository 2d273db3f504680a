package fd

import "github.com/sparseson/sparseson/internal/linalg"

// MulPinv implements sparse.Sketch: dst = Cᵀ(SSᵀ)^{†2}C·z, so that
// Zᵀ(·)Z = (SᵀS)†.
func (s *Sketch) MulPinv(dst, z []float64) { s.mulPinv(dst, z, true) }

// MulProj implements sparse.Sketch: dst = Cᵀ(SSᵀ)^†C·z, so that Zᵀ(·)Z is
// the projector onto the row space of S.
func (s *Sketch) MulProj(dst, z []float64) { s.mulPinv(dst, z, false) }

func (s *Sketch) mulPinv(dst, z []float64, sq bool) {
	q, lb := s.q, s.lb
	y := s.y1[:q]
	s.cz(y, z)
	t := s.y2[:q]
	for k := 0; k < q; k++ {
		var v float64
		for i := 0; i < q; i++ {
			v += s.pu[i*lb+k] * y[i]
		}
		w := s.pinv[k]
		if sq {
			w *= w
		}
		t[k] = v * w
	}
	for i := 0; i < q; i++ {
		var v float64
		for k := 0; k < q; k++ {
			v += s.pu[i*lb+k] * t[k]
		}
		y[i] = v
	}
	s.ctz(dst, y)
	finiteOrZero(dst[:s.p])
}

// refreshPinv factors SSᵀ = UΛUᵀ for the α = 0 branch.
func (s *Sketch) refreshPinv() {
	q, lb := s.q, s.lb
	clear(s.pinv)
	if q == 0 {
		return
	}
	G := s.g[:q*q]
	copy(G, s.gramW())
	lam, U := s.lam[:q], s.u[:q*q]
	if !linalg.EigSym(q, G, lam, U, s.work) || !(lam[0] > 0) {
		return
	}
	for k := 0; k < q; k++ {
		if lam[k] > EigTol*lam[0] {
			s.pinv[k] = 1 / lam[k]
		}
		for i := 0; i < q; i++ {
			s.pu[i*lb+k] = U[i*q+k]
		}
	}
}
