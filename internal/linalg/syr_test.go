package linalg

import (
	"math/rand/v2"
	"testing"
)

// TestSyrUpperSegments: the segment update equals SyrUpper to the bit on
// vectors that are zero outside their segments, negative entries, zeros
// inside segments and empty segments included.
func TestSyrUpperSegments(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	for _, tc := range []struct {
		name   string
		n      int
		lo, hi []int
	}{
		{"none", 12, nil, nil},
		{"whole", 12, []int{0}, []int{12}},
		{"first", 20, []int{0}, []int{5}},
		{"last", 20, []int{15}, []int{20}},
		{"two apart", 40, []int{10, 30}, []int{20, 40}},
		{"adjacent and empty", 30, []int{0, 10, 10, 20}, []int{10, 10, 20, 25}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := make([]float64, tc.n*tc.n)
			got := make([]float64, tc.n*tc.n)
			for i := range want {
				want[i] = rng.NormFloat64()
				got[i] = want[i]
			}
			for range 5 {
				v := make([]float64, tc.n)
				for s := range tc.lo {
					for i := tc.lo[s]; i < tc.hi[s]; i++ {
						if rng.IntN(5) > 0 {
							v[i] = rng.NormFloat64()
						}
					}
				}
				SyrUpper(want, v)
				SyrUpperSegments(got, v, tc.lo, tc.hi)
			}
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("entry %d: %v, SyrUpper gives %v", i, got[i], want[i])
				}
			}
		})
	}
}

// BenchmarkSyrUpperSegments: a stack of 16 parts of 10 rows where a
// feature lives in two of them, against SyrUpper over the whole stack.
func BenchmarkSyrUpperSegments(b *testing.B) {
	const n = 160
	a, v := make([]float64, n*n), make([]float64, n)
	lo, hi := []int{30, 120}, []int{40, 130}
	for s := range lo {
		for i := lo[s]; i < hi[s]; i++ {
			v[i] = float64(i%7) - 3
		}
	}
	b.Run("segments", func(b *testing.B) {
		for b.Loop() {
			SyrUpperSegments(a, v, lo, hi)
		}
	})
	b.Run("whole", func(b *testing.B) {
		for b.Loop() {
			SyrUpper(a, v)
		}
	})
}

// TestSyrUpper4: four vectors at once equal four SyrUpper calls to the
// bit, with zero entries (a term skipped) in some vectors and not others.
func TestSyrUpper4(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for _, n := range []int{1, 3, 10, 33} {
		want := make([]float64, n*n)
		got := make([]float64, n*n)
		for i := range want {
			want[i] = rng.NormFloat64()
			got[i] = want[i]
		}
		for range 4 {
			var vs [4][]float64
			for k := range vs {
				vs[k] = make([]float64, n)
				for i := range vs[k] {
					if rng.IntN(4) > 0 {
						vs[k][i] = rng.NormFloat64() * 1e3
					}
				}
				SyrUpper(want, vs[k])
			}
			SyrUpper4(got, vs[0], vs[1], vs[2], vs[3])
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("n = %d, entry %d: %v, four SyrUpper calls give %v", n, i, got[i], want[i])
			}
		}
	}
}

// BenchmarkSyrUpper4: four columns of a 160-row stack at once against
// four SyrUpper calls.
func BenchmarkSyrUpper4(b *testing.B) {
	const n = 160
	a := make([]float64, n*n)
	var vs [4][]float64
	for k := range vs {
		vs[k] = make([]float64, n)
		for i := range vs[k] {
			vs[k][i] = float64((i+k)%7) - 2.5
		}
	}
	b.Run("four", func(b *testing.B) {
		for b.Loop() {
			SyrUpper4(a, vs[0], vs[1], vs[2], vs[3])
		}
	})
	b.Run("one by one", func(b *testing.B) {
		for b.Loop() {
			for _, v := range vs {
				SyrUpper(a, v)
			}
		}
	})
}
