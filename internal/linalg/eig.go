package linalg

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/gonum"
)

var lapackImpl gonum.Implementation

// EigWork returns Dsyev's workspace length for matrices up to n×n
// (EigSym's work needs n more).
func EigWork(n int) int {
	if n < 2 {
		return 2
	}
	var q [1]float64
	lapackImpl.Dsyev(lapack.EVCompute, blas.Upper, n, make([]float64, n*n), n, make([]float64, n), q[:], -1)
	return max(int(q[0]), 3*n-1)
}

// EigSym eigendecomposes the symmetric n×n matrix a (row-major, stride n)
// with LAPACK's Dsyev (the routine behind gonum's mat.EigenSym, called
// directly so that no memory is allocated). On return lam holds the
// eigenvalues in descending order and u (stride n) the eigenvectors as
// columns in the same order; a is destroyed. work needs n + EigWork(n)
// values. It reports false if LAPACK did not converge or produced
// non-finite values. O(n³).
func EigSym(n int, a, lam, u, work []float64) bool {
	if n == 0 {
		return true
	}
	w := work[:n]
	ok := lapackImpl.Dsyev(lapack.EVCompute, blas.Upper, n, a[:n*n], n, w, work[n:], len(work)-n)
	if !ok {
		return false
	}
	for i := 0; i < n; i++ {
		src := n - 1 - i
		lam[i] = w[src]
		if !IsFinite(lam[i]) {
			return false
		}
		for r := 0; r < n; r++ {
			u[r*n+i] = a[r*n+src]
		}
	}
	return true
}
