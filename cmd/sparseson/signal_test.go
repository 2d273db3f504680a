package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sparseson/sparseson/model"

	"github.com/sparseson/sparseson/internal/testbin"
)

// These tests run the built command in a process of its own, to signal
// and kill it.

// buildCLI builds the command (once per test binary, internal/testbin).
func buildCLI(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the command")
	}
	bin, err := testbin.Build()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// spliceLines returns n lines of the bundled splice data, repeated.
func spliceLines(t *testing.T, n int) []string {
	lines := strings.SplitAfter(strings.TrimSuffix(string(plain(t, "splice.train.vw.gz")), "\n"), "\n")
	out := make([]string, n)
	for i := range out {
		out[i] = lines[i%len(lines)]
		if !strings.HasSuffix(out[i], "\n") {
			out[i] += "\n"
		}
	}
	return out
}

// waitForRow reads the progress table on r until the row of example n
// (-P n prints every n-th) and returns a reader of the rest.
func waitForRow(t *testing.T, r io.Reader, n int) {
	t.Helper()
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) == 7 && f[2] == strconv.Itoa(n) {
			go io.Copy(io.Discard, r) // keep stderr flowing
			return
		}
	}
	t.Fatalf("no progress row for example %d (%v)", n, sc.Err())
}

// exitStatus returns the exit status, or −signal for a process killed by
// a signal.
func exitStatus(err error) int {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return 0
	}
	ws := ee.Sys().(syscall.WaitStatus)
	if ws.Signaled() {
		return -int(ws.Signal())
	}
	return ws.ExitStatus()
}

// TestProcess runs the signal and kill tests on one build of the command.
func TestProcess(t *testing.T) {
	bin := buildCLI(t)
	t.Run("SignalSavesAtExampleBoundary", func(t *testing.T) { testSignalSavesAtExampleBoundary(t, bin) })
	t.Run("KillWhileSaving", func(t *testing.T) { testKillWhileSaving(t, bin) })
	t.Run("ProfileFlushedOnSignal", func(t *testing.T) { testProfileFlushedOnSignal(t, bin) })
	t.Run("SignalWhileSaving", func(t *testing.T) { testSignalWhileSaving(t, bin) })
	t.Run("KilledSaveCleanedUp", func(t *testing.T) { testKilledSaveCleanedUp(t, bin) })
}

// testSignalWhileSaving: SIGINT or SIGTERM that arrives while the model
// is being written — after the last example — still ends the run with
// 128 + the signal, once the model is complete. The model goes into a
// FIFO that the test reads: the first bytes show the save has begun, and
// the 8 MiB model (full ONS at -b 10) cannot fit in the pipe, so the save
// is still under way when the signal is sent.
func testSignalWhileSaving(t *testing.T, bin string) {
	for _, c := range []struct {
		sig  syscall.Signal
		name string
	}{{syscall.SIGINT, "SIGINT"}, {syscall.SIGTERM, "SIGTERM"}} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			data := write(t, filepath.Join(dir, "d.vw"), []byte(strings.Join(spliceLines(t, 200), "")))
			fifo := filepath.Join(dir, "model.fifo")
			if err := syscall.Mkfifo(fifo, 0o644); err != nil {
				t.Fatal(err)
			}
			// A reader, and a writer of the test's own so that reads wait
			// for the command instead of seeing the end of the pipe.
			r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			hold, err := os.OpenFile(fifo, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(bin, "--full", "-b", "10", "--quiet", "-f", fifo, data)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			head := make([]byte, 8)
			got := make(chan error, 1)
			go func() { _, err := io.ReadFull(r, head); got <- err }()
			select {
			case err := <-got:
				if err != nil {
					t.Fatal(err)
				}
			case err := <-exited:
				t.Fatalf("the command ended before saving: %v\n%s", err, stderr.String())
			case <-time.After(2 * time.Minute):
				cmd.Process.Kill()
				t.Fatal("no model bytes within two minutes")
			}
			hold.Close()
			cmd.Process.Signal(c.sig)
			rest, err := io.ReadAll(r)
			if err != nil {
				t.Fatal(err)
			}
			st := exitStatus(<-exited)
			if st != 128+int(c.sig) {
				t.Fatalf("exit %d, want %d:\n%s", st, 128+int(c.sig), stderr.String())
			}
			if !strings.Contains(stderr.String(), "stopped by "+c.name+" after 200 examples") {
				t.Fatalf("the signal came after the last example, yet:\n%s", stderr.String())
			}
			if _, _, err := model.Parse(append(head, rest...)); err != nil {
				t.Fatalf("the model written while the signal came: %v", err)
			}
		})
	}
}

// testKilledSaveCleanedUp: a save killed with SIGKILL leaves its
// temporary file; the next run saving to the same path removes it and
// says so.
func testKilledSaveCleanedUp(t *testing.T, bin string) {
	dir := t.TempDir()
	data := write(t, filepath.Join(dir, "d.vw"), []byte(strings.Join(spliceLines(t, 200), "")))
	m := filepath.Join(dir, "m")
	cmd := exec.Command(bin, "--full", "-b", "10", "--quiet", "-f", m, data)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	var tmps []string
	for len(tmps) == 0 {
		select {
		case <-exited:
			t.Skip("the save finished before it could be killed")
		default:
		}
		tmps, _ = filepath.Glob(filepath.Join(dir, ".m.tmp*"))
	}
	cmd.Process.Kill()
	<-exited
	if _, err := os.Stat(tmps[0]); err != nil {
		t.Skipf("the save finished before it was killed: %v", err)
	}
	stderr := mustRun(t, nil, "--full", "-b", "10", "--quiet", "-f", m, data)
	if left, _ := filepath.Glob(filepath.Join(dir, ".m.tmp*")); len(left) > 0 {
		t.Fatalf("left %v", left)
	}
	if !strings.Contains(stderr, "removed "+tmps[0]) {
		t.Fatalf("the removal is not reported:\n%s", stderr)
	}
}

// testSignalSavesAtExampleBoundary: SIGTERM while training from a file
// stops the run at an example boundary, writes the predictions and the
// model of exactly the N examples it reports, and exits with 143 — the
// model is byte for byte the one a run over the first N lines writes.
// SIGINT while the run waits for more of stdin stops it at once (130),
// with the model of the lines sent. With --save_on_signal=false the
// process dies of the signal and the previous model file is untouched.
func testSignalSavesAtExampleBoundary(t *testing.T, bin string) {
	dir := t.TempDir()
	lines := spliceLines(t, 200000)
	data := write(t, filepath.Join(dir, "d.vw"), []byte(strings.Join(lines, "")))
	flags := []string{"--oja", "-m", "4", "--loss_function", "logistic"}

	t.Run("SIGTERM/file", func(t *testing.T) {
		m, p := filepath.Join(dir, "term.model"), filepath.Join(dir, "term.pred")
		cmd := exec.Command(bin, append(flags, "-P", "5000", "-f", m, "-p", p, data)...)
		stderr, _ := cmd.StderrPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		var msg bytes.Buffer
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			msg.WriteString(sc.Text() + "\n")
			if f := strings.Fields(sc.Text()); len(f) == 7 && f[2] == "20000" {
				cmd.Process.Signal(syscall.SIGTERM)
				break
			}
		}
		rest, _ := io.ReadAll(stderr)
		msg.Write(rest)
		if st := exitStatus(cmd.Wait()); st != 143 {
			t.Fatalf("exit %d, want 143:\n%s", st, msg.String())
		}
		var n int
		if i := strings.Index(msg.String(), "stopped by SIGTERM after "); i < 0 {
			t.Fatalf("no stop message:\n%s", msg.String())
		} else {
			fmt.Sscanf(msg.String()[i:], "stopped by SIGTERM after %d examples", &n)
		}
		if n < 20000 || n >= len(lines) {
			t.Fatalf("stopped after %d examples", n)
		}
		if got := strings.Count(read(t, p), "\n"); got != n {
			t.Fatalf("%d predictions for %d examples", got, n)
		}
		head := write(t, filepath.Join(dir, "head.vw"), []byte(strings.Join(lines[:n], "")))
		ref := filepath.Join(dir, "head.model")
		mustRun(t, nil, append(flags, "--quiet", "-f", ref, head)...)
		if read(t, m) != read(t, ref) {
			t.Fatalf("the model saved on SIGTERM after %d examples differs from the model of the first %d lines", n, n)
		}
	})

	t.Run("SIGINT/stdin", func(t *testing.T) {
		m := filepath.Join(dir, "int.model")
		cmd := exec.Command(bin, append(flags, "-P", "3000", "-f", m)...)
		stdin, _ := cmd.StdinPipe()
		stderr, _ := cmd.StderrPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go io.WriteString(stdin, strings.Join(lines[:3000], ""))
		// The 3000th example is learned; the run then waits for stdin,
		// which stays open.
		waitForRow(t, stderr, 3000)
		cmd.Process.Signal(syscall.SIGINT)
		err := cmd.Wait()
		stdin.Close()
		if st := exitStatus(err); st != 130 {
			t.Fatalf("exit %d, want 130", st)
		}
		head := write(t, filepath.Join(dir, "head3000.vw"), []byte(strings.Join(lines[:3000], "")))
		ref := filepath.Join(dir, "head3000.model")
		mustRun(t, nil, append(flags, "--quiet", "-f", ref, head)...)
		if read(t, m) != read(t, ref) {
			t.Fatal("the model saved on SIGINT differs from the model of the lines sent")
		}
	})

	t.Run("save_on_signal=false", func(t *testing.T) {
		m := filepath.Join(dir, "off.model")
		old := []byte("the previous model")
		write(t, m, old)
		cmd := exec.Command(bin, append(flags, "--save_on_signal=false", "-P", "5000", "-f", m, data)...)
		stderr, _ := cmd.StderrPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		waitForRow(t, stderr, 5000)
		cmd.Process.Signal(syscall.SIGTERM)
		if st := exitStatus(cmd.Wait()); st != -int(syscall.SIGTERM) {
			t.Fatalf("exit %d, want death by SIGTERM", st)
		}
		if read(t, m) != string(old) {
			t.Fatal("the previous model file changed")
		}
	})
}

// testKillWhileSaving kills the command with SIGKILL at random points
// while -f is being written, many times: each run is killed when the
// model's temporary file has reached a random size. The model file is
// always either the previous model or the complete new one, and loads.
// The model is full ONS at -b 10, 8 MiB, so that the write can be caught;
// at least half of the kills must land before the rename.
func testKillWhileSaving(t *testing.T, bin string) {
	dir := t.TempDir()
	data := write(t, filepath.Join(dir, "d.vw"), []byte(strings.Join(spliceLines(t, 200), "")))
	other := write(t, filepath.Join(dir, "o.vw"), []byte(strings.Join(spliceLines(t, 50), "")))
	args := []string{"--full", "-b", "10", "--loss_function", "logistic", "--quiet"}
	m := filepath.Join(dir, "m")

	// The previous model, and the complete new one.
	mustRun(t, nil, append(args, "-f", m, other)...)
	prev := read(t, m)
	ref := filepath.Join(dir, "ref")
	mustRun(t, nil, append(args, "-f", ref, data)...)
	next := read(t, ref)
	if prev == next {
		t.Fatal("the two models are the same")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	const runs = 25
	hit := 0
	for i := 0; i < runs; i++ {
		os.WriteFile(m, []byte(prev), 0o644)
		cmd := exec.Command(bin, append(args, "-f", m, data)...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		// Kill when the temporary file of the model has grown to a random
		// size: a random point of the write.
		target := rng.Int64N(int64(len(next)))
		writing := false
	wait:
		for {
			select {
			case <-exited:
				break wait
			default:
			}
			tmps, _ := filepath.Glob(filepath.Join(dir, ".m.tmp*"))
			if len(tmps) == 0 {
				continue
			}
			if st, err := os.Stat(tmps[0]); err == nil && st.Size() >= target {
				writing = true
				cmd.Process.Kill()
				<-exited
				break
			}
		}
		tmps, _ := filepath.Glob(filepath.Join(dir, ".m.tmp*"))
		if writing && len(tmps) > 0 {
			hit++ // killed before the rename
		}
		for _, f := range tmps {
			os.Remove(f)
		}
		got := read(t, m)
		if got != prev && got != next {
			t.Fatalf("run %d: the model file is neither the previous nor the new model (%d bytes)", i, len(got))
		}
		if _, _, err := model.Load(m); err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
	}
	t.Logf("%d of %d kills landed while the model was being written", hit, runs)
	if hit < runs/2 {
		t.Fatalf("only %d of %d kills landed while the model was being written", hit, runs)
	}
}
