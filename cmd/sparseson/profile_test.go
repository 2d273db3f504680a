package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestProfileWrites: --profile cpu|mem|trace writes a non-empty file of its
// kind into --profile_path.
func TestProfileWrites(t *testing.T) {
	for _, tc := range []struct{ kind, file string }{
		{"cpu", "cpu.pprof"},
		{"mem", "mem.pprof"},
		{"trace", "trace.out"},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			dir := t.TempDir()
			var stderr strings.Builder
			if st := run([]string{"--quiet", "--profile", tc.kind, "--profile_path", dir, "--oja", "-m", "4", filepath.Join("..", "..", "testdata", "splice.train.vw.gz")}, nil, io.Discard, &stderr); st != 0 {
				t.Fatalf("exit %d: %s", st, stderr.String())
			}
			fi, err := os.Stat(filepath.Join(dir, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			if fi.Size() == 0 {
				t.Fatalf("%s is empty", tc.file)
			}
		})
	}
}

// testProfileFlushedOnSignal: SIGINT during training under --profile cpu
// still saves the model (exit 130, --save_on_signal) and leaves a
// non-empty profile — pkg/profile's own shutdown hook, which would exit
// before the model is written, is off (NoShutdownHook).
func testProfileFlushedOnSignal(t *testing.T, bin string) {
	dir := t.TempDir()
	lines := spliceLines(t, 3000)
	m := filepath.Join(dir, "int.model")
	cmd := exec.Command(bin, "--oja", "-m", "4", "--loss_function", "logistic", "-P", "3000", "-f", m, "--profile", "cpu", "--profile_path", dir)
	stdin, _ := cmd.StdinPipe()
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go io.WriteString(stdin, strings.Join(lines, ""))
	waitForRow(t, stderr, 3000)
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	stdin.Close()
	if st := exitStatus(err); st != 130 {
		t.Fatalf("exit %d, want 130", st)
	}
	for _, f := range []string{m, filepath.Join(dir, "cpu.pprof")} {
		if fi, err := os.Stat(f); err != nil || fi.Size() == 0 {
			t.Fatalf("%s missing or empty after SIGINT (%v)", f, err)
		}
	}
}
