package sparse

import (
	"math/rand/v2"
	"testing"
)

// TestOffsetsMatchesRow: Table.Offsets gives what Row per slot gives, new
// slots included, for the dense index and the hash index.
func TestOffsetsMatchesRow(t *testing.T) {
	for _, bits := range []uint{12, 26} {
		a, b := NewTable(bits, 3), NewTable(bits, 3)
		rng := rand.New(rand.NewPCG(1, uint64(bits)))
		var dst []int
		for ex := 0; ex < 200; ex++ {
			slots := make([]uint32, 1+rng.IntN(30))
			for i := range slots {
				slots[i] = rng.Uint32() % 3000
			}
			dst = a.Offsets(dst[:0], slots)
			for i, s := range slots {
				if want := b.Row(s) * 3; dst[i] != want {
					t.Fatalf("bits %d: slot %d at offset %d, Row gives %d", bits, s, dst[i], want)
				}
			}
		}
		if len(a.Rows) != len(b.Rows) {
			t.Fatalf("bits %d: %d values vs %d", bits, len(a.Rows), len(b.Rows))
		}
	}
}
