package ada

import (
	"bufio"
	"cmp"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sparseson/sparseson/bench/internal/run"
	"gonum.org/v1/gonum/mat"
)

// Wan & Zhang (TPAMI 2022), §5.2, online regression: f_t(β) = |βᵀx_t − y_t| with
// y_t = β*ᵀx_t (noise-free, so the regret is the cumulative loss),
// T = 10000, d = 500, β* = β̂/‖β̂‖ with β̂ ~ N(0, I), x_t ~ N(μ = 1, Σ),
// λ_j(Σ) = 100·j^{−2}. The paper does not say which eigenvectors Σ has;
// we take a Haar-random orthogonal Q (QR of a Gaussian matrix, signs
// fixed by R's diagonal), Σ = Q·diag(λ)·Qᵀ, so x_t = 1 + Q·diag(√λ)·z_t.
//
// The loss is sparseson's pinball loss at τ = ½, which is ½|r|: its
// gradient is half the absolute loss's. For ADA-FD, ADA-FFD, ADA-FULL
// and ADA-DIAG that is exact with δ/2 in place of δ —
// (δ/2 + (G/4)^{1/2})⁻¹·(g/2) = (δ + G^{1/2})⁻¹g, under both updates — so
// they run with --delta δ/2 and the paper's η. OGD runs at -l 2η (its
// step is linear in g). FD-SON (the paper form, --diag=false, C = ∞) is
// tuned over α = 10^k, k = −4…6 (the paper's δ grid, 1e-4…10, widened:
// its best α was beyond it); its ONS step has no η. Every run reads the same stream; regret = Σ_t |β_tᵀx_t − y_t| from
// the raw progressive predictions (-r).
const (
	regD = 500
)

var etaGrid = []float64{1e-4, 1e-3, 1e-2, 1e-1, 1}

// regressionData writes the stream as VW text and returns its path and
// labels.
func regressionData(dir string, T int) (string, []float64, error) {
	rng := rand.New(rand.NewPCG(2022, 52))
	G := mat.NewDense(regD, regD, nil)
	for i := 0; i < regD; i++ {
		for j := 0; j < regD; j++ {
			G.Set(i, j, rng.NormFloat64())
		}
	}
	var qr mat.QR
	qr.Factorize(G)
	var Q, R mat.Dense
	qr.QTo(&Q)
	qr.RTo(&R)
	sl := make([]float64, regD)
	for j := range sl {
		sl[j] = math.Sqrt(100 / float64((j+1)*(j+1)))
		if R.At(j, j) < 0 {
			for i := 0; i < regD; i++ {
				Q.Set(i, j, -Q.At(i, j))
			}
		}
	}
	beta := make([]float64, regD)
	var nb float64
	for j := range beta {
		beta[j] = rng.NormFloat64()
		nb += beta[j] * beta[j]
	}
	for j := range beta {
		beta[j] /= math.Sqrt(nb)
	}
	path := filepath.Join(dir, "regression.vw")
	f, err := os.Create(path)
	if err != nil {
		return "", nil, err
	}
	w := bufio.NewWriter(f)
	labels := make([]float64, T)
	z := make([]float64, regD)
	x := make([]float64, regD)
	for t := 0; t < T; t++ {
		for j := range z {
			z[j] = rng.NormFloat64() * sl[j]
		}
		var y float64
		for i := range x {
			x[i] = 1
			for j, zj := range z {
				x[i] += Q.At(i, j) * zj
			}
			y += beta[i] * x[i]
		}
		labels[t] = y
		fmt.Fprintf(w, "%s |f", strconv.FormatFloat(y, 'g', 17, 64))
		for i, v := range x {
			fmt.Fprintf(w, " %d:%s", i+1, strconv.FormatFloat(v, 'g', 17, 64))
		}
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return "", nil, fmt.Errorf("%s: %w", path, err)
	}
	return path, labels, f.Close()
}

// regRun is one run of the regression: a learner at one setting.
type regRun struct {
	group, learner string
	update         string // "M", "P" or ""
	tau            int
	param          string // the swept value, as shown
	flags          []string
	loss           float64
	curve          []float64     // cumulative loss every curveEvery examples
	cpu            time.Duration // the run's CPU time (user + system), start-up included
}

// curveEvery is the spacing of the regret curves' points.
const curveEvery = 50

// fullEta is the η of the full-size runs when ADA-FULL's best is not
// known in the same invocation (-only full): its best η in the T = 10000
// runs (BENCHMARKS.md).
var fullEta = 0.01

func regression(env *run.Env, bin string, T int, only string, adaFull bool) error {
	dir, err := os.MkdirTemp(env.Temp(), "ada-regression")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	data, labels, err := regressionData(dir, T)
	if err != nil {
		return err
	}
	x := regExec{bin: bin, dir: dir, data: data, labels: labels}
	x.common = []string{"--quiet", "-b", "12", "--noconstant", "--loss_function", "quantile", "--quantile_tau", "0.5", "--cache_file", filepath.Join(dir, "regression.cache")}
	if _, err := run.Exec(bin, append(append([]string{}, x.common...), "-t", data)...); err != nil {
		return err
	}
	want := func(g string) bool { return only == "" || strings.Contains(","+only+",", ","+g+",") }
	runs := regGrid(env.Quick, want)
	if err := x.exec(runs); err != nil {
		return err
	}
	if want("main") && adaFull {
		full, err := x.adaFull(bestRuns(runs))
		runs = append(runs, full...)
		if err != nil {
			return err
		}
	}
	best := bestRuns(runs)
	if want("full") {
		full, err := x.fullSize(best, T)
		if err != nil {
			return err
		}
		runs = append(runs, full...)
	}
	if err := writeRegression(env, runs, only, T); err != nil {
		return err
	}
	printRegression(best, T)
	if want("tau") {
		return printTau(env, best, runs, T)
	}
	return nil
}

// The updates' flags, and δ/2 for δ = 1 (M) and 10 (P).
var (
	upd  = map[string]string{"M": "--mirror_descent", "P": "--dual_averaging"}
	half = map[string]string{"M": "0.5", "P": "5"}
)

// regGrid lists the runs of the groups wanted: main (each learner over
// the η grid, both updates; FD-SON over α), tau (ADA-FD and ADA-FFD at
// τ = 40…80, mirror descent). --quick runs one setting of each: the
// plumbing, not the search (the figures suite asks for main and tau, 77
// runs in full).
func regGrid(quick bool, want func(string) bool) []*regRun {
	var runs []*regRun
	add := func(group, learner, update string, tau int, param string, flags ...string) {
		runs = append(runs, &regRun{group: group, learner: learner, update: update, tau: tau, param: param, flags: flags})
	}
	etas, alphaLo, alphaHi := etaGrid, -4, 6
	if quick {
		etas, alphaLo, alphaHi = []float64{1e-2}, 0, 0
	}
	for _, u := range []string{"M", "P"} {
		for _, eta := range etas {
			e := fmtG(eta)
			if want("main") {
				add("main", "ADA-FD", u, 20, e, "--ada_fd", "-m", "20", upd[u], "--delta", half[u], "-l", e)
				add("main", "ADA-FFD", u, 20, e, "--ada_ffd", "-m", "20", upd[u], "--delta", half[u], "-l", e)
				add("main", "ADA-DIAG", u, 0, e, "--adaptive", upd[u], "--delta", "5e-9", "-l", e)
				if u == "M" {
					add("main", "OGD", u, 0, e, "--sgd", "--power_t", "0.5", "-l", fmtG(2*eta))
				}
			}
			if want("tau") && u == "M" {
				for _, tau := range []int{40, 60, 80} {
					m := strconv.Itoa(tau)
					add("tau", "ADA-FD", u, tau, e, "--ada_fd", "-m", m, upd[u], "--delta", half[u], "-l", e)
					add("tau", "ADA-FFD", u, tau, e, "--ada_ffd", "-m", m, upd[u], "--delta", half[u], "-l", e)
				}
			}
		}
	}
	if want("main") || want("fdson") {
		for k := alphaLo; k <= alphaHi; k++ {
			a := fmtG(math.Pow(10, float64(k)))
			add("main", "FD-SON", "M", 20, "α="+a, "--fd", "-m", "20", "--diag=false", "--alpha", a)
		}
	}
	return runs
}

// regExec runs the regression's runs on its data.
type regExec struct {
	bin, dir, data string
	labels         []float64
	common         []string // flags of every run: the loss, the cache
}

// exec runs rs on all cores, filling in each one's loss, curve and CPU time.
func (x regExec) exec(rs []*regRun) error {
	var jobs []func() error
	for _, r := range rs {
		jobs = append(jobs, func() error {
			raw := filepath.Join(x.dir, fmt.Sprintf("%p.raw", r))
			args := append(append(append([]string{}, x.common...), r.flags...), "-r", raw, x.data)
			res, err := run.Exec(x.bin, args...)
			if err != nil {
				return err
			}
			l, curve, err := cumulativeLoss(raw, x.labels)
			r.loss, r.curve, r.cpu = l, curve, res.CPU
			os.Remove(raw)
			return err
		})
	}
	return run.Parallel(jobs)
}

// adaFull runs ADA-FULL, which costs O(d³) per example (≈ 6 CPU-minutes
// a run here), so not over the whole grid: first at ADA-FD's best η
// (same update) and its two neighbours on the grid, then one step further
// while the best is at the edge of the η tried. It returns the runs made.
func (x regExec) adaFull(best map[bkey]*regRun) ([]*regRun, error) {
	var runs []*regRun
	for _, u := range []string{"M", "P"} {
		tried := map[int]*regRun{}
		var tryErr error
		try := func(idxs ...int) {
			var rs []*regRun
			for _, i := range idxs {
				if i < 0 || i >= len(etaGrid) || tried[i] != nil {
					continue
				}
				e := fmtG(etaGrid[i])
				r := &regRun{group: "main", learner: "ADA-FULL", update: u, param: e, flags: []string{"--ada_full", upd[u], "--delta", half[u], "-l", e}}
				tried[i] = r
				rs = append(rs, r)
			}
			if err := x.exec(rs); err != nil && tryErr == nil {
				tryErr = err
			}
			runs = append(runs, rs...)
		}
		c := len(etaGrid) / 2
		if b := best[bkey{"ADA-FD", u, 20}]; b != nil {
			for i, e := range etaGrid {
				if fmtG(e) == b.param {
					c = i
				}
			}
		}
		try(c-1, c, c+1)
		for {
			bi := -1
			for i, r := range tried {
				if bi < 0 || r.loss < tried[bi].loss {
					bi = i
				}
			}
			next := -1
			if tried[bi-1] == nil && bi-1 >= 0 {
				next = bi - 1
			} else if tried[bi+1] == nil && bi+1 < len(etaGrid) {
				next = bi + 1
			}
			if next < 0 {
				break
			}
			try(next)
		}
		if tryErr != nil {
			return runs, tryErr
		}
	}
	return runs, nil
}

// fullSize runs, at ADA-FULL (mirror descent)'s best η, ADA-FD with
// τ = d+1 and ADA-FFD with 2τ ≥ d+1 (footnote 1): they never discard
// anything and must equal ADA-FULL. It prints the comparison.
func (x regExec) fullSize(best map[bkey]*regRun, T int) ([]*regRun, error) {
	eta := fullEta
	if b := best[bkey{"ADA-FULL", "M", 0}]; b != nil {
		eta, _ = strconv.ParseFloat(b.param, 64)
	}
	e := fmtG(eta)
	full := []*regRun{
		{group: "full", learner: "ADA-FULL", update: "M", param: e, flags: []string{"--ada_full", "--mirror_descent", "--delta", "0.5", "-l", e}},
		{group: "full", learner: "ADA-FD", update: "M", tau: regD + 1, param: e, flags: []string{"--ada_fd", "-m", strconv.Itoa(regD + 1), "--mirror_descent", "--delta", "0.5", "-l", e}},
		{group: "full", learner: "ADA-FFD", update: "M", tau: (regD + 2) / 2, param: e, flags: []string{"--ada_ffd", "-m", strconv.Itoa((regD + 2) / 2), "--mirror_descent", "--delta", "0.5", "-l", e}},
	}
	if err := x.exec(full); err != nil {
		return nil, err
	}
	fmt.Printf("\nWan & Zhang (TPAMI 2022), §5.2 footnote 1, mirror descent at η = %s, T = %d: cumulative loss of ADA-FULL %.6g; ADA-FD τ = %d: %.6g (%+.4f%%); ADA-FFD τ = %d: %.6g (%+.4f%%)\n",
		e, T, full[0].loss, full[1].tau, full[1].loss, 100*(full[1].loss/full[0].loss-1), full[2].tau, full[2].loss, 100*(full[2].loss/full[0].loss-1))
	return full, nil
}

// writeRegression writes every run (ada_regression[_only].csv) and the
// regret curves of each learner's best run (…_curves.csv, for the figures
// suite), in the order of the learner, update and τ.
func writeRegression(env *run.Env, runs []*regRun, only string, T int) error {
	var csv strings.Builder
	fmt.Fprintln(&csv, "group,learner,update,tau,param,cumulative_loss,cpu_ns_per_example")
	for _, r := range runs {
		fmt.Fprintf(&csv, "%s,%s,%s,%d,%s,%.6g,%.0f\n", r.group, r.learner, r.update, r.tau, r.param, r.loss, float64(r.cpu.Nanoseconds())/float64(T))
	}
	name := "ada_regression.csv"
	if only != "" {
		name = "ada_regression_" + strings.ReplaceAll(only, ",", "_") + ".csv"
	}
	if err := env.Write(name, []byte(csv.String())); err != nil {
		return err
	}
	var curves strings.Builder
	fmt.Fprintln(&curves, "learner,update,tau,param,t,cumulative_loss")
	best := bestRuns(runs)
	keys := slices.SortedFunc(maps.Keys(best), func(a, b bkey) int {
		return cmp.Or(strings.Compare(a.learner, b.learner), strings.Compare(a.update, b.update), cmp.Compare(a.tau, b.tau))
	})
	for _, k := range keys {
		r := best[k]
		if err := env.Finite("ada regression "+k.learner, r.loss); err != nil {
			return err
		}
		for i, v := range r.curve {
			fmt.Fprintf(&curves, "%s,%s,%d,%s,%d,%.6g\n", k.learner, k.update, k.tau, r.param, (i+1)*curveEvery, v)
		}
	}
	return env.Write(strings.TrimSuffix(name, ".csv")+"_curves.csv", []byte(curves.String()))
}

// printRegression prints each learner's best cumulative loss under both
// updates, τ = 20 for the sketches.
func printRegression(best map[bkey]*regRun, T int) {
	fmt.Printf("\nWan & Zhang (TPAMI 2022), §5.2: online regression, absolute loss, T = %d, d = %d; cumulative loss (= regret) at the best η over {1e-4, …, 1} (FD-SON: best α), τ = 20, δ = 10 (dual averaging) / 1 (mirror descent)\n", T, regD)
	fmt.Printf("%-10s | %-24s | %-24s\n", "learner", "mirror descent (CMD)", "dual averaging (PDS)")
	for _, l := range []string{"ADA-FULL", "ADA-FD", "ADA-FFD", "ADA-DIAG", "FD-SON", "OGD"} {
		fmt.Printf("%-10s", l)
		for _, u := range []string{"M", "P"} {
			tau := 0
			if l == "ADA-FD" || l == "ADA-FFD" || l == "FD-SON" {
				tau = 20
			}
			if b := best[bkey{l, u, tau}]; b != nil {
				fmt.Printf(" | %-24s", fmt.Sprintf("%.5g (%s)", b.loss, paramLabel(b.param)))
			} else {
				fmt.Printf(" | %-24s", "—")
			}
		}
		fmt.Println()
	}
}

// printTau prints the τ comparison under mirror descent: the best
// cumulative loss, and the CPU time per example.
func printTau(env *run.Env, best map[bkey]*regRun, runs []*regRun, T int) error {
	fmt.Printf("\nMirror descent, τ = 20…80 (δ = 1), best η: cumulative loss\n%-8s", "learner")
	taus := []int{20, 40, 60, 80}
	for _, t := range taus {
		fmt.Printf(" | τ = %-12d", t)
	}
	fmt.Println()
	for _, l := range []string{"ADA-FD", "ADA-FFD"} {
		fmt.Printf("%-8s", l)
		for _, t := range taus {
			if b := best[bkey{l, "M", t}]; b != nil {
				fmt.Printf(" | %-16s", fmt.Sprintf("%.5g (%s)", b.loss, paramLabel(b.param)))
			} else {
				fmt.Printf(" | %-16s", "—")
			}
		}
		fmt.Println()
	}
	// The cost side of the same runs (Wan & Zhang (TPAMI 2022), §5.2 plots regret and
	// time against τ): CPU time per example, the median over the η
	// grid's runs at each τ (the cost of a step does not depend on η).
	fmt.Printf("\nMirror descent, τ = 20…80: CPU µs/example (start-up included), median over the η grid\n%-8s", "learner")
	for _, t := range taus {
		fmt.Printf(" | τ = %-6d", t)
	}
	fmt.Println()
	for _, l := range []string{"ADA-FD", "ADA-FFD"} {
		fmt.Printf("%-8s", l)
		for _, t := range taus {
			c := medianCPU(runs, bkey{l, "M", t})
			fmt.Printf(" | %-10.1f", float64(c.Nanoseconds())/float64(T)/1e3)
			if err := env.Finite("ada regression time "+l, float64(c)); err != nil {
				return err
			}
		}
		fmt.Println()
	}
	return nil
}

// medianCPU is the median CPU time of the runs of one learner, update
// and τ (0 when there are none).
func medianCPU(runs []*regRun, k bkey) time.Duration {
	var ds []time.Duration
	for _, r := range runs {
		if r.learner == k.learner && r.update == k.update && r.tau == k.tau && r.group != "full" {
			ds = append(ds, r.cpu)
		}
	}
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	if n := len(ds); n%2 == 0 {
		return (ds[n/2-1] + ds[n/2]) / 2
	}
	return ds[len(ds)/2]
}

type bkey struct {
	learner, update string
	tau             int
}

// bestRuns returns the run with the least loss per learner, update and τ.
func bestRuns(runs []*regRun) map[bkey]*regRun {
	best := map[bkey]*regRun{}
	var mu sync.Mutex
	mu.Lock()
	defer mu.Unlock()
	for _, r := range runs {
		if r.group == "full" {
			continue
		}
		k := bkey{r.learner, r.update, r.tau}
		if b := best[k]; b == nil || r.loss < b.loss || math.IsNaN(b.loss) {
			best[k] = r
		}
	}
	return best
}

// cumulativeLoss sums |ŷ_t − y_t| over the raw predictions file, and
// returns the running sum every curveEvery examples too.
func cumulativeLoss(path string, labels []float64) (float64, []float64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, nil, err
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != len(labels) {
		return 0, nil, fmt.Errorf("%s: %d predictions for %d examples", path, len(lines), len(labels))
	}
	var sum float64
	var curve []float64
	for i, l := range lines {
		v, err := strconv.ParseFloat(strings.Fields(l)[0], 64)
		if err != nil {
			return 0, nil, fmt.Errorf("%s line %d: %v", path, i+1, err)
		}
		sum += math.Abs(v - labels[i])
		if (i+1)%curveEvery == 0 {
			curve = append(curve, sum)
		}
	}
	return sum, curve, nil
}

// paramLabel shows a swept value: η, or FD-SON's α.
func paramLabel(p string) string {
	if strings.HasPrefix(p, "α") {
		return p
	}
	return "η " + p
}

func fmtG(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
