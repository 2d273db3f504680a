package sparse

import "math/bits"

// hashIndex maps feature slots to rows for hash spaces too large for a
// dense index to stay in cache: an open-addressing table with linear
// probing, sized to the features seen (at most half full), so that its
// size — and an example's lookup cost — follows the features seen, not
// 2^b. On news20 (88k–107k features) a dense index of 2^24 int32 is 64
// MiB, and every lookup of a rare word misses the last-level cache; this
// table is 2 MiB.
//
// It is not a Go map: a lookup is a multiply, a shift and, at most half
// full, one or two loads of adjacent entries, with no hashing of keys
// through an interface and no allocation.
//
// An entry packs slot<<32 | row+1; 0 marks an empty entry (row+1 ≥ 1, so
// no stored entry is 0). Slots are spread by Fibonacci hashing (the
// golden-ratio multiplier keeps the high bits), which also scatters the
// consecutive slots of numeric feature names.
type hashIndex struct {
	ent   []uint64
	shift uint // 64 − log2(len(ent))
	n     int  // entries stored
}

// minHashEntries is the initial table size (a power of two).
const minHashEntries = 1 << 12

const fibMul = 0x9E3779B97F4A7C15

func newHashIndex() hashIndex {
	h := hashIndex{}
	h.alloc(minHashEntries)
	return h
}

// alloc installs an empty table of size entries (a power of two).
func (h *hashIndex) alloc(size int) {
	h.ent = make([]uint64, size)
	h.shift = uint(65 - bits.Len(uint(size)))
	h.n = 0
}

// home is slot's first probe position.
func (h *hashIndex) home(slot uint32) uint64 { return (uint64(slot) * fibMul) >> h.shift }

// find returns row+1 for slot, or 0 if it is not stored. Not inlined, so
// that Table.lookup stays small enough to inline into Row and Find (the
// dense index's path).
//
//go:noinline
func (h *hashIndex) find(slot uint32) int32 {
	ent := h.ent
	m := uint64(len(ent) - 1)
	for i := h.home(slot); ; i = (i + 1) & m {
		e := ent[i&m]
		if e == 0 {
			return 0
		}
		if uint32(e>>32) == slot {
			return int32(uint32(e))
		}
	}
}

// mustGrow reports whether the next insert doubles the table.
func (h *hashIndex) mustGrow() bool { return 2*(h.n+1) > len(h.ent) }

// insert stores slot → row+1 (v); the slot must not be stored yet.
func (h *hashIndex) insert(slot uint32, v int32) {
	if h.mustGrow() {
		old := h.ent
		h.alloc(2 * len(old))
		for _, e := range old {
			if e != 0 {
				h.put(e)
			}
		}
	}
	h.put(uint64(slot)<<32 | uint64(uint32(v)))
}

func (h *hashIndex) put(e uint64) {
	m := uint64(len(h.ent) - 1)
	i := h.home(uint32(e >> 32))
	for h.ent[i] != 0 {
		i = (i + 1) & m
	}
	h.ent[i] = e
	h.n++
}

// reset empties the table (keeping its size).
func (h *hashIndex) reset() {
	clear(h.ent)
	h.n = 0
}
