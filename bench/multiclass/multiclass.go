// Package multiclass is the multiclass suite of go run ./bench; it
// measures the multiclass learners on 20 Newsgroups as a 20-class problem
// (bench/internal/news20; 11314 training and 7532 test posts, the groups
// in alphabetical order as classes 1…20).
//
// -part errors (default): for each learner, the one-pass progressive
// error (the training run's average 0/1 loss, read from its summary),
// test error after one pass
// over the training text and after three (--passes 3 -c, VW's holdout of
// every 10th example keeping the best pass's model), with the one-pass
// training run's ns/example (wall time over the examples read, text
// parsing included) and peak RSS. VW's OAA (its demo) reaches 26.23% after
// one pass and 24.54% after three; the issue asks ≤ 24.5% in one pass.
//
// -part tune: one-pass test error of each learner at its rate -l = 2^j,
// j = −2…3 (SON's default step multiplier is 5, between the last two;
// AdaGrad's rate 0.5;
// NASA's --nasa_c, default 1, over the same grid), so
// that first- and second-order learners are compared each at its best —
// chosen on the test set, as the papers do, which flatters every column
// alike.
//
// -part shampoo: FTSL-Shampoo's defaults (-l, --epsilon, -m) from a grid
// on 20-class news20 and a three-class abalone (shampoo.go).
//
// -part cost: AdaGrad-OAA's cost per example against K = 20 times binary
// AdaGrad's on the same features (news20.train with its binary labels),
// both reading an example cache without holdout, runs of the two
// alternated, best of -repeat each (the machine is shared); wall and CPU
// time, in total over -passes passes and in the steady state (the
// difference between -passes passes and one). The issue asks
// ≤ 1.2 × K × binary.
//
//	go run ./bench multiclass [-data ../shared/data] [-part errors,tune,shampoo,cost|all] [-only REGEXP] [-repeat 5] [-extra "name=flags,…"]
package multiclass

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sparseson/sparseson/bench/internal/news20"
	"github.com/sparseson/sparseson/bench/internal/run"
)

type learner struct {
	name  string
	flags []string
	rate  string // the flag -part tune sweeps ("" means -l)
}

// learners are the ones the issue names; all OAA bases use logistic loss.
var allLearners = []learner{
	{name: "AdaGrad-OAA", flags: []string{"--oaa", "20", "--loss_function", "logistic"}},
	{"NASA-OAA", []string{"--oaa", "20", "--loss_function", "logistic", "--nasa"}, "--nasa_c"},
	{name: "Oja-SON-OAA m=10", flags: []string{"--oaa", "20", "--loss_function", "logistic", "--oja", "-m", "10"}},
	{name: "FD-SON-OAA m=10", flags: []string{"--oaa", "20", "--loss_function", "logistic", "--fd", "-m", "10"}},
	{name: "ADA-FD-OAA m=20", flags: []string{"--oaa", "20", "--loss_function", "logistic", "--ada_fd"}},
	{name: "FTSL-OAA m=20", flags: []string{"--oaa", "20", "--loss_function", "logistic", "--ftsl"}},
	{name: "S-ADA-OAA m=20", flags: []string{"--oaa", "20", "--loss_function", "logistic", "--sada"}},
	{name: "softmax AdaGrad", flags: []string{"--softmax", "20"}},
	{name: "FTSL-Shampoo", flags: []string{"--softmax", "20", "--shampoo"}},
	{name: "FTSL-Shampoo m=10", flags: []string{"--softmax", "20", "--shampoo", "-m", "10"}},
}

// Main runs the suite with its command-line arguments.
func Main(env *run.Env, args []string) error {
	fs := flag.NewFlagSet("multiclass", flag.ContinueOnError)
	env.Register(fs)
	part := fs.String("part", "errors", "comma-separated parts: errors, tune, shampoo, cost, or all")
	repeat := fs.Int("repeat", 5, "cost: timed runs of each learner (alternated; the fastest is kept)")
	passes := fs.Int("passes", 10, "cost: passes over the cache of the long timed runs")
	extra := fs.String("extra", "", "errors: more learners as name=flags, comma-separated (e.g. \"Oja l=2=--oaa 20 --loss_function logistic --oja -l 2\")")
	only := fs.String("only", "", "errors, tune: only the learners whose name matches this regular expression")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := env.Start(); err != nil {
		return err
	}
	var filter *news20.Filter
	if env.Quick {
		filter = &news20.Filter{Lines: run.QuickLines}
	}
	if err := env.QuickDefaults(fs, map[string]string{"part": "errors,tune", "only": "^AdaGrad-OAA$", "repeat": "1", "passes": "1"}); err != nil {
		return err
	}
	bin, err := env.Bin()
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp(env.Temp(), "multiclass")
	if err != nil {
		return err
	}
	train, test := filepath.Join(dir, "news20mc.train.vw.gz"), filepath.Join(dir, "news20mc.test.vw.gz")
	for split, path := range map[string]string{"train": train, "test": test} {
		if _, err := news20.Write(env.Data, split, path, filter); err != nil {
			return err
		}
	}
	learners := slices.Clone(allLearners)
	for _, e := range strings.Split(*extra, ",") {
		if name, flags, ok := strings.Cut(e, "="); ok {
			learners = append(learners, learner{name: name, flags: strings.Fields(flags)})
		}
	}
	if *only != "" {
		re, err := regexp.Compile(*only)
		if err != nil {
			return fmt.Errorf("-only: %w", err)
		}
		learners = slices.DeleteFunc(learners, func(l learner) bool { return !re.MatchString(l.name) })
	}
	want := func(p string) bool { return *part == "all" || slices.Contains(strings.Split(*part, ","), p) }
	if want("errors") {
		if err := errorTable(env, learners, bin, dir, train, test); err != nil {
			return err
		}
	}
	if want("tune") {
		if err := tune(learners, bin, dir, train, test); err != nil {
			return err
		}
	}
	if want("shampoo") {
		if err := shampooDefaults(bin, dir, env.Data, train, test); err != nil {
			return err
		}
	}
	if want("cost") {
		binTrain, _, err := env.Paths("news20", "vw")
		if err != nil {
			return err
		}
		if err := cost(bin, dir, train, binTrain, *repeat, *passes); err != nil {
			return err
		}
	}
	return nil
}

// testError trains with args (-f is added) and returns the test error (%)
// and the training run.
func testError(bin, model, test string, args []string) (float64, *run.Result, error) {
	tr, err := run.Exec(bin, append([]string{"-f", model}, args...)...)
	if err != nil {
		return 0, nil, err
	}
	te, err := run.Exec(bin, "-t", "-i", model, test)
	if err != nil {
		return 0, nil, err
	}
	l, err := strconv.ParseFloat(strings.Fields(te.Summary["average loss"] + " x")[0], 64)
	if err != nil {
		return 0, nil, fmt.Errorf("no average loss in the test summary:\n%s", te.Stderr)
	}
	return 100 * l, tr, nil
}

func errorTable(env *run.Env, learners []learner, bin, dir, train, test string) error {
	fmt.Println("20-class news20 (11314 train, 7532 test posts): test error (%) after one pass and after --passes 3 -c (holdout: best pass kept);")
	fmt.Println("progressive: the one-pass training run's progressive error (%), its average 0/1 loss, each post predicted before it is learned")
	fmt.Println("ns/example (wall and CPU time) and peak RSS: the one-pass training run (text parsing and start-up included)")
	fmt.Printf("%-22s %11s %8s %8s %12s %12s %10s\n", "learner", "progressive", "1 pass", "3 passes", "wall ns/ex", "CPU ns/ex", "peak RSS")
	var csv strings.Builder
	csv.WriteString("learner,error_1pass,error_3passes,wall_ns_per_example,cpu_ns_per_example,peak_rss_mb,progressive_error\n")
	model := filepath.Join(dir, "model")
	for i, l := range learners {
		// Not --quiet: the summary, with the progressive average loss, is
		// what --quiet leaves out; -P 1e12 keeps the progress lines away.
		e1, tr, err := testError(bin, model, test, append(append([]string{"-P", "1e12"}, l.flags...), train))
		if err != nil {
			return err
		}
		prog, err := strconv.ParseFloat(strings.Fields(tr.Summary["average loss"] + " x")[0], 64)
		if err != nil {
			return fmt.Errorf("%s: no average loss in the training summary:\n%s", l.name, tr.Stderr)
		}
		prog *= 100
		cache := filepath.Join(dir, fmt.Sprintf("c%d.cache", i))
		e3, _, err := testError(bin, model, test, append(append([]string{"--quiet", "--passes", "3", "--cache_file", cache}, l.flags...), train))
		if err != nil {
			return err
		}
		ns, cpu := float64(tr.Wall.Nanoseconds())/11314, float64(tr.CPU.Nanoseconds())/11314
		rss := float64(tr.MaxRSS) / 1024
		fmt.Printf("%-22s %11.2f %8.2f %8.2f %12.0f %12.0f %8.1fMB\n", l.name, prog, e1, e3, ns, cpu, rss)
		fmt.Fprintf(&csv, "%s,%.2f,%.2f,%.0f,%.0f,%.1f,%.2f\n", l.name, e1, e3, ns, cpu, rss, prog)
		if err := env.Finite("multiclass "+l.name, prog, e1, e3, ns, rss); err != nil {
			return err
		}
	}
	return env.Write("multiclass.csv", []byte(csv.String()))
}

func tune(learners []learner, bin, dir, train, test string) error {
	rates := []string{"0.25", "0.5", "1", "2", "4", "8"}
	fmt.Printf("\n20-class news20, one pass: test error (%%) at -l (NASA: --nasa_c)\n%-22s", "learner")
	for _, r := range rates {
		fmt.Printf(" %7s", r)
	}
	fmt.Println()
	model := filepath.Join(dir, "model")
	for _, l := range learners {
		fmt.Printf("%-22s", l.name)
		for _, r := range rates {
			flag := "-l"
			if l.rate != "" {
				flag = l.rate
			}
			e, _, err := testError(bin, model, test, append(append([]string{"--quiet", flag, r}, l.flags...), train))
			if err != nil {
				return err
			}
			fmt.Printf(" %7.2f", e)
		}
		fmt.Println()
	}
	return nil
}

func cost(bin, dir, train, binTrain string, repeat, passes int) error {
	mcCache, binCache := filepath.Join(dir, "mc.cache"), filepath.Join(dir, "bin.cache")
	if _, err := run.Exec(bin, "--quiet", "--oaa", "20", "--cache_file", mcCache, train); err != nil {
		return err
	}
	if _, err := run.Exec(bin, "--quiet", "--cache_file", binCache, binTrain); err != nil {
		return err
	}
	args := func(p int, rest ...string) []string {
		return append([]string{"--quiet", "--loss_function", "logistic", "--passes", strconv.Itoa(p), "--holdout_off"}, rest...)
	}
	// Each learner runs for 1 and for -passes passes: the total per
	// example at -passes includes start-up (process, tables, cache open),
	// the difference of the two is the steady-state cost of an example.
	type timing struct{ wall, cpu [2]time.Duration }
	runs := []struct {
		name string
		args [2][]string
		best timing
		rss  int64
	}{
		{name: "binary AdaGrad", args: [2][]string{args(1, "--cache_file", binCache, binTrain), args(passes, "--cache_file", binCache, binTrain)}},
		{name: "AdaGrad-OAA K=20", args: [2][]string{args(1, "--oaa", "20", "--cache_file", mcCache, train), args(passes, "--oaa", "20", "--cache_file", mcCache, train)}},
	}
	for r := 0; r < repeat; r++ {
		for i := range runs {
			x := &runs[i]
			for j := range x.args {
				res, err := run.Exec(bin, x.args[j]...)
				if err != nil {
					return err
				}
				if r == 0 || res.Wall < x.best.wall[j] {
					x.best.wall[j] = res.Wall
				}
				if r == 0 || res.CPU < x.best.cpu[j] {
					x.best.cpu[j] = res.CPU
				}
				x.rss = max(x.rss, res.MaxRSS)
			}
		}
	}
	const n = 11314
	per := func(d time.Duration, examples float64) float64 { return float64(d.Nanoseconds()) / examples }
	fmt.Printf("\nnews20.train from the example cache, no holdout, runs alternated, best of %d\n", repeat)
	fmt.Printf("total: %d passes, ns per example; steady: (T(%d passes) − T(1 pass)) / (%d·n)\n", passes, passes, passes-1)
	fmt.Printf("%-18s %12s %12s %12s %12s %10s\n", "learner", "wall total", "CPU total", "wall steady", "CPU steady", "peak RSS")
	var v [2][4]float64
	for i, x := range runs {
		v[i] = [4]float64{
			per(x.best.wall[1], n*float64(passes)), per(x.best.cpu[1], n*float64(passes)),
			per(x.best.wall[1]-x.best.wall[0], n*float64(passes-1)), per(x.best.cpu[1]-x.best.cpu[0], n*float64(passes-1)),
		}
		fmt.Printf("%-18s %12.0f %12.0f %12.0f %12.0f %8.1fMB\n", x.name, v[i][0], v[i][1], v[i][2], v[i][3], float64(x.rss)/1024)
	}
	fmt.Printf("AdaGrad-OAA / (20 × binary AdaGrad): wall total %.3f, CPU total %.3f, wall steady %.3f, CPU steady %.3f (the issue asks ≤ 1.2)\n",
		v[1][0]/(20*v[0][0]), v[1][1]/(20*v[0][1]), v[1][2]/(20*v[0][2]), v[1][3]/(20*v[0][3]))
	return nil
}
