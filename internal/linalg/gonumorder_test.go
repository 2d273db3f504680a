package linalg

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
	"gonum.org/v1/gonum/floats"
)

// gonumDraw returns n values of mixed signs and magnitudes (10^±150), with
// zeros of both signs and subnormals, so that the order of the sums shows
// in their bits.
func gonumDraw(rng *rand.Rand, n int) []float64 {
	special := []float64{0, math.Copysign(0, -1), 5e-324, -2.5e-310, 1e300, -1}
	v := make([]float64, n)
	for i := range v {
		switch rng.IntN(6) {
		case 0:
			v[i] = special[rng.IntN(len(special))]
		case 1:
			v[i] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(301)-150))
		default:
			v[i] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(9)-4))
		}
	}
	return v
}

func sameBits(a, b float64) bool {
	return math.Float64bits(a) == math.Float64bits(b) || (math.IsNaN(a) && math.IsNaN(b))
}

// TestGonumOrderBits: GonumDot and GonumGemv must give the bits of
// gonum's floats.Dot and Dgemv on every length 0…70 (and every row count
// up to 17 and two strides for the matrix–vector product), or models
// that FD trained through gonum would change.
func TestGonumOrderBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 35))
	for n := 0; n <= 70; n++ {
		for trial := 0; trial < 40; trial++ {
			a, b := gonumDraw(rng, n), gonumDraw(rng, n+rng.IntN(3))
			want, got := floats.Dot(a, b[:n]), GonumDot(a, b)
			if !sameBits(got, want) {
				t.Fatalf("n=%d trial %d: GonumDot %v (%#x), floats.Dot %v (%#x)",
					n, trial, got, math.Float64bits(got), want, math.Float64bits(want))
			}
		}
	}
	var impl gonum.Implementation
	for n := 0; n <= 70; n++ {
		for m := 0; m <= 17; m++ {
			for _, extra := range []int{0, 3} {
				lda := max(n+extra, 1)
				a := gonumDraw(rng, max(0, (m-1)*lda+n))
				x := gonumDraw(rng, n)
				want, got := gonumDraw(rng, m), gonumDraw(rng, m)
				impl.Dgemv(blas.NoTrans, m, n, 1, a, lda, x, 1, 0, want, 1)
				if m == 0 || n == 0 {
					copy(got, want) // Dgemv returns at once: nothing to compare
				}
				GonumGemv(m, n, a, lda, x, got)
				for i := range want {
					if !sameBits(got[i], want[i]) {
						t.Fatalf("m=%d n=%d lda=%d row %d: GonumGemv %v, Dgemv %v", m, n, lda, i, got[i], want[i])
					}
				}
			}
		}
	}
}

// BenchmarkGonumOrder compares the copies with gonum's routines on FD's
// sizes: a dot product of a row of Z, and a stale row's refresh ([β; M]·c
// with 1 + m rows).
func BenchmarkGonumOrder(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{10, 14, 20} {
		x, y := gonumDraw(rng, n), gonumDraw(rng, n)
		b.Run(fmt.Sprintf("dot/gonum/n=%d", n), func(b *testing.B) {
			for b.Loop() {
				x[0] = floats.Dot(x, y) * 1e-300
			}
		})
		b.Run(fmt.Sprintf("dot/copy/n=%d", n), func(b *testing.B) {
			for b.Loop() {
				x[0] = GonumDot(x, y) * 1e-300
			}
		})
		a := gonumDraw(rng, (n+1)*64)
		out := make([]float64, n+1)
		var impl gonum.Implementation
		b.Run(fmt.Sprintf("gemv/gonum/n=%d", n), func(b *testing.B) {
			for b.Loop() {
				impl.Dgemv(blas.NoTrans, n+1, n, 1, a, 64, x, 1, 0, out, 1)
			}
		})
		b.Run(fmt.Sprintf("gemv/copy/n=%d", n), func(b *testing.B) {
			for b.Loop() {
				GonumGemv(n+1, n, a, 64, x, out)
			}
		})
	}
}

// TestMaxBits: the arrowhead solver clamps discriminants with the
// builtin max(x, 0) where it called math.Max(x, 0) (an assembly call on
// amd64). The two differ only on +Inf against NaN (math.Max gives +Inf,
// max NaN), so with a finite bound they must agree bit for bit on every
// x — checked here on zeros of both signs, infinities and NaN — and the
// pairs where they differ must still be there (else this test could not
// tell them apart).
func TestMaxBits(t *testing.T) {
	nz := math.Copysign(0, -1)
	vals := []float64{0, nz, 1, -1, 5e-324, math.Inf(1), math.Inf(-1), math.NaN(), 1e300}
	for _, x := range vals {
		for _, y := range vals[:5] {
			if a, b := max(x, y), math.Max(x, y); math.Float64bits(a) != math.Float64bits(b) && !(math.IsNaN(a) && math.IsNaN(b)) {
				t.Errorf("max(%v, %v) = %v, math.Max %v", x, y, a, b)
			}
		}
	}
	if a, b := max(math.Inf(1), math.NaN()), math.Max(math.Inf(1), math.NaN()); !math.IsNaN(a) || !math.IsInf(b, 1) {
		t.Errorf("max(+Inf, NaN) = %v, math.Max %v: the exception the arrowhead's clamps avoid is gone", a, b)
	}
}
