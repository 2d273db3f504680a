package linalg

import (
	"math"

	"gonum.org/v1/gonum/floats"
)

// IsFinite reports whether v is neither NaN nor ±Inf.
func IsFinite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// AllFinite reports whether every element of v is finite: x − x is 0 for
// a finite x and NaN for ±Inf and NaN, one subtraction and one comparison
// against IsFinite's two tests.
func AllFinite(v []float64) bool {
	for _, x := range v {
		if x-x != 0 {
			return false
		}
	}
	return true
}

// Dot is Σ a_i·b_i by the plain loop, left to right (b may be longer than
// a). It stays small enough to inline: the learners call it per feature
// on rows of m = 5…50 values, where a call would cost more than the loop.
func Dot(a, b []float64) (v float64) {
	b = b[:len(a)]
	for i, x := range a {
		v += x * b[i]
	}
	return v
}

// DotVec is gonum's vectorised dot product (b may be longer than a): at
// m = 20…50 twice as fast as Dot, no slower at m = 10, but it sums in
// another order, so a caller cannot switch between the two without
// changing its bits.
func DotVec(a, b []float64) float64 { return floats.Dot(a, b[:len(a)]) }

// Axpy sets y += a·x by the plain loop (y may be longer than x): the
// products and sums, element by element, of gonum's floats.AddScaled (the
// same bits; no FMA at GOAMD64 v1, the build's; TestAxpyBits), without its
// call and dispatch, which cost more than the loop on short rows.
func Axpy(a float64, x, y []float64) {
	y = y[:len(x)]
	for i, v := range x {
		y[i] += a * v
	}
}

// Axpy2 sets y += a·x, then y += b·u, element by element: the bits of
// Axpy(a, x, y) followed by Axpy(b, u, y) in one pass over y.
func Axpy2(a float64, x []float64, b float64, u, y []float64) {
	y = y[:len(x)]
	u = u[:len(x)]
	for i, v := range x {
		y[i] = (y[i] + a*v) + b*u[i]
	}
}

// Axpy4 sets y += a·x, y += b·u, y += c·v, then y += d·w, element by
// element: the bits of Axpy2(a, x, b, u, y) then Axpy2(c, v, d, w, y) in
// one pass over y, half the loads and stores of y and half the loop
// (FD's F_a, a combination of up to 2m rows of C).
func Axpy4(a float64, x []float64, b float64, u []float64, c float64, v []float64, d float64, w, y []float64) {
	y = y[:len(x)]
	u = u[:len(x)]
	v = v[:len(x)]
	w = w[:len(x)]
	for i, xi := range x {
		y[i] = (((y[i] + a*xi) + b*u[i]) + c*v[i]) + d*w[i]
	}
}

// AxpyVec sets y += a·x through gonum's assembly kernel (y may be longer
// than x): the bits of Axpy, and 21% faster on one ring entry of package
// son's deferred steps at m = 10, where the rows are long enough for its
// unrolling.
func AxpyVec(a float64, x, y []float64) {
	floats.AddScaled(y[:len(x)], a, x)
}

// SyrUpper adds v·vᵀ to the upper triangle (diagonal included) of the n×n
// row-major a, n = len(v), row by row and skipping v's zeros: BLAS's dsyr
// in the order the Gram matrices of Z's rows have always been summed.
func SyrUpper(a []float64, v []float64) {
	n := len(v)
	for i, vi := range v {
		if vi == 0 {
			continue
		}
		row := a[i*n : i*n+n]
		for j := i; j < n; j++ {
			row[j] += vi * v[j]
		}
	}
}

// MirrorUpper copies the upper triangle of the n×n row-major a into its
// lower one.
func MirrorUpper(a []float64, n int) {
	for i := 0; i < n; i++ {
		for j := 0; j < i; j++ {
			a[i*n+j] = a[j*n+i]
		}
	}
}
