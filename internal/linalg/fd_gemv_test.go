package linalg

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// TestFDGemvNBits holds FDGemvN to the bits of gonum's Dgemv on every
// shape the refreshes use and beyond (1–20 rows and columns, strides
// wider than the rows), with −0, ±Inf, NaN and values of mixed scale, and
// checks that it writes nothing outside y[:m].
func TestFDGemvNBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	special := []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), 1e300, -1e-300}
	val := func() float64 {
		if rng.IntN(12) == 0 {
			return special[rng.IntN(len(special))]
		}
		return rng.NormFloat64() * math.Pow(10, float64(rng.IntN(9)-4))
	}
	for m := 1; m <= 20; m++ {
		for n := 1; n <= 20; n++ {
			for _, pad := range []int{0, 1, 7} {
				lda := n + pad
				a := make([]float64, (m-1)*lda+n)
				x := make([]float64, n)
				for i := range a {
					a[i] = val()
				}
				for i := range x {
					x[i] = val()
				}
				want := make([]float64, m+1)
				got := make([]float64, m+1)
				want[m], got[m] = 42, 42
				for i := 0; i < m; i++ {
					want[i], got[i] = val(), val() // overwritten: β = 0
				}
				gonum.Implementation{}.Dgemv(blas.NoTrans, m, n, 1, a, lda, x, 1, 0, want, 1)
				FDGemvN(m, n, a, lda, x, got)
				for i := range want {
					if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
						t.Fatalf("m=%d n=%d lda=%d: y[%d] = %v (%#x), Dgemv %v (%#x)", m, n, lda, i, got[i], math.Float64bits(got[i]), want[i], math.Float64bits(want[i]))
					}
				}
			}
		}
	}
}

// TestFDGemvNChecks checks that FDGemvN refuses what Dgemv refuses (a
// short A, x or y, or lda < n) and does nothing for an empty product.
func TestFDGemvNChecks(t *testing.T) {
	y := []float64{7}
	FDGemvN(0, 3, nil, 3, nil, y)
	FDGemvN(1, 0, nil, 0, nil, y)
	if y[0] != 7 {
		t.Fatalf("an empty product wrote y[0] = %v", y[0])
	}
	cases := []struct {
		name     string
		m, n, ld int
		la, lx   int
		ly       int
	}{
		{"short a", 2, 3, 3, 5, 3, 2},
		{"short x", 2, 3, 3, 6, 2, 2},
		{"short y", 2, 3, 3, 6, 3, 1},
		{"lda < n", 2, 3, 2, 6, 3, 2},
	}
	for _, c := range cases {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", c.name)
				}
			}()
			FDGemvN(c.m, c.n, make([]float64, c.la), c.ld, make([]float64, c.lx), make([]float64, c.ly))
		}()
	}
}
