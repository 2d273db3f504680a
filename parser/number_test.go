package parser

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

func TestParseNumber(t *testing.T) {
	tests := []struct {
		in   string
		want float64
		st   numStatus
	}{
		{"0", 0, numOK},
		{"1", 1, numOK},
		{"+1", 1, numOK},
		{"-1", -1, numOK},
		{"-0", 0, numOK},
		{"007", 7, numOK},
		{"0.5", 0.5, numOK},
		{".5", 0.5, numOK},
		{"-.5", -0.5, numOK},
		{"5.", 5, numOK},
		{"0.1", 0.1, numOK},
		{"3.14159", 3.14159, numOK},
		{"1e3", 1000, numOK},
		{"1E3", 1000, numOK},
		{"1e+3", 1000, numOK},
		{"2.5e-3", 0.0025, numOK},
		{"1e18", 1e18, numOK},
		{"-1e18", -1e18, numOK},
		{"1e-300", 1e-300, numOK},
		{"123456789012345678", 123456789012345678, numOK},
		{"0.1234567890123456789", 0.1234567890123456789, numOK},
		{"1.000000000000000000000000001", 1, numOK},
		{"1e-400", 0, numOK}, // underflows to zero
		{"1.0000000000000000001e18", 1e18, numOK},
		{"1e19", 0, numRange},
		{"-2e18", 0, numRange},
		{"1000000000000000001", 1e18, numOK}, // rounds to 1e18, which is in range
		{"1000000000000000200", 0, numRange},
		{"1e400", 0, numRange},
		{"99999999999999999999999", 0, numRange},
		{"", 0, numSyntax},
		{"+", 0, numSyntax},
		{"-", 0, numSyntax},
		{".", 0, numSyntax},
		{"e5", 0, numSyntax},
		{"1e", 0, numSyntax},
		{"1e+", 0, numSyntax},
		{"1e5x", 0, numSyntax},
		{"1.2.3", 0, numSyntax},
		{"--1", 0, numSyntax},
		{"nan", 0, numSyntax},
		{"NaN", 0, numSyntax},
		{"inf", 0, numSyntax},
		{"-Inf", 0, numSyntax},
		{"0x10", 0, numSyntax},
		{"1_000", 0, numSyntax},
		{"1,5", 0, numSyntax},
		{" 1", 0, numSyntax},
		{"abc", 0, numSyntax},
	}
	for _, tc := range tests {
		got, st := parseNumber([]byte(tc.in))
		if st != tc.st || (st == numOK && got != tc.want) {
			t.Errorf("parseNumber(%q) = %v, %v; want %v, %v", tc.in, got, st, tc.want, tc.st)
		}
	}
}

// TestParseNumberExact checks the fast path against strconv on many random
// decimal strings: both must give bit-identical results.
func TestParseNumberExact(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	digits := func(n int) string {
		var sb strings.Builder
		for i := 0; i < n; i++ {
			sb.WriteByte(byte('0' + r.IntN(10)))
		}
		return sb.String()
	}
	for i := 0; i < 300000; i++ {
		var sb strings.Builder
		if r.IntN(3) == 0 {
			sb.WriteByte("+-"[r.IntN(2)])
		}
		sb.WriteString(digits(r.IntN(12)))
		if r.IntN(2) == 0 {
			sb.WriteByte('.')
			sb.WriteString(digits(r.IntN(20)))
		}
		if r.IntN(3) == 0 {
			sb.WriteByte('e')
			sb.WriteString(strconv.Itoa(r.IntN(80) - 50))
		}
		s := sb.String()
		want, err := strconv.ParseFloat(s, 64)
		got, st := parseNumber([]byte(s))
		switch {
		case err != nil && !isRangeErr(err):
			if st != numSyntax {
				t.Fatalf("%q: strconv says %v, we say %v %v", s, err, got, st)
			}
		case math.Abs(want) > maxMagnitude || math.IsInf(want, 0):
			if st != numRange {
				t.Fatalf("%q: want range error, got %v %v", s, got, st)
			}
		default:
			if st != numOK || math.Float64bits(got) != math.Float64bits(want) && !(got == 0 && want == 0) {
				t.Fatalf("%q: got %v (%v), want %v", s, got, st, want)
			}
		}
	}
}

func TestParseNumberNoAllocs(t *testing.T) {
	in := [][]byte{[]byte("3"), []byte("-2.5e-3"), []byte("0.12345678901234567"), []byte("x")}
	if n := testing.AllocsPerRun(100, func() {
		for _, b := range in {
			parseNumber(b)
		}
	}); n != 0 {
		t.Fatalf("%v allocs", n)
	}
}
