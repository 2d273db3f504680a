package gd

import (
	"math/bits"

	"github.com/sparseson/sparseson/internal/linalg"
	"github.com/sparseson/sparseson/sparse"
)

// Repeated slots. sparse.Example does not forbid a slot twice in one
// example (the CLI's hashing builder merges them; library callers need
// not). The schedule's steps and the scalar AdaGrad steps take each entry
// as it comes, as VW does. The NASA steps cannot: their state is a
// function of the per-feature gradient g_j = gs·Σ_{i: slot i = j} x_i, and
// an entry-wise update loses its cross terms — ‖G‖², kept incrementally by
// the scalar steps (Ouyang & Gray (KDD 2012), Eq. 10, 27 and 38), drifts
// from Σ_j G_j² until Load refuses the model, and per-feature NASA's V_j
// takes two deviations for one step. Those steps learn the merged example
// instead: a slot's values summed in order at its first occurrence, as
// the builder merges them. The merge is on x as the learner sees it, x̃
// under Config.RMS, so that the folded form and package ada's wrapper
// (whose learner gets x̃ with the repeats) merge the same values.

// repeatStamps finds a repeated row in O(s): a stamp per table row (4
// bytes beside the row's 16 to 48), the example's number written on each
// row it holds, so that a row already bearing it is a repeat and no
// example clears the stamps. The row's number is its offset divided by
// the row width, done as son's deferred steps do it (linalg.RowOf: a
// multiplication, no divide).
type repeatStamps struct {
	stamp  []uint32 // per table row: the last example that held it
	cur    uint32
	rowMul uint64 // linalg.RowMultiplier of the row width
}

func newRepeatStamps(width int) repeatStamps {
	return repeatStamps{rowMul: linalg.RowMultiplier(width)}
}

// next starts an example on a table of n rows: the stamps, the example's
// number, and the row width's multiplier. The number wraps after
// 2³² − 1 examples, and the stamps are cleared then, lest a row stamped
// 2³² examples ago pass for a repeat.
func (st *repeatStamps) next(n int) (stamp []uint32, cur uint32, rowMul uint64) {
	if len(st.stamp) < n {
		st.stamp = append(st.stamp, make([]uint32, n-len(st.stamp))...)
	}
	if st.cur++; st.cur == 0 {
		clear(st.stamp)
		st.cur = 1
	}
	return st.stamp, st.cur, st.rowMul
}

// repeatSet is an open-addressing set of row offsets, reused across
// examples, for the merge: a stamp per entry marks the example that wrote
// it, so no example clears it.
type repeatSet struct {
	ent   []repeatEntry
	stamp uint32
}

type repeatEntry struct {
	stamp uint32
	pos   uint32 // the offset's place in the merged example
	off   int
}

// begin readies the set for n offsets and returns its entries, the probe
// mask and the hash shift: at most half full, so probes stay short.
func (s *repeatSet) begin(n int) (ent []repeatEntry, mask uint64, shift uint) {
	b := bits.Len(uint(2*n - 1))
	if len(s.ent) < 1<<b {
		s.ent = make([]repeatEntry, 1<<b)
		s.stamp = 0
	}
	if s.stamp++; s.stamp == 0 {
		clear(s.ent)
		s.stamp = 1
	}
	return s.ent, 1<<b - 1, uint(64 - b)
}

// hashOff spreads a row offset over the set's 64−shift bits (Fibonacci
// hashing: offsets are multiples of the row width).
func hashOff(o int, shift uint) uint64 { return (uint64(o) * 0x9e3779b97f4a7c15) >> shift }

// mergeRepeats returns ex, or, when two of its entries share a row of
// g.rows, the merged example (g.mx) with g.rows compacted to match. O(s),
// with no allocation once the stamps have grown with the table and the
// set and g.mx to the longest example with a repeat.
func (g *GD) mergeRepeats(ex *sparse.Example) *sparse.Example {
	stamp, cur, rowMul := g.stamps.next(g.tab.Len())
	for _, o := range g.rows {
		r := linalg.RowOf(o, rowMul)
		if stamp[r] == cur {
			return g.merge(ex)
		}
		stamp[r] = cur
	}
	return ex
}

// merge builds the merged example of ex, which has a repeat.
func (g *GD) merge(ex *sparse.Example) *sparse.Example {
	m := &g.mx
	m.Label, m.HasLabel, m.Weight, m.Initial, m.Tag = ex.Label, ex.HasLabel, ex.Weight, ex.Initial, ex.Tag
	m.Idx, m.Val = m.Idx[:0], m.Val[:0]
	rows := g.rows
	ent, mask, shift := g.rep.begin(len(rows))
	stamp := g.rep.stamp
	k := 0
	for j := range rows {
		o := rows[j]
		for h := hashOff(o, shift); ; h++ {
			e := &ent[h&mask]
			if e.stamp != stamp {
				*e = repeatEntry{stamp: stamp, pos: uint32(k), off: o}
				rows[k] = o
				m.Idx, m.Val = append(m.Idx, ex.Idx[j]), append(m.Val, ex.Val[j])
				k++
				break
			}
			if e.off == o {
				m.Val[e.pos] += ex.Val[j]
				break
			}
		}
	}
	g.rows = rows[:k]
	return m
}
