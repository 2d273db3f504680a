package spectral

import (
	"math/rand/v2"
	"testing"
)

// TestSketchBounds checks the dense sketches against the guarantees the
// figure illustrates: FD's covariance error is at most ‖A‖_F²/m (the
// doubled buffer shrinks by σ_m², Liberty 2013 / Luo et al. (JMLR 2019), App. A), and
// RFD's, with α = half the total shrinkage, at most half of that bound
// (Luo et al. (JMLR 2019), Theorem 3 at k = 0).
func TestSketchBounds(t *testing.T) {
	for _, tc := range []struct {
		name    string
		n, d, m int
	}{
		{"dense", 200, 30, 5},
		{"sparse", 300, 80, 8},
		{"tall m", 100, 20, 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(tc.n), 7))
			A := make([]row, tc.n)
			var fro float64
			for i := range A {
				for c := 0; c < tc.d; c++ {
					if tc.name == "sparse" && rng.IntN(8) != 0 {
						continue
					}
					v := rng.NormFloat64() * float64(c%5+1)
					A[i].idx = append(A[i].idx, c)
					A[i].val = append(A[i].val, v)
					fro += v * v
				}
			}
			fd, rfd := sketch(A, tc.d, tc.m)
			efd, erfd := relErr(A, tc.d, fd, 0), relErr(A, tc.d, rfd, rfd.alpha)
			if bound := 1 / float64(tc.m); efd > bound*(1+1e-9) {
				t.Errorf("FD error %g above ‖A‖_F²/m = %g (relative)", efd, bound)
			}
			if erfd > efd*(1+1e-9) {
				t.Errorf("RFD error %g above FD's %g", erfd, efd)
			}
			if rfd.alpha <= 0 {
				t.Errorf("RFD α = %g after %d rows into a sketch of %d", rfd.alpha, tc.n, tc.m)
			}
		})
	}
}
