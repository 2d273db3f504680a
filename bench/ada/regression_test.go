package ada

import (
	"testing"
	"time"
)

// TestMedianCPU: the τ table's time is the median over one learner's,
// update's and τ's runs, leaving out the full-size group and the others.
func TestMedianCPU(t *testing.T) {
	runs := []*regRun{
		{group: "tau", learner: "ADA-FD", update: "M", tau: 40, cpu: 9},
		{group: "tau", learner: "ADA-FD", update: "M", tau: 40, cpu: 1},
		{group: "tau", learner: "ADA-FD", update: "M", tau: 40, cpu: 5},
		{group: "tau", learner: "ADA-FD", update: "M", tau: 60, cpu: 100},
		{group: "tau", learner: "ADA-FFD", update: "M", tau: 40, cpu: 100},
		{group: "main", learner: "ADA-FD", update: "P", tau: 20, cpu: 2},
		{group: "main", learner: "ADA-FD", update: "P", tau: 20, cpu: 4},
		{group: "full", learner: "ADA-FD", update: "P", tau: 20, cpu: 1000},
	}
	for _, tc := range []struct {
		k    bkey
		want time.Duration
	}{
		{bkey{"ADA-FD", "M", 40}, 5},
		{bkey{"ADA-FD", "P", 20}, 3},
		{bkey{"ADA-FD", "M", 80}, 0},
	} {
		if got := medianCPU(runs, tc.k); got != tc.want {
			t.Errorf("medianCPU(%v) = %v, want %v", tc.k, got, tc.want)
		}
	}
}
