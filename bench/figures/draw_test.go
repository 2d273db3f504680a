package figures

import (
	"slices"
	"testing"
)

func TestLogTicks(t *testing.T) {
	for _, tc := range []struct {
		name   string
		lo, hi float64
		labels []string
	}{
		{"within a decade", 3, 60, []string{"5", "10", "20", "50"}},
		{"two decades", 0.5, 20, []string{"0.5", "1", "2", "5", "10", "20"}},
		{"wide: powers only", 1, 1e5, []string{"1", "10", "100", "1000", "10000", "100000"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, tk := range (logTicks{}).Ticks(tc.lo, tc.hi) {
				if tk.Value < tc.lo || tk.Value > tc.hi {
					t.Errorf("tick %g outside [%g, %g]", tk.Value, tc.lo, tc.hi)
				}
				if tk.Label != "" {
					got = append(got, tk.Label)
				}
			}
			if !slices.Equal(got, tc.labels) {
				t.Errorf("labels %v, want %v", got, tc.labels)
			}
		})
	}
}

func TestGroup(t *testing.T) {
	rows := []map[string]string{
		{"l": "b", "x": "1", "y": "2"},
		{"l": "a", "x": "1", "y": "3"},
		{"l": "b", "x": "2", "y": "4"},
		{"l": "skip", "x": "2", "y": "4"},
	}
	ss := group(rows, func(r map[string]string) (string, float64, float64, bool) {
		return r["l"], num(r["x"]), num(r["y"]), r["l"] != "skip"
	}, "a")
	if len(ss) != 2 || ss[0].name != "a" || ss[1].name != "b" || len(ss[0].xy) != 1 || len(ss[1].xy) != 2 {
		t.Fatalf("group: %+v", ss)
	}
}
