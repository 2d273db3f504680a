package run

import (
	"compress/gzip"
	"flag"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestQuickDefaults: --quick shrinks only the flags a suite was not given.
func TestQuickDefaults(t *testing.T) {
	for _, tc := range []struct {
		name      string
		quick     bool
		args      []string
		set, rows string
	}{
		{"full run", false, nil, "all", "2000"},
		{"quick", true, nil, "one", "300"},
		{"quick, set given", true, []string{"-set", "m"}, "m", "300"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := NewEnv()
			e.Quick = tc.quick
			fs := flag.NewFlagSet("t", flag.ContinueOnError)
			e.Register(fs)
			set := fs.String("set", "all", "")
			rows := fs.String("rows", "2000", "")
			if err := fs.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			if err := e.QuickDefaults(fs, map[string]string{"set": "one", "rows": "300"}); err != nil {
				t.Fatal(err)
			}
			if *set != tc.set || *rows != tc.rows {
				t.Errorf("-set %s -rows %s, want %s %s", *set, *rows, tc.set, tc.rows)
			}
		})
	}
}

// TestFinite: a quick run rejects NaN and ±Inf; a full run only counts.
func TestFinite(t *testing.T) {
	for _, quick := range []bool{false, true} {
		e := &Env{Quick: quick}
		for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
			if err := e.Finite("x", 1, v); (err != nil) != quick {
				t.Errorf("quick=%v: Finite(1, %v) = %v", quick, v, err)
			}
		}
		if err := e.Finite("x", 0, -2.5, 1e300); err != nil {
			t.Errorf("quick=%v: finite numbers rejected: %v", quick, err)
		}
		if e.Checked() != 9 {
			t.Errorf("checked %d numbers, want 9", e.Checked())
		}
	}
}

// TestQuickDataDefault: --quick reads the bundled heads unless -data is
// given; a full run reads the shared data.
func TestQuickDataDefault(t *testing.T) {
	for _, tc := range []struct {
		name  string
		quick bool
		args  []string
		want  string
	}{
		{"full run", false, nil, "../shared/data"},
		{"full run, -data", false, []string{"-data", "d"}, "d"},
		{"quick", true, nil, QuickData},
		{"quick, -data", true, []string{"-data", "d"}, "d"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := NewEnv()
			defer e.Close()
			e.Quick = tc.quick
			fs := flag.NewFlagSet("t", flag.ContinueOnError)
			e.Register(fs)
			if err := fs.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			e.Out = filepath.Join(t.TempDir(), "out")
			e.outSet = true
			if err := e.Start(); err != nil {
				t.Fatal(err)
			}
			if e.Data != tc.want {
				t.Errorf("-data %s, want %s", e.Data, tc.want)
			}
		})
	}
}

// TestQuickData: every bundled file --quick reads is a gzip'd text of at
// most QuickLines lines, and, where the shared data is beside the
// repository, the head of its namesake there.
func TestQuickData(t *testing.T) {
	dir := filepath.Join("..", "..", "..", QuickData)
	files, err := filepath.Glob(filepath.Join(dir, "*.gz"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no bundled quick data in %s (%v)", dir, err)
	}
	shared := filepath.Join("..", "..", "..", "..", "shared", "data")
	if _, err := os.Stat(shared); err != nil {
		t.Logf("%s is not here: the bundled files are checked, not compared with their sources", shared)
		shared = ""
	}
	for _, f := range files {
		text := gunzip(t, f)
		if n := strings.Count(text, "\n"); n == 0 || n > QuickLines || !strings.HasSuffix(text, "\n") {
			t.Errorf("%s: %d whole lines, want 1..%d and nothing after the last", f, n, QuickLines)
		}
		if shared != "" && !strings.HasPrefix(gunzip(t, filepath.Join(shared, filepath.Base(f))), text) {
			t.Errorf("%s is not the head of its namesake in %s", f, shared)
		}
	}
}

func gunzip(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return string(b)
}
