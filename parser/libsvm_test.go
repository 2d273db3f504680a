package parser

import (
	"errors"
	"strings"
	"testing"

	"github.com/sparseson/sparseson/hashing"
)

func TestParseLIBSVM(t *testing.T) {
	tests := []struct {
		line  string
		label float64
		spec  string
	}{
		{"+1 1:0.5 3:2", 1, "|f 1:0.5 3:2"},
		{"-1 1:1", -1, "|f 1"},
		{"2.5 10:-3e-2", 2.5, "|f 10:-0.03"},
		{"1", 1, ""},
		{"1   ", 1, ""},
		{"1 qid:3 2:1", 1, "|f 2"},
		{"1 2:1 # comment 3:1", 1, "|f 2"},
		{"1 2:1#3:1", 1, "|f 2"},
		{"1 2:0 3:1", 1, "|f 3"},
		{"1\t2:1\t3:1\r", 1, "|f 2 3"},
		{"1 007:1", 1, "|f 7"},
		{"1 5:1 5:2", 1, "|f 5:3"},
	}
	for _, tc := range tests {
		ex, err := parseLine(t, LIBSVM, hashing.Config{}, tc.line)
		if err != nil {
			t.Errorf("%q: %v", tc.line, err)
			continue
		}
		want := hashSpec(t, hashing.Config{}, tc.spec)
		want.Label, want.HasLabel = tc.label, true
		if !sameExample(ex, &want) {
			t.Errorf("%q:\n got %+v\nwant %+v", tc.line, *ex, want)
		}
	}
}

func TestParseLIBSVMMalformed(t *testing.T) {
	tests := []struct{ line, msg string }{
		{"x 1:1", `bad label "x"`},
		{"1e19 1:1", `bad label "1e19": value out of range`},
		{"1:1", `bad label "1:1"`},
		{"1 3", `missing ':' in "3"`},
		{"1 a:1", `bad index "a" in "a:1": not a positive integer`},
		{"1 0:1", `bad index "0" in "0:1": not a positive integer`},
		{"1 000:1", `bad index "000" in "000:1": not a positive integer`},
		{"1 -3:1", `bad index "-3" in "-3:1": not a positive integer`},
		{"1 +3:1", `bad index "+3" in "+3:1": not a positive integer`},
		{"1 :1", `bad index "" in ":1": not a positive integer`},
		{"1 3:x", `bad value "x" for index 3`},
		{"1 3:", `bad value "" for index 3`},
		{"1 3:1:2", `bad value "1:2" for index 3`},
		{"1 3:1e30", `bad value "1e30" for index 3: value out of range`},
	}
	for _, tc := range tests {
		_, err := parseLine(t, LIBSVM, hashing.Config{}, tc.line)
		if err == nil || err.Error() != tc.msg {
			t.Errorf("%q: got error %v, want %q", tc.line, err, tc.msg)
		}
	}
	for _, line := range []string{"", "  ", "# only a comment", "  #", "\r"} {
		if _, err := parseLine(t, LIBSVM, hashing.Config{}, line); !errors.Is(err, ErrBlankLine) {
			t.Errorf("%q: %v", line, err)
		}
	}
}

// TestLIBSVMTwins checks that a LIBSVM line and its VW twin hash to the
// same example, under several hashing configs.
func TestLIBSVMTwins(t *testing.T) {
	lines := []string{
		"+1 1:0.5 3:2 17:1",
		"-1 1:9 2:6 3:6 4:1 5:2 6:2 7:6 8:3 9:3 10:1 11:4",
		"0.25 100000:1 99999:-2.5 7:3e2",
		"1",
		"-1 5:1 5:-1 6:2",
		"2 4294967296:1 4294967297:2",
		"1 12345678901234567890:1",
	}
	cfgs := []hashing.Config{
		{},
		{Bits: 24, NoConstant: true},
		{Bits: 8},
		{Interactions: []string{"ff"}},
		{Interactions: []string{"fff"}, Bits: 28},
		{HashAll: true, Interactions: []string{"f:"}},
	}
	for _, cfg := range cfgs {
		for _, l := range lines {
			svm, err := parseLine(t, LIBSVM, cfg, l)
			if err != nil {
				t.Fatalf("%q: %v", l, err)
			}
			fields := strings.Fields(l)
			twin := fields[0] + " |f " + strings.Join(fields[1:], " ")
			vw, err := parseLine(t, VW, cfg, twin)
			if err != nil {
				t.Fatalf("%q: %v", twin, err)
			}
			if !sameExample(svm, vw) {
				t.Errorf("%+v: %q and %q differ:\n%+v\n%+v", cfg, l, twin, *svm, *vw)
			}
		}
	}
}
