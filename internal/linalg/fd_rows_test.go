package linalg

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestFormRowsBits: FormRows must give the bits of one axpy per nonzero
// coefficient u_{j,col_i}·sc_i, j ascending — what package fd's F_a was
// summed as, so models stay byte-identical — with zeros in U (deflated
// eigenvectors) in some or all rows of a block, non-finite sources (the
// axpy fallback), sums longer than a kernel chunk and rows 4 KiB apart.
func TestFormRowsBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(37, 26))
	cases := []struct {
		name      string
		zeros     float64 // fraction of U's entries set to zero
		nonFinite bool
	}{
		{"dense", 0, false},
		{"zeros", 0.3, false},
		{"sparse", 0.8, false},
		{"nonfinite", 0.3, true},
		{"nonfinite/dense", 0, true},
	}
	var st FDRows
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for it := 0; it < 300; it++ {
				nr, r, w := 1+rng.IntN(13), 1+rng.IntN(24), 1+rng.IntN(40)
				if it%5 == 0 {
					r = 2*mulChunk + rng.IntN(mulChunk+1)
				}
				g := r + rng.IntN(3) // U's columns (stride)
				ldd, lds := w+1+rng.IntN(5), w+rng.IntN(5)
				if it%3 == 2 {
					lds = 512
				}
				U := make([]float64, r*g)
				for k := range U {
					if rng.Float64() >= tc.zeros {
						U[k] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(13)-6))
					}
				}
				cols, sc := make([]int, nr), make([]float64, nr)
				for i := range cols {
					cols[i] = rng.IntN(g)
					sc[i] = math.Abs(rng.NormFloat64()) + 1e-3
				}
				src := wideRows(rng, r*lds, tc.nonFinite)
				dst := make([]float64, nr*ldd)
				for k := range dst {
					dst[k] = rng.NormFloat64() // overwritten, not added to
				}
				st.FormRows(dst, ldd, U, g, cols, sc, src, lds, nr, r, w)
				for i := 0; i < nr; i++ {
					want := make([]float64, w)
					for j := 0; j < r; j++ {
						if a := U[j*g+cols[i]] * sc[i]; a != 0 {
							for c := range want {
								want[c] += a * src[j*lds+c]
							}
						}
					}
					for c, v := range want {
						if got := dst[i*ldd+c]; math.Float64bits(got) != math.Float64bits(v) && !(math.IsNaN(got) && math.IsNaN(v)) {
							t.Fatalf("it %d nr=%d r=%d w=%d row %d col %d: %v, axpys %v", it, nr, r, w, i, c, got, v)
						}
					}
				}
			}
		})
	}
}

// BenchmarkFormRows is FD's F_a at m = 10 (11 rows of 10 terms, 12
// columns): 0 allocations.
func BenchmarkFormRows(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	const nr, r, w, g, lds, ldd = 11, 10, 12, 11, 12, 13
	U, src, dst := make([]float64, r*g), make([]float64, r*lds), make([]float64, nr*ldd)
	for k := range U {
		U[k] = rng.NormFloat64()
	}
	for k := range src {
		src[k] = rng.NormFloat64()
	}
	cols, sc := make([]int, nr), make([]float64, nr)
	for i := range cols {
		cols[i], sc[i] = i, 1+rng.Float64()
	}
	var st FDRows
	b.ReportAllocs()
	for b.Loop() {
		st.FormRows(dst, ldd, U, g, cols, sc, src, lds, nr, r, w)
	}
}

// TestFill4: the coefficient kernel (assembly on amd64) must write
// fill4Go's bits and report a zero or NaN coefficient as fill4Go does, at
// any position of the block, or FormRows would take its fast path on a
// skipped term.
func TestFill4(t *testing.T) {
	rng := rand.New(rand.NewPCG(37, 7))
	special := []float64{0, math.Copysign(0, -1), math.NaN(), math.Inf(1), 5e-324}
	for it := 0; it < 2000; it++ {
		r, ldu := 1+rng.IntN(24), 4+rng.IntN(20)
		u := make([]float64, r*ldu)
		for k := range u {
			u[k] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(41)-20))
		}
		if it%2 == 1 {
			u[rng.IntN(len(u))] = special[rng.IntN(len(special))]
		}
		cols := []int{rng.IntN(ldu), rng.IntN(ldu), rng.IntN(ldu), rng.IntN(ldu)}
		sc := []float64{rng.Float64(), rng.Float64(), 1e-300, rng.Float64()}
		got, want := make([]float64, 8*r), make([]float64, 8*r)
		gz := fill4(got, u, ldu, r, cols, sc)
		wz := fill4Go(want, u, ldu, r, cols, sc)
		if gz != wz {
			t.Fatalf("it %d: zero %v, fill4Go %v", it, gz, wz)
		}
		for k := range want {
			if math.Float64bits(got[k]) != math.Float64bits(want[k]) && !(math.IsNaN(got[k]) && math.IsNaN(want[k])) {
				t.Fatalf("it %d: tt[%d] %v, fill4Go %v", it, k, got[k], want[k])
			}
		}
	}
}
