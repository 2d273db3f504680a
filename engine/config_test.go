package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sparseson/sparseson/learners"
)

// TestValidate: each bad setting is refused with its field's name, or
// with the name Config.Name gives it.
func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		set  func(c *Config)
		want string
	}{
		{func(c *Config) { c.Passes = 0 }, "Config.Passes 0: must be ≥ 1"},
		{func(c *Config) { c.HoldoutPeriod = -1 }, "Config.HoldoutPeriod -1: must be ≥ 1"},
		{func(c *Config) { c.EarlyTerminate = 0 }, "Config.EarlyTerminate 0: must be ≥ 1"},
		{func(c *Config) { c.Format = "csv" }, `Config.Format "csv": want auto, vw or libsvm`},
		{func(c *Config) { c.Progress = "0" }, `Config.Progress "0": want a positive number`},
		{func(c *Config) { c.Progress = "0.5" }, `Config.Progress "0.5": a multiplicative schedule needs a factor > 1`},
		{func(c *Config) { c.Passes, c.Name = 0, func(s string) string { return "--" + strings.ToLower(s) } }, "--passes 0: must be ≥ 1"},
	} {
		c := Defaults()
		c.Options = learners.DefaultOptions(10)
		tc.set(&c)
		_, err := New(c)
		var se *SettingError
		if err == nil || err.Error() != tc.want || !errors.As(err, &se) {
			t.Errorf("got %v, want the setting error %q", err, tc.want)
		}
	}
	c := Defaults()
	if _, err := New(c); err == nil || !strings.Contains(err.Error(), "Config.Options") {
		t.Errorf("no model: %v", err)
	}
}

// TestRunCanceled: a context canceled before the run stops it before the
// first example, with nothing written; one canceled during the run (here:
// when the progress table prints its first row) ends it as the end of the
// data would, with the model saved.
func TestRunCanceled(t *testing.T) {
	dir := t.TempDir()
	final := filepath.Join(dir, "m")
	c := Defaults()
	c.Options, c.Quiet, c.Final = learners.DefaultOptions(10), true, final
	c.Stdin = strings.NewReader(strings.Repeat("1 | a\n", 100))
	e, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := e.Run(ctx); err != ErrCanceled {
		t.Errorf("canceled before: %v, want ErrCanceled", err)
	}
	if _, err := os.Stat(final); !os.IsNotExist(err) {
		t.Errorf("canceled before the first example, yet %s exists (%v)", final, err)
	}

	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	const n = 400000
	c.Quiet = false
	c.Stdin = strings.NewReader(strings.Repeat("1 | a\n", n))
	c.Stderr = &cancelingWriter{cancel: cancel}
	if e, err = New(c); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- e.Run(ctx) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the canceled run does not end")
	}
	if got := e.Examples(); got == 0 || got == n {
		t.Errorf("%d examples of %d learned: want the run stopped after the first", got, n)
	}
	if _, err := learners.Open(final); err != nil {
		t.Errorf("the model of the canceled run: %v", err)
	}
}

// cancelingWriter cancels at the progress table's first row.
type cancelingWriter struct {
	cancel func()
	buf    strings.Builder
}

func (w *cancelingWriter) Write(p []byte) (int, error) {
	w.buf.Write(p)
	if strings.Contains(w.buf.String(), "\n1.000000 ") || strings.Contains(w.buf.String(), "\n0.") {
		w.cancel()
	}
	return len(p), nil
}
