package hashing

import (
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/sparseson/sparseson/sparse"
)

// TestMurmurWord: murmurWord of a name in a word is murmurName of the
// name, for every length 0..8 and whatever bytes follow it in the word.
func TestMurmurWord(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for n := 0; n <= 8; n++ {
		for trial := 0; trial < 2000; trial++ {
			var buf [8]byte
			for i := range buf {
				buf[i] = byte(rng.Uint32())
			}
			seed := rng.Uint32()
			w := binary.LittleEndian.Uint64(buf[:])
			name := slices.Clone(buf[:n]) // no spare capacity: murmurName's byte tail
			if got, want := murmurWord(w, n, seed), murmurName(name, seed); got != want {
				t.Fatalf("n=%d bytes %x seed %#x: murmurWord %#x, murmurName %#x", n, buf, seed, got, want)
			}
		}
	}
}

// TestFeatureWord: the parser's short-name entry gives the example
// Feature gives, for ordinary, numeric, empty and long names, with and
// without --hash all, in a dropped namespace too.
func TestFeatureWord(t *testing.T) {
	names := []string{"the", "a", "abcd", "abcdefg", "abcdefgh", "7", "42x", "x42", "", "9abc", "longer_than_eight"}
	for _, hashAll := range []bool{false, true} {
		for _, ignore := range []bool{false, true} {
			cfg := Config{HashAll: hashAll}
			if ignore {
				cfg.Ignore = "n"
			}
			fa, err := NewBuilder(cfg)
			if err != nil {
				t.Fatal(err)
			}
			fb, _ := NewBuilder(cfg)
			var ea, eb sparse.Example
			fa.Begin()
			fb.Begin()
			for _, ns := range []string{"f", "n"} {
				fa.Namespace([]byte(ns), 1)
				fb.Namespace([]byte(ns), 1)
				for i, s := range names {
					var buf [8]byte
					copy(buf[:], s+" :|\t")
					name := []byte(s)
					if len(name) <= 8 {
						fa.FeatureWord(name, binary.LittleEndian.Uint64(buf[:]), float64(i+1))
					} else {
						fa.Feature(name, float64(i+1))
					}
					fb.Feature(name, float64(i+1))
				}
			}
			if err := fa.Finish(&ea); err != nil {
				t.Fatal(err)
			}
			if err := fb.Finish(&eb); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(ea.Idx, eb.Idx) || !slices.Equal(ea.Val, eb.Val) || len(ea.Idx) < 2 {
				t.Fatalf("hashAll %v ignore %v: FeatureWord gives %v %v, Feature %v %v", hashAll, ignore, ea.Idx, ea.Val, eb.Idx, eb.Val)
			}
		}
	}
}
