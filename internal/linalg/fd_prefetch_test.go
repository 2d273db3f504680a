package linalg

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestPrefetchStale: PrefetchStale's stale rows must be staleGo's — the
// loop package son ran before — for row sizes on both sides of the
// kernel's three-prefetch case, strides with and without the multiplier,
// stamps current, old and missing (new rows), and offsets that are
// negative (no row) or past rows (prefetched, never read).
func TestPrefetchStale(t *testing.T) {
	rng := rand.New(rand.NewPCG(37, 5))
	cases := []struct {
		name   string
		stride int
		fresh  float64 // fraction of stamps equal to gen
	}{
		{"stride1", 1, 0.7},
		{"stride5", 5, 0.5},
		{"stride13", 13, 0.97}, // FD at m = 10: 112-byte rows
		{"stride14", 14, 0.0},
		{"stride20", 20, 1.0},
		{"stride40", 40, 0.9}, // rows longer than 128 bytes
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var mul uint64
			if tc.stride > 1 {
				mul = math.MaxUint64/uint64(tc.stride) + 1
			}
			for it := 0; it < 200; it++ {
				nrows := 1 + rng.IntN(300)
				rows := make([]float64, nrows*tc.stride)
				stamp := make([]uint32, rng.IntN(nrows+1)) // rows past it are new
				gen := uint32(rng.IntN(5))
				for i := range stamp {
					stamp[i] = gen
					if rng.Float64() >= tc.fresh {
						stamp[i] = gen + 1 + uint32(rng.IntN(3))
					}
				}
				offs := make([]int, rng.IntN(200))
				for k := range offs {
					offs[k] = rng.IntN(nrows) * tc.stride
					if rng.IntN(20) == 0 {
						offs[k] = -1
					}
				}
				got := make([]int, len(offs))
				want := make([]int, len(offs))
				n, _ := PrefetchStale(rows, offs, tc.stride, stamp, gen, mul, got)
				wn := staleGo(offs, stamp, gen, mul, want)
				if !slices.Equal(got[:n], want[:wn]) {
					t.Fatalf("it %d: stale %v, want %v", it, got[:n], want[:wn])
				}
				for k, o := range offs { // staleGo's meaning, spelled out
					if o >= 0 && (o/tc.stride >= len(stamp) || stamp[o/tc.stride] != gen) && !slices.Contains(want[:wn], o/tc.stride) {
						t.Fatalf("it %d: offset %d (row %d) stale but not listed", it, k, o/tc.stride)
					}
				}
			}
		})
	}
}

// BenchmarkPrefetchStale is one news20 example's check at m = 10 (140
// features, rows of 13 values, 3 % stale): 0 allocations.
func BenchmarkPrefetchStale(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	const stride, nrows = 13, 100000
	rows := make([]float64, nrows*stride)
	stamp := make([]uint32, nrows)
	for i := range stamp {
		if rng.IntN(33) == 0 {
			stamp[i] = 1
		}
	}
	offs := make([]int, 140)
	for k := range offs {
		offs[k] = rng.IntN(nrows) * stride
	}
	stale := make([]int, len(offs))
	mul := math.MaxUint64/uint64(stride) + 1
	b.ReportAllocs()
	for b.Loop() {
		PrefetchStale(rows, offs, stride, stamp, 0, mul, stale)
	}
}
