package engine

import (
	"math"
	"testing"
)

// TestParseBytes reads the sizes MaxMemory takes, and refuses the others.
func TestParseBytes(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want float64 // 0: refused
	}{
		{"1.5GiB", 1.5 * (1 << 30)},
		{"512M", 512 << 20},
		{"8g", 8 << 30},
		{"1e9", 1e9},
		{"2T", 2 << 40},
		{"0", 0},
		{"-1K", 0},
		{"inf", 0},
		{"lots", 0},
	} {
		v, err := ParseBytes(tc.in)
		if tc.want == 0 && err == nil || tc.want != 0 && (err != nil || v != tc.want) {
			t.Errorf("ParseBytes(%q) = %v, %v; want %v", tc.in, v, err, tc.want)
		}
	}
}

// TestMemoryLimit: without MaxMemory the limit is half the machine's RAM,
// or none where it cannot be read.
func TestMemoryLimit(t *testing.T) {
	if lim, what, err := memoryLimit(""); err != nil || !(lim > 0) || (what == "" && !math.IsInf(lim, 1)) {
		t.Errorf("default limit %v (%s), %v", lim, what, err)
	}
	if lim, what, err := memoryLimit("1K"); err != nil || lim != 1024 || what != "as given" {
		t.Errorf("1K: %v (%s), %v", lim, what, err)
	}
}
