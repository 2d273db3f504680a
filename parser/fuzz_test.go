package parser

import (
	"bytes"
	"strings"
	"testing"

	"github.com/sparseson/sparseson/hashing"
	"github.com/sparseson/sparseson/sparse"
)

// fuzzConfigs are the hashing setups fuzz inputs are parsed under, picked
// by the input's mode byte. MaxFeatures is kept small so that inputs which
// explode under interactions are rejected quickly instead of slowing the
// fuzzer down.
var fuzzConfigs = []hashing.Config{
	{MaxFeatures: 1 << 14},
	{Bits: 4, MaxFeatures: 1 << 14},
	{Bits: 1, NoConstant: true, MaxFeatures: 1 << 14},
	{Bits: 12, Interactions: []string{"ff", "ab"}, MaxFeatures: 1 << 14},
	{Bits: 20, Interactions: []string{"f:", "abc"}, Ignore: "x", MaxFeatures: 1 << 14},
	{Bits: 30, HashAll: true, Interactions: []string{"::"}, Keep: "abf ", MaxFeatures: 1 << 14},
	// Expansions that were a minute or never ending on one line.
	{Interactions: []string{":::", "a::"}, Ngrams: []string{"24"}, Skips: []string{"24"}, MaxFeatures: 1 << 14},
}

func fuzzLine(t *testing.T, line []byte, mode uint8, parse func([]byte, *hashing.Builder, *sparse.Example) error) {
	cfg := fuzzConfigs[int(mode)%len(fuzzConfigs)]
	b, err := hashing.NewBuilder(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var ex sparse.Example
	err = parse(line, b, &ex)
	// A builder that records names takes the name-by-name path (no run of
	// features tokenised, hashed and merged at once, ScanVW): the same
	// example, or the same error.
	ab, _ := hashing.NewBuilder(cfg)
	ab.SetAudit(true)
	var named sparse.Example
	aerr := parse(line, ab, &named)
	if err != nil {
		if err.Error() == "" {
			t.Fatal("empty error message")
		}
		if aerr == nil || aerr.Error() != err.Error() {
			t.Fatalf("recording names: error %v, without: %v", aerr, err)
		}
		return
	}
	checkExample(t, &ex, b.Config().Bits)
	if aerr != nil || !sameExample(&ex, &named) {
		t.Fatalf("recording names: %v\n%+v\n%+v", aerr, ex, named)
	}
	// Parsing is deterministic, also with a builder and example that
	// carry state from another line.
	var again sparse.Example
	parse([]byte("1 2 3 'x |a y z |b w |f q:2"), b, &again)
	if err := parse(line, b, &again); err != nil || !sameExample(&ex, &again) {
		t.Fatalf("second parse differs: %v\n%+v\n%+v", err, ex, again)
	}
	// A trailing '\r' changes nothing.
	if !bytes.HasSuffix(line, []byte("\r")) {
		cr := append(append([]byte(nil), line...), '\r')
		if err := parse(cr, b, &again); err != nil || !sameExample(&ex, &again) {
			t.Fatalf("with CR: %v\n%+v\n%+v", err, ex, again)
		}
	}
}

func FuzzParseVW(f *testing.F) {
	for _, s := range []string{
		"1 |f a b c",
		"-1 0.5 2 'tag|f:2 a:1.5 b:-2 |g c d:1e3",
		"1 mytag|f a",
		"|ab x y |ba z :2 :3",
		"1 |f a a:-1 b",
		// Runs of short names longer than the builder's buffer, broken by
		// long, empty, numeric and zero-valued names, across namespaces.
		"1 |f " + strings.Repeat("ab cd:3 ", 200) + "a_long_name :2 17 x:0 " + strings.Repeat("e ", 300) + "|g:0.5 h i:2",
		// What ScanVW reads itself (numbers of up to 8 digits, short
		// decimals, names longer than a word, tabs) and what it leaves
		// (signs, exponents, long numbers, zeros, '|' after a value).
		"1 |f 12345678:0.25 1:3 00:1.5 7x:2 abcdefghijklmnopq:9\tb:.5 c:1. d:-1 e:1e2 f:0.000 g:1234567890123456 h:2|g 123456789 x:00012.50 y",
		"1 |f a:1\t\tb  c:9 |  d:0.1|e  f",
	} {
		f.Add([]byte(s), uint8(0))
	}
	// Hostile lines, under the config with n-grams and ':::'.
	var many strings.Builder
	many.WriteString("1")
	for c := byte('0'); c < '0'+60; c++ {
		if c != ':' && c != '|' {
			many.WriteString(" |" + string(c) + " x")
		}
	}
	for _, s := range []string{
		"1 |t a b c",
		"1 |t a b c d e f g h i j k l m n o p",
		many.String(),
		"1 |f " + strings.Repeat("x ", 20000),
	} {
		f.Add([]byte(s), uint8(len(fuzzConfigs)-1))
	}
	f.Fuzz(func(t *testing.T, line []byte, mode uint8) {
		fuzzLine(t, line, mode, ParseVWLine)
	})
}

func FuzzParseLIBSVM(f *testing.F) {
	for _, s := range []string{
		"+1 1:0.5 3:2",
		"-1 qid:3 7:1e-3 9:-4 # comment",
		"2.5",
	} {
		f.Add([]byte(s), uint8(0))
	}
	f.Fuzz(func(t *testing.T, line []byte, mode uint8) {
		fuzzLine(t, line, mode, ParseLIBSVMLine)
	})
}
