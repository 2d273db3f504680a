package linalg

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// refreshDgemv is the refresh RefreshCol replaces (son/lazy.go before it):
// trailing zeros trimmed, gonum's Dgemv into tmp, then the write-back.
func refreshDgemv(row []float64, p int, a []float64, lda, m int, tmp []float64) int {
	c := row[1 : 1+p]
	n := p
	for n > 0 && c[n-1] == 0 {
		n--
	}
	if n == 0 {
		row[0] += 0
		clear(row[1:m])
		return 0
	}
	out := tmp[:m]
	gonum.Implementation{}.Dgemv(blas.NoTrans, m, n, 1, a, lda, c[:n], 1, 0, out, 1)
	row[0] += out[0]
	copy(row[1:m], out[1:])
	if n > m-1 {
		clear(row[m : 1+n])
	}
	return n
}

// TestRefreshColBits checks RefreshCol and its Go form bit for bit against
// the Dgemv refresh, on every row-block remainder (m = 1…13), both
// parities of n, columns with trailing zeros, −0 among them, zero columns
// and ones shaped as the refreshes see them (a dense head, then scattered
// values among zeros), with m both below and above n (the clear), and
// with Inf and NaN in the map.
func TestRefreshColBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 7))
	cases := []struct {
		name      string
		head, nnz int // dense head of c, then nnz scattered non-zeros
		bad       bool
	}{
		{"dense", 64, 0, false},
		{"head only", 9, 0, false},
		{"head and one", 9, 1, false},
		{"head and three", 19, 3, false},
		{"sparse", 0, 2, false},
		{"zero", 0, 0, false},
		{"non-finite map", 12, 2, true},
	}
	const pmax = 41
	for _, tc := range cases {
		for m := 1; m <= 13; m++ {
			for p := 0; p <= pmax; p++ {
				t.Run(fmt.Sprintf("%s/m%d/p%d", tc.name, m, p), func(t *testing.T) {
					lda := max(p, 1) + rng.IntN(3)
					a := make([]float64, m*lda)
					for i := range a {
						a[i] = rng.NormFloat64() * math.Exp(4*rng.NormFloat64())
					}
					if tc.bad {
						a[rng.IntN(len(a))] = math.Inf(1)
						a[rng.IntN(len(a))] = math.NaN()
					}
					row := make([]float64, 1+pmax)
					row[0] = rng.NormFloat64()
					c := row[1 : 1+p]
					for j := 0; j < min(p, tc.head); j++ {
						c[j] = rng.NormFloat64()
					}
					for k := 0; k < tc.nnz && p > 0; k++ {
						c[rng.IntN(p)] = -rng.Float64()
					}
					if p > 1 && rng.IntN(2) == 0 {
						c[p-1] = math.Copysign(0, -1)
					}
					for j := p; j < pmax; j++ {
						row[1+j] = float64(j) // beyond the column: never read
					}
					want := append([]float64(nil), row...)
					wn := refreshDgemv(want, p, a, lda, m, make([]float64, m))
					for _, f := range []struct {
						name string
						fn   func([]float64, int, []float64, int, int, []float64) int
					}{{"RefreshCol", RefreshCol}, {"Go", refreshColGo}} {
						got := append([]float64(nil), row...)
						gn := f.fn(got, p, a, lda, m, make([]float64, m))
						if gn != wn {
							t.Fatalf("%s: n = %d, want %d", f.name, gn, wn)
						}
						for i := range want {
							if (f.name == "Go" || !refreshColAsmOn) && math.IsNaN(want[i]) && math.IsNaN(got[i]) {
								// Go's compiler may order an addition's
								// operands either way, and x86 passes on
								// the first NaN's sign and payload.
								continue
							}
							if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
								t.Fatalf("%s: row[%d] = %v, Dgemv refresh %v", f.name, i, got[i], want[i])
							}
						}
					}
				})
			}
		}
	}
}

// TestRefreshColChecks: a shape the kernel would read or write beyond is
// refused before it runs.
func TestRefreshColChecks(t *testing.T) {
	row := make([]float64, 11)
	a := make([]float64, 40)
	tmp := make([]float64, 5)
	for _, tc := range []struct {
		name       string
		p, lda, m  int
		row, a, tm []float64
	}{
		{"p beyond row", 11, 11, 2, row, make([]float64, 100), tmp},
		{"m beyond row", 4, 4, 12, row, make([]float64, 100), make([]float64, 12)},
		{"short map", 8, 8, 5, row, a[:39], tmp},
		{"lda below p", 8, 4, 2, row, a, tmp},
		{"short tmp", 4, 4, 5, row, a, tmp[:4]},
		{"no rows", 4, 4, 0, row, a, tmp},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", tc.name)
				}
			}()
			RefreshCol(tc.row, tc.p, tc.a, tc.lda, tc.m, tc.tm)
		}()
	}
}

// TestRefreshColAllocs: the refresh allocates nothing.
func TestRefreshColAllocs(t *testing.T) {
	a := make([]float64, 10*200)
	row := make([]float64, 21)
	tmp := make([]float64, 10)
	if n := testing.AllocsPerRun(100, func() {
		row[3], row[15] = 1, 2
		RefreshCol(row, 20, a, 200, 10, tmp)
	}); n != 0 {
		t.Fatalf("%v allocs per run", n)
	}
}

// BenchmarkRefreshCol is a typical ADA-FFD refresh on news20 (a 10-row
// map, a column of 9 values and one appended entry at 14, stored with 20)
// against the Dgemv refresh it replaces.
func BenchmarkRefreshCol(b *testing.B) {
	const m, p, lda = 10, 20, 200
	a := make([]float64, m*lda)
	for i := range a {
		a[i] = float64(i%7) - 3
	}
	row := make([]float64, 1+p)
	tmp := make([]float64, m)
	set := func() {
		for j := 0; j < 9; j++ {
			row[1+j] = float64(j + 1)
		}
		row[1+14] = 2
	}
	for _, f := range []struct {
		name string
		fn   func([]float64, int, []float64, int, int, []float64) int
	}{{"RefreshCol", RefreshCol}, {"Dgemv", refreshDgemv}} {
		b.Run(f.name, func(b *testing.B) {
			for b.Loop() {
				set()
				f.fn(row, p, a, lda, m, tmp)
			}
		})
	}
}
