//go:build !purego && !noasm && !safe

package linalg

// gemvN is gonum's f64.GemvN (fd_gemv_amd64.s): y = alpha·A·x + beta·y.
//
//go:noescape
func gemvN(m, n uintptr, alpha float64, a []float64, lda uintptr, x []float64, incX uintptr, beta float64, y []float64, incY uintptr)
