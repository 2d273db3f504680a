package sparse

import (
	"runtime"
	"syscall"
	"unsafe"
)

// reserveMaxBytes bounds the address space reserved for a table's rows.
const reserveMaxBytes = 8 << 30

// reserveRows reserves address space for every row the table can ever hold
// (one per slot, up to reserveMaxBytes) and returns an empty slice over it.
// Pages are committed only when a row is first written, so resident memory
// grows with the features seen, as with a heap slice, but the rows never
// move: growing a heap slice copies the whole table at every doubling,
// which on news20 was 8–10% of ten passes of FD-SON (a 24-value row per
// feature), mostly the page faults of each new copy. If the reservation
// fails (address space limits), or the table outgrows it, the table grows
// on the heap as before.
func reserveRows(t *Table, bits uint, stride int) []float64 {
	if stride < 1 {
		return nil // a key-only table (OAA's slot numbering)
	}
	rows := uint64(1) << bits
	if b := uint64(reserveMaxBytes) / uint64(8*stride); rows > b {
		rows = b
	}
	n := int(rows) * stride
	mem, err := syscall.Mmap(-1, 0, 8*n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON|syscall.MAP_NORESERVE)
	if err != nil {
		return nil
	}
	// Rows are filled densely from the start, so huge pages waste at most
	// one partly used page and save a page fault (and a TLB entry) per 4
	// KiB: first-touch faults of 4 KiB pages were still 6% of ten passes of
	// FD-SON on news20.
	_ = syscall.Madvise(mem, 14 /* MADV_HUGEPAGE */)
	runtime.AddCleanup(t, func(mem []byte) { syscall.Munmap(mem) }, mem)
	return unsafe.Slice((*float64)(unsafe.Pointer(&mem[0])), n)[:0]
}
