//go:build !purego

package linalg

// prefetchStaleLines is fd_prefetch_amd64.s's kernel: PrefetchStale for
// rows of 65 to 128 bytes (size = 8n) and rowMul ≠ 0 — SON's rows at
// m = 6…13 with the FD row cap m + 2, which is what it serves.
//
//go:noescape
func prefetchStaleLines(rows []float64, offs []int, size int, stamp []uint32, gen uint32, rowMul uint64, stale []int) int

// prefetchStaleLong is the kernel for rows longer than 128 bytes (SON's
// at m ≥ 14: FD's m = 20).
//
//go:noescape
func prefetchStaleLong(rows []float64, offs []int, size int, stamp []uint32, gen uint32, rowMul uint64, stale []int) int

func prefetchStale(rows []float64, offs []int, n int, stamp []uint32, gen uint32, rowMul uint64, stale []int) (int, float64) {
	if size := 8 * n; size > 64 && rowMul != 0 {
		if size <= 128 {
			return prefetchStaleLines(rows, offs, size, stamp, gen, rowMul, stale), 0
		}
		return prefetchStaleLong(rows, offs, size, stamp, gen, rowMul, stale), 0
	}
	return staleGo(offs, stamp, gen, rowMul, stale), prefetchCols(rows, offs, n)
}
