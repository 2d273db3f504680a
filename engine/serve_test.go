package engine

import (
	"bufio"
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sparseson/sparseson/learners"
)

// TestServe: Serve answers each line with its prediction line (an error
// line for a malformed one) and, once its context is canceled, returns
// nil with the model it learned saved.
func TestServe(t *testing.T) {
	dir := t.TempDir()
	c := Defaults()
	c.Options, c.Quiet = learners.DefaultOptions(10), true
	c.Port, c.PortFile, c.Final = 0, filepath.Join(dir, "port"), filepath.Join(dir, "m")
	e, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- e.Serve(ctx) }()
	var port []byte
	for i := 0; i < 200 && len(port) == 0; i++ {
		time.Sleep(10 * time.Millisecond)
		port, _ = os.ReadFile(c.PortFile)
	}
	conn, err := net.DialTimeout("tcp", "127.0.0.1:"+strings.TrimSpace(string(port)), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(time.Minute))
	if _, err := conn.Write([]byte("1 tagA| a\n1 | b c\nnot: a line |\n")); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(conn)
	var lines []string
	for len(lines) < 3 {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("after %q: %v", lines, err)
		}
		lines = append(lines, strings.TrimSpace(line))
	}
	if lines[0] != "0 tagA" || lines[1] == "" || !strings.HasPrefix(lines[2], "error: ") {
		t.Errorf("answers %q: want the first prediction 0 with its tag, a prediction, an error line", lines)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute):
		t.Fatal("Serve does not stop when its context is canceled")
	}
	if e.Examples() != 2 {
		t.Errorf("%d examples served, want 2", e.Examples())
	}
	if _, err := learners.Open(c.Final); err != nil {
		t.Errorf("the served model: %v", err)
	}
}
