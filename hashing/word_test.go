package hashing

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
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

// scanLine builds the example of one namespace's features in text the
// way the VW parser does: ScanVW for the run it takes, Feature for each
// token it leaves (name[:value], the value parsed by strconv).
func scanLine(t *testing.T, b *Builder, ns string, scale float64, text string) {
	t.Helper()
	line := []byte(text)
	b.Namespace([]byte(ns), scale)
	i := 0
	for {
		i = b.ScanVW(line, i)
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		if i >= len(line) {
			return
		}
		start := i
		for i < len(line) && line[i] != ' ' && line[i] != '\t' {
			i++
		}
		name, val, _ := strings.Cut(string(line[start:i]), ":")
		v := 1.0
		if val != "" {
			var err error
			if v, err = strconv.ParseFloat(val, 64); err != nil {
				t.Fatalf("bad test value %q", val)
			}
			if v == 0 {
				continue
			}
		}
		b.Feature([]byte(name), v)
	}
}

// TestScanVW: ScanVW with the parser's fallback gives the example that
// Feature gives token by token, after features added by Feature — names short and long, numeric and
// mixed, values of one digit and others, repeats that merge, names at the
// end of the line, tabs — under --hash all, an ignored namespace, a
// scaled namespace, an infinite product, the feature limit, interactions,
// audit and a hash seed.
func TestScanVW(t *testing.T) {
	text := "the a:2 abcd abcdefg:3 abcdefgh abcdefghi:4 7 42:2 12345678 123456789:3 42x x42 9abc " +
		"longer_than_eight_bytes:9 the:5 a\tb:1.5 c:0 d:10 e:-1 :3 g:9 abcdefgh:2 w1 w2 w3 w4 w5 w6 w7 " +
		"v1:0.0012 v2:12.5 v3:1. v4:.5 v5:0.000 v6:1234567.8901234 v7:12345678.901234567 v8:1e3 v9:00001.50 " +
		"0:1 00000000:2 99999999:3 12345678x:4 1234:0.25 1a:3 v10:123456789012345 v11:1234567890123456 " +
		"end_of_the_line_name"
	// Values that cancel when merged, by ScanVW (zc) or by Feature (zd):
	// apart, so that each must be dropped on its own.
	texts := []string{text, "zc:-2.5 zc:2.5 " + text, "zd:2 zd:-2 " + text}
	cases := []struct {
		name  string
		cfg   Config
		scale float64
		audit bool
	}{
		{name: "plain", scale: 1},
		{name: "hash all", cfg: Config{HashAll: true}, scale: 1},
		{name: "ignored", cfg: Config{Ignore: "n"}, scale: 1},
		{name: "scaled", scale: 0.5},
		{name: "zero scale", scale: 0},
		{name: "Inf scale product", scale: math.MaxFloat64},
		{name: "limit", cfg: Config{MaxFeatures: 5}, scale: 1},
		{name: "limit at 6", cfg: Config{MaxFeatures: 6}, scale: 1},
		{name: "limit at 7", cfg: Config{MaxFeatures: 7}, scale: 1},
		{name: "limit at 8", cfg: Config{MaxFeatures: 8}, scale: 1},
		{name: "limit at 17", cfg: Config{MaxFeatures: 17}, scale: 1},
		{name: "interactions", cfg: Config{Interactions: []string{"nn"}}, scale: 1},
		{name: "audit", scale: 1, audit: true},
		{name: "seed", cfg: Config{Seed: 77}, scale: 1},
		{name: "bits 4", cfg: Config{Bits: 4}, scale: 1},
	}
	for k, text := range texts {
		for _, c := range cases {
			t.Run(fmt.Sprint(c.name, k), func(t *testing.T) { scanCase(t, c.cfg, c.scale, c.audit, text) })
		}
	}
}

// scanCase is a case of TestScanVW.
func scanCase(t *testing.T, cfg Config, scale float64, audit bool, text string) {
	run := func(scan bool) (sparse.Example, error) {
		b, err := NewBuilder(cfg)
		if err != nil {
			t.Fatal(err)
		}
		b.SetAudit(audit)
		var ex sparse.Example
		for rep := 0; rep < 3; rep++ { // the table reused
			b.Begin()
			// Features added before ScanVW's first call,
			// repeats among them, are merged when it takes
			// the example over.
			b.Namespace([]byte("p"), 1)
			for _, f := range []string{"x", "y", "x", "12"} {
				b.Feature([]byte(f), 2)
			}
			if scan {
				scanLine(t, b, "n", scale, text)
				scanLine(t, b, "m", 1, text[:40])
			} else {
				for _, p := range []struct {
					ns    string
					scale float64
					text  string
				}{{"n", scale, text}, {"m", 1, text[:40]}} {
					b.Namespace([]byte(p.ns), p.scale)
					for _, tok := range strings.Fields(p.text) {
						name, val, _ := strings.Cut(tok, ":")
						v := 1.0
						if val != "" {
							v, _ = strconv.ParseFloat(val, 64)
							if v == 0 {
								continue
							}
						}
						b.Feature([]byte(name), v)
					}
				}
			}
			err = b.Finish(&ex)
		}
		return ex, err
	}
	want, werr := run(false)
	got, gerr := run(true)
	if (werr == nil) != (gerr == nil) || (werr != nil && werr.Error() != gerr.Error()) {
		t.Fatalf("ScanVW error %v, Feature error %v", gerr, werr)
	}
	if werr == nil && (!slices.Equal(got.Idx, want.Idx) || !slices.Equal(got.Val, want.Val) || len(want.Idx) < 2) {
		t.Fatalf("ScanVW gives %v %v,\nFeature %v %v", got.Idx, got.Val, want.Idx, want.Val)
	}
}

// TestScanVWLongLine: a line of many features grows the slot table and
// the buffers while ScanVW runs, and merges repeats across the growth.
func TestScanVWLongLine(t *testing.T) {
	var sb strings.Builder
	for i := 0; i < 5000; i++ {
		fmt.Fprintf(&sb, "w%d:%d ", i%3000, 1+i%9)
	}
	text := sb.String()
	for _, bits := range []uint{0, 10} {
		cfg := Config{Bits: bits}
		a, _ := NewBuilder(cfg)
		b, _ := NewBuilder(cfg)
		var ea, eb sparse.Example
		a.Begin()
		scanLine(t, a, "f", 1, text)
		b.Begin()
		b.Namespace([]byte("f"), 1)
		for _, tok := range strings.Fields(text) {
			name, val, _ := strings.Cut(tok, ":")
			v, _ := strconv.ParseFloat(val, 64)
			b.Feature([]byte(name), v)
		}
		if err := a.Finish(&ea); err != nil {
			t.Fatal(err)
		}
		if err := b.Finish(&eb); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(ea.Idx, eb.Idx) || !slices.Equal(ea.Val, eb.Val) || len(ea.Idx) < 900 {
			t.Fatalf("bits %d: ScanVW gives %d slots, Feature %d (or different values)", bits, len(ea.Idx), len(eb.Idx))
		}
	}
}

func TestWordEnd(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	alphabet := []byte("ab \t|:\x00\xff\x80\x7f\x01 xyz")
	for n := 0; n < 5000; n++ {
		b := make([]byte, r.IntN(40))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		for i := 0; i <= len(b); i++ {
			want := i
			for want < len(b) && !strings.ContainsRune(" \t|:", rune(b[want])) {
				want++
			}
			if got := wordEnd(b, i); got != want {
				t.Fatalf("wordEnd(%q, %d) = %d, want %d", b, i, got, want)
			}
		}
	}
}
