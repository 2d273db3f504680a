package engine

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/sparseson/sparseson/loss"
)

// TestDivergenceRule drives the rule with given losses: the windows, the
// ratio, and the constant's loss for two labels and for many.
func TestDivergenceRule(t *testing.T) {
	logistic := func(i int) float64 { return float64(2*(i%2) - 1) } // balanced ±1: the constant's loss is log 2
	cases := []struct {
		name   string
		l      loss.Loss
		n      int
		label  func(i int) float64
		lossAt func(i int) float64 // unweighted loss of example i (0-based)
		weight float64
		want   string // "" for no warning, else the stretch "from–to"
	}{
		{"constant's loss", loss.Logistic{}, 4000, logistic, func(int) float64 { return math.Ln2 }, 1, ""},
		{"2.9 times", loss.Logistic{}, 4000, logistic, func(int) float64 { return 2.9 * math.Ln2 }, 1, ""},
		{"3.1 times", loss.Logistic{}, 4000, logistic, func(int) float64 { return 3.1 * math.Ln2 }, 1, "129–512"},
		{"the first 128 are not judged", loss.Logistic{}, 4000, logistic, func(i int) float64 {
			if i < 128 {
				return 100
			}
			return 0.1
		}, 1, ""},
		{"one window over is not a stretch", loss.Logistic{}, 4000, logistic, func(i int) float64 {
			if i < 256 {
				return 10
			}
			return 0.1
		}, 1, ""},
		{"windows over, not in a row", loss.Logistic{}, 4000, logistic, func(i int) float64 {
			if i < 256 || i >= 512 && i < 1024 || i >= 2048 {
				return 10
			}
			return 0.1
		}, 1, ""},
		{"two later windows", loss.Logistic{}, 4000, logistic, func(i int) float64 {
			if i >= 512 {
				return 10
			}
			return 0.1
		}, 1, "513–2048"},
		{"the last part of a window", loss.Logistic{}, 1200, logistic, func(i int) float64 {
			if i >= 512 {
				return 10
			}
			return 0.1
		}, 1, "513–1200"},
		{"too short a last part", loss.Logistic{}, 1100, logistic, func(i int) float64 {
			if i >= 512 {
				return 10
			}
			return 0.1
		}, 1, ""},
		{"a set too small", loss.Logistic{}, 360, logistic, func(int) float64 { return 10 }, 1, ""},
		{"importance weights", loss.Logistic{}, 4000, logistic, func(int) float64 { return 3.1 * math.Ln2 }, 3.5, "129–512"},
		{"a constant label: nothing to beat", &loss.Squared{}, 4000, func(int) float64 { return 3 }, func(int) float64 { return 10 }, 1, ""},
		// Labels −4.5…4.5: the mean's loss is their variance, 8.25, as is
		// the loss of predicting 0.
		{"squared, many labels, 2.9 times", &loss.Squared{}, 4000, func(i int) float64 { return float64(i%10) - 4.5 }, func(int) float64 { return 2.9 * 8.25 }, 1, ""},
		{"squared, many labels, 3.1 times", &loss.Squared{}, 4000, func(i int) float64 { return float64(i%10) - 4.5 }, func(int) float64 { return 3.1 * 8.25 }, 1, "129–512"},
		// Labels 10…19: the mean's loss is 8.25, predicting 0 costs 216.5;
		// a model still near 0 (loss 100) is slow, one beyond 3·216.5 is not.
		{"squared, labels far from 0, near the untrained loss", &loss.Squared{}, 4000, func(i int) float64 { return float64(10 + i%10) }, func(int) float64 { return 100 }, 1, ""},
		{"squared, labels far from 0, 3.1 times the untrained loss", &loss.Squared{}, 4000, func(i int) float64 { return float64(10 + i%10) }, func(int) float64 { return 3.1 * 216.5 }, 1, "129–512"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var labels loss.LabelStats
			var w bytes.Buffer
			d := newDivergence(tc.l, &labels, "L", "try H")
			for i := 0; i < tc.n; i++ {
				y := tc.label(i)
				labels.Add(y, tc.weight)
				d.add(&w, tc.lossAt(i)*tc.weight, tc.weight, y)
			}
			d.finish(&w)
			out := w.String()
			if tc.want == "" {
				if out != "" || d.fired {
					t.Fatalf("fired: %q", out)
				}
				return
			}
			if !d.fired || strings.Count(out, "\n") != 1 || !strings.Contains(out, "examples "+tc.want+",") || !strings.Contains(out, "of L ") || !strings.HasSuffix(out, "try H\n") {
				t.Fatalf("want one warning for examples %s, got %q", tc.want, out)
			}
		})
	}
}
