package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
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
// the connection bound and the line bound answer with clear errors; a
// malformed line gets an error line and the connection goes on.
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
	// A line past --daemon_max_line.
	if got := exchange(t, port, "1 |f "+strings.Repeat("a ", 5000)+"\n"+lines[0]); got != "error: line longer than 8192 bytes (--daemon_max_line); closing the connection\n" {
		t.Errorf("long line: %q", got)
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
	if code, stderr := stop(); code != 0 {
		t.Fatalf("daemon exit %d: %s", code, stderr)
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
		if code, stderr := stop(); code != 0 {
			t.Fatalf("daemon exit %d: %s", code, stderr)
		}
		if got != read(t, pred) {
			t.Errorf("%v: the daemon's answers differ from batch training's predictions", learner)
		}
		if read(t, dm) != read(t, bm) {
			t.Errorf("%v: the model the daemon saved differs from the batch model", learner)
		}
	}
}
