package parser

import (
	"errors"
	"strings"
	"testing"

	"github.com/sparseson/sparseson/hashing"
)

func TestParseVW(t *testing.T) {
	long := strings.Repeat("w", 70000) // a token longer than 64 KiB
	tests := []struct {
		line     string
		label    float64
		hasLabel bool
		weight   float64
		initial  float64
		tag      string
		spec     string
	}{
		{"1 |f a b", 1, true, 1, 0, "", "|f a b"},
		{"-1 |f a:2", -1, true, 1, 0, "", "|f a:2"},
		{"+1 |f a", 1, true, 1, 0, "", "|f a"},
		{"0 |f a", 0, true, 1, 0, "", "|f a"},
		{"0.5 2 |f a", 0.5, true, 2, 0, "", "|f a"},
		{"1 0 |f a", 1, true, 0, 0, "", "|f a"},
		{"1 2 0.25 |f a", 1, true, 2, 0.25, "", "|f a"},
		{"3.5e1 |f a", 35, true, 1, 0, "", "|f a"},
		// Tags: quoted, or touching the '|'.
		{"1 'tag |f a", 1, true, 1, 0, "tag", "|f a"},
		{"1 mytag|f a", 1, true, 1, 0, "mytag", "|f a"},
		{"1 'mytag|f a", 1, true, 1, 0, "mytag", "|f a"},
		{"1 2 tag|f a", 1, true, 2, 0, "tag", "|f a"},
		{"1 2 0.5 'tag |f a", 1, true, 2, 0.5, "tag", "|f a"},
		{"1|f a", 0, false, 1, 0, "1", "|f a"}, // as VW: "1" is the tag
		{"'tag|f a", 0, false, 1, 0, "tag", "|f a"},
		{"'tag |f a", 0, false, 1, 0, "tag", "|f a"},
		{"1 ' |f a", 1, true, 1, 0, "", "|f a"},
		// Unlabeled.
		{"|f a", 0, false, 1, 0, "", "|f a"},
		{"  |f a", 0, false, 1, 0, "", "|f a"},
		// Namespaces.
		{"1 | a b c", 1, true, 1, 0, "", "| a b c"},
		{"1 |f a | b |g c", 1, true, 1, 0, "", "|f a | b |g c"},
		{"1 |f:2.5 a:2 b", 1, true, 1, 0, "", "|f:2.5 a:2 b"},
		{"1 |f:-1 a", 1, true, 1, 0, "", "|f:-1 a"},
		{"1 |:2 a", 1, true, 1, 0, "", "|:2 a"},
		{"1 |f a|g b", 1, true, 1, 0, "", "|f a |g b"},
		{"1 |f a||g b", 1, true, 1, 0, "", "|f a | |g b"},
		{"1 |", 1, true, 1, 0, "", ""},
		{"1 |f", 1, true, 1, 0, "", "|f"},
		{"1 |f   ", 1, true, 1, 0, "", "|f"},
		{"1 |17 a", 1, true, 1, 0, "", "|17 a"},
		// Values.
		{"1 |f a:0 b", 1, true, 1, 0, "", "|f b"},
		{"1 |f a:-0.5e1 b:+3 c:.25", 1, true, 1, 0, "", "|f a:-5 b:3 c:0.25"},
		{"1 |f a:1e18", 1, true, 1, 0, "", "|f a:1e18"},
		{"1 |f 12 007:2", 1, true, 1, 0, "", "|f 12 007:2"},
		{"1 |f a=b c-d é", 1, true, 1, 0, "", "|f a=b c-d é"},
		{"1 |f :2 :3", 1, true, 1, 0, "", "|f :2 :3"},
		// Whitespace.
		{"1 |f a b\r", 1, true, 1, 0, "", "|f a b"},
		{"1\t|f\ta\t\tb", 1, true, 1, 0, "", "|f a b"},
		{"  1   2   |f   a  ", 1, true, 2, 0, "", "|f a"},
		// Duplicates merge.
		{"1 |f a b a", 1, true, 1, 0, "", "|f a:2 b"},
		{"1 |f a b a:-1", 1, true, 1, 0, "", "|f b"},
		// Long tokens.
		{"1 |f " + long + ":2 b", 1, true, 1, 0, "", "|f " + long + ":2 b"},
	}
	cfg := hashing.Config{}
	for _, tc := range tests {
		ex, err := parseLine(t, VW, cfg, tc.line)
		name := tc.line
		if len(name) > 40 {
			name = name[:40] + "…"
		}
		if err != nil {
			t.Errorf("%q: %v", name, err)
			continue
		}
		want := hashSpec(t, cfg, tc.spec)
		want.Label, want.HasLabel, want.Weight, want.Initial = tc.label, tc.hasLabel, tc.weight, tc.initial
		want.Tag = []byte(tc.tag)
		if !sameExample(ex, &want) {
			t.Errorf("%q:\n got %+v\nwant %+v", name, *ex, want)
		}
		checkExample(t, ex, 18)
	}
}

func TestParseVWMalformed(t *testing.T) {
	tests := []struct{ line, msg string }{
		{"abc |f a", `bad label "abc"`},
		{"nan |f a", `bad label "nan"`},
		{"inf |f a", `bad label "inf"`},
		{"1e19 |f a", `bad label "1e19": value out of range`},
		{"1 x |f a", `bad importance weight "x"`},
		{"1 -1 |f a", `bad importance weight "-1": negative`},
		{"1 1e30 |f a", `bad importance weight "1e30": value out of range`},
		{"1 2 x |f a", `bad initial prediction "x"`},
		{"1 2 -1e19 |f a", `bad initial prediction "-1e19": value out of range`},
		{"1 2 3 4 |f a", `too many label tokens (4)`},
		{"1 2 3 4 tag|f a", `too many label tokens (4)`},
		{"1 2 3 4 5 6 'tag |f a", `too many label tokens (6)`},
		{"1 f a", `no '|' in VW line`},
		{"1", `no '|' in VW line`},
		{"1 |f a:x", `bad value "x" for feature "a"`},
		{"1 |f a:", `bad value "" for feature "a"`},
		{"1 |f a:1:2", `bad value "1:2" for feature "a"`},
		{"1 |f a:nan", `bad value "nan" for feature "a"`},
		{"1 |f a:1e19", `bad value "1e19" for feature "a": value out of range`},
		{"1 |f a:-1e300", `bad value "-1e300" for feature "a": value out of range`},
		{"1 |f b:1 :", `bad value "" for feature ""`},
		{"1 |f:x a", `bad namespace scale "x" in "|f:x"`},
		{"1 |f: a", `bad namespace scale "" in "|f:"`},
		{"1 |f:1e19 a", `bad namespace scale "1e19" in "|f:1e19": value out of range`},
	}
	for _, tc := range tests {
		_, err := parseLine(t, VW, hashing.Config{}, tc.line)
		if err == nil || err.Error() != tc.msg {
			t.Errorf("%q: got error %v, want %q", tc.line, err, tc.msg)
		}
	}
	_, err := parseLine(t, VW, hashing.Config{Interactions: []string{"ff"}, MaxFeatures: 10}, "1 |f a b c d")
	if err == nil || !strings.Contains(err.Error(), "too many features on one line: 15 features with interactions (limit 10)") {
		t.Errorf("max features: %v", err)
	}
}

func TestParseVWBlank(t *testing.T) {
	for _, line := range []string{"", " ", "\t \t", "\r", "  \r"} {
		if _, err := parseLine(t, VW, hashing.Config{}, line); !errors.Is(err, ErrBlankLine) {
			t.Errorf("%q: %v", line, err)
		}
	}
}

func TestParseVWReuse(t *testing.T) {
	// One example value parsed over and over keeps no state from before.
	b, _ := hashing.NewBuilder(hashing.Config{})
	var ex, fresh = newEx(), newEx()
	lines := []string{"1 2 3 'a |f x y", "|g z", "bad |f", "-1 |f q:2", "1 |f x:0"}
	for i := 0; i < 3; i++ {
		for _, l := range lines {
			err1 := ParseVWLine([]byte(l), b, ex)
			b2, _ := hashing.NewBuilder(hashing.Config{})
			err2 := ParseVWLine([]byte(l), b2, fresh)
			if (err1 == nil) != (err2 == nil) || (err1 == nil && !sameExample(ex, fresh)) {
				t.Fatalf("%q: reused %+v %v, fresh %+v %v", l, *ex, err1, *fresh, err2)
			}
		}
	}
}
