package sparse_test

import (
	"testing"

	"github.com/sparseson/sparseson/sparse"
)

// TestSlotCap: occurrences are counted each time, slots once, modulo the
// hash space; the counts of several learners add up.
func TestSlotCap(t *testing.T) {
	for _, c := range []struct {
		bits        uint
		refuse      []uint32
		occurrences int
		slots       int
	}{
		{1, nil, 0, 0},
		{1, []uint32{0, 1, 1, 3}, 4, 2}, // 3 is slot 1 of 2^1
		{6, []uint32{5, 63, 64, 5, 69}, 5, 3},
		{18, []uint32{1 << 17, 1<<18 + 1<<17, 7}, 3, 2},
	} {
		c2 := sparse.NewSlotCap(4, c.bits)
		for _, s := range c.refuse {
			c2.Refuse(s)
		}
		ig := c2.Ignored("L")
		if ig.Occurrences != c.occurrences || ig.Slots != c.slots || ig.Cap != 4 || ig.Learner != "L" {
			t.Errorf("-b %d, refused %v: %+v, want %d occurrences of %d slots", c.bits, c.refuse, ig, c.occurrences, c.slots)
		}
		sum := sparse.Ignored{}.Add(ig).Add(ig)
		if sum.Occurrences != 2*c.occurrences || sum.Slots != 2*c.slots || sum.Learner != "L" || sum.Cap != 4 {
			t.Errorf("sum of two: %+v", sum)
		}
	}
	want := "L keeps the first 4 features seen: 2 occurrences of 1 later features were ignored; use another learner, or a smaller -b to fold features together"
	if got := (sparse.Ignored{Learner: "L", Cap: 4, Occurrences: 2, Slots: 1}).Line("-b"); got != want {
		t.Errorf("Line: %q, want %q", got, want)
	}
}
