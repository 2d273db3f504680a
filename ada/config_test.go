package ada

import "testing"

// TestConfigRowCap: the doubled buffer takes a Z row cap from 2τ (the
// rows a full buffer holds) up, 0 meaning fd's 3τ of the older models;
// the per-step sketch takes none. RowCap reports the cap in force.
func TestConfigRowCap(t *testing.T) {
	tests := []struct {
		buffer Buffer
		rowCap int
		ok     bool
		want   int // RowCap(cfg) when ok
	}{
		{Doubled, 0, true, 30},
		{Doubled, DoubledRowCap(10), true, 20},
		{Doubled, 21, true, 21},
		{Doubled, 19, false, 0},
		{Doubled, -1, false, 0},
		{Single, 0, true, 20},
		{Single, 20, false, 0},
	}
	for _, tc := range tests {
		cfg := Config{Bits: 9, Tau: 10, Precond: Escaped, Update: Mirror, Buffer: tc.buffer, Eta: 0.5, RowCap: tc.rowCap}
		err := cfg.validate()
		if (err == nil) != tc.ok {
			t.Errorf("buffer %v, RowCap %d: error %v, want ok %v", tc.buffer, tc.rowCap, err, tc.ok)
			continue
		}
		if tc.ok {
			if got := RowCap(cfg); got != tc.want {
				t.Errorf("buffer %v, RowCap %d: RowCap() = %d, want %d", tc.buffer, tc.rowCap, got, tc.want)
			}
			if _, err := New(cfg, nil); err != nil {
				t.Errorf("buffer %v, RowCap %d: New: %v", tc.buffer, tc.rowCap, err)
			}
		}
	}
}
