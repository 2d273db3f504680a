package son

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"

	"github.com/sparseson/sparseson/internal/linalg"
)

// blasImpl is gonum's native BLAS, called as a concrete type (no interface
// call per refreshed row).
var blasImpl gonum.Implementation

// Deferred (lazy) folds and transforms of Z, for sketches that change their
// basis often (Frequent Directions compacts after every few appends on
// sparse data; docs/algorithms.md §4, "Observed").
//
// Done eagerly, a fold (w̄ += Zᵀb) or a transform (Z ← T·Z) visits the row of
// every feature seen: O(p·d_seen) per event, the order of a dense update,
// and growing with the examples seen. Deferred, each event is recorded
// once as a generation step, and a feature's row is brought up to date only
// when an example touches it again. Every row carries the generation at
// which it was last current (its stamp). For each recent generation g the
// core keeps the composite map from g's coordinates to the current ones:
//
//	Z_j(now) = M_g·c_j,   w̄_j(now) = w̄_j(stored) + β_gᵀc_j,
//
// with c_j the stored column (valid in g's coordinates, zero beyond the
// p_g rows Z had then). A step with fold vector b and transform T updates
// every live entry as β_g += M_gᵀb, then M_g ← T·M_g — O(p²·p_g) per entry,
// never O(d). A refresh costs O(p·p_g) per stale feature of an example.
// The ring holds at most LazyRing generations; when it is full, every
// stale row is brought up to date at once (a flush), so the eager cost is
// paid once per LazyRing events instead of once per event. An example's
// stale rows are found in the loop that touches its rows' cache lines
// (resolveZ), so that the stamps' misses overlap the rows'.
//
// In exact arithmetic the deferred and the eager forms are the same model;
// in floating point the composite maps round differently from a sequence
// of eager passes (the oracle tests bound the difference). The state is
// saved with the model, so a resumed run continues bit for bit.

// The ring's capacity. Each step costs O(ring·p³) for the maps, and a
// flush costs O(p²·d_seen) once per ring steps, so the balance is a ring
// of order √(d_seen/p): by default it is ringScale·√(d_seen/RowCap),
// clamped to [minRing, maxRing], re-evaluated at each step
// (SONConfig.LazyRing fixes it instead). On news20 (d_seen = 88k, m = 10,
// RowCap 20, two passes) fixed rings of 16, 32, 64, 128, 256, 512 took
// 0.85, 0.78, 0.75, 0.75, 0.75, 0.75 s for FD and 2.0, 1.5, 1.3, 1.16,
// 1.22, 1.44 s for RFD₀; 2·√(88k/20) ≈ 133.
const (
	ringScale        = 2
	minRing, maxRing = 16, 256
)

// ringCap is the ring's capacity for the current table size.
func (s *Learner) ringCap() int {
	if s.cfg.LazyRing > 0 {
		return s.cfg.LazyRing
	}
	return min(maxRing, max(minRing, int(ringScale*math.Sqrt(float64(s.tab.Len())/float64(s.pmax)))))
}

// genEntry is the map from one past generation's coordinates to the
// current ones. Its β and M occupy columns off…off+p of the ring's block
// (lazyZ.blk, row stride lazyZ.ld): β in row 0, M in rows 1…rows. A
// refresh is then one matrix–vector product [β; M]·c, and a step updates
// the columns of every entry at once with vectors as long as the whole ring
// (entries are added in order between flushes, so their columns are
// contiguous) instead of p per entry.
type genEntry struct {
	p    int // rows Z had in that generation (columns of M, len β)
	rows int // rows of M (Z's rows at the last step)
	off  int // first column in the ring's block
}

// lazyZ is the SON core's record of deferred steps.
type lazyZ struct {
	on      bool
	gen     uint32   // current generation
	stamp   []uint32 // per table row: the generation it is current in
	ring    []genEntry
	touched bool // some row is stamped with gen
	// The ring's maps: (1+pmax) rows of ld columns, of which used hold
	// entries; prod is scratch for a step's products (pmax rows of ld).
	blk, prod []float64
	ld, used  int
	tmp       []float64
	touch     float64 // see resolve
	stale     []int   // resolveZ's stale rows of the example (scratch)

	steps, flushes, refreshes int64
}

// reserve makes room for w more columns in the ring's block, growing it
// (by doubling, so rarely) with its contents.
func (l *lazyZ) reserve(w, pmax int) {
	if l.used+w <= l.ld {
		return
	}
	ld := max(2*l.ld, l.used+w, 16*pmax)
	blk := make([]float64, (1+pmax)*ld)
	for i := 0; i <= pmax; i++ {
		copy(blk[i*ld:i*ld+l.used], l.blk[i*l.ld:i*l.ld+l.used])
	}
	l.blk, l.ld = blk, ld
	l.prod = make([]float64, pmax*ld)
}

// add appends the identity map of a generation with p rows (β = 0).
func (l *lazyZ) add(p, pmax int) {
	l.reserve(p, pmax)
	e := genEntry{p: p, rows: p, off: l.used}
	l.used += p
	for i := 0; i <= p; i++ {
		row := l.blk[i*l.ld+e.off : i*l.ld+e.off+p]
		clear(row)
		if i > 0 {
			row[i-1] = 1
		}
	}
	l.ring = append(l.ring, e)
}

// apply maps a column c stored in the entry's coordinates (first e.p
// values) to the current ones: out[1:1+e.rows] = M·c and out[0] = β·c,
// what the deferred folds add to w̄_j, in one matrix–vector product
// (gonum's blocked kernel: twice as fast as a dot product per row at
// m = 10). The column's trailing zeros are left out — it was last written
// when Z had fewer rows than the generation ended with, or stored zeros —
// and it returns how many values of c were used.
func (l *lazyZ) apply(e *genEntry, c, out []float64) int {
	n := e.p
	for n > 0 && c[n-1] == 0 {
		n--
	}
	out = out[:1+e.rows]
	if n == 0 {
		clear(out)
		return 0
	}
	blasImpl.Dgemv(blas.NoTrans, 1+e.rows, n, 1, l.blk[e.off:], l.ld, c, 1, 0, out, 1)
	return n
}

// entryMaps copies an entry's M (rows×p, stride p) and β into m and beta
// (the model file's layout).
func (l *lazyZ) entryMaps(e *genEntry, m, beta []float64) {
	copy(beta[:e.p], l.blk[e.off:e.off+e.p])
	for i := 0; i < e.rows; i++ {
		o := (1+i)*l.ld + e.off
		copy(m[i*e.p:i*e.p+e.p], l.blk[o:o+e.p])
	}
}

// entry returns the ring entry for a stale stamp.
func (l *lazyZ) entry(stamp uint32) *genEntry {
	return &l.ring[len(l.ring)-int(l.gen-stamp)]
}

// current makes table row r current, stamping a new row (whose Z column is
// zero in every generation's coordinates) without work.
func (s *Learner) current(r int) {
	l := &s.lz
	switch {
	case r == len(l.stamp):
		l.stamp = append(l.stamp, l.gen)
		l.touched = true
	case l.stamp[r] != l.gen:
		s.refreshRow(r)
	}
}

// refreshRow brings table row r up to date (it must be stale): [β; M]·c
// written back over the row in one kernel call (linalg.RefreshCol, with
// the bits of the gonum Dgemv and Go loops it replaced). The refreshes
// are the doubled-buffer learners' largest cost — ADA-FFD refreshes 143
// rows per example on news20, 30 % of them in the ring's flushes — and
// the gated FD's beside the shrink itself.
func (s *Learner) refreshRow(r int) {
	l := &s.lz
	e := l.entry(l.stamp[r])
	o := s.wOff(r)
	linalg.RefreshCol(s.tab.Rows[o:o+1+s.pmax], e.p, l.blk[e.off:], l.ld, 1+e.rows, l.tmp)
	l.stamp[r] = l.gen
	l.touched = true
	l.refreshes++
}

// refreshed writes row r's current w̄_j and Z column (first p entries)
// into wz without changing the stored row.
func (s *Learner) refreshed(r int, wz []float64) {
	o := s.wOff(r)
	rows := s.tab.Rows
	p := len(s.st.Z)
	if !s.lz.on || s.lz.stamp[r] == s.lz.gen {
		copy(wz[:1+p], rows[o:o+1+p])
		return
	}
	e := s.lz.entry(s.lz.stamp[r])
	clear(wz[1 : 1+p])
	w0 := rows[o]
	s.lz.apply(e, rows[o+1:o+1+s.pmax], wz)
	wz[0] += w0
}

// flush brings every row up to date and empties the ring.
func (s *Learner) flush() {
	l := &s.lz
	if !l.on || len(l.ring) == 0 {
		return
	}
	l.flushes++
	for r, st := range l.stamp {
		if st != l.gen {
			s.refreshRow(r)
		}
	}
	l.ring = l.ring[:0]
	l.used = 0
}

// step records a fold of b (nil: none) and then a transform Z ← T·Z (nil:
// none; T is nr×p) as one generation step. The rows of the current example
// are brought up to date at once, so that the rest of the example sees
// current rows.
func (s *Learner) step(b, T []float64, nr int) {
	s.sqOK = false // the example's rows are refreshed below
	l := &s.lz
	p := len(s.st.Z)
	l.steps++
	if l.touched {
		if len(l.ring) >= s.ringCap() {
			s.flush()
		}
		if l.gen == ^uint32(0) {
			// Generation numbers wrap only after 2³² steps: renumber.
			s.flush()
			clear(l.stamp)
			l.gen = 0
		}
		l.add(p, s.pmax)
		l.gen++
		l.touched = false
	}
	// Entries hold the rows of the last step, except one added since (the
	// identity on the p rows Z has now): update each run of entries with
	// the same rows over its columns at once.
	for k := 0; k < len(l.ring); {
		e0 := &l.ring[k]
		r, c0 := e0.rows, e0.off
		k1 := k + 1
		for k1 < len(l.ring) && l.ring[k1].rows == r {
			k1++
		}
		last := &l.ring[k1-1]
		w := last.off + last.p - c0
		ld := l.ld
		if b != nil {
			// β += Σ_i b_i·M_i, i ascending, skipping zeros: the bits of
			// an AxpyVec per row, with β held in registers.
			linalg.MulRows(l.blk[c0:], ld, b, 0, 1, l.blk[ld+c0:], ld, 1, r, w, true)
		}
		if T != nil {
			// prod = T·M over the run's columns, each value the sum of an
			// AxpyVec sequence (row cleared, j ascending, zeros skipped)
			// but four rows at a time in registers (linalg.MulRows).
			linalg.MulRows(l.prod, ld, T, p, 1, l.blk[ld+c0:], ld, nr, r, w, false)
			for i := 0; i < nr; i++ {
				o := (1+i)*ld + c0
				copy(l.blk[o:o+w], l.prod[i*ld:i*ld+w])
			}
			for j := k; j < k1; j++ {
				l.ring[j].rows = nr
			}
		}
		k = k1
	}
	for _, o := range s.offs {
		if o >= 0 {
			if r := s.rowOf(o); l.stamp[r] != l.gen {
				s.refreshRow(r)
			}
		}
	}
}

// foldStats keeps ‖w̄‖² (wsq) and y = Z·w̄ exact through a deferred fold of
// b, which no row sees yet: ‖w̄ + Zᵀb‖² = ‖w̄‖² + 2bᵀy + bᵀKb and
// Z(w̄ + Zᵀb) = y + Kb, with K = ZZᵀ from the sketch.
func (s *Learner) foldStats(b []float64) {
	p := len(b)
	K, ks := s.gram.Gram()
	kb := s.kb[:p]
	for i := range kb {
		kb[i] = linalg.Dot(K[i*ks:i*ks+p], b)
	}
	y := s.y[:p]
	s.wsq = sat(math.Max(0, s.wsq+2*linalg.Dot(b, y)+linalg.Dot(b, kb)))
	for i, v := range kb {
		y[i] += v
	}
	if s.wsq == math.MaxFloat64 || !linalg.AllFinite(y) {
		s.resync(b)
	}
}

// resync recomputes ‖w̄ + Zᵀb‖² and Z·(w̄ + Zᵀb) exactly, in one pass over
// the rows after a flush: the fallback when the incremental values have
// left the floating-point range (only extreme inputs get here).
func (s *Learner) resync(b []float64) {
	s.flush()
	p := len(b)
	y := s.y[:p]
	clear(y)
	var sq float64
	rows := s.tab.Rows
	for o := s.lead; o < len(rows); o += s.stride {
		col := rows[o+1 : o+1+p]
		w := rows[o] + linalg.Dot(b, col)
		sq += w * w
		linalg.AxpyVec(w, col, y)
	}
	s.wsq = sat(sq)
	for i, v := range y {
		// Saved with the model: a diverged model's Z·w saturates.
		y[i] = math.Max(-math.MaxFloat64, math.Min(math.MaxFloat64, v))
		if math.IsNaN(v) {
			y[i] = 0
		}
	}
}
