package linalg

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats"
)

// TestAxpyBits: Axpy, Axpy2 and Axpy4 must give the bits of gonum's
// floats.AddScaled, one call per row — models trained before they
// replaced it stay byte-identical — on lengths around the kernel's
// unrolling, with zeros of both signs, subnormals and large magnitudes.
func TestAxpyBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 7))
	special := []float64{0, math.Copysign(0, -1), 5e-324, -1e300, 1e-300, 3}
	draw := func(n int) []float64 {
		v := make([]float64, n)
		for i := range v {
			if rng.IntN(4) == 0 {
				v[i] = special[rng.IntN(len(special))]
			} else {
				v[i] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(9)-4))
			}
		}
		return v
	}
	same := func(a, b []float64) bool {
		for i := range a {
			if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
				return false
			}
		}
		return true
	}
	for _, n := range []int{0, 1, 2, 3, 4, 5, 7, 8, 9, 12, 15, 16, 17, 21, 41} {
		for trial := 0; trial < 50; trial++ {
			x, u, y := draw(n), draw(n), draw(n)
			a, b := draw(1)[0:1], draw(1)[0:1]
			if n == 0 {
				a, b = []float64{1.5}, []float64{-2}
			}
			want := append([]float64(nil), y...)
			floats.AddScaled(want, a[0], x)
			got := append([]float64(nil), y...)
			Axpy(a[0], x, got)
			if !same(got, want) {
				t.Fatalf("n=%d: Axpy %v, AddScaled %v", n, got, want)
			}
			floats.AddScaled(want, b[0], u)
			got2 := append([]float64(nil), y...)
			Axpy2(a[0], x, b[0], u, got2)
			if !same(got2, want) {
				t.Fatalf("n=%d: Axpy2 %v, two AddScaled %v", n, got2, want)
			}
			v, w := draw(n), draw(n)
			c, d := draw(1)[0:1], draw(1)[0:1]
			if n == 0 {
				c, d = []float64{0.5}, []float64{-3}
			}
			floats.AddScaled(want, c[0], v)
			floats.AddScaled(want, d[0], w)
			got4 := append([]float64(nil), y...)
			Axpy4(a[0], x, b[0], u, c[0], v, d[0], w, got4)
			if !same(got4, want) {
				t.Fatalf("n=%d: Axpy4 %v, four AddScaled %v", n, got4, want)
			}
		}
	}
}

// TestSyrUpperMirror: SyrUpper then MirrorUpper accumulate the full
// symmetric Σ v·vᵀ, entry for entry the sums of the products (zeros of v
// skipped, which adds nothing but ±0), and leave a's lower triangle alone
// until MirrorUpper.
func TestSyrUpperMirror(t *testing.T) {
	for _, c := range []struct {
		name string
		vs   [][]float64
	}{
		{"empty", [][]float64{{}}},
		{"one", [][]float64{{3}}},
		{"dense", [][]float64{{1, 2, 3}, {-1, 0.5, 4}}},
		{"zeros", [][]float64{{0, 2, 0, 1}, {5, 0, 0, -3}, {0, 0, 0, 0}}},
	} {
		n := len(c.vs[0])
		a := make([]float64, n*n)
		for i := range n {
			for j := range i {
				a[i*n+j] = math.NaN() // lower: untouched by SyrUpper
			}
		}
		want := make([]float64, n*n)
		for _, v := range c.vs {
			SyrUpper(a, v)
			for i := range n {
				for j := range n {
					if v[i] != 0 {
						want[i*n+j] += v[i] * v[j]
					}
				}
			}
		}
		for i := range n {
			for j := range i {
				if !math.IsNaN(a[i*n+j]) {
					t.Fatalf("%s: SyrUpper wrote the lower triangle at (%d,%d)", c.name, i, j)
				}
			}
		}
		MirrorUpper(a, n)
		for i := range n {
			for j := range n {
				if a[i*n+j] != want[i*n+j] && !(i > j && a[i*n+j] == want[j*n+i]) {
					t.Errorf("%s: (%d,%d) = %v, want %v", c.name, i, j, a[i*n+j], want[i*n+j])
				}
			}
		}
	}
}

// TestFinite: IsFinite and AllFinite agree with math on the special values.
func TestFinite(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want bool
	}{
		{0, true}, {math.Copysign(0, -1), true}, {5e-324, true}, {-math.MaxFloat64, true},
		{math.Inf(1), false}, {math.Inf(-1), false}, {math.NaN(), false},
	} {
		if got := IsFinite(c.v); got != c.want {
			t.Errorf("IsFinite(%v) = %v", c.v, got)
		}
		if got := AllFinite([]float64{1, c.v, 2}); got != c.want {
			t.Errorf("AllFinite([1 %v 2]) = %v", c.v, got)
		}
	}
	if !AllFinite(nil) {
		t.Error("AllFinite(nil) = false")
	}
}
