package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// startDaemon runs sparseson --daemon in-process on a free loopback port
// and returns the port and a function that stops it and returns its exit
// status and stderr.
func startDaemon(t *testing.T, args ...string) (int, func() (int, string)) {
	t.Helper()
	portFile := filepath.Join(t.TempDir(), "port")
	ctx, cancel := context.WithCancel(context.Background())
	var stderr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- runContext(ctx, append([]string{"--daemon", "--port", "0", "--port_file", portFile}, args...), strings.NewReader(""), io.Discard, &stderr)
	}()
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, err := os.ReadFile(portFile)
		if err == nil && bytes.HasSuffix(b, []byte("\n")) {
			port, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err != nil {
				t.Fatal(err)
			}
			return port, func() (int, string) {
				cancel()
				select {
				case code := <-done:
					return code, stderr.String()
				case <-time.After(10 * time.Second):
					t.Fatal("the daemon did not stop")
					return -1, ""
				}
			}
		}
		select {
		case code := <-done:
			cancel()
			t.Fatalf("the daemon exited with %d: %s", code, stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			cancel()
			t.Fatal("the daemon did not start")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func dial(t *testing.T, port int) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(30 * time.Second))
	return c
}

// exchange sends text on a new connection and returns everything the
// daemon answers until it closes the connection after the input ends.
func exchange(t *testing.T, port int, text string) string {
	c := dial(t, port)
	defer c.Close()
	go func() {
		io.WriteString(c, text)
		c.(*net.TCPConn).CloseWrite()
	}()
	out, err := io.ReadAll(c)
	if err != nil {
		t.Error(err)
	}
	return string(out)
}

// TestDaemonMatchesBatch: concurrent clients of a -t daemon get back, byte
// for byte, the lines -t -p writes for the same examples (tags included);
// the connection bound answers with a clear error; a malformed line gets
// an error line and the connection goes on.
func TestDaemonMatchesBatch(t *testing.T) {
	dir := t.TempDir()
	m := filepath.Join(dir, "m")
	mustRun(t, nil, "--quiet", "-m", "5", "--loss_function", "logistic", "-f", m, filepath.Join("..", "..", "testdata", "splice.train.vw.gz"))
	lines := strings.SplitAfter(string(plain(t, "splice.test.vw.gz")), "\n")
	lines = lines[:400]
	for i := range lines {
		if i%3 == 0 {
			// Tags travel with their predictions.
			lines[i] = strings.Replace(lines[i], "|", fmt.Sprintf("'ex%d |", i), 1)
		}
	}
	test := write(t, filepath.Join(dir, "t.vw"), []byte(strings.Join(lines, "")))
	pred := filepath.Join(dir, "batch.pred")
	mustRun(t, nil, "--quiet", "-t", "-i", m, "-p", pred, "--binary", test)
	want := strings.SplitAfter(read(t, pred), "\n")

	port, stop := startDaemon(t, "-t", "-i", m, "--binary", "--quiet", "--num_children", "6", "--daemon_max_line", "8192")
	var wg sync.WaitGroup
	for k := 0; k < 5; k++ {
		wg.Add(1)
		go func(k int) {
			defer wg.Done()
			// Client k sends a different slice, pipelined.
			lo, hi := k*60, k*60+150
			got := exchange(t, port, strings.Join(lines[lo:hi], ""))
			if got != strings.Join(want[lo:hi], "") {
				t.Errorf("client %d: daemon answers differ from the batch predictions", k)
			}
		}(k)
	}
	wg.Wait()

	// A malformed line: an error line, then the next answer.
	if got := exchange(t, port, "1 |f a:zz\n"+lines[0]); !strings.HasPrefix(got, "error: bad value") || !strings.HasSuffix(got, want[0]) {
		t.Errorf("malformed line: %q", got)
	}
	// More connections than --num_children: the seventh is refused.
	// (The earlier clients' slots are given back when the daemon sees
	// their connections close, which may lag behind on a loaded machine:
	// a refused connection is tried again.)
	var held []net.Conn
	for i := 0; i < 6; i++ {
		for try := 0; ; try++ {
			c := dial(t, port)
			io.WriteString(c, lines[1])
			r := bufio.NewReader(c)
			got, err := r.ReadString('\n')
			if strings.HasPrefix(got, "error: too many connections") && try < 200 {
				c.Close()
				time.Sleep(10 * time.Millisecond)
				continue
			}
			defer c.Close()
			if err != nil || got != want[1] {
				t.Fatalf("held connection %d: %q, %v", i, got, err)
			}
			held = append(held, c)
			break
		}
	}
	c := dial(t, port)
	got, _ := io.ReadAll(c)
	c.Close()
	if string(got) != "error: too many connections (--num_children 6); try again later\n" {
		t.Errorf("7th connection: %q", got)
	}
	for _, c := range held {
		c.Close()
	}
	if code, stderr := stop(); code != 130 {
		t.Fatalf("daemon exit %d, want 130 (stopped as by SIGINT): %s", code, stderr)
	}
}

// TestDaemonLearns: without -t the daemon learns from labeled lines, one
// at a time: its answers are the progressive predictions of batch
// training, and the model it saves to -f when stopped is the batch model.
func TestDaemonLearns(t *testing.T) {
	dir := t.TempDir()
	train := write(t, filepath.Join(dir, "d.vw"), plain(t, "heart_scale.train.vw.gz"))
	text := read(t, train)
	for _, learner := range [][]string{{}, {"-m", "4"}} {
		bm, dm := filepath.Join(dir, "batch.m"), filepath.Join(dir, "daemon.m")
		pred := filepath.Join(dir, "batch.pred")
		mustRun(t, nil, append(learner, "--quiet", "-f", bm, "-p", pred, train)...)
		port, stop := startDaemon(t, append(learner, "--quiet", "-f", dm)...)
		// Two clients, one after the other: the model carries on.
		half := strings.Index(text[len(text)/2:], "\n") + len(text)/2 + 1
		got := exchange(t, port, text[:half]) + exchange(t, port, text[half:])
		if code, stderr := stop(); code != 130 {
			t.Fatalf("daemon exit %d, want 130: %s", code, stderr)
		}
		if got != read(t, pred) {
			t.Errorf("%v: the daemon's answers differ from batch training's predictions", learner)
		}
		if read(t, dm) != read(t, bm) {
			t.Errorf("%v: the model the daemon saved differs from the batch model", learner)
		}
	}
}

// spliceFixture trains a model on the bundled splice data and returns it
// with the first test lines and the lines -t -p answers for them.
func spliceFixture(t *testing.T, n int) (model string, lines, want []string) {
	t.Helper()
	dir := t.TempDir()
	model = filepath.Join(dir, "m")
	mustRun(t, nil, "--quiet", "-f", model, filepath.Join("..", "..", "testdata", "splice.train.vw.gz"))
	lines = strings.SplitAfter(string(plain(t, "splice.test.vw.gz")), "\n")[:n]
	return model, lines, predict(t, model, lines)
}

// predict returns the lines -t -i model -p writes for the given lines.
func predict(t *testing.T, model string, lines []string) []string {
	t.Helper()
	dir := t.TempDir()
	test := write(t, filepath.Join(dir, "t.vw"), []byte(strings.Join(lines, "")))
	pred := filepath.Join(dir, "p")
	mustRun(t, nil, "--quiet", "-t", "-i", model, "-p", pred, test)
	out := strings.SplitAfter(read(t, pred), "\n")
	return out[:len(out)-1] // after the last newline
}

// vwLine returns a VW line of exactly n bytes (n ≥ 6), without newline.
func vwLine(n int) string {
	s := "1 |f " + strings.Repeat("a ", (n-5)/2)
	if len(s) < n {
		s += "a"
	}
	return s
}

// TestDaemonLongLines: a line over --daemon_max_line gets the documented
// error line, whatever its length, and the connection goes on (issue 24:
// a 100 MB line was answered with a TCP reset). The line is read to its
// end and dropped, never held whole.
func TestDaemonLongLines(t *testing.T) {
	m, lines, want := spliceFixture(t, 1)
	exact := vwLine(4096)
	wantExact := predict(t, m, []string{exact + "\n"})[0]
	port, stop := startDaemon(t, "-t", "-i", m, "--quiet", "--daemon_max_line", "4096")
	const skipped = "error: line longer than 4096 bytes (--daemon_max_line); skipped\n"
	for _, tc := range []struct {
		name, send, want string
	}{
		{"at the limit", exact + "\n" + lines[0], wantExact + want[0]},
		{"one byte over", vwLine(4097) + "\n" + lines[0], skipped + want[0]},
		{"twice over, then two lines", vwLine(8192) + "\n" + lines[0] + lines[0], skipped + want[0] + want[0]},
		{"past the read buffer", vwLine(200<<10) + "\n" + lines[0], skipped + want[0]},
		{"8 MiB", vwLine(8<<20) + "\n" + lines[0], skipped + want[0]},
		{"two in a row", vwLine(5000) + "\n" + vwLine(300<<10) + "\n" + lines[0], skipped + skipped + want[0]},
		{"at the end of the input", lines[0] + vwLine(1<<20), want[0] + skipped},
	} {
		if got := exchange(t, port, tc.send); got != tc.want {
			t.Errorf("%s: got %.200q, want %q", tc.name, got, tc.want)
		}
	}
	if code, stderr := stop(); code != 130 {
		t.Fatalf("daemon exit %d: %s", code, stderr)
	}
}

// TestDaemonConnections: a client over --num_children gets its error line
// even when it has already sent input (closing on unread input would reset
// the connection); --daemon_idle_timeout closes idle connections, with an
// error line, so that they no longer hold every slot (issue 24: ten idle
// sockets locked every other client out); a client that does not read its
// answers stalls only itself.
func TestDaemonConnections(t *testing.T) {
	m, lines, want := spliceFixture(t, 1)
	t.Run("over the limit", func(t *testing.T) {
		port, stop := startDaemon(t, "-t", "-i", m, "--quiet", "--num_children", "1")
		held := dial(t, port)
		defer held.Close()
		io.WriteString(held, lines[0])
		if got, err := bufio.NewReader(held).ReadString('\n'); got != want[0] {
			t.Fatalf("held connection: %q, %v", got, err)
		}
		for try := 0; try < 5; try++ {
			// More input than the socket buffers hold unread.
			if got := exchange(t, port, strings.Repeat(lines[0], 2000)); got != "error: too many connections (--num_children 1); try again later\n" {
				t.Errorf("try %d: the client over the limit got %.200q", try, got)
			}
		}
		held.Close()
		stop()
	})
	t.Run("idle", func(t *testing.T) {
		port, stop := startDaemon(t, "-t", "-i", m, "--quiet", "--num_children", "2", "--daemon_idle_timeout", "0.2")
		const idle = "error: nothing received for 0.2 s (--daemon_idle_timeout); closing the connection\n"
		var wg sync.WaitGroup
		// A silent client, and one that stops half-way through a line
		// (the half line is not an example).
		for _, send := range []string{"", "1 |f a b"} {
			c := dial(t, port)
			defer c.Close()
			wg.Add(1)
			go func() {
				defer wg.Done()
				io.WriteString(c, send)
				if got, err := io.ReadAll(c); string(got) != idle || err != nil {
					t.Errorf("idle client (sent %q): %q, %v", send, got, err)
				}
			}()
		}
		wg.Wait()
		// The slots are free again (given back when the daemon sees the
		// connections close, which may lag on a loaded machine).
		for try := 0; ; try++ {
			got := exchange(t, port, lines[0])
			if got == want[0] {
				break
			}
			if !strings.HasPrefix(got, "error: too many connections") || try == 200 {
				t.Fatalf("after the idle connections closed: %q", got)
			}
			time.Sleep(10 * time.Millisecond)
		}
		stop()
	})
	t.Run("a client that does not read", func(t *testing.T) {
		port, stop := startDaemon(t, "-t", "-i", m, "--quiet")
		// Long tags make long answers, which fill the socket buffers.
		tagged := []byte(strings.Replace(lines[0], "|", "'"+strings.Repeat("t", 4000)+" |", 1))
		greedy := dial(t, port)
		defer greedy.Close()
		var sent atomic.Int64
		go func() {
			for sent.Load() < 256<<20 {
				if _, err := greedy.Write(tagged); err != nil {
					return
				}
				sent.Add(int64(len(tagged)))
			}
		}()
		// Until the daemon has stopped reading from it: its answers
		// are not being read.
		for last, still := int64(-1), 0; still < 5; time.Sleep(50 * time.Millisecond) {
			if n := sent.Load(); n == last {
				still++
			} else {
				last, still = n, 0
			}
		}
		got := make(chan string, 1)
		go func() { got <- exchange(t, port, lines[0]) }()
		select {
		case g := <-got:
			if g != want[0] {
				t.Errorf("the other client got %q", g)
			}
		case <-time.After(20 * time.Second):
			t.Fatal("a client that does not read its answers stalls the others")
		}
		greedy.Close()
		stop()
	})
}

// TestDaemonHost: the daemon listens on the loopback interface unless
// --host says otherwise, and says where it listens.
func TestDaemonHost(t *testing.T) {
	m, _, _ := spliceFixture(t, 1)
	for _, args := range [][]string{nil, {"--host", "127.0.0.1"}} {
		port, stop := startDaemon(t, append([]string{"-t", "-i", m}, args...)...)
		_, stderr := stop()
		if want := fmt.Sprintf("daemon listening on 127.0.0.1:%d,", port); !strings.Contains(stderr, want) {
			t.Errorf("%v: stderr lacks %q:\n%s", args, want, stderr)
		}
	}
}

// TestDaemonFlagErrors: the daemon's options are checked, and refused
// without --daemon.
func TestDaemonFlagErrors(t *testing.T) {
	data := filepath.Join("..", "..", "testdata", "heart_scale.train.vw.gz")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--daemon", "--host", ""}, `--host "": an IP address or a host name`},
		{[]string{"--daemon", "--host", "127.0.0.1:80"}, "without a port"},
		{[]string{"--daemon", "--daemon_idle_timeout", "-1"}, "--daemon_idle_timeout -1: must be in 0..86400"},
		{[]string{"--daemon", "--daemon_idle_timeout", "NaN"}, "--daemon_idle_timeout NaN"},
		{[]string{"--daemon", "--daemon_idle_timeout", "1e6"}, "must be in 0..86400"},
		{[]string{"--host", "127.0.0.1", data}, "--host applies to --daemon"},
		{[]string{"--daemon_idle_timeout", "5", data}, "--daemon_idle_timeout applies to --daemon"},
	} {
		_, stderr, code := sparseson(t, nil, tc.args...)
		if code == 0 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: exit %d, %q; want an error with %q", tc.args, code, stderr, tc.want)
		}
	}
}

// TestDaemonSignals: SIGINT and SIGTERM stop the daemon with batch mode's
// status, 128 + the signal's number, after a learning daemon has saved
// its model (issue 24: the daemon exited 0).
func TestDaemonSignals(t *testing.T) {
	bin := buildCLI(t)
	m, lines, want := spliceFixture(t, 3)
	for _, tc := range []struct {
		sig    syscall.Signal
		status int
		args   []string
		saves  bool
	}{
		{syscall.SIGTERM, 143, []string{"-f", "model"}, true},
		{syscall.SIGINT, 130, []string{"-f", "model"}, true},
		{syscall.SIGTERM, 143, []string{"-t", "-i", m}, false},
	} {
		dir := t.TempDir()
		args := append([]string{"--daemon", "--port", "0", "--port_file", "port", "--quiet"}, tc.args...)
		cmd := exec.Command(bin, args...)
		cmd.Dir = dir
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		var port int
		for i := 0; port == 0; i++ {
			b, err := os.ReadFile(filepath.Join(dir, "port"))
			if err == nil && bytes.HasSuffix(b, []byte("\n")) {
				port, _ = strconv.Atoi(strings.TrimSpace(string(b)))
			} else if i == 2000 {
				cmd.Process.Kill()
				t.Fatalf("%v: the daemon did not start: %s", args, stderr.String())
			}
			time.Sleep(5 * time.Millisecond)
		}
		got := exchange(t, port, strings.Join(lines, ""))
		if !tc.saves && got != strings.Join(want, "") {
			t.Errorf("%v: answers %q, want %q", args, got, want)
		}
		cmd.Process.Signal(tc.sig)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		var err error
		select {
		case err = <-done:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("%v: the daemon did not stop on %v", args, tc.sig)
		}
		name := map[syscall.Signal]string{syscall.SIGINT: "SIGINT", syscall.SIGTERM: "SIGTERM"}[tc.sig]
		if code := exitStatus(err); code != tc.status || !strings.Contains(stderr.String(), "stopped by "+name+" after 3 examples") {
			t.Errorf("%v, %v: exit %d, stderr %q; want %d", args, tc.sig, code, stderr.String(), tc.status)
		}
		_, serr := os.Stat(filepath.Join(dir, "model"))
		if tc.saves != (serr == nil) {
			t.Errorf("%v, %v: model saved %v, want %v", args, tc.sig, serr == nil, tc.saves)
		}
	}
}
