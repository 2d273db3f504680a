package fd

import "github.com/sparseson/sparseson/sparse"

// The doubled buffer of seed 000 (Wan and Zhang, ADA-FFD, Alg. 3/4;
// Config.RankBuffer), which differs from seed 002's fast FD (Alg. 4–6) in
// three ways:
//
//   - the buffer counts directions, not rows: a gradient inside the
//     sketch's row space (Alg. 3 line 5, g′ = V Vᵀg = g) only updates the
//     Gram matrix (line 9, M ← M + (Vᵀg)(Vᵀg)ᵀ) and takes no buffer slot,
//     and a zero gradient does nothing;
//   - the buffer starts empty (r₀ = 0);
//   - the buffer is shrunk when it is full (r = 2τ, line 12) after that
//     round's step, so the step that fills it still sees all 2τ
//     directions; here the shrink is done at the start of the next update,
//     before its ĝ joins — the same sequence of sketches.
//
// A row-space ĝ = Zᵀa (a from spanResidual) is merged by re-diagonalising
// the Gram matrix of [S; ĝᵀ] = [C; aᵀ]·Z, which has rank q: the new
// sketch is C′ = U_qᵀ[C; aᵀ] with E = λ_{1:q} — Z is not touched. The
// deferred shrink needs no ĝ column either (decompose with zero set), so
// it only rotates C: the Z work of this buffer is the appends alone.

// spanTol is the relative residual below which ĝ counts as inside the
// sketch's row space (ε_r of sketches.md §1).
const spanTol = 1e-9

// rankUpdate is Update for Config.RankBuffer.
func (s *Sketch) rankUpdate(st *sparse.Step, h sparse.Host, c, kap float64, zero bool) {
	if s.nb >= s.lb {
		s.cnt.Shrinks++
		keep, rho, done := s.decompose(st.Z[:s.p], 0, 0, true)
		if !done {
			s.commit(keep, rho, false)
		}
	}
	if zero {
		return
	}
	if s.q > 0 {
		a := s.spec.scratchP
		if s.spec.lam == nil {
			s.spec.alloc(s.lb, s.pmax)
			a = s.spec.scratchP
		}
		a = a[:s.p]
		if r2 := s.spanResidual(st.Z[:s.p], c, kap, a); r2 <= spanTol*kap {
			if s.merge(st.Z[:s.p], c, kap-r2, a) {
				return
			}
		}
	}
	s.nb++
	s.bufferAppend(st, h, c, kap)
}

// merge replaces S by the q-row sketch with S′ᵀS′ = SᵀS + ĝĝᵀ for ĝ = Zᵀa
// in S's row space (kp = ‖ĝ‖² as that projection). It reports false if the
// Gram matrix could not be decomposed (the caller then appends ĝ).
func (s *Sketch) merge(z []float64, c, kp float64, a []float64) bool {
	q, p, pm := s.q, s.p, s.pmax
	g := q + 1
	lam, U := s.lam[:g], s.u[:g*g]
	if !s.eigGram(z, c, kp, false, lam, U) || !(lam[0] > 0) {
		return false
	}
	keep := 0
	for keep < q && lam[keep] > EigTol*lam[0] {
		keep++
	}
	// C′_i = Σ_j U_ji·C_j + U_qi·aᵀ, into fa (stride pm+1), then into C.
	fs := pm + 1
	for i := 0; i < keep; i++ {
		row := s.fa[i*fs : i*fs+p]
		clear(row)
		for j := 0; j < q; j++ {
			if w := U[j*g+i]; w != 0 {
				axpy(w, s.C[j*pm:j*pm+p], row)
			}
		}
		axpy(U[q*g+i], a, row)
		s.eNew[i] = lam[i]
	}
	for i := 0; i < keep; i++ {
		copy(s.C[i*pm:i*pm+p], s.fa[i*fs:i*fs+p])
	}
	for i := keep; i < q; i++ {
		clear(s.C[i*pm : i*pm+p])
	}
	s.setDiag(keep)
	if s.alpha == 0 {
		s.refreshPinv()
	}
	return true
}
