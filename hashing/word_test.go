package hashing

import (
	"encoding/binary"
	"math"
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

// TestAddWords: a run handed over by AddWords gives the example that
// FeatureWord gives name by name — numeric and mixed names, --hash all, an
// ignored namespace, a scaled namespace, zero and non-finite values, the
// feature limit, interactions (features grouped by namespace) and a
// builder that records names.
func TestAddWords(t *testing.T) {
	words := []string{"the", "a", "abcd", "abcdefg", "abcdefgh", "7", "42", "12345678", "42x", "x42", "9abc"}
	cases := []struct {
		name  string
		cfg   Config
		scale float64
		vals  []float64
		audit bool
	}{
		{name: "plain", scale: 1},
		{name: "hash all", cfg: Config{HashAll: true}, scale: 1},
		{name: "ignored", cfg: Config{Ignore: "n"}, scale: 1},
		{name: "scaled", scale: 0.5},
		{name: "zero values", scale: 1, vals: []float64{0, 1, 0, 2}},
		{name: "NaN value", scale: 1, vals: []float64{1, math.NaN()}},
		{name: "Inf scale product", scale: math.MaxFloat64, vals: []float64{4}},
		{name: "limit", cfg: Config{MaxFeatures: 5}, scale: 1},
		{name: "interactions", cfg: Config{Interactions: []string{"nn"}}, scale: 1},
		{name: "audit", scale: 1, audit: true},
		{name: "seed", cfg: Config{Seed: 77}, scale: 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			run := func(byWords bool) (sparse.Example, error) {
				b, err := NewBuilder(c.cfg)
				if err != nil {
					t.Fatal(err)
				}
				b.SetAudit(c.audit)
				var ex sparse.Example
				b.Begin()
				b.Namespace([]byte("n"), c.scale)
				q := b.WordBuf()
				if c.audit != (q == nil) {
					t.Fatalf("audit %v: WordBuf gave %d words", c.audit, len(q))
				}
				k := 0
				for i, s := range words {
					var buf [8]byte
					copy(buf[:], s+" :|\t")
					w := binary.LittleEndian.Uint64(buf[:])
					v := float64(i + 1)
					if c.vals != nil {
						v = c.vals[i%len(c.vals)]
					}
					if byWords && q != nil {
						q[k] = Word{W: w, V: v, N: len(s)}
						k++
					} else {
						b.FeatureWord([]byte(s), w, v)
					}
				}
				b.AddWords(q[:k])
				err = b.Finish(&ex)
				return ex, err
			}
			want, werr := run(false)
			got, gerr := run(true)
			if (werr == nil) != (gerr == nil) || (werr != nil && werr.Error() != gerr.Error()) {
				t.Fatalf("AddWords error %v, FeatureWord error %v", gerr, werr)
			}
			if werr == nil && (!slices.Equal(got.Idx, want.Idx) || !slices.Equal(got.Val, want.Val) || len(want.Idx) == 0 && c.cfg.Ignore == "") {
				t.Fatalf("AddWords gives %v %v, FeatureWord %v %v", got.Idx, got.Val, want.Idx, want.Val)
			}
		})
	}
}
