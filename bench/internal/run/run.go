// Package run builds the sparseson binary and runs it for the benchmark
// programs: train/test accuracy, timing with peak RSS, and parallel sweeps.
package run

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Binary builds ./cmd/sparseson into a temporary directory and returns its
// path. It must be called from the repository root (go run ./bench).
func Binary() (string, error) {
	dir, err := os.MkdirTemp("", "sparseson-bench")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "sparseson")
	cmd := exec.Command("go", "build", "-o", dir, "./cmd/sparseson", "./bench/internal/launch")
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("build sparseson (run from the repository root): %w", err)
	}
	return bin, nil
}

// launcher returns the launch program built beside bin (by Binary), or ""
// when there is none (a binary built elsewhere).
func launcher(bin string) string {
	l := filepath.Join(filepath.Dir(bin), "launch")
	if _, err := os.Stat(l); err != nil {
		return ""
	}
	return l
}

// Dataset is one shared binary dataset with liblinear's batch accuracy
// (MANIFEST.md, "LR -s 0", percent).
type Dataset struct {
	Name      string
	Liblinear float64
}

// Binary datasets of ../shared/data, as listed in its MANIFEST.md.
var Datasets = []Dataset{
	{"news20", 92.84}, {"w8a", 98.35}, {"splice", 93.56}, {"spam", 91.63},
	{"letter_am", 71.62}, {"satellite_grey", 97.05}, {"ionosphere", 82.86},
	{"sonar", 71.43}, {"breast_cancer", 88.57}, {"pima", 62.99}, {"heart_scale", 90.74},
}

// Paths returns the train and test files of a dataset.
func Paths(dataDir, name, format string) (train, test string) {
	return filepath.Join(dataDir, name+".train."+format+".gz"), filepath.Join(dataDir, name+".test."+format+".gz")
}

// Result of one command.
type Result struct {
	Stderr  string
	Wall    time.Duration
	CPU     time.Duration // user + system time of the process
	MaxRSS  int64         // KiB
	Summary map[string]string
}

// Exec runs the binary with args and parses its end summary.
//
// The run's peak RSS is its own: it is started through the launch program
// (bench/internal/launch) when Binary built one, because a process started
// directly by this one would report this one's peak if that were larger.
func Exec(bin string, args ...string) (*Result, error) {
	return execVia(launcher(bin), bin, args)
}

// ExecBeside is Exec for a program built elsewhere (a VW binary), started
// through the launch program built beside ref when there is one, so that
// its peak RSS is its own too.
func ExecBeside(ref, bin string, args ...string) (*Result, error) {
	return execVia(launcher(ref), bin, args)
}

func execVia(l, bin string, args []string) (*Result, error) {
	cmd := exec.Command(bin, args...)
	var rep, w *os.File
	if l != "" {
		var err error
		if rep, w, err = os.Pipe(); err != nil {
			return nil, err
		}
		defer rep.Close()
		cmd = exec.Command(l, append([]string{bin}, args...)...)
		cmd.ExtraFiles = []*os.File{w}
	}
	var errb bytes.Buffer
	cmd.Stderr = &errb
	start := time.Now()
	err := cmd.Start()
	if w != nil {
		w.Close() // the child holds its copy; its exit ends the report
	}
	if err == nil {
		err = cmd.Wait()
	}
	r := &Result{Stderr: errb.String(), Wall: time.Since(start), Summary: map[string]string{}}
	if ps := cmd.ProcessState; ps != nil {
		if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
			r.MaxRSS = int64(ru.Maxrss) // int32 on 32-bit systems
		}
		r.CPU = ps.UserTime() + ps.SystemTime()
	}
	if rep != nil && cmd.ProcessState != nil {
		var wall, cpu, rss int64
		if b, rerr := io.ReadAll(rep); rerr == nil {
			if n, _ := fmt.Sscan(string(b), &wall, &cpu, &rss); n == 3 {
				r.Wall, r.CPU, r.MaxRSS = time.Duration(wall), time.Duration(cpu), rss
			}
		}
	}
	if err != nil {
		return r, fmt.Errorf("%s %s: %w\n%s", bin, strings.Join(args, " "), err, r.Stderr)
	}
	for _, line := range strings.Split(r.Stderr, "\n") {
		if k, v, ok := strings.Cut(line, " = "); ok {
			r.Summary[k] = v
		}
	}
	return r, nil
}

// Accuracy trains on train with flags (one pass unless flags say
// otherwise) and returns the test accuracy in percent.
func Accuracy(bin, train, test string, flags ...string) (float64, error) {
	f, err := os.CreateTemp("", "model")
	if err != nil {
		return 0, err
	}
	f.Close()
	defer os.Remove(f.Name())
	if _, err := Exec(bin, append(append([]string{"--quiet", "-f", f.Name()}, flags...), train)...); err != nil {
		return 0, err
	}
	r, err := Exec(bin, "-t", "-i", f.Name(), "--binary", test)
	if err != nil {
		return 0, err
	}
	loss, err := strconv.ParseFloat(strings.Fields(r.Summary["average loss"] + " x")[0], 64)
	if err != nil {
		return 0, fmt.Errorf("no average loss in the summary:\n%s", r.Stderr)
	}
	return 100 * (1 - loss), nil
}

// AccuracyProgressive is Accuracy with the training run's one-pass
// progressive error too: the percentage of training examples whose
// prediction, made before the example was learned (-p), has the wrong
// sign. Labels are read from the first token of each training line (±1).
func AccuracyProgressive(bin, train, test string, flags ...string) (acc, prog float64, err error) {
	dir, err := os.MkdirTemp("", "accuracy")
	if err != nil {
		return 0, 0, err
	}
	defer os.RemoveAll(dir)
	model, pred := filepath.Join(dir, "model"), filepath.Join(dir, "pred")
	if _, err := Exec(bin, append(append([]string{"--quiet", "-f", model, "-p", pred}, flags...), train)...); err != nil {
		return 0, 0, err
	}
	r, err := Exec(bin, "-t", "-i", model, "--binary", test)
	if err != nil {
		return 0, 0, err
	}
	loss, err := strconv.ParseFloat(strings.Fields(r.Summary["average loss"] + " x")[0], 64)
	if err != nil {
		return 0, 0, fmt.Errorf("no average loss in the summary:\n%s", r.Stderr)
	}
	labels, err := firstTokens(train)
	if err != nil {
		return 0, 0, err
	}
	preds, err := firstTokens(pred)
	if err != nil {
		return 0, 0, err
	}
	if len(preds) != len(labels) || len(labels) == 0 {
		return 0, 0, fmt.Errorf("%s: %d predictions for %d examples", train, len(preds), len(labels))
	}
	var wrong int
	for i, y := range labels {
		if (preds[i] > 0) != (y > 0) {
			wrong++
		}
	}
	return 100 * (1 - loss), 100 * float64(wrong) / float64(len(labels)), nil
}

// firstTokens returns the first token of every line of a (gzip or plain)
// file as a number: the labels of a data file, the predictions of -p.
func firstTokens(path string) ([]float64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(b) > 2 && b[0] == 0x1f && b[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if b, err = io.ReadAll(zr); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	var out []float64
	for i, line := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		tok, _, _ := strings.Cut(strings.TrimSpace(line), " ")
		v, err := strconv.ParseFloat(tok, 64)
		if err != nil {
			return nil, fmt.Errorf("%s line %d: %q: %w", path, i+1, tok, err)
		}
		out = append(out, v)
	}
	return out, nil
}

// Parallel runs jobs on all cores and returns their errors joined.
func Parallel(jobs []func() error) error {
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []string
		next = make(chan func() error)
	)
	for w := 0; w < runtime.NumCPU(); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for job := range next {
				if err := job(); err != nil {
					mu.Lock()
					errs = append(errs, err.Error())
					mu.Unlock()
				}
			}
		}()
	}
	for _, j := range jobs {
		next <- j
	}
	close(next)
	wg.Wait()
	if len(errs) > 0 {
		return fmt.Errorf("%d jobs failed; first: %s", len(errs), errs[0])
	}
	return nil
}

// Pow2 returns 2^j as a flag value.
func Pow2(j int) string {
	return strconv.FormatFloat(float64(uint64(1)<<uint(j+16))/65536, 'g', -1, 64)
}

// WriteFile writes data to path, creating its directory: the bench
// programs' CSV output, written once the whole table is known so that a
// failed run leaves no half file.
func WriteFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

// Shuffled writes the lines of the (gzip or plain) file src, in the order
// of a permutation drawn from seed, to a plain file in dir and returns its
// path. One-pass learners depend on the order of the examples; on the
// small shared sets (MANIFEST.md: one test example is 1.5–2.4 points)
// averaging over orders separates a setting's effect from the luck of one
// order.
func Shuffled(src, dir string, seed uint64) (string, error) {
	raw, err := os.ReadFile(src)
	if err != nil {
		return "", err
	}
	if len(raw) > 2 && raw[0] == 0x1f && raw[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			return "", fmt.Errorf("%s: %w", src, err)
		}
		if raw, err = io.ReadAll(zr); err != nil {
			return "", fmt.Errorf("%s: %w", src, err)
		}
	}
	lines := strings.SplitAfter(strings.TrimRight(string(raw), "\n")+"\n", "\n")
	lines = lines[:len(lines)-1] // SplitAfter leaves an empty tail
	rng := rand.New(rand.NewPCG(seed, 0x5f))
	rng.Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
	path := filepath.Join(dir, fmt.Sprintf("%s.shuffle%d", filepath.Base(src), seed))
	if err := os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644); err != nil {
		return "", err
	}
	return path, nil
}

// Lines counts the lines of a (gzip or plain) file.
func Lines(path string) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var r io.Reader = f
	if zr, err := gzip.NewReader(f); err == nil {
		r = zr
	} else if _, err := f.Seek(0, io.SeekStart); err != nil {
		return 0, err
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return 0, err
	}
	return bytes.Count(b, []byte("\n")), nil
}
