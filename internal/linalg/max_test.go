package linalg

import (
	"math"
	"testing"
)

// TestMaxBits: the arrowhead solver clamps discriminants with the
// builtin max(x, 0) where it called math.Max(x, 0) (an assembly call on
// amd64). The two differ only on +Inf against NaN (math.Max gives +Inf,
// max NaN), so with a finite bound they must agree bit for bit on every
// x — checked here on zeros of both signs, infinities and NaN — and the
// pairs where they differ must still be there (else this test could not
// tell them apart).
func TestMaxBits(t *testing.T) {
	nz := math.Copysign(0, -1)
	vals := []float64{0, nz, 1, -1, 5e-324, math.Inf(1), math.Inf(-1), math.NaN(), 1e300}
	for _, x := range vals {
		for _, y := range vals[:5] {
			if a, b := max(x, y), math.Max(x, y); math.Float64bits(a) != math.Float64bits(b) && !(math.IsNaN(a) && math.IsNaN(b)) {
				t.Errorf("max(%v, %v) = %v, math.Max %v", x, y, a, b)
			}
		}
	}
	if a, b := max(math.Inf(1), math.NaN()), math.Max(math.Inf(1), math.NaN()); !math.IsNaN(a) || !math.IsInf(b, 1) {
		t.Errorf("max(+Inf, NaN) = %v, math.Max %v: the exception the arrowhead's clamps avoid is gone", a, b)
	}
}
