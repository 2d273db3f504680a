package fd

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sparseson/sparseson/internal/linalg"
)

// TestMinNormRows: the row-oriented LQ solve gives the least-norm solution
// of Mδ = f: it satisfies the system, lies in M's row space (δ = Mᵀy), and
// matches the column-oriented QR solve (minNormCols on Mᵀ) — on random,
// graded-column and nearly rank-deficient M; a singular M is refused.
func TestMinNormRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	for _, c := range []struct{ k, n int }{{1, 1}, {1, 5}, {3, 3}, {9, 17}, {19, 40}, {49, 100}} {
		for _, kind := range []string{"random", "graded", "nearsingular"} {
			M := make([]float64, c.k*c.n)
			for i := range M {
				M[i] = rng.NormFloat64()
			}
			switch kind {
			case "graded":
				for i := 0; i < c.k; i++ {
					for j := 0; j < c.n; j++ {
						M[i*c.n+j] *= math.Pow(10, float64(j%7)-3)
					}
				}
			case "nearsingular":
				if c.k > 1 {
					for j := 0; j < c.n; j++ {
						M[(c.k-1)*c.n+j] = M[j] * (1 + 1e-9*rng.NormFloat64())
					}
				}
			}
			f := make([]float64, c.k)
			for i := range f {
				f[i] = rng.NormFloat64()
			}
			A := make([]float64, c.n*c.k) // Mᵀ for minNormCols
			for i := 0; i < c.k; i++ {
				for j := 0; j < c.n; j++ {
					A[j*c.k+i] = M[i*c.n+j]
				}
			}
			W := append([]float64(nil), M...)
			d1, d2 := make([]float64, c.n), make([]float64, c.n)
			ok1 := minNormRows(W, c.k, c.n, c.n, f, d1, make([]float64, c.k), make([]float64, c.k))
			ok2 := minNormCols(A, c.n, c.k, f, d2, make([]float64, c.k), make([]float64, c.k))
			name := fmt.Sprintf("%s %d×%d", kind, c.k, c.n)
			if ok1 != ok2 || !ok1 {
				t.Fatalf("%s: rows %v, columns %v", name, ok1, ok2)
			}
			var res, fn, diff, dn float64
			for i := 0; i < c.k; i++ {
				var x float64
				for j := 0; j < c.n; j++ {
					x += M[i*c.n+j] * d1[j]
				}
				res = math.Max(res, math.Abs(x-f[i]))
				fn = math.Max(fn, math.Abs(f[i]))
			}
			for j := range d1 {
				diff = math.Max(diff, math.Abs(d1[j]-d2[j]))
				dn = math.Max(dn, math.Abs(d2[j]))
			}
			cond := 1.0
			if kind == "nearsingular" {
				cond = 1e9
			}
			if res > 1e-12*cond*fn || diff > 1e-12*cond*dn {
				t.Errorf("%s: residual %.2e, difference from the QR solve %.2e", name, res/fn, diff/dn)
			}
		}
	}
	// Singular: two equal rows.
	M := []float64{1, 2, 3, 1, 2, 3}
	if minNormRows(M, 2, 3, 3, []float64{1, 1}, make([]float64, 3), make([]float64, 2), make([]float64, 2)) {
		t.Error("singular M accepted")
	}
}

// BenchmarkMinNorm: the absorb's least-norm solve at the shapes of m = 10,
// 20 and 50 (keep = m−1 rows, n = 2m−2 … 2m columns), by rows (LQ) and by
// columns (QR of the transpose).
func BenchmarkMinNorm(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, c := range []struct{ k, n int }{{9, 18}, {19, 38}, {49, 98}} {
		M := make([]float64, c.k*c.n)
		for i := range M {
			M[i] = rng.NormFloat64()
		}
		A := make([]float64, c.n*c.k)
		for i := 0; i < c.k; i++ {
			for j := 0; j < c.n; j++ {
				A[j*c.k+i] = M[i*c.n+j]
			}
		}
		f := make([]float64, c.k)
		for i := range f {
			f[i] = rng.NormFloat64()
		}
		W := make([]float64, len(M))
		d, tau, y := make([]float64, c.n), make([]float64, c.k), make([]float64, c.k)
		b.Run(fmt.Sprintf("rows/%dx%d", c.k, c.n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				copy(W, M)
				minNormRows(W, c.k, c.n, c.n, f, d, tau, y)
			}
		})
		b.Run(fmt.Sprintf("columns/%dx%d", c.k, c.n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				copy(W, A)
				minNormCols(W, c.n, c.k, f, d, tau, y)
			}
		})
	}
}

// minNormCols, the reference for minNormRows, finds the least-norm δ (length r) with Aᵀδ = f, where A is
// r×k (row-major, stride k, r ≥ k) and is destroyed: Householder QR A = QR,
// then δ = Q[R⁻ᵀf; 0]. It reports false if R is numerically singular
// (a diagonal entry ≤ 1e-15 of the largest) or the result is not finite.
// tau (k) and y (k) are scratch.
func minNormCols(a []float64, r, k int, f, delta, tau, y []float64) bool {
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
			if scale == 0 || !linalg.IsFinite(scale) {
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
		if !(norm > 0) || !linalg.IsFinite(norm) {
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
		if !linalg.IsFinite(v) {
			return false
		}
	}
	return true
}
