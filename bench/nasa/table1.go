package nasa

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"github.com/sparseson/sparseson/bench/internal/run"
)

// table1 is the spirit of Table 1 (§6.3.2): Σ_t f_t(x_t) of OGD, AdaGrad
// and NASA with unregularized hinge loss over 1 and 4 epochs, mean ± sd
// over random orders of the data — news20 instead of RCV1. Each learner's
// constant is chosen on the file's own order over 2^j, j = −8…4, for 1 and
// for 4 epochs separately, then run on the shuffled copies.
func table1(env *run.Env, bin string, shuffles int) error {
	train, _, err := env.Paths("news20", "vw")
	if err != nil {
		return err
	}
	dir, cleanup, err := tempDir()
	if err != nil {
		return err
	}
	defer cleanup()
	lines, err := readLines(train)
	if err != nil {
		return err
	}
	files, err := table1Orders(dir, lines, shuffles)
	if err != nil {
		return err
	}
	var grid []float64
	for j := -8; j <= 4; j++ {
		grid = append(grid, math.Ldexp(1, j))
	}
	learners := []setting{
		// The paper's scalar steps on x as given (--feature_scale raw).
		{"OGD η/√t", func(v float64) []string { return []string{"--sgd", "--feature_scale", "raw", "-l", fmtG(v)} }, grid},
		{"AdaGrad (VW's)", func(v float64) []string { return []string{"-l", fmtG(v)} }, grid},
		{"NASA (Eq. 10)", func(v float64) []string {
			return []string{"--sgd", "--feature_scale", "raw", "--nasa", "--nasa_c", fmtG(v)}
		}, grid},
		{"NASA per feature", func(v float64) []string { return []string{"--nasa", "--nasa_c", fmtG(v)} }, grid},
	}
	n := len(lines)
	// epochLoss runs table1Epochs epochs on file and returns Σ after 1 and after all.
	epochLoss := func(file string, flags []string) ([]float64, error) {
		labels, err := readLabels(file)
		if err != nil {
			return nil, err
		}
		cf, err := os.CreateTemp(dir, "cache")
		if err != nil {
			return nil, err
		}
		cf.Close()
		cache := cf.Name()
		os.Remove(cache)
		defer os.Remove(cache)
		args := append([]string{"--loss_function", "hinge", "--passes", fmt.Sprint(table1Epochs), "--holdout_off", "--cache_file", cache}, flags...)
		c, err := cumulative(bin, labels, hinge, append(args, file)...)
		if err != nil {
			return nil, err
		}
		return []float64{c[n-1], c[table1Epochs*n-1]}, nil
	}
	// Tune on the file's own order: learners × the grid's indexes.
	gridIdx := indexes(len(grid))
	tuned, err := run.Grid{
		Learners: len(learners), Sets: 1,
		Js: func(int) []int { return gridIdx },
		Do: func(c run.Cell) ([]float64, error) {
			return epochLoss(files[0], learners[c.Learner].flags(grid[c.J]))
		},
	}.Run()
	if err != nil {
		return err
	}
	bestAt := make([][2]int, len(learners)) // grid index per epoch count
	for li, l := range learners {
		for e := 0; e < 2; e++ {
			b := math.Inf(1)
			for gi := range l.grid {
				if v := tuned[run.Cell{Learner: li, J: gi}][e]; v < b {
					b, bestAt[li][e] = v, gi
				}
			}
		}
	}
	// The shuffled orders at the tuned constants: (learner, epoch count) × orders.
	results, err := run.Grid{
		Learners: 2 * len(learners), Sets: 1,
		Orders: func(int) int { return shuffles },
		Do: func(c run.Cell) ([]float64, error) {
			li, e := c.Learner/2, c.Learner%2
			r, err := epochLoss(files[c.Order+1], learners[li].flags(learners[li].grid[bestAt[li][e]]))
			if err != nil {
				return nil, err
			}
			return r[e : e+1], nil
		},
	}.Run()
	if err != nil {
		return err
	}
	// at is the loss of learner li after epoch count e on shuffled order s (1…shuffles).
	at := func(li, e, s int) float64 {
		v, _ := results.Value(run.Cell{Learner: 2*li + e, Order: s - 1, J: run.Default}, 0)
		return v
	}
	table1Report(learners, bestAt, at, n, shuffles)
	return nil
}

// table1Epochs is the longer of the two epoch counts of Table 1.
const table1Epochs = 4

// table1Orders writes news20 in its own order and in shuffles random
// orders, each led by the range-widening examples, and returns the paths.
func table1Orders(dir string, lines []string, shuffles int) ([]string, error) {
	files := []string{filepath.Join(dir, "order0.vw")}
	if err := os.WriteFile(files[0], []byte(wideRange+strings.Join(lines, "")), 0o644); err != nil {
		return nil, err
	}
	for s := 1; s <= shuffles; s++ {
		rng := rand.New(rand.NewPCG(uint64(s), 6302))
		perm := append([]string(nil), lines...)
		rng.Shuffle(len(perm), func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
		path := filepath.Join(dir, fmt.Sprintf("order%d.vw", s))
		if err := os.WriteFile(path, []byte(wideRange+strings.Join(perm, "")), 0o644); err != nil {
			return nil, err
		}
		files = append(files, path)
	}
	return files, nil
}

// table1Report prints the mean ± sd per learner and epoch count, then the
// paired differences.
func table1Report(learners []setting, bestAt [][2]int, at func(li, e, s int) float64, n, shuffles int) {
	const epochs = table1Epochs
	fmt.Printf("\nTable 1 (spirit): Σ_t hinge loss on news20.train (%d examples per epoch), mean ± sd over %d random orders; constant 2^j tuned on the file's order\n", n, shuffles)
	fmt.Printf("%-10s", "")
	for _, l := range learners {
		fmt.Printf(" %28s", l.name)
	}
	fmt.Println()
	for e, label := range []string{"1 epoch", fmt.Sprintf("%d epochs", epochs)} {
		fmt.Printf("%-10s", label)
		for li, l := range learners {
			var sum, sq float64
			for s := 1; s <= shuffles; s++ {
				v := at(li, e, s)
				sum += v
				sq += v * v
			}
			m := sum / float64(shuffles)
			sd := math.Sqrt(math.Max(0, sq/float64(shuffles)-m*m))
			fmt.Printf(" %28s", fmt.Sprintf("%.1f ± %.1f (2^%d)", m, sd, int(math.Round(math.Log2(l.grid[bestAt[li][e]])))))
		}
		fmt.Println()
	}
	// The orders are shared, so paired differences show what the spread
	// over orders hides.
	for _, pair := range [][2]int{{2, 0}, {3, 1}, {3, 2}} {
		fmt.Printf("%s − %s, paired over the orders:", learners[pair[0]].name, learners[pair[1]].name)
		for e, label := range []string{"1 epoch", fmt.Sprintf("%d epochs", epochs)} {
			var sum, sq float64
			lower := 0
			for s := 1; s <= shuffles; s++ {
				d := at(pair[0], e, s) - at(pair[1], e, s)
				sum += d
				sq += d * d
				if d < 0 {
					lower++
				}
			}
			m := sum / float64(shuffles)
			fmt.Printf("  %s %+.1f ± %.1f (lower in %d of %d)", label, m, math.Sqrt(math.Max(0, sq/float64(shuffles)-m*m)), lower, shuffles)
		}
		fmt.Println()
	}
}

// readLines returns the lines of a gzip'd (or, under --quick, plain) text
// file, newlines kept.
func readLines(path string) ([]string, error) {
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
	var out []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<28)
	for sc.Scan() {
		out = append(out, sc.Text()+"\n")
	}
	return out, sc.Err()
}
