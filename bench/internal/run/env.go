package run

import (
	"bufio"
	"compress/gzip"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sync"
)

// QuickLines is how many lines of every shared file --quick keeps: enough
// for every learner to pass its warm-up, few enough that the whole quick
// run takes well under two minutes.
const QuickLines = 300

// QuickData is where --quick reads its data unless -data is given: the
// first lines of every shared file the quick run opens, bundled with the
// repository so that the README's test command passes on a fresh clone,
// without the shared datasets beside it (220 KB in all). Each file is the
// first QuickLines lines of its namesake in ../shared/data (news20's,
// whose posts are long, the first 150), written by
//
//	zcat ../shared/data/F.gz | head -300 | gzip -9n > testdata/quick/F.gz
//
// TestQuickData checks them against ../shared/data where it is present.
const QuickData = "testdata/quick"

// Env is the flag and I/O layer every suite shares: where the data is
// read from (-data), where results are written (-out), whether the run is
// a --quick smoke test, and the sparseson binary, built once per process.
type Env struct {
	Data  string
	Out   string
	Quick bool

	outSet   bool
	dataSet  bool
	once     sync.Once
	bin      string
	binErr   error
	tmp      string
	mu       sync.Mutex
	quickSet map[string]bool // datasets whose heads are written
	checked  int
}

// Register adds the shared flags to a suite's flag set, so that they may
// be given before or after the suite's name.
func (e *Env) Register(fs *flag.FlagSet) {
	fs.Func("data", "directory of the shared datasets (default ../shared/data; --quick: "+QuickData+", the bundled heads)", func(s string) error {
		e.Data, e.dataSet = s, true
		return nil
	})
	fs.Func("out", "directory the results (CSV, PNG, SVG) are written to (default bench/out; --quick: a temporary directory)", func(s string) error {
		e.Out, e.outSet = s, true
		return nil
	})
	fs.BoolVar(&e.Quick, "quick", e.Quick, "tiny inputs and one setting per suite; checks that every output is a finite number")
}

// NewEnv returns the defaults: ../shared/data and bench/out.
func NewEnv() *Env { return &Env{Data: "../shared/data", Out: "bench/out"} }

// Start finishes the set-up once flags are parsed: a quick run reads the
// bundled QuickData and writes to a temporary directory unless -data and
// -out were given, so that it needs no shared data and never replaces the
// committed results.
func (e *Env) Start() error {
	if e.Quick && !e.dataSet {
		e.Data = QuickData
	}
	if e.tmp == "" {
		dir, err := os.MkdirTemp("", "sparseson-bench")
		if err != nil {
			return fmt.Errorf("bench: temporary directory: %w", err)
		}
		e.tmp = dir
	}
	if e.Quick && !e.outSet {
		e.Out = filepath.Join(e.tmp, "out")
	}
	return os.MkdirAll(e.Out, 0o755)
}

// Close removes the temporary files (the binary, the quick inputs).
func (e *Env) Close() {
	if e.tmp != "" {
		os.RemoveAll(e.tmp)
	}
	if e.bin != "" {
		os.RemoveAll(filepath.Dir(e.bin))
	}
}

// Bin returns the sparseson binary, building it on first use.
func (e *Env) Bin() (string, error) {
	e.once.Do(func() { e.bin, e.binErr = Binary() })
	return e.bin, e.binErr
}

// Temp returns the run's scratch directory (removed by Close).
func (e *Env) Temp() string { return e.tmp }

// Paths returns the train and test files of a shared dataset in the
// given format (vw or svm); under --quick, plain copies of their first
// QuickLines lines.
func (e *Env) Paths(name, format string) (train, test string, err error) {
	train, test = Paths(e.Data, name, format)
	if !e.Quick {
		return train, test, nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.quickSet == nil {
		e.quickSet = map[string]bool{}
	}
	out := [2]string{}
	for i, src := range []string{train, test} {
		dst := filepath.Join(e.tmp, "quick", filepath.Base(src[:len(src)-len(".gz")]))
		out[i] = dst
		if e.quickSet[dst] {
			continue
		}
		if err := head(src, dst, QuickLines); err != nil {
			return "", "", err
		}
		e.quickSet[dst] = true
	}
	return out[0], out[1], nil
}

// head writes the first n lines of the gzip file src to the plain file dst.
func head(src, dst string, n int) error {
	f, err := os.Open(src)
	if err != nil {
		return err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return fmt.Errorf("%s: %w", src, err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	w, err := os.Create(dst)
	if err != nil {
		return err
	}
	br := bufio.NewReader(zr)
	for i := 0; i < n; i++ {
		line, err := br.ReadBytes('\n')
		w.Write(line)
		if err == io.EOF {
			break
		}
		if err != nil {
			w.Close()
			return fmt.Errorf("%s: %w", src, err)
		}
	}
	return w.Close()
}

// Write stores a result file (CSV, image) under -out, whole or not at all.
func (e *Env) Write(name string, data []byte) error {
	return WriteFile(filepath.Join(e.Out, name), data)
}

// OutPath is where a result file named name goes.
func (e *Env) OutPath(name string) string { return filepath.Join(e.Out, name) }

// Finite is --quick's assertion: every number a suite reports must be
// finite (a NaN or Inf is a broken learner or a broken parse of its
// output). Full runs only count: their grids reach rates at which a
// learner may legitimately diverge.
func (e *Env) Finite(what string, vs ...float64) error {
	e.mu.Lock()
	e.checked += len(vs)
	e.mu.Unlock()
	if !e.Quick {
		return nil
	}
	for i, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%s: value %d is %v, not a finite number", what, i, v)
		}
	}
	return nil
}

// Checked returns how many numbers Finite has checked.
func (e *Env) Checked() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.checked
}

// Given returns the flags set on a parsed flag set's command line: under
// --quick a suite shrinks only the settings it was not given explicitly
// (the figures suite asks the others for the runs its figures need).
func Given(fs *flag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set
}

// QuickDefaults sets, under --quick, each flag not given on the command
// line to its quick value (name → value).
func (e *Env) QuickDefaults(fs *flag.FlagSet, values map[string]string) error {
	if !e.Quick {
		return nil
	}
	given := Given(fs)
	for name, v := range values {
		if given[name] {
			continue
		}
		if err := fs.Set(name, v); err != nil {
			return fmt.Errorf("--quick: -%s %s: %w", name, v, err)
		}
	}
	return nil
}
