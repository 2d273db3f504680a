package fd

import (
	"math"

	"github.com/sparseson/sparseson/internal/linalg"
	"github.com/sparseson/sparseson/sparse"
)

// bufferAppend appends ĝ as a new row of Z and of S (C gains a unit row).
func (s *Sketch) bufferAppend(st *sparse.Step, h sparse.Host, c, kap float64) {
	if s.p == s.pmax {
		s.compact(h, false)
	}
	s.invalidate()
	p, q, pm, lb := s.p, s.q, s.pmax, s.lb
	z := st.Z[:p]
	// N bordering: the new row of SSᵀ is C·a (a = Zĝ = c·z), its diagonal
	// α + κ.
	if s.alpha > 0 {
		v := s.y1[:q]
		s.cz(v, z)
		// Rows of L sliced once: Go checks the bounds of every s.L[·]
		// again after each store through s.L (the same sums, in order).
		L := s.L
		lq := L[q*lb : q*lb+q]
		for i := 0; i < q; i++ {
			x := c * v[i]
			li := L[i*lb : i*lb+i]
			for k, a := range li {
				x -= a * lq[k]
			}
			lq[i] = x / L[i*lb+i]
		}
		var l2 float64
		for _, a := range lq {
			l2 += a * a
		}
		// In exact arithmetic d = α + κ − ‖l‖² = α + ‖ĝ − (its projection on
		// S's rows)‖² ≥ α. It is computed to about ε·(α + κ); a pivot below
		// that is rounding noise and is floored there, and a row with
		// ‖l‖² beyond α + κ (impossible for a positive definite N) is
		// scaled back, so that the factor stays bounded by N's diagonal.
		floor := math.Max(s.alpha, pivotFloor*(s.alpha+kap))
		d := s.alpha + kap - l2
		if d < floor {
			if l2 > s.alpha+kap-floor && l2 > 0 {
				f := math.Sqrt(math.Max(s.alpha+kap-floor, 0) / l2)
				for k := 0; k < q; k++ {
					s.L[q*lb+k] *= f
				}
			}
			d = floor
		}
		s.L[q*lb+q] = math.Sqrt(d)
		for k := q + 1; k < lb; k++ {
			s.L[q*lb+k] = 0
		}
	}
	for i := 0; i < q; i++ {
		s.C[i*pm+p] = 0
	}
	scale := s.appendRow(h, c, kap, z)
	row := s.C[q*pm : q*pm+p+1]
	clear(row)
	row[p] = scale
	s.q++
	s.diag = false
}

// invalidate marks the cached W = C·K·Cᵀ (gw) stale.
func (s *Sketch) invalidate() { s.gwOK = false }

// gramW returns W = C·K·Cᵀ (q×q, stride q) from the cache, computing it
// if C or K changed since.
func (s *Sketch) gramW() []float64 {
	q := s.q
	W := s.gw[:q*q]
	if !s.gwOK {
		s.gramInto(W, q)
		s.gwOK = true
	}
	return W
}

// gramInto writes W = C·K·Cᵀ (q×q) into dst with stride ld.
func (s *Sketch) gramInto(dst []float64, ld int) {
	p, q, pm := s.p, s.q, s.pmax
	for i := 0; i < q; i++ {
		ci := s.C[i*pm : i*pm+p]
		row := s.ck[i*pm : i*pm+p]
		clear(row)
		for j, v := range ci {
			if v != 0 {
				linalg.Axpy(v, s.K[j*pm:j*pm+p], row)
			}
		}
	}
	for i := 0; i < q; i++ {
		for j := i; j < q; j++ {
			v := linalg.DotVec(s.ck[i*pm:i*pm+p], s.C[j*pm:j*pm+p])
			dst[i*ld+j] = v
			dst[j*ld+i] = v
		}
	}
}

// cholSolve solves LLᵀx = y in place.
func (s *Sketch) cholSolve(y []float64) {
	lb := s.lb
	n := len(y)
	for i := 0; i < n; i++ {
		v := y[i]
		for k := 0; k < i; k++ {
			v -= s.L[i*lb+k] * y[k]
		}
		y[i] = v / s.L[i*lb+i]
	}
	for i := n - 1; i >= 0; i-- {
		v := y[i]
		for k := i + 1; k < n; k++ {
			v -= s.L[k*lb+i] * y[k]
		}
		y[i] = v / s.L[i*lb+i]
	}
}

// refactor recomputes the Cholesky factor of N = αI + CKCᵀ.
func (s *Sketch) refactor() {
	q, lb := s.q, s.lb
	W := s.gramW()
	clear(s.L)
	for i := 0; i < q; i++ {
		row := s.L[i*lb : i*lb+i]
		for j := range row {
			v := W[i*q+j]
			for k := 0; k < j; k++ {
				v -= row[k] * s.L[j*lb+k]
			}
			row[j] = v / s.L[j*lb+j]
		}
		// The pivot and the row's bound as in bufferAppend: when rounding
		// leaves a pivot below its floor (rows of S nearly parallel — one
		// gradient buffered many times), the row is scaled back within
		// N's diagonal. Without that, each such pivot multiplied the
		// rounding error of the next row by up to ‖ĝ‖/√α, and a buffer of
		// one repeated huge gradient overflowed L to Inf and NaN.
		nii := s.alpha + W[i*q+i]
		floor := math.Max(s.alpha, pivotFloor*nii)
		var l2 float64
		for _, v := range row {
			l2 += v * v
		}
		if l2-l2 != 0 {
			clear(row) // overflowed: this row alone cannot be bounded
			l2 = 0
		}
		d := nii - l2
		if !(d >= floor) {
			if l2 > nii-floor && l2 > 0 {
				f := math.Sqrt(math.Max(nii-floor, 0) / l2)
				for j := range row {
					row[j] *= f
				}
			}
			d = floor
		}
		s.L[i*lb+i] = math.Sqrt(d)
	}
}
