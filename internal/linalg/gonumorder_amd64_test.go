//go:build amd64 && !noasm && !gccgo && !safe

package linalg

import (
	"math/rand/v2"
	"testing"
)

// TestGonumOrderDiffers guards TestGonumOrderBits where gonum sums in
// its own order (its assembly; elsewhere that order is the plain loop):
// a plain left-to-right sum must differ from gonum's on these draws, or
// the draws could not tell the orders apart.
func TestGonumOrderDiffers(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 35))
	differ := 0
	for trial := 0; trial < 200; trial++ {
		a, b := gonumDraw(rng, 13), gonumDraw(rng, 13)
		if !sameBits(Dot(a, b), GonumDot(a, b)) {
			differ++
		}
	}
	if differ == 0 {
		t.Fatal("no draw tells the plain sum from gonum's order")
	}
}
