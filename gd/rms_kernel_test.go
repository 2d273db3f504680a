package gd

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestRMSScaleBits: rmsScale (two features a step on amd64) writes the
// bits of rmsScaleGo's one-at-a-time quotients — for every length from
// none to past a few pairs (a lone last feature included), features
// without a count (+0), counts that make Σx²/n inexact, values and sums
// of every magnitude, subnormal ones included, with the sums' columns
// after the learner's as Config.RMS lays them out — and panics on an
// offset whose columns are outside the rows, as the Go loop does.
func TestRMSScaleBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 3))
	const stride, r = 5, 3
	rows := make([]float64, 64*stride)
	for k := 0; k < len(rows); k += stride {
		rows[k] = rng.NormFloat64() // the weight, which x̃ must not read
		switch rng.IntN(5) {
		case 0: // no value yet
		case 1:
			rows[k+r], rows[k+r+1] = 5e-324*float64(1+rng.IntN(9)), float64(1+rng.IntN(3))
		default:
			rows[k+r] = math.Abs(rng.NormFloat64()) * math.Pow(10, float64(rng.IntN(40)-20))
			rows[k+r+1] = float64(1 + rng.IntN(1000))
		}
	}
	for n := 0; n <= 9; n++ {
		for range 20 {
			offs := make([]int, n)
			val := make([]float64, n)
			for i := range offs {
				offs[i] = rng.IntN(64) * stride
				val[i] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(10)-5))
				switch rng.IntN(6) {
				case 0:
					val[i] = math.Copysign(0, -1)
				case 1:
					val[i] = math.NaN()
				}
			}
			got, want := make([]float64, n+1), make([]float64, n+1)
			got[n], want[n] = 42, 42 // past the features: untouched
			rmsScale(got, val, rows, offs, r)
			rmsScaleGo(want, val, rows, offs, r)
			for i := range got {
				if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
					t.Fatalf("n=%d, feature %d: %v (%#x), one at a time %v (%#x)", n, i, got[i], math.Float64bits(got[i]), want[i], math.Float64bits(want[i]))
				}
			}
		}
	}
	for _, c := range []struct {
		name string
		o    int
	}{
		{"before the rows", -r - 1},
		{"count past the end", len(rows) - r - 1},
		{"far past the end", len(rows) + 100},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("offset %d read", c.o)
				}
			}()
			xt := make([]float64, 3)
			rmsScale(xt, []float64{1, 2, 3}, rows, []int{0, c.o, 0}, r)
		})
	}
}

// BenchmarkRMSScale times x̃ for a news20-sized example (140 features,
// rows in cache), one op per example.
func BenchmarkRMSScale(b *testing.B) {
	rng := rand.New(rand.NewPCG(2, 9))
	const stride, r, feats = 5, 3, 140
	rows := make([]float64, 4096*stride)
	for k := 0; k < len(rows); k += stride {
		rows[k+r], rows[k+r+1] = 1+rng.Float64(), float64(1+rng.IntN(50))
	}
	offs, val, xt := make([]int, feats), make([]float64, feats), make([]float64, feats)
	for i := range offs {
		offs[i] = rng.IntN(4096) * stride
		val[i] = rng.Float64()
	}
	b.ReportAllocs()
	for b.Loop() {
		rmsScale(xt, val, rows, offs, r)
	}
}
