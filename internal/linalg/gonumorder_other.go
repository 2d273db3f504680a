//go:build !amd64 || noasm || gccgo || safe

package linalg

// Where gonum has no assembly it sums in plain loops (internal/asm/f64's
// dot.go and ge_noasm.go); these copy them (see gonumorder.go).

// GonumDot is gonum's floats.Dot (b may be longer than a).
func GonumDot(a, b []float64) (sum float64) {
	b = b[:len(a)]
	for i, v := range a {
		sum += b[i] * v
	}
	return sum
}

// GonumGemv sets y = A·x with the bits of gonum's Dgemv(blas.NoTrans, m,
// n, 1, a, lda, x, 1, 0, y, 1). y must not overlap x.
func GonumGemv(m, n int, a []float64, lda int, x, y []float64) {
	if m == 0 || n == 0 {
		return
	}
	for i := range y[:m] {
		y[i] = 1 * GonumDot(a[i*lda:i*lda+n], x)
	}
}
