package sparse

import "fmt"

// MaxBits is the largest supported hash space, 2^30 slots.
const MaxBits = 30

// Table stores per-feature state compactly: one row of Stride float64s for
// each feature slot that has been seen, in first-seen order. A slot index
// of 2^Bits int32 entries maps slots to rows; it is allocated but never
// swept, so its pages are only touched for slots that occur, and every
// whole-model operation (saving, re-basing a sketch, printing a readable
// model) walks the rows of seen features only — never all 2^b slots. New
// features also land next to each other, which keeps the hot rows of
// frequent features close in memory.
type Table struct {
	Stride int
	Keys   []uint32  // the slot of each row
	Rows   []float64 // len(Keys)·Stride values
	Init   []float64 // contents of a new row (zeros if nil)
	index  []int32   // slot → row+1, 0 for unseen
	mask   uint32
}

// NewTable returns an empty table for a hash space of 2^bits slots.
func NewTable(bits uint, stride int) *Table {
	if bits < 1 || bits > MaxBits {
		panic(fmt.Sprintf("sparse.NewTable: bits %d out of range", bits))
	}
	t := &Table{Stride: stride, mask: 1<<bits - 1}
	t.index = newIndex(t, bits)
	t.Rows = reserveRows(t, bits, stride)
	return t
}

// Len is the number of rows (features seen).
func (t *Table) Len() int { return len(t.Keys) }

// Find returns the row of slot, or -1 if the slot has never been seen.
func (t *Table) Find(slot uint32) int {
	return int(t.index[slot&t.mask]) - 1
}

// Row returns the row of slot, appending a new row if the slot is new.
// Appending may move Rows, so callers re-slice Rows after calling Row.
func (t *Table) Row(slot uint32) int {
	slot &= t.mask
	if r := t.index[slot]; r != 0 {
		return int(r) - 1
	}
	return t.add(slot)
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
	t.index[slot] = int32(r + 1)
	return r
}

// Rebuild re-creates the slot index from Keys after the rows were loaded.
// It reports a duplicate or out-of-range key as an error.
func (t *Table) Rebuild() error {
	if len(t.Rows) != len(t.Keys)*t.Stride {
		return fmt.Errorf("table holds %d values for %d rows of %d", len(t.Rows), len(t.Keys), t.Stride)
	}
	for r, k := range t.Keys {
		if k > t.mask {
			return fmt.Errorf("feature slot %d outside the %d-slot hash space", k, t.mask+1)
		}
		if t.index[k] != 0 {
			return fmt.Errorf("feature slot %d stored twice", k)
		}
		t.index[k] = int32(r + 1)
	}
	return nil
}
