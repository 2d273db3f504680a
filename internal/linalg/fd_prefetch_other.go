//go:build !amd64 || purego

package linalg

func prefetchStale(rows []float64, offs []int, n int, stamp []uint32, gen uint32, rowMul uint64, stale []int) (int, float64) {
	touch := touchCols(rows, offs, n)
	return staleGo(offs, stamp, gen, rowMul, stale), touch
}
