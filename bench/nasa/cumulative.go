package nasa

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/sparseson/sparseson/bench/internal/run"
)

// lossFn is ℓ(p, y) of a reported prediction.
type lossFn func(p, y float64) float64

func squared(p, y float64) float64 { return (p - y) * (p - y) }
func hinge(p, y float64) float64   { return math.Max(0, 1-y*p) }

// readLabels returns the label of every line of a VW file (plain or gzip).
func readLabels(path string) ([]float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		zr, err := gzip.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		r = zr
	}
	var out []float64
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<28)
	for sc.Scan() {
		tok, rest, _ := strings.Cut(sc.Text(), " ")
		y, err := strconv.ParseFloat(tok, 64)
		if err != nil {
			return nil, fmt.Errorf("%s: label %q: %w", path, tok, err)
		}
		if strings.HasPrefix(rest, "0 |") {
			y = math.NaN() // importance 0: a wideRange line
		}
		out = append(out, y)
	}
	return out, sc.Err()
}

// wideRange is prepended to every input: two labeled examples of
// importance 0, which teach nothing but widen the label range seen to
// ±10⁹, so that the squared loss's derivative (VW's, taken at the
// prediction clipped to that range) and the reported predictions are not
// clipped — the paper's f_t. Their labels are NaN in readLabels' output
// and their predictions are skipped.
const wideRange = "1e9 0 |f\n-1e9 0 |f\n"

// cumulative runs the binary with args (whose last argument is the data)
// writing its progressive predictions, and returns Σ_{i≤t} ℓ(p_i, y_i)
// for every example t, skipping examples whose label is NaN; with several
// passes the labels repeat.
func cumulative(bin string, labels []float64, l lossFn, args ...string) ([]float64, error) {
	f, err := os.CreateTemp("", "nasa-pred")
	if err != nil {
		return nil, err
	}
	f.Close()
	defer os.Remove(f.Name())
	args = append([]string{"--quiet", "-p", f.Name()}, args...)
	if _, err := run.Exec(bin, args...); err != nil {
		return nil, err
	}
	pf, err := os.Open(f.Name())
	if err != nil {
		return nil, err
	}
	defer pf.Close()
	var out []float64
	var sum float64
	seen := 0
	sc := bufio.NewScanner(pf)
	for sc.Scan() {
		tok, _, _ := strings.Cut(sc.Text(), " ")
		p, err := strconv.ParseFloat(tok, 64)
		if err != nil {
			return nil, fmt.Errorf("prediction %q: %w", tok, err)
		}
		y := labels[seen%len(labels)]
		seen++
		if math.IsNaN(y) {
			continue
		}
		sum += l(p, y)
		out = append(out, sum)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if seen%len(labels) != 0 || seen == 0 {
		return nil, fmt.Errorf("%d predictions for %d labels", seen, len(labels))
	}
	return out, nil
}

// setting is one learner with a constant swept over a grid: flags(v)
// returns its command line for the constant v.
type setting struct {
	name  string
	flags func(v float64) []string
	grid  []float64
}

// best runs every setting at every grid value on data (plus common flags)
// and returns, per setting, the cumulative losses of the value with the
// least total, and that value.
func best(bin string, labels []float64, l lossFn, data string, common []string, settings []setting) ([][]float64, []float64, error) {
	res, err := run.Grid{
		Learners: len(settings), Sets: 1,
		Js: func(si int) []int { return indexes(len(settings[si].grid)) },
		Do: func(c run.Cell) ([]float64, error) {
			s := settings[c.Learner]
			return cumulative(bin, labels, l, append(append(append([]string{}, common...), s.flags(s.grid[c.J])...), data)...)
		},
	}.Run()
	if err != nil {
		return nil, nil, err
	}
	curves := make([][]float64, len(settings))
	vals := make([]float64, len(settings))
	for si, s := range settings {
		bestTotal := math.Inf(1)
		for gi, v := range s.grid {
			c := res[run.Cell{Learner: si, J: gi}]
			if total := c[len(c)-1]; total < bestTotal || math.IsNaN(bestTotal) {
				bestTotal, curves[si], vals[si] = total, c, v
			}
		}
	}
	return curves, vals, nil
}

// indexes returns 0, 1, …, n−1: a grid's values by index, as run.Grid's J.
func indexes(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// decades returns 10^(k/steps) for k = lo·steps … hi·steps.
func decades(lo, hi, steps int) []float64 {
	var out []float64
	for k := lo * steps; k <= hi*steps; k++ {
		out = append(out, math.Pow(10, float64(k)/float64(steps)))
	}
	return out
}

func fmtG(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }

// writeVW writes examples as VW text, features named 1…d in namespace f,
// after wideRange if wide.
func writeVW(path string, xs [][]float64, ys []float64, wide bool) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	if wide {
		w.WriteString(wideRange)
	}
	for i, x := range xs {
		fmt.Fprintf(w, "%s |f", strconv.FormatFloat(ys[i], 'g', 17, 64))
		for j, v := range x {
			fmt.Fprintf(w, " %d:%s", j+1, strconv.FormatFloat(v, 'g', 17, 64))
		}
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func tempDir() (string, func(), error) {
	dir, err := os.MkdirTemp("", "nasa-bench")
	return dir, func() { os.RemoveAll(dir) }, err
}

// widened writes wideRange and then the lines of a shared dataset (gzip)
// to a plain file in dir and returns its path.
func widened(dir, path string) (string, error) {
	lines, err := readLines(path)
	if err != nil {
		return "", err
	}
	out := filepath.Join(dir, strings.TrimSuffix(filepath.Base(path), ".gz"))
	return out, os.WriteFile(out, []byte(wideRange+strings.Join(lines, "")), 0o644)
}
