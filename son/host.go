package son

import (
	"github.com/sparseson/sparseson/internal/linalg"
	"runtime"
)

// The Host side of the SON core: the operations a sketch may ask for on Z,
// each keeping w = w̄ + Zᵀb unchanged (docs/algorithms.md §2, P3) and keeping
// st.Z = Z·x̃ current. Absorb and Append touch only the example's columns;
// Fold and Transform are the rare dense steps and visit the rows of seen
// features only.

// Absorb applies Z ← Z + δĝᵀ, ĝ = c·x̃, with w̄_I −= ĝ_I·(δ·b) (Eq. 5's
// −(Z_t − Z_{t−1})ᵀb term).
//
// A deferred weight step (deferStep) is written in the same pass, first,
// and the pass leaves Σ_I w̄_j² for the fold guard.
func (s *Learner) Absorb(delta []float64) {
	defer runtime.KeepAlive(s)
	p := len(s.st.Z)
	delta = delta[:p]
	c := s.c
	cb := c * linalg.Dot(delta, s.b[:p])
	pend, f := s.pend, s.pendF
	s.pend = false
	// w̄·x̃ before the absorb and Σ_I w̄_j² after it, with the weight
	// step and Z's rank-one update, in one pass over the rows
	// (linalg.AbsorbScatter: the bits of a loop over w̄ and scatterZ).
	wx, sq := linalg.AbsorbScatter(s.tab.Rows, s.offs, s.xt[:len(s.offs)], c, delta, pend, f, cb)
	s.sqI, s.sqOK = sq, true
	if s.lz.on {
		// y = Z·w̄ gains Σ_I (Z_j + δĝ_j)(w̄_j − cb·x̃_j) − Z_j w̄_j.
		n := s.st.N
		y := s.y[:p]
		for i, v := range delta {
			y[i] += v*c*(wx-cb*n) - cb*s.st.Z[i]
		}
	}
	cn := c * s.st.N
	for i, v := range delta {
		s.st.Z[i] += v * cn
	}
}

// Append adds ĝᵀ as row p of Z; b gains a zero, z gains ĝ·x̃ = c‖x̃‖².
func (s *Learner) Append() {
	defer runtime.KeepAlive(s)
	s.settle()
	p := len(s.st.Z)
	if p >= s.pmax {
		panic("sparse: sketch appended beyond MaxRows")
	}
	rows := s.tab.Rows
	for k, o := range s.offs {
		rows[o+1+p] = s.c * s.xt[k]
	}
	if s.lz.on {
		s.y[p] = s.c * s.wbarDot()
	}
	s.b[p] = 0
	s.st.Z = s.z[:p+1]
	s.st.Z[p] = s.c * s.st.N
}

// Fold moves Zᵀb into w̄ and zeroes b. Eagerly it visits every seen row
// and re-measures ‖w‖ = ‖w̄‖ for the cancellation guard; deferred
// (lazy.go) it records a generation step and keeps ‖w̄‖² exact through K.
func (s *Learner) Fold() {
	defer runtime.KeepAlive(s)
	s.settle()
	s.sqOK = false
	p := len(s.st.Z)
	b := s.b[:p]
	if s.lz.on {
		s.foldStats(b)
		s.step(b, nil, 0)
		clear(b)
		s.w0sq = s.wsq
		s.folded, s.wsqI = true, s.wbarSq()
		s.folds++
		return
	}
	rows := s.tab.Rows
	var sq float64
	for o := s.lead; o < len(rows); o += s.stride {
		// w is unchanged by a fold; a w_j that no longer fits in a float64
		// (a diverged model) keeps its w̄_j rather than become Inf.
		if v := rows[o] + linalg.Dot(b, rows[o+1:o+1+p]); linalg.IsFinite(v) {
			rows[o] = v
		}
		sq += rows[o] * rows[o]
	}
	clear(b)
	sq = sat(sq)
	s.wsq, s.w0sq = sq, sq
	s.folded, s.wsqI = true, s.wbarSq()
	s.folds++
}

// Transform replaces Z by T·Z (T rows×p) and optionally returns the new
// Gram matrix ZZᵀ. Rows of Z at or beyond the new count are zeroed, which
// Append relies on. b must be zero (Fold first).
func (s *Learner) Transform(T []float64, nr int, gram []float64) {
	defer runtime.KeepAlive(s)
	s.settle()
	s.sqOK = false
	p := len(s.st.Z)
	if nr > s.pmax || len(T) < nr*p {
		panic("sparse: bad Transform shape")
	}
	fold := !allZero(s.b[:p])
	if s.lz.on {
		s.transformLazy(T, nr, gram, fold)
		return
	}
	if fold {
		s.Fold()
	}
	var tmp [64]float64
	buf := tmp[:0]
	if nr > len(tmp) {
		buf = make([]float64, nr)
	} else {
		buf = tmp[:nr]
	}
	if gram != nil {
		clear(gram[:nr*nr])
	}
	// buf = T·col as GatherCols over Tᵀ's rows (row j: T's column j),
	// whose every lane sums over j in order as Dot(T_i, col) does: the
	// same bits, all nr rows of T in one pass over col.
	tt, offT := s.transposed(T, nr, p)
	rows := s.tab.Rows
	for o := s.lead; o < len(rows); o += s.stride {
		col := rows[o+1 : o+1+s.pmax]
		linalg.GatherCols(buf, tt, offT, col[:p])
		copy(col, buf)
		clear(col[nr:max(nr, p)])
		if gram != nil {
			linalg.SyrUpper(gram, buf)
		}
	}
	if gram != nil {
		linalg.MirrorUpper(gram, nr)
	}
	s.exampleZ(nr)
}

// transposed returns Tᵀ (p×nr, row-major) for the nr×p T, and the
// offsets of its rows, in scratch kept by the learner.
func (s *Learner) transposed(T []float64, nr, p int) (tt []float64, offs []int) {
	if cap(s.tt) < nr*p {
		s.tt = make([]float64, nr*p)
	}
	s.tt = s.tt[:nr*p]
	s.ttOffs = s.ttOffs[:0]
	for j := 0; j < p; j++ {
		for i := 0; i < nr; i++ {
			s.tt[j*nr+i] = T[i*p+j]
		}
		s.ttOffs = append(s.ttOffs, j*nr)
	}
	return s.tt, s.ttOffs
}

// exampleZ recomputes st.Z = Z·x̃ over the first nr rows after a transform.
func (s *Learner) exampleZ(nr int) {
	rows := s.tab.Rows
	s.st.Z = s.z[:nr]
	clear(s.st.Z)
	for k, o := range s.offs {
		col := rows[o+1 : o+1+nr]
		for i := range s.st.Z {
			s.st.Z[i] += col[i] * s.xt[k]
		}
	}
}

// transformLazy is Transform deferred (lazy.go): one generation step that
// folds b (if non-zero) and applies T; the new Gram matrix is T·K·Tᵀ from
// the sketch's K, since no row is visited.
func (s *Learner) transformLazy(T []float64, nr int, gram []float64, fold bool) {
	p := len(s.st.Z)
	b := s.b[:p]
	var bf []float64 // the fold vector of the step, nil for none
	if fold {
		bf = b
		s.foldStats(b)
		s.w0sq = s.wsq
		s.folds++
	}
	if gram != nil {
		K, ks := s.gram.Gram()
		tk := s.tk[:nr*p]
		for i := 0; i < nr; i++ {
			for j := 0; j < p; j++ {
				tk[i*p+j] = linalg.Dot(T[i*p:i*p+p], K[j*ks:j*ks+p])
			}
		}
		for i := 0; i < nr; i++ {
			for j := i; j < nr; j++ {
				v := linalg.Dot(tk[i*p:i*p+p], T[j*p:j*p+p])
				gram[i*nr+j], gram[j*nr+i] = v, v
			}
		}
	}
	y := s.kb[:nr]
	for i := range y {
		y[i] = linalg.Dot(T[i*p:i*p+p], s.y[:p])
	}
	copy(s.y, y)
	clear(s.y[nr:max(nr, p)])
	s.step(bf, T, nr)
	clear(b)
	if fold {
		s.folded, s.wsqI = true, s.wbarSq()
	}
	s.exampleZ(nr)
}

func allZero(v []float64) bool {
	for _, x := range v {
		if x != 0 {
			return false
		}
	}
	return true
}
