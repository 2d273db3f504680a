package linalg

// FDGemvN sets y[:m] = A·x[:n] for the m×n matrix A (row-major, stride
// lda ≥ n) with the bits of gonum's blas Dgemv(NoTrans, m, n, 1, a, lda,
// x, 1, 0, y, 1), without its argument checks: on amd64 it runs the same
// assembly (fd_gemv_amd64.s), elsewhere it calls Dgemv. The SON core's
// stale-row refreshes are its callers, thousands per compaction.
func FDGemvN(m, n int, a []float64, lda int, x, y []float64) {
	if m <= 0 || n <= 0 {
		return
	}
	// What Dgemv checks, as bounds checks.
	_ = a[(m-1)*lda+n-1]
	_ = x[n-1]
	_ = y[m-1]
	if lda < n {
		panic("linalg: FDGemvN: lda < n")
	}
	fdGemvN(m, n, a, lda, x, y)
}
