package linalg

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// axpySeq is the sequence MulRows replaces, through AxpyVec (package son's
// ring transform): row cleared unless add, then y += t_ij·src_j for j
// ascending, skipping zero t_ij.
func axpySeq(dst []float64, ldd int, t []float64, ti, tj int, src []float64, lds, nr, r, w int, add bool) {
	for i := 0; i < nr; i++ {
		row := dst[i*ldd : i*ldd+w]
		if !add {
			clear(row)
		}
		for j := 0; j < r; j++ {
			if v := t[i*ti+j*tj]; v != 0 {
				AxpyVec(v, src[j*lds:j*lds+w], row)
			}
		}
	}
}

// TestMulRowsBits checks MulRows bit for bit against the AxpyVec sequence
// on random shapes (every row-block remainder, odd widths, T read by rows
// and by columns), with zeros in T (whole columns, whole row blocks and
// scattered) and ±Inf/NaN in src where a skipped zero must stay skipped.
func TestMulRowsBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	cases := []struct {
		name      string
		zeros     float64 // fraction of T's entries set to zero
		nonFinite bool
		add       bool
		lateZero  bool // T dense but for one term past the first chunk
	}{
		{"dense", 0, false, false, false},
		{"dense/add", 0, false, true, false},
		{"zeros", 0.3, false, false, false},
		{"zeros/add", 0.3, false, true, false},
		{"sparse", 0.8, false, false, false},
		{"nonfinite", 0.3, true, false, false},
		{"nonfinite/add", 0.3, true, true, false},
		{"latezero/add", 0, false, true, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for it := 0; it < 300; it++ {
				nr, r, w := 1+rng.IntN(13), 1+rng.IntN(24), 1+rng.IntN(70)
				if it%5 == 0 {
					r = 2*mulChunk + rng.IntN(mulChunk+1) // sums continued over chunks
				}
				if tc.lateZero {
					// One term past the first chunk is zero in row 0 only
					// (below): with add, the block must find it before it
					// adds a chunk.
					r, nr = max(r, mulChunk+1+rng.IntN(mulChunk)), max(nr, 2)
				}
				ldd, lds := w+rng.IntN(5), w+rng.IntN(5)
				if it%3 == 2 {
					lds = 512 // rows 4 KiB apart: the short chunks (mulChunkFor)
				}
				ti, tj := r, 1
				if it%2 == 1 {
					ti, tj = 1, nr // T read by columns (fd's rotateRows)
				}
				T := make([]float64, nr*r)
				for k := range T {
					if rng.Float64() >= tc.zeros {
						T[k] = rng.NormFloat64()
					}
				}
				if tc.lateZero {
					T[mulChunk*tj] = 0
				}
				if it%7 == 3 {
					for i := 0; i < min(4, nr); i++ { // a zero column of a row block
						T[i*ti+(r/2)*tj] = 0
					}
				}
				src := wideRows(rng, r*lds, tc.nonFinite)
				init := make([]float64, nr*ldd)
				for k := range init {
					init[k] = rng.NormFloat64()
					if rng.IntN(3) == 0 {
						// −0 + 0·x is +0 where skipping keeps −0: with add,
						// a term zero in some rows only must stay skipped.
						init[k] = math.Copysign(0, -1)
					}
				}
				want := append([]float64(nil), init...)
				got := append([]float64(nil), init...)
				axpySeq(want, ldd, T, ti, tj, src, lds, nr, r, w, tc.add)
				MulRows(got, ldd, T, ti, tj, src, lds, nr, r, w, tc.add)
				for k := range want {
					if math.Float64bits(got[k]) != math.Float64bits(want[k]) && !(math.IsNaN(got[k]) && math.IsNaN(want[k])) {
						t.Fatalf("nr=%d r=%d w=%d ti=%d: dst[%d] = %v (%#x), want %v (%#x)",
							nr, r, w, ti, k, got[k], math.Float64bits(got[k]), want[k], math.Float64bits(want[k]))
					}
				}
			}
		})
	}
}

// BenchmarkMulRows times package son's ring transform at news20's sizes
// (m = 10: nr = r = 10…20 rows, the ring's columns w up to its cap ×p;
// FTFSL, τ = 20: 37 rows, 94 entries of 40 columns) and fd's rotateRows
// (g ≈ 2τ rows of p ≈ 2τ columns): the blocked kernel against the AxpyVec
// sequence it replaces. The row stride is w: 2,560 values is the ring's
// own (rows 20 KiB apart, one L1 set), 2,568 the same rows one line off.
func BenchmarkMulRows(b *testing.B) {
	for _, sz := range []struct{ nr, r, w int }{{10, 10, 160}, {10, 10, 1280}, {20, 20, 2560}, {20, 20, 2568}, {37, 37, 3760}, {20, 20, 20}, {40, 40, 40}} {
		T := make([]float64, sz.nr*sz.r)
		for k := range T {
			T[k] = float64(k%7) - 2.5
		}
		src := make([]float64, sz.r*sz.w)
		for k := range src {
			src[k] = float64(k%11) - 4.5
		}
		dst := make([]float64, sz.nr*sz.w)
		name := fmt.Sprintf("%dx%dx%d", sz.nr, sz.r, sz.w)
		b.Run("block/"+name, func(b *testing.B) {
			for b.Loop() {
				MulRows(dst, sz.w, T, sz.r, 1, src, sz.w, sz.nr, sz.r, sz.w, false)
			}
		})
		b.Run("axpy/"+name, func(b *testing.B) {
			for b.Loop() {
				axpySeq(dst, sz.w, T, sz.r, 1, src, sz.w, sz.nr, sz.r, sz.w, false)
			}
		})
	}
}

// TestMulRowsAllocs: MulRows keeps its scratch on the stack (package son
// calls it per deferred step, fd per example).
func TestMulRowsAllocs(t *testing.T) {
	const nr, r, w = 10, 12, 37
	T := make([]float64, nr*r)
	for k := range T {
		T[k] = float64(k%5) - 2 // zeros in some rows only: the finiteness check runs
	}
	src := make([]float64, r*w)
	for k := range src {
		src[k] = float64(k%11) - 4.5
	}
	dst := make([]float64, nr*w)
	if n := testing.AllocsPerRun(100, func() {
		MulRows(dst, w, T, r, 1, src, w, nr, r, w, false)
		MulRows(dst, w, T, r, 1, src, w, 1, r, w, true)
	}); n != 0 {
		t.Errorf("%v allocations per call", n)
	}
}

// wideRows returns n values spread over many orders of magnitude, with an
// Inf, a −Inf and a NaN among them if nonFinite.
func wideRows(rng *rand.Rand, n int, nonFinite bool) []float64 {
	src := make([]float64, n)
	for k := range src {
		src[k] = rng.NormFloat64() * math.Exp(4*rng.NormFloat64())
	}
	if nonFinite {
		for k := 0; k < 3; k++ {
			src[rng.IntN(len(src))] = []float64{math.Inf(1), math.Inf(-1), math.NaN()}[k]
		}
	}
	return src
}
