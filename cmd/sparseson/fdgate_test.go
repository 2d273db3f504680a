package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestFDSkipModels: a new gated FD-SON or RFD-SON model states the gate's
// skips (fd_skip, fd.SONSkip) beside its ε; exact FD (--fd_gate 0) and the
// other sketches state neither, so their models are written as before the
// skips; a resumed gated model keeps them.
func TestFDSkipModels(t *testing.T) {
	dir := t.TempDir()
	train := filepath.Join("..", "..", "testdata", "splice.train.vw.gz")
	for _, c := range []struct {
		args []string
		gate bool
	}{
		{[]string{"--fd"}, true},
		{[]string{"--rfd"}, true},
		{[]string{"--fd", "--fd_gate", "1"}, true},
		{[]string{"--fd", "--fd_gate", "0"}, false},
		{[]string{"--rfd", "--fd_gate", "0"}, false},
		{[]string{"--oja"}, false},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			m := filepath.Join(dir, strings.ReplaceAll(strings.Join(c.args, ""), "-", "_"))
			mustRun(t, nil, append(append([]string{"--quiet", "-m", "5", "-f", m}, c.args...), train)...)
			for _, key := range []string{"fd_gate", "fd_skip=0.05"} {
				if got := strings.Contains(read(t, m), key); got != c.gate {
					t.Fatalf("%s in the model: %v, want %v", key, got, c.gate)
				}
			}
			mustRun(t, nil, "--quiet", "-i", m, "-f", m, train)
			if got := strings.Contains(read(t, m), "fd_skip=0.05"); got != c.gate {
				t.Fatalf("resumed: fd_skip in the model %v, want %v", got, c.gate)
			}
		})
	}
}
