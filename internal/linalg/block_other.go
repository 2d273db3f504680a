//go:build !amd64 || purego

package linalg

// mulBlock is mulBlockGo where there is no assembly kernel.
func mulBlock(rows int, dst []float64, ldd int, tt []float64, offs []int, n int, src []float64, w int, add bool) {
	mulBlockGo(rows, dst, ldd, tt, offs, n, src, w, add)
}
