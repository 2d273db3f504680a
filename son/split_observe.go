package son

import (
	"github.com/sparseson/sparseson/internal/linalg"
	"runtime"
)

// Observing Z, for learners that keep products of Z with state of their
// own: package ada's FTSL-Shampoo keeps the K columns Ḡ_j of its gradient
// sum beside the Split (ExampleRows) and the p×K product Y = Z·Ḡᵀ, which
// must follow every change the sketch makes to Z — the dual-averaging
// trick of docs/algorithms.md §7 with a K-dimensional ḡ. The Split's own
// y = Z·β̄ (ZBar) covers a scalar β̄ only.

// ZObserver is told of every change a sketch makes to Z during an
// Observed.Sketch call, after the Split has applied it. ĝ = c·x is the
// example being sketched (c as passed to Sketch, x from Begin).
type ZObserver interface {
	// Absorbed: Z ← Z + δĝᵀ (len(delta) = the rows of Z).
	Absorbed(delta []float64)
	// Appended: Z gained ĝᵀ as its last row.
	Appended()
	// Transformed: Z ← T·Z, T rows×p row-major with p the rows before;
	// rows at or beyond the new count are zero.
	Transformed(T []float64, rows, p int)
}

// Observed is a Split whose Sketch calls report to a ZObserver. Make it
// once (Observe) and keep it: its Sketch allocates nothing.
type Observed struct {
	sp *Split
	h  observedHost
}

// observedHost forwards the sketch's Host calls to the SON core, then to
// the observer.
type observedHost struct {
	s *Learner
	o ZObserver
}

func (h *observedHost) Absorb(delta []float64) {
	defer runtime.KeepAlive(h)
	h.s.Absorb(delta)
	h.o.Absorbed(delta)
}

func (h *observedHost) Append() {
	defer runtime.KeepAlive(h)
	h.s.Append()
	h.o.Appended()
}

// Fold needs no report: it moves Zᵀb into β̄ and leaves Z as it is.
func (h *observedHost) Fold() { h.s.Fold() }

func (h *observedHost) Transform(T []float64, rows int, gram []float64) {
	defer runtime.KeepAlive(h)
	p := len(h.s.st.Z)
	h.s.Transform(T, rows, gram)
	h.o.Transformed(T, rows, p)
}

// Observe returns p with its sketch updates reported to o.
func (p *Split) Observe(o ZObserver) *Observed {
	return &Observed{sp: p, h: observedHost{s: p.s, o: o}}
}

// Sketch is Split.Sketch with every change of Z reported to the observer:
// it adds ĝ = c·x (x from Begin) to the sketch and returns z = Z_t·x for
// the new Z; β is unchanged. A non-finite c is ignored.
func (o *Observed) Sketch(c float64) []float64 {
	defer runtime.KeepAlive(o)
	s := o.sp.s
	if !linalg.IsFinite(c) {
		return s.z[:len(s.st.Z)]
	}
	// As Split.Sketch, with the observing host in the core's place.
	s.t++
	s.c = c
	s.st.C, s.st.N, s.st.Z, s.st.Seen = c, o.sp.n, s.z[:len(s.st.Z)], s.tab.Len()
	s.sk.Update(&s.st, &o.h)
	s.sumG2 = sat(s.sumG2 + c*c*o.sp.n) // saved with the model: kept finite
	return s.st.Z
}

// ExampleRows appends to dst the table row of each feature of the example
// Begin looked up, in the example's order (−1 for a feature Begin did not
// create), and returns it. Rows are numbered 0, 1, … in first-seen order,
// are never moved or removed, and are saved and loaded in that order
// (Columns visits them so), so a learner may keep per-feature state of its
// own in a parallel array indexed by row. x is the example's Val as given,
// except in an RMS split (NewRMSSplit), which learns on x̃.
func (p *Split) ExampleRows(dst []int) []int {
	defer runtime.KeepAlive(p)
	for _, o := range p.s.offs {
		if o < 0 {
			dst = append(dst, -1)
			continue
		}
		dst = append(dst, p.s.rowOf(o))
	}
	return dst
}

// Column returns the table row of slot (−1 if it has no state) and writes
// Z's current column for it into z (len ≥ Rows()): one feature's column
// without a sweep (--audit's weight lookup; allocates its scratch).
func (p *Split) Column(slot uint32, z []float64) int {
	defer runtime.KeepAlive(p)
	s := p.s
	r := s.tab.Find(slot)
	if r < 0 {
		return -1
	}
	wz := make([]float64, 1+s.pmax)
	s.refreshed(r, wz)
	copy(z, wz[1:1+len(s.st.Z)])
	return r
}
