package run

import (
	"flag"
	"math"
	"testing"
)

// TestQuickDefaults: --quick shrinks only the flags a suite was not given.
func TestQuickDefaults(t *testing.T) {
	for _, tc := range []struct {
		name      string
		quick     bool
		args      []string
		set, rows string
	}{
		{"full run", false, nil, "all", "2000"},
		{"quick", true, nil, "one", "300"},
		{"quick, set given", true, []string{"-set", "m"}, "m", "300"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := NewEnv()
			e.Quick = tc.quick
			fs := flag.NewFlagSet("t", flag.ContinueOnError)
			e.Register(fs)
			set := fs.String("set", "all", "")
			rows := fs.String("rows", "2000", "")
			if err := fs.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			if err := e.QuickDefaults(fs, map[string]string{"set": "one", "rows": "300"}); err != nil {
				t.Fatal(err)
			}
			if *set != tc.set || *rows != tc.rows {
				t.Errorf("-set %s -rows %s, want %s %s", *set, *rows, tc.set, tc.rows)
			}
		})
	}
}

// TestFinite: a quick run rejects NaN and ±Inf; a full run only counts.
func TestFinite(t *testing.T) {
	for _, quick := range []bool{false, true} {
		e := &Env{Quick: quick}
		for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
			if err := e.Finite("x", 1, v); (err != nil) != quick {
				t.Errorf("quick=%v: Finite(1, %v) = %v", quick, v, err)
			}
		}
		if err := e.Finite("x", 0, -2.5, 1e300); err != nil {
			t.Errorf("quick=%v: finite numbers rejected: %v", quick, err)
		}
		if e.Checked() != 9 {
			t.Errorf("checked %d numbers, want 9", e.Checked())
		}
	}
}
