package speed

import (
	"testing"
	"time"
)

func TestSpread(t *testing.T) {
	for _, tc := range []struct {
		name        string
		in          []time.Duration
		med, lo, hi time.Duration
	}{
		{"none", nil, 0, 0, 0},
		{"one", []time.Duration{5}, 5, 5, 5},
		{"odd", []time.Duration{9, 1, 5}, 5, 1, 9},
		{"even", []time.Duration{4, 1, 2, 8}, 3, 1, 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			med, lo, hi := spread(tc.in)
			if med != tc.med || lo != tc.lo || hi != tc.hi {
				t.Errorf("spread(%v) = %v, %v, %v; want %v, %v, %v", tc.in, med, lo, hi, tc.med, tc.lo, tc.hi)
			}
		})
	}
}
