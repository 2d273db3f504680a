package hashing

// slotTable maps a slot to its position in the example being built. It is
// an open-addressing table cleared in O(1) by bumping a stamp: entries with
// an old stamp count as empty, so the table is reused across examples
// without being zeroed.
type slotTable struct {
	ent   []slotEntry
	mask  uint32
	shift uint32 // 32 − log2(len(ent)), for Fibonacci hashing
	stamp uint32
}

type slotEntry struct {
	stamp, slot, pos uint32
}

// reset empties the table and makes room for n entries at load ≤ 1/2.
func (t *slotTable) reset(n int) {
	size := 16
	log := uint32(4)
	for size < 2*n {
		size <<= 1
		log++
	}
	// Reallocate when too small, and also when far too big: a table grown
	// for one huge example would otherwise make every later probe miss the
	// cache.
	if len(t.ent) < size || (len(t.ent) > 1<<16 && len(t.ent) > 64*size) {
		t.ent = make([]slotEntry, size)
		t.mask = uint32(size - 1)
		t.shift = 32 - log
		t.stamp = 0
	}
	t.stamp++
	if t.stamp == 0 { // wrapped: old stamps could look current again
		clear(t.ent)
		t.stamp = 1
	}
}
