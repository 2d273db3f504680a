package sparse

import (
	"fmt"
	"math/bits"
	"runtime"
)

// MaxBits is the largest supported hash space, 2^30 slots.
const MaxBits = 30

// Table stores per-feature state compactly: one row of Stride float64s for
// each feature slot that has been seen, in first-seen order. Up to -b 22
// (denseIndexBits) a slot index of 2^Bits int32 entries maps slots to
// rows; it is allocated but never swept, so its pages are only touched
// for slots that occur. Above it the index is a hash table sized to the
// features seen (hashindex.go), so that neither memory nor the cache
// misses of a lookup grow with 2^b. Every whole-model operation (saving,
// re-basing a sketch, printing a readable model) walks the rows of seen
// features only — never all 2^b slots. New features also land next to
// each other, which keeps the hot rows of frequent features close in
// memory.
//
// Rows (and the slot index) may live in memory the Table itself mapped,
// outside the Go heap, and unmaps when the Table becomes unreachable. A
// slice of that memory does not keep the Table reachable, and the
// collector takes a method's receiver for dead after its last use, so
// code that reads Rows must keep the Table reachable until it is done:
// every exported method of a type that holds a Table, directly or through
// its fields, starts with defer runtime.KeepAlive(receiver) (checked over
// the source by internal/srccheck), and so do Table's own whole-table
// methods. Its per-feature lookups (Find, Row and their batch forms) are
// kept inlinable and leave that to their callers, the learners' methods.
// A caller that keeps a slice of Rows (Split.Aux) keeps its owner
// reachable for as long.
type Table struct {
	Stride int
	Keys   []uint32  // the slot of each row
	Rows   []float64 // len(Keys)·Stride values
	Init   []float64 // contents of a new row (zeros if nil)
	index  []int32   // dense index: slot → row+1, 0 for unseen (nil above denseIndexBits)
	hidx   hashIndex // the index above denseIndexBits
	mask   uint32
}

// denseIndexBits is the largest -b whose slot index starts as a dense
// array (2^22 int32, 16 MiB, mapped with huge pages). Above it the index
// is a hash table as small as the features seen: on news20 (3 passes from
// the cache, AdaGrad) the dense index took 0.70 s and 382 MB at -b 28
// against 0.20 s and 28 MB for the hash table, and at -b 24 the same time
// at 90 against 28 MB; at -b 18–22 the dense index was up to 15% faster.
// A hash table that would outgrow 1 byte per slot is replaced by the
// dense index (the data then uses a good share of the slots).
var denseIndexBits uint = 22

// NewTable returns an empty table for a hash space of 2^bits slots.
func NewTable(bits uint, stride int) *Table {
	if bits < 1 || bits > MaxBits {
		panic(fmt.Sprintf("sparse.NewTable: bits %d out of range", bits))
	}
	t := &Table{Stride: stride, mask: 1<<bits - 1}
	if bits <= denseIndexBits {
		t.index = newIndex(t, bits)
	} else {
		t.hidx = newHashIndex()
	}
	t.Rows = reserveRows(t, bits, stride)
	return t
}

// IndexBytesPerSlot bounds the slot index's memory per slot of a 2^bits
// hash space (the CLI's worst-case estimate): 4 for the dense index, and
// above -b 22 one more while a full hash table is replaced by it.
func IndexBytesPerSlot(bits uint) float64 {
	if bits <= denseIndexBits {
		return 4
	}
	return 5
}

// lookup returns row+1 for slot (masked), 0 if unseen.
func (t *Table) lookup(slot uint32) int32 {
	if t.index != nil {
		return t.index[slot]
	}
	return t.hidx.find(slot)
}

// setIndex records slot → row+1 (v) for a slot not yet stored.
func (t *Table) setIndex(slot uint32, v int32) {
	if t.index == nil && t.hidx.mustGrow() && 16*uint64(len(t.hidx.ent)) > uint64(t.mask)+1 {
		// Doubled, the hash table would exceed a byte per slot: the dense
		// index (4 bytes per slot) is then at most twice as large, and
		// faster.
		t.toDense()
	}
	if t.index != nil {
		t.index[slot] = v
		return
	}
	t.hidx.insert(slot, v)
}

// toDense replaces the hash index by the dense one, with the same entries.
func (t *Table) toDense() {
	t.index = newIndex(t, uint(bits.Len32(t.mask)))
	for _, e := range t.hidx.ent {
		if e != 0 {
			t.index[uint32(e>>32)] = int32(uint32(e))
		}
	}
	t.hidx = hashIndex{}
}

// clearIndex forgets every slot (Keys and Rows are kept).
func (t *Table) clearIndex() {
	if t.index == nil {
		t.hidx.reset()
		return
	}
	for _, k := range t.Keys {
		t.index[k] = 0
	}
}

// Len is the number of rows (features seen).
func (t *Table) Len() int { return len(t.Keys) }

// Find returns the row of slot, or -1 if the slot has never been seen.
func (t *Table) Find(slot uint32) int {
	return int(t.lookup(slot&t.mask)) - 1
}

// FindOffsets appends to dst the offset in Rows of each slot's row, or -1
// for a slot never seen: Find for a whole example, the lookups in one loop
// with nothing waiting on them, so that their cache misses overlap
// (a prediction's lookups, as Offsets is a learning example's).
func (t *Table) FindOffsets(dst []int, slots []uint32) []int {
	st := t.Stride
	if idx := t.index; idx != nil {
		m := t.mask
		for _, slot := range slots {
			o := -1
			if r := int(idx[slot&m]) - 1; r >= 0 {
				o = r * st
			}
			dst = append(dst, o)
		}
		return dst
	}
	for _, slot := range slots {
		o := -1
		if r := t.Find(slot); r >= 0 {
			o = r * st
		}
		dst = append(dst, o)
	}
	return dst
}

// Row returns the row of slot, appending a new row if the slot is new.
// Appending may move Rows, so callers re-slice Rows after calling Row.
func (t *Table) Row(slot uint32) int {
	slot &= t.mask
	if r := t.lookup(slot); r != 0 {
		return int(r) - 1
	}
	return t.add(slot)
}

// Offsets appends to dst the offset in Rows of each slot's row (row ·
// Stride), adding rows for new slots, and returns it. A learner's
// per-example loop calls it once instead of Row per feature: the choice
// of index is made once per example, not once per feature.
func (t *Table) Offsets(dst []int, slots []uint32) []int {
	st := t.Stride
	if idx := t.index; idx != nil {
		m := t.mask
		for _, slot := range slots {
			slot &= m
			r := int(idx[slot]) - 1
			if r < 0 {
				r = t.add(slot) // the dense index stays: only Rows grows
			}
			dst = append(dst, r*st)
		}
		return dst
	}
	for _, slot := range slots {
		dst = append(dst, t.Row(slot)*st)
	}
	return dst
}

func (t *Table) add(slot uint32) int {
	r := len(t.Keys)
	t.Keys = append(t.Keys, slot)
	if n := len(t.Rows) + t.Stride; n > cap(t.Rows) {
		// Double: append's growth factor for large slices (1.25) would
		// copy the whole table four times over as it grows, which for a
		// wide stride (FD keeps 4m values of Z per feature) cost a quarter
		// of a news20 pass.
		grown := make([]float64, len(t.Rows), max(2*cap(t.Rows), n, 1024*t.Stride))
		copy(grown, t.Rows)
		t.Rows = grown
	}
	if t.Init != nil {
		t.Rows = append(t.Rows, t.Init...)
	} else {
		for i := 0; i < t.Stride; i++ {
			t.Rows = append(t.Rows, 0)
		}
	}
	t.setIndex(slot, int32(r+1))
	return r
}

// Rebuild re-creates the slot index from Keys after the rows were loaded.
// It reports a duplicate or out-of-range key as an error.
func (t *Table) Rebuild() error {
	defer runtime.KeepAlive(t)
	if len(t.Rows) != len(t.Keys)*t.Stride {
		return fmt.Errorf("table holds %d values for %d rows of %d", len(t.Rows), len(t.Keys), t.Stride)
	}
	for r, k := range t.Keys {
		if k > t.mask {
			return fmt.Errorf("feature slot %d outside the %d-slot hash space", k, t.mask+1)
		}
		if t.lookup(k) != 0 {
			return fmt.Errorf("feature slot %d stored twice", k)
		}
		t.setIndex(k, int32(r+1))
	}
	return nil
}
