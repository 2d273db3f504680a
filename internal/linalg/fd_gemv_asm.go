//go:build amd64 && !purego && !noasm && !safe

package linalg

func fdGemvN(m, n int, a []float64, lda int, x, y []float64) {
	gemvN(uintptr(m), uintptr(n), 1, a, uintptr(lda), x, 1, 0, y, 1)
}
