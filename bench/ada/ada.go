// Package ada is the ada suite of go run ./bench; it measures the
// FD-adaptive learners (package ada; issue 12):
//
// -part accuracy: one pass over each shared binary training set, logistic
// loss, test accuracy of the eight learners (ADA-FD and ADA-FFD under both
// updates, FTSL, FTFSL, S-ADA, Fast S-ADA) at their defaults and at their
// best η = 2^j, j = −4…4 (on the test set, as the papers pick it), beside
// AdaGrad (default and best -l); and, per learner and η, the mean accuracy
// over the sets and the shortfall against default AdaGrad on news20 and
// w8a — the table the default η was chosen from.
//
// -part regression: the online regression of Yuanyu Wan, Lijun Zhang,
// "Efficient Adaptive Online Learning via Frequent Directions", IEEE
// TPAMI 2022, §5.2 (regression.go).
//
// -part sketchy: the comparison of Sifan Yang, Yuanyu Wan, Peijia Li, Yibo
// Wang, Xiao Zhang, Zhewei Wei, Lijun Zhang, "Dimension-Free Adaptive
// Subgradient Methods with Frequent Directions", ICML 2025, §6, on a
// dense shared set (sketchy.go).
//
// Results are written to -out as ada_accuracy.csv, ada_regression*.csv
// (with the regret curves of the best runs, ada_regression_curves.csv)
// and ada_sketchy.csv.
//
//	go run ./bench ada [-data ../shared/data] [-part accuracy,regression,sketchy] [-sets ...] [-m 20]
package ada

import (
	"flag"
	"fmt"
	"math"
	"regexp"
	"strings"

	"github.com/sparseson/sparseson/bench/internal/run"
)

// learner is one of the eight, by its flags.
type learner struct {
	name  string
	flags []string
}

// eight returns the eight learners at sketch size m ("" = the default τ).
func eight(m string) []learner {
	var out []learner
	for _, l := range []learner{
		{"ADA-FD(M)", []string{"--ada_fd", "--mirror_descent"}},
		{"ADA-FD(P)", []string{"--ada_fd", "--dual_averaging"}},
		{"ADA-FFD(M)", []string{"--ada_ffd", "--mirror_descent"}},
		{"ADA-FFD(P)", []string{"--ada_ffd", "--dual_averaging"}},
		{"FTSL", []string{"--ftsl"}},
		{"FTFSL", []string{"--ftfsl"}},
		{"S-ADA", []string{"--sada"}},
		{"Fast S-ADA", []string{"--sada_fast"}},
	} {
		if m != "" {
			l.flags = append(l.flags, "-m", m)
		}
		out = append(out, l)
	}
	return out
}

// Main runs the suite with its command-line arguments.
func Main(env *run.Env, args []string) error {
	fs := flag.NewFlagSet("ada", flag.ContinueOnError)
	env.Register(fs)
	part := fs.String("part", "accuracy", "comma-separated parts: accuracy, regression, sketchy, or all")
	sets := fs.String("sets", "", "accuracy: comma-separated datasets (default: all binary sets)")
	m := fs.String("m", "", "accuracy: sketch size τ (default: the learners' default)")
	learners := fs.String("learners", "", "accuracy: only the learners whose name matches this regular expression (AdaGrad always runs)")
	jlo := fs.Int("jlo", -4, "accuracy: smallest log2 η (jlo > jhi: defaults only)")
	jhi := fs.Int("jhi", 4, "accuracy: largest log2 η")
	T := fs.Int("T", 10000, "regression: rounds")
	only := fs.String("only", "", "regression: only these runs (comma-separated: main, tau, full, fdson)")
	adaFull := fs.Bool("ada_full", true, "regression: run ADA-FULL (O(d³) a step, ≈ 6 CPU-minutes a run) beside the others")
	sjlo := fs.Int("sketchy_jlo", -12, "sketchy: smallest log2 η")
	sjhi := fs.Int("sketchy_jhi", 5, "sketchy: largest log2 η")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := env.Start(); err != nil {
		return err
	}
	if err := env.QuickDefaults(fs, map[string]string{"part": "all", "sets": "splice", "learners": "^FTSL$", "jlo": "0", "jhi": "-1",
		"T": fmt.Sprint(run.QuickLines), "only": "tau", "ada_full": "false", "sketchy_jlo": "-4", "sketchy_jhi": "-4"}); err != nil {
		return err
	}
	bin, err := env.Bin()
	if err != nil {
		return err
	}
	for _, p := range strings.Split(*part, ",") {
		var err error
		switch p {
		case "accuracy":
			err = accuracy(env, bin, *sets, *m, *learners, *jlo, *jhi)
		case "regression":
			err = regression(env, bin, *T, *only, *adaFull)
		case "sketchy":
			err = sketchy(env, bin, *sjlo, *sjhi)
		case "all":
			if err = accuracy(env, bin, *sets, *m, *learners, *jlo, *jhi); err == nil {
				if err = regression(env, bin, *T, *only, *adaFull); err == nil {
					err = sketchy(env, bin, *sjlo, *sjhi)
				}
			}
		default:
			err = fmt.Errorf("unknown part %q", p)
		}
		if err != nil {
			return fmt.Errorf("-part %s: %w", p, err)
		}
	}
	return nil
}

// noRate marks a run at the learner's default η.
const noRate = run.Default

// adaKey names one accuracy: a learner on a dataset at η = 2^j (or noRate).
type adaKey struct {
	ds, learner string
	j           int
}

func accuracy(env *run.Env, bin, sets, m, only string, jlo, jhi int) error {
	re, err := regexp.Compile(only)
	if err != nil {
		return fmt.Errorf("-learners: %w", err)
	}
	var ls []learner
	for _, l := range append([]learner{{"AdaGrad", nil}}, eight(m)...) {
		if l.name == "AdaGrad" || re.MatchString(l.name) {
			ls = append(ls, l)
		}
	}
	var names []string
	for _, l := range ls {
		names = append(names, l.name)
	}
	acc, dsNames, err := accuracySweep(env, bin, sets, ls, jlo, jhi)
	if err != nil {
		return err
	}
	if err := accuracyCSV(env, acc, dsNames, names, jlo, jhi); err != nil {
		return err
	}
	accuracyTable(acc, dsNames, names, m, jlo, jhi)
	if jlo <= jhi {
		etaChoice(acc, dsNames, names, jlo, jhi)
	}
	return nil
}

// accuracySweep runs the grid learners × datasets × (default η, 2^j).
// (news20 comes first in run.Datasets: the slow jobs start first.)
func accuracySweep(env *run.Env, bin, sets string, ls []learner, jlo, jhi int) (map[adaKey]float64, []string, error) {
	var dsNames, trains, tests []string
	for _, ds := range run.Datasets {
		if sets != "" && !strings.Contains(","+sets+",", ","+ds.Name+",") {
			continue
		}
		train, test, err := env.Paths(ds.Name, "vw")
		if err != nil {
			return nil, nil, err
		}
		dsNames, trains, tests = append(dsNames, ds.Name), append(trains, train), append(tests, test)
	}
	js := []int{noRate}
	for j := jlo; j <= jhi; j++ {
		js = append(js, j)
	}
	res, err := run.Grid{
		Learners: len(ls), Sets: len(dsNames),
		Js: func(int) []int { return js },
		Do: func(c run.Cell) ([]float64, error) {
			flags := append([]string{"--loss_function", "logistic"}, ls[c.Learner].flags...)
			if c.J != noRate {
				flags = append(flags, "-l", run.Pow2(c.J))
			}
			a, err := run.Accuracy(bin, trains[c.Set], tests[c.Set], flags...)
			return []float64{a}, err
		},
	}.Run()
	if err != nil {
		return nil, nil, err
	}
	acc := map[adaKey]float64{}
	for c, v := range res {
		acc[adaKey{dsNames[c.Set], ls[c.Learner].name, c.J}] = v[0]
	}
	return acc, dsNames, nil
}

// accuracyCSV writes ada_accuracy.csv.
func accuracyCSV(env *run.Env, acc map[adaKey]float64, dsNames, names []string, jlo, jhi int) error {
	var csv strings.Builder
	fmt.Fprintln(&csv, "dataset,learner,log2eta,accuracy")
	for _, ds := range dsNames {
		for _, n := range names {
			for j := jlo - 1; j <= jhi; j++ {
				jj := j
				if j < jlo {
					jj = noRate
				}
				if a, ok := acc[adaKey{ds, n, jj}]; ok {
					js := "default"
					if jj != noRate {
						js = fmt.Sprint(jj)
					}
					fmt.Fprintf(&csv, "%s,%s,%s,%.2f\n", ds, n, js, a)
					if err := env.Finite("ada accuracy "+ds+" "+n, a); err != nil {
						return err
					}
				}
			}
		}
	}
	return env.Write("ada_accuracy.csv", []byte(csv.String()))
}

// accuracyTable prints the test accuracy of each learner at its default
// η and at its best 2^j.
func accuracyTable(acc map[adaKey]float64, dsNames, names []string, m string, jlo, jhi int) {
	tau := m
	if tau == "" {
		tau = "default"
	}
	fmt.Printf("\nTest accuracy (%%), one pass, logistic loss, τ = %s: default η, and best η = 2^j (j) on the test set\n", tau)
	fmt.Printf("%-15s", "dataset")
	for _, n := range names {
		fmt.Printf(" | %-13s", n)
	}
	fmt.Println()
	for _, ds := range dsNames {
		fmt.Printf("%-15s", ds)
		for _, n := range names {
			fmt.Printf(" | %-13s", fmt.Sprintf("%.2f", acc[adaKey{ds, n, noRate}]))
		}
		fmt.Println()
		if jlo > jhi {
			continue
		}
		fmt.Printf("%-15s", "  best η")
		for _, n := range names {
			best, bj := math.Inf(-1), 0
			for j := jlo; j <= jhi; j++ {
				if a := acc[adaKey{ds, n, j}]; a > best {
					best, bj = a, j
				}
			}
			fmt.Printf(" | %-13s", fmt.Sprintf("%.2f (%d)", best, bj))
		}
		fmt.Println()
	}
}

// etaChoice prints what the default η was chosen from.
func etaChoice(acc map[adaKey]float64, dsNames, names []string, jlo, jhi int) {
	// The choice of the default η: per learner and η, the mean accuracy
	// over the sets and the shortfall against default AdaGrad on news20
	// and w8a (the acceptance sets; −2 pp is the bar).
	fmt.Printf("\nPer learner and η = 2^j: mean accuracy over the %d sets / news20 − AdaGrad / w8a − AdaGrad (pp)\n", len(dsNames))
	for _, n := range names[1:] {
		fmt.Printf("%-11s", n)
		for j := jlo; j <= jhi; j++ {
			var sum float64
			for _, ds := range dsNames {
				sum += acc[adaKey{ds, n, j}]
			}
			diff := func(ds string) float64 {
				return acc[adaKey{ds, n, j}] - acc[adaKey{ds, "AdaGrad", noRate}]
			}
			fmt.Printf(" | %d: %.2f/%+.1f/%+.1f", j, sum/float64(len(dsNames)), diff("news20"), diff("w8a"))
		}
		fmt.Println()
	}
}
