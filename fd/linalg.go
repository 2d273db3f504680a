package fd

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/gonum"
)

// Small dense kernels on row-major slices. Everything works in
// preallocated scratch so that an update allocates nothing.

var lapackImpl gonum.Implementation

// eigWork returns the Dsyev workspace length for matrices up to n×n.
func eigWork(n int) int {
	if n < 2 {
		return 2
	}
	var q [1]float64
	lapackImpl.Dsyev(lapack.EVCompute, blas.Upper, n, make([]float64, n*n), n, make([]float64, n), q[:], -1)
	return max(int(q[0]), 3*n-1)
}

// eigSym eigendecomposes the symmetric n×n matrix a (row-major, stride n)
// with LAPACK's Dsyev (the routine behind gonum's mat.EigenSym, called
// directly so that no memory is allocated). On return lam holds the
// eigenvalues in descending order and u (stride n) the eigenvectors as
// columns in the same order; a is destroyed. It reports false if LAPACK
// did not converge or produced non-finite values.
func eigSym(n int, a, lam, u, work []float64) bool {
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
		if !isFinite(lam[i]) {
			return false
		}
		for r := 0; r < n; r++ {
			u[r*n+i] = a[r*n+src]
		}
	}
	return true
}

func isFinite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

func dot(a, b []float64) (v float64) {
	b = b[:len(a)]
	for i, x := range a {
		v += x * b[i]
	}
	return v
}

// axpy sets y += a·x.
func axpy(a float64, x, y []float64) {
	y = y[:len(x)]
	for i, v := range x {
		y[i] += a * v
	}
}

// frob returns the Frobenius norm of the leading r×c block of a (stride
// ld), scaled so that it neither overflows nor underflows prematurely.
func frob(a []float64, r, c, ld int) float64 {
	// The plain sum of squares is exact enough unless it under- or
	// overflows; only then rescale (this runs on every shrink).
	var sq float64
	for i := 0; i < r; i++ {
		for _, v := range a[i*ld : i*ld+c] {
			sq += v * v
		}
	}
	if sq > 1e-280 && sq < 1e280 {
		return math.Sqrt(sq)
	}
	var scale float64
	for i := 0; i < r; i++ {
		for _, v := range a[i*ld : i*ld+c] {
			scale = math.Max(scale, math.Abs(v))
		}
	}
	if scale == 0 || math.IsInf(scale, 0) || math.IsNaN(scale) {
		return scale
	}
	var s float64
	for i := 0; i < r; i++ {
		for _, v := range a[i*ld : i*ld+c] {
			x := v / scale
			s += x * x
		}
	}
	return scale * math.Sqrt(s)
}

// minNormSolve finds the least-norm δ (length r) with Aᵀδ = f, where A is
// r×k (row-major, stride k, r ≥ k) and is destroyed: Householder QR A = QR,
// then δ = Q[R⁻ᵀf; 0]. It reports false if R is numerically singular
// (a diagonal entry ≤ 1e-15 of the largest) or the result is not finite.
// tau (k) and y (k) are scratch.
func minNormSolve(a []float64, r, k int, f, delta, tau, y []float64) bool {
	if k > r {
		return false
	}
	var rmax float64
	for j := 0; j < k; j++ {
		// Householder vector for column j, rows j..r−1, stored in place.
		// Its norm: the plain sum of squares unless that under- or
		// overflows (as in frob).
		var s float64
		for i := j; i < r; i++ {
			x := a[i*k+j]
			s += x * x
		}
		var norm float64
		if s > 1e-280 && s < 1e280 {
			norm = math.Sqrt(s)
		} else {
			var scale float64
			for i := j; i < r; i++ {
				if v := math.Abs(a[i*k+j]); v > scale {
					scale = v
				}
			}
			if scale == 0 || !isFinite(scale) {
				return false
			}
			s = 0
			inv := 1 / scale
			for i := j; i < r; i++ {
				x := a[i*k+j] * inv
				s += x * x
			}
			norm = scale * math.Sqrt(s)
		}
		if !(norm > 0) || !isFinite(norm) {
			return false
		}
		alpha := -math.Copysign(norm, a[j*k+j])
		a[j*k+j] -= alpha
		// v = a[j:, j]; vᵀv = 2·norm·(norm + |a_jj|) = −2·alpha·v_0.
		vv := -alpha * a[j*k+j]
		if !(vv > 0) {
			return false
		}
		tau[j] = 1 / vv // H = I − (1/vv)·v vᵀ … with vv = vᵀv/2
		for c := j + 1; c < k; c++ {
			var d float64
			for i := j; i < r; i++ {
				d += a[i*k+j] * a[i*k+c]
			}
			d *= tau[j]
			for i := j; i < r; i++ {
				a[i*k+c] -= d * a[i*k+j]
			}
		}
		y[j] = alpha // R_jj, kept aside (a's diagonal now holds v_0)
		rmax = math.Max(rmax, math.Abs(alpha))
	}
	// Solve Rᵀy = f (Rᵀ lower triangular; R_jc = a[j*k+c] for c > j).
	for j := 0; j < k; j++ {
		if !(math.Abs(y[j]) > 1e-15*rmax) {
			return false
		}
	}
	// y holds R_jj; compute the solution into delta[:k] first.
	sol := delta[:k]
	for j := 0; j < k; j++ {
		s := f[j]
		for i := 0; i < j; i++ {
			s -= a[i*k+j] * sol[i]
		}
		sol[j] = s / y[j]
	}
	copy(y[:k], sol)
	clear(delta[:r])
	copy(delta[:k], y[:k])
	// δ = H_0 H_1 … H_{k−1} [y; 0].
	for j := k - 1; j >= 0; j-- {
		var d float64
		for i := j; i < r; i++ {
			d += a[i*k+j] * delta[i]
		}
		d *= tau[j]
		for i := j; i < r; i++ {
			delta[i] -= d * a[i*k+j]
		}
	}
	for _, v := range delta[:r] {
		if !isFinite(v) {
			return false
		}
	}
	return true
}

// kBound returns an upper bound on λ_max of the symmetric positive
// semidefinite p×p matrix K (stride ld): the smaller of ‖K‖_F and the
// largest absolute row sum ‖K‖_∞.
func kBound(K []float64, p, ld int) float64 {
	var inf float64
	for i := 0; i < p; i++ {
		var r float64
		for _, v := range K[i*ld : i*ld+p] {
			r += math.Abs(v)
		}
		inf = math.Max(inf, r)
	}
	return math.Min(inf, frob(K, p, p, ld))
}
