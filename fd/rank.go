package fd

import (
	"github.com/sparseson/sparseson/sparse"

	"github.com/sparseson/sparseson/internal/linalg"
)

// The doubled buffer of Wan & Zhang (TPAMI 2022), ADA-FFD, Alg. 3/4 (
// Config.RankBuffer), which differs from Luo et al.'s (JMLR 2019) fast FD (Alg. 4–6) in
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
// sketch's row space (ε_r of docs/algorithms.md §1).
const spanTol = 1e-9

// rankUpdate is Update for Config.RankBuffer. It factors the sketch
// before ĝ (Spectrum, for the span test) and then changes it, so the
// factor is marked stale at the end.
func (s *Sketch) rankUpdate(st *sparse.Step, h sparse.Host, c, kap float64, zero bool) {
	s.rankStep(st, h, c, kap, zero)
	s.spec.ok = false
}

func (s *Sketch) rankStep(st *sparse.Step, h sparse.Host, c, kap float64, zero bool) {
	if s.nb >= s.lb {
		s.cnt.Shrinks++
		keep, rho, done := s.decompose(st.Z[:s.p], 0, 0, true)
		if !done {
			s.commit(keep, rho)
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
		if r2 := s.spanResidual(st.Z[:s.p], c, kap, a[:s.p]); r2 <= spanTol*kap {
			if !s.diag {
				// The buffered rows of Z are raw gradients, possibly
				// nearly collinear; a is found by solving in that basis,
				// so re-base Z to S's singular vectors first (compact;
				// deferred by the core), and merge there.
				s.compact(h, false)
				s.spec.ok = false
				r2 = s.spanResidual(st.Z[:s.p], c, kap, a[:s.p])
			}
			if s.merge(a[:s.p]) {
				return
			}
		}
	}
	s.nb++
	s.bufferAppend(st, h, c, kap)
	s.rediagonalize(st.Z, c, kap)
}

// rediagonalize returns the sketch to the diagonal state after
// bufferAppend added the row ĝ (from one: this buffer is kept diagonal
// throughout). The Gram matrix of [S; ĝᵀ] is the arrowhead
// [[diag E, c·C_old z], [·, κ]] — the shrink's, decomposed by the same
// O(q²) solver (Dsyev if it cannot vouch) — and C ← UᵀC keeps S′ᵀS′ with
// S′S′ᵀ = Λ: O(q²p) per example, against the q×q eigendecomposition per
// example that a buffered (non-diagonal) sketch costs the learner's
// preconditioner (Spectrum), 62% of ADA-FFD's time on news20 before. The
// full buffer's shrink then also finds the diagonal state. z is Z·x after
// the append (the old rows' entries are those of Z_old·x; the old rows of
// C are zero in the new column).
func (s *Sketch) rediagonalize(z []float64, c, kap float64) {
	q0, p := s.q-1, s.p
	if q0 < 0 || s.diag {
		return
	}
	g := q0 + 1
	lam, U := s.lam[:g], s.u[:g*g]
	// eigGram reads the state before the append: q0 rows, diagonal.
	s.q, s.diag = q0, true
	ok := s.eigGram(z[:p], c, kap, false, lam, U)
	s.q, s.diag = g, false
	if !ok || !(lam[0] > 0) {
		s.spec.ok = false
		return
	}
	keep := 0
	for keep < g && lam[keep] > EigTol*lam[0] {
		keep++
	}
	s.rotateRows(U, lam, g, keep)
}

// merge replaces S by the q-row sketch with S′ᵀS′ = SᵀS + ĝĝᵀ for ĝ = Zᵀa
// in S's row space. The Gram matrix of [C; aᵀ]·Z is formed from K afresh
// (not from the E the diagonal state carries), so that merge after merge
// the sketch stays the exact SᵀS of its factors: with the arrowhead of
// diag(E) instead, FKFᵀ drifted from I by 1e-10 over 200 merges (d = 10,
// τ = 6) and the learner left ADA-FULL by 1e-9. It reports false if the
// Gram matrix could not be decomposed (the caller then appends ĝ).
func (s *Sketch) merge(a []float64) bool {
	q, p, pm := s.q, s.p, s.pmax
	g := q + 1
	copy(s.C[q*pm:q*pm+p], a)
	s.q = g
	G := s.g[:g*g]
	s.gramInto(G, g)
	s.q = q
	lam, U := s.lam[:g], s.u[:g*g]
	if !linalg.EigSym(g, G, lam, U, s.work) || !(lam[0] > 0) {
		clear(s.C[q*pm : q*pm+p])
		return false
	}
	keep := 0
	for keep < q && lam[keep] > EigTol*lam[0] {
		keep++
	}
	s.rotateRows(U, lam, g, keep)
	if s.alpha == 0 {
		s.refreshPinv()
	}
	return true
}

// rotateRows sets the sketch to the diagonal state of the g×g
// eigendecomposition (lam, U) of the Gram matrix of C's first g rows:
// C′_i = Σ_j U_ji·C_j for the keep leading eigenvalues (through fa,
// stride pm+1), E = λ_{1:keep}, and the other rows cleared.
func (s *Sketch) rotateRows(U, lam []float64, g, keep int) {
	p, pm := s.p, s.pmax
	fs := pm + 1
	// fa = UᵀC (keep rows): the bits of an Axpy per nonzero U_ji, j
	// ascending, four rows at a time in registers (linalg.MulRows).
	linalg.MulRows(s.fa, fs, U, 1, g, s.C, pm, keep, g, p, false)
	for i := 0; i < keep; i++ {
		s.eNew[i] = lam[i]
	}
	s.installRows(keep, g)
}

// installRows makes the first keep rows of fa (stride pmax+1) the rows of
// C, clears C's rows keep…n−1 and marks the sketch diagonal with keep
// directions (setDiag).
func (s *Sketch) installRows(keep, n int) {
	p, pm, fs := s.p, s.pmax, s.pmax+1
	for i := 0; i < keep; i++ {
		copy(s.C[i*pm:i*pm+p], s.fa[i*fs:i*fs+p])
	}
	for i := keep; i < n; i++ {
		clear(s.C[i*pm : i*pm+p])
	}
	s.setDiag(keep)
}
