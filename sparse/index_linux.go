package sparse

import (
	"runtime"
	"syscall"
	"unsafe"
)

// hugeIndexMin and hugeIndexMax bound the slot-index sizes (in bits) that
// get transparent huge pages. Below 2^20 slots the index fits in cache and
// TLB reach anyway; above 2^26 a 2 MiB page would be committed for every
// scattered feature (a 4 GiB index at -b 30), not 4 KiB.
const hugeIndexMin, hugeIndexMax = 20, 26

// newIndex allocates the zeroed slot index. At large -b every feature's
// index load would otherwise miss the TLB (a 64 MiB index at -b 24 spans
// 16384 pages of 4 KiB); on Linux it is mapped directly and marked for
// transparent huge pages, outside the Go heap (it holds no pointers). The
// mapping is released when the Table is collected.
func newIndex(t *Table, bits uint) []int32 {
	n := 1 << bits
	if bits < hugeIndexMin || bits > hugeIndexMax {
		return make([]int32, n)
	}
	mem, err := syscall.Mmap(-1, 0, 4*n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return make([]int32, n)
	}
	_ = syscall.Madvise(mem, 14 /* MADV_HUGEPAGE */)
	runtime.AddCleanup(t, func(mem []byte) { syscall.Munmap(mem) }, mem)
	return unsafe.Slice((*int32)(unsafe.Pointer(&mem[0])), n)
}
