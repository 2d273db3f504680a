package fd

import (
	"math"

	"gonum.org/v1/gonum/floats"

	"github.com/sparseson/sparseson/internal/linalg"
)

// Small dense kernels on row-major slices. Everything works in
// preallocated scratch so that an update allocates nothing.

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
			scale = max(scale, math.Abs(v))
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

// minNormRows finds the least-norm δ (length n) with Mδ = f, where M is
// k×n (row-major, stride ld, k ≤ n) and is destroyed: Householder LQ
// M = [L 0]·H_{k−1}⋯H_0, then δ = H_0⋯H_{k−1}[L⁻¹f; 0] — the QR of Mᵀ
// (the test's minNormCols), with every reflector on contiguous rows
// (gonum's vector kernels): 5× faster than the column form at m = 50
// (BenchmarkMinNorm), where this solve dominated the shrink. It reports
// false if L is numerically singular (a diagonal entry ≤ 1e-15 of the
// largest) or the result is not finite. tau (k) and y (k) are scratch.
func minNormRows(M []float64, k, n, ld int, f, delta, tau, y []float64) bool {
	if k > n {
		return false
	}
	var lmax float64
	for j := 0; j < k; j++ {
		v := M[j*ld+j : j*ld+n]
		// The plain sum of squares unless it under- or overflows.
		s := floats.Dot(v, v)
		var norm float64
		if s > 1e-280 && s < 1e280 {
			norm = math.Sqrt(s)
		} else {
			norm = floats.Norm(v, 2)
		}
		if !(norm > 0) || !linalg.IsFinite(norm) {
			return false
		}
		alpha := -math.Copysign(norm, v[0])
		v[0] -= alpha
		// vᵀv = 2·norm·(norm + |v_0|) = −2·alpha·v_0 (after the update).
		vv := -alpha * v[0]
		if !(vv > 0) {
			return false
		}
		tau[j] = 1 / vv
		for o := (j+1)*ld + j; o < k*ld; o += ld {
			w := M[o : o+len(v)] // row c = o/ld from column j
			floats.AddScaled(w, -floats.Dot(w, v)*tau[j], v)
		}
		y[j] = alpha // L_jj (M's diagonal now holds v_0)
		lmax = max(lmax, math.Abs(alpha))
	}
	for j := 0; j < k; j++ {
		if !(math.Abs(y[j]) > 1e-15*lmax) {
			return false
		}
	}
	// Forward substitution L·sol = f (L_cj = M[c][j] below the diagonal).
	sol := delta[:k]
	for c := 0; c < k; c++ {
		x := f[c]
		row := M[c*ld : c*ld+c]
		for j, l := range row {
			x -= l * sol[j]
		}
		sol[c] = x / y[c]
	}
	clear(delta[k:n])
	for j := k - 1; j >= 0; j-- {
		v := M[j*ld+j : j*ld+n]
		d := delta[j:n]
		floats.AddScaled(d, -floats.Dot(v, d)*tau[j], v)
	}
	for _, v := range delta[:n] {
		if !linalg.IsFinite(v) {
			return false
		}
	}
	return true
}

// kBound returns an upper bound on λ_max of the symmetric positive
// semidefinite p×p matrix K (stride ld): the smaller of ‖K‖_F and the
// largest absolute row sum ‖K‖_∞.
func kBound(K []float64, p, ld int) float64 {
	// One pass for both norms (it follows every absorb); the sums are
	// frob's and the row sums', in their order.
	var inf, sq float64
	for i := 0; i < p; i++ {
		var r float64
		for _, v := range K[i*ld : i*ld+p] {
			r += math.Abs(v)
			sq += v * v
		}
		inf = max(inf, r)
	}
	if !(sq > 1e-280 && sq < 1e280) {
		return min(inf, frob(K, p, p, ld))
	}
	return min(inf, math.Sqrt(sq))
}
