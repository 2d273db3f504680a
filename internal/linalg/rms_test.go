package linalg

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestRMSScaleBits: rmsScale (two features a step on amd64) writes the
// bits of rmsScaleGo's one-at-a-time quotients, and of its dot product
// with an auxiliary column (none, or either of two) — for every length from
// none to past a few pairs (a lone last feature included), features
// without a count (+0), counts that make S/n inexact, values and sums of
// every magnitude, subnormal ones included, and leading columns at a
// negative offset from the rows' offsets as the learner has them — and
// panics on an offset whose columns are outside the rows, as the Go loop
// does.
func TestRMSScaleBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 3))
	const stride, r = 7, -4
	rows := make([]float64, 64*stride)
	for k := 0; k < len(rows); k += stride {
		rows[k+2], rows[k+3] = rng.NormFloat64(), rng.NormFloat64()*1e-3 // the columns a dot product reads
		switch rng.IntN(5) {
		case 0: // no value yet
		case 1:
			rows[k], rows[k+1] = 5e-324*float64(1+rng.IntN(9)), float64(1+rng.IntN(3))
		default:
			rows[k] = math.Abs(rng.NormFloat64()) * math.Pow(10, float64(rng.IntN(40)-20))
			rows[k+1] = float64(1 + rng.IntN(1000))
		}
	}
	for n := 0; n <= 9; n++ {
		for range 20 {
			offs := make([]int, n)
			val := make([]float64, n)
			for i := range offs {
				offs[i] = rng.IntN(64)*stride - r
				val[i] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(10)-5))
				if rng.IntN(6) == 0 {
					val[i] = math.Copysign(0, -1)
				}
			}
			for _, dot := range []int{0, -1, -2} {
				got, want := make([]float64, n+1), make([]float64, n+1)
				got[n], want[n] = 42, 42 // past the features: untouched
				gs := RMSScale(got, val, rows, offs, r, dot)
				ws := rmsScaleGo(want, val, rows, offs, r, dot)
				for i := range got {
					if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
						t.Fatalf("n=%d, feature %d: %v (%#x), one at a time %v (%#x)", n, i, got[i], math.Float64bits(got[i]), want[i], math.Float64bits(want[i]))
					}
				}
				if math.Float64bits(gs) != math.Float64bits(ws) || dot == 0 && gs != 0 {
					t.Fatalf("n=%d, dot column %d: Σ %v, one at a time %v", n, dot, gs, ws)
				}
			}
		}
	}
	for _, c := range []struct {
		name string
		o    int
	}{
		{"before the rows", 2},
		{"count past the end", len(rows) - r - 1},
		{"dot column past the end", len(rows) - r - 3},
		{"far past the end", len(rows) + 100},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("offset %d read", c.o)
				}
			}()
			xt := make([]float64, 3)
			RMSScale(xt, []float64{1, 2, 3}, rows, []int{-r, c.o, -r}, r, -1)
		})
	}
}

// BenchmarkRMSScale times x̃ for a news20-sized example (140 features,
// rows in cache), one op per example.
func BenchmarkRMSScale(b *testing.B) {
	rng := rand.New(rand.NewPCG(2, 9))
	const stride, r, feats = 45, -4, 140
	rows := make([]float64, 4096*stride)
	for k := 0; k < len(rows); k += stride {
		rows[k], rows[k+1] = 1+rng.Float64(), float64(1+rng.IntN(50))
	}
	offs, val, xt := make([]int, feats), make([]float64, feats), make([]float64, feats)
	for i := range offs {
		offs[i] = rng.IntN(4096)*stride - r
		val[i] = rng.Float64()
	}
	b.ReportAllocs()
	for b.Loop() {
		RMSScale(xt, val, rows, offs, r, -1)
	}
}
