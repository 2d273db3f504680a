// Package sontune is the sontune suite of go run ./bench; it checks the
// SON learners' untuned default against tuning: one pass (logistic loss by
// default) over every shared binary dataset, for each sketch, of the
// default configuration (pre-scaling with the scaled-space sketch, α₀
// derived from the data; son/scaled.go) and of the same configuration
// with α₀ fixed to 2^j for every j in [jlo, jhi]. It prints, per dataset,
// the default's test accuracy, the best fixed α₀ (chosen on the test set
// itself, which flatters it) and the gap, then how many datasets the
// default is within 0.5 pp of that best and its worst gap. On the small
// sets (fewer than -small training examples: ionosphere, sonar,
// breast_cancer, pima, heart_scale) every accuracy is the mean over
// -shuffles random orders of the training set, since there one test
// example is worth 1.4–2.4 points and the order of one pass moves the
// result by more than that (MANIFEST.md); the other sets run in their
// given order.
//
// Every result is written to -out as sontune.csv.
//
//	go run ./bench sontune [-data ../shared/data] [-sketches oja,fd,rp] [-shuffles 10] [-out bench/out]
package sontune

import (
	"flag"
	"fmt"
	"math"
	"os"
	"strings"

	"github.com/sparseson/sparseson/bench/internal/run"
)

// options are the suite's flags.
type options struct {
	lossName, sets, sketches, m string
	jlo, jhi, shuffles, small   int
}

// Main runs the suite with its command-line arguments.
func Main(env *run.Env, args []string) error {
	fs := flag.NewFlagSet("sontune", flag.ContinueOnError)
	env.Register(fs)
	var o options
	fs.StringVar(&o.lossName, "loss", "logistic", "loss function")
	fs.StringVar(&o.sets, "sets", "", "comma-separated datasets (default: all binary sets)")
	fs.StringVar(&o.sketches, "sketches", "oja,fd,rp", "comma-separated sketches")
	fs.StringVar(&o.m, "m", "10", "sketch size")
	fs.IntVar(&o.jlo, "jlo", -6, "smallest log2 α₀")
	fs.IntVar(&o.jhi, "jhi", 4, "largest log2 α₀")
	fs.IntVar(&o.shuffles, "shuffles", 10, "random training orders averaged on the small sets")
	fs.IntVar(&o.small, "small", 1000, "training sets with fewer examples are small")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := env.Start(); err != nil {
		return err
	}
	if err := env.QuickDefaults(fs, map[string]string{"sets": "heart_scale", "sketches": "oja", "jlo": "0", "jhi": "0", "shuffles": "1"}); err != nil {
		return err
	}
	bin, err := env.Bin()
	if err != nil {
		return err
	}
	datasets := run.Datasets
	if o.sets != "" {
		datasets = nil
		for _, d := range run.Datasets {
			if strings.Contains(","+o.sets+",", ","+d.Name+",") {
				datasets = append(datasets, d)
			}
		}
	}
	trains, err := orders(env, datasets, o)
	if err != nil {
		return err
	}
	sks := strings.Split(o.sketches, ",")
	acc, err := sweep(env, bin, o, sks, datasets, trains)
	if err != nil {
		return err
	}
	if err := writeCSV(env, o, sks, datasets, acc); err != nil {
		return err
	}
	report(o, sks, datasets, acc)
	return nil
}

// orders returns the training files of each dataset: the file itself, or
// on the small sets -shuffles random orders of it.
func orders(env *run.Env, datasets []run.Dataset, o options) ([][]string, error) {
	tmp, err := os.MkdirTemp(env.Temp(), "sontune")
	if err != nil {
		return nil, err
	}
	trains := make([][]string, len(datasets))
	for i, ds := range datasets {
		train, _, err := env.Paths(ds.Name, "vw")
		if err != nil {
			return nil, err
		}
		n, err := run.Lines(train)
		if err != nil {
			return nil, err
		}
		if n >= o.small || o.shuffles < 1 {
			trains[i] = []string{train}
			continue
		}
		for k := 1; k <= o.shuffles; k++ {
			p, err := run.Shuffled(train, tmp, uint64(k))
			if err != nil {
				return nil, err
			}
			trains[i] = append(trains[i], p)
		}
	}
	return trains, nil
}

// accuracies is the mean test accuracy per (sketch, dataset, j), j =
// run.Default for the default α₀, over the dataset's training orders.
type accuracies func(sketch, set, j int) float64

// sweep runs the grid sketches × datasets × orders × (default, α₀ = 2^j).
func sweep(env *run.Env, bin string, o options, sks []string, datasets []run.Dataset, trains [][]string) (accuracies, error) {
	tests := make([]string, len(datasets))
	for i, ds := range datasets {
		_, test, err := env.Paths(ds.Name, "vw")
		if err != nil {
			return nil, err
		}
		tests[i] = test
	}
	js := []int{run.Default}
	for j := o.jlo; j <= o.jhi; j++ {
		js = append(js, j)
	}
	res, err := run.Grid{
		Learners: len(sks), Sets: len(datasets),
		Orders: func(s int) int { return len(trains[s]) },
		Js:     func(int) []int { return js },
		Do: func(c run.Cell) ([]float64, error) {
			flags := []string{"--" + sks[c.Learner], "-m", o.m, "--loss_function", o.lossName}
			if c.J != run.Default {
				flags = append(flags, "--alpha", run.Pow2(c.J))
			}
			a, err := run.Accuracy(bin, trains[c.Set][c.Order], tests[c.Set], flags...)
			return []float64{a}, err
		},
	}.Run()
	if err != nil {
		return nil, err
	}
	return func(sk, set, j int) float64 { return res.Mean(sk, set, j, len(trains[set]), 0) }, nil
}

// writeCSV writes sontune.csv, checking under --quick that every accuracy
// is finite.
func writeCSV(env *run.Env, o options, sks []string, datasets []run.Dataset, acc accuracies) error {
	var csv strings.Builder
	fmt.Fprintln(&csv, "sketch,dataset,log2alpha0,accuracy")
	for si, sk := range sks {
		for di, ds := range datasets {
			for j := o.jlo - 1; j <= o.jhi; j++ {
				jj, name := j, fmt.Sprint(j)
				if j == o.jlo-1 {
					jj, name = run.Default, "default"
				}
				a := acc(si, di, jj)
				fmt.Fprintf(&csv, "%s,%s,%s,%.2f\n", sk, ds.Name, name, a)
				if err := env.Finite("sontune "+sk+" "+ds.Name, a); err != nil {
					return err
				}
			}
		}
	}
	return env.Write("sontune.csv", []byte(csv.String()))
}

// report prints, per sketch, the default against the best fixed α₀.
func report(o options, sks []string, datasets []run.Dataset, acc accuracies) {
	fmt.Printf("Test accuracy (%%), one pass, %s loss, m = %s: the default (α₀ from the data) against the best fixed α₀ = 2^j, j = %d…%d (j in parentheses); sets under %d training examples: mean over %d training orders\n\n", o.lossName, o.m, o.jlo, o.jhi, o.small, o.shuffles)
	for si, sk := range sks {
		fmt.Printf("%s:\n| dataset | default | best fixed α₀ | gap |\n|---|---|---|---|\n", sk)
		within, worst := 0, math.Inf(-1)
		for di, ds := range datasets {
			d := acc(si, di, run.Default)
			bj := o.jlo
			for j := o.jlo; j <= o.jhi; j++ {
				if acc(si, di, j) > acc(si, di, bj) {
					bj = j
				}
			}
			b := acc(si, di, bj)
			gap := b - d
			if gap <= 0.5 {
				within++
			}
			worst = math.Max(worst, gap)
			fmt.Printf("| %s | %.2f | %.2f (%d) | %+.2f |\n", ds.Name, d, b, bj, -gap)
		}
		fmt.Printf("\nwithin 0.5 pp of the best fixed α₀ on %d of %d datasets; largest shortfall %.2f pp\n\n", within, len(datasets), math.Max(worst, 0))
	}
}
