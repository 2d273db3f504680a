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
// The probes of this example stay within the first 2n..4n entries even
// when ent has grown for a longer example before: a table sized for
// news20's longest documents (16Ki entries, 192 KiB) spread a typical
// example's 140 probes over L2, and their misses were most of putBase's
// time. Entries past the prefix keep old stamps, so they never look
// current when a later, longer example uses them again.
func (t *slotTable) reset(n int) {
	size := 16
	log := uint32(4)
	for size < 2*n {
		size <<= 1
		log++
	}
	// Reallocate when too small, and also when far too big, so that one
	// huge example does not pin its table's memory for the rest of the
	// run.
	if len(t.ent) < size || (len(t.ent) > 1<<16 && len(t.ent) > 64*size) {
		t.ent = make([]slotEntry, size)
		t.stamp = 0
	}
	t.mask = uint32(size - 1)
	t.shift = 32 - log
	t.stamp++
	if t.stamp == 0 { // wrapped: old stamps could look current again
		clear(t.ent)
		t.stamp = 1
	}
}
