package fd

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestFormFaBits: formFa's blocks of four rows of C (Axpy4 where a block
// has no zero weight, one Axpy per nonzero weight elsewhere) must give the
// bits of one axpy per nonzero weight of U's column in order — what F_a
// was summed as before the blocks — on every q up to the buffer, with
// exact zeros in U (the arrowhead's deflated directions) at every
// position of a block and values of many magnitudes, or models would
// change.
func TestFormFaBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 13))
	val := func() float64 { return rng.NormFloat64() * math.Pow(10, float64(rng.IntN(13)-6)) }
	for _, m := range []int{3, 10, 20} {
		s, err := New(Config{M: m, Alpha: 1})
		if err != nil {
			t.Fatal(err)
		}
		pm, fs := s.pmax, s.pmax+1
		for trial := 0; trial < 200; trial++ {
			q := rng.IntN(s.lb) // S has at most m − 1 rows between shrinks
			p := 1 + rng.IntN(pm)
			g := q + 1
			s.p, s.q, s.zeroG = p, q, false
			for i := range s.C {
				s.C[i] = val()
			}
			for i := range s.u[:g*g] {
				s.u[i] = val()
				if rng.IntN(5) == 0 {
					s.u[i] = 0
				}
			}
			keep := rng.IntN(g + 1)
			for i := 0; i < keep; i++ {
				s.cols[i] = rng.IntN(g)
				s.finv[i] = val()
				s.fext[i] = val()
			}
			s.formFa(keep)
			for i := 0; i < keep; i++ {
				col, inv := s.cols[i], s.finv[i]
				want := make([]float64, p)
				for j := 0; j < q; j++ {
					if w := s.u[j*g+col]; w != 0 {
						a := w * inv
						for k := range want {
							want[k] += a * s.C[j*pm+k]
						}
					}
				}
				for k, v := range want {
					if got := s.fa[i*fs+k]; math.Float64bits(got) != math.Float64bits(v) {
						t.Fatalf("m=%d q=%d p=%d row %d col %d: F_a %v, one axpy per weight %v", m, q, p, i, k, got, v)
					}
				}
				if s.fa[i*fs+p] != s.fext[i] {
					t.Fatalf("m=%d: F_a's last column %v, f %v", m, s.fa[i*fs+p], s.fext[i])
				}
			}
		}
	}
}
