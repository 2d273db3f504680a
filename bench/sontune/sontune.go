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
	"sync"

	"github.com/sparseson/sparseson/bench/internal/run"
)

// Main runs the suite with its command-line arguments.
func Main(env *run.Env, args []string) error {
	fs := flag.NewFlagSet("sontune", flag.ContinueOnError)
	env.Register(fs)
	lossName := fs.String("loss", "logistic", "loss function")
	sets := fs.String("sets", "", "comma-separated datasets (default: all binary sets)")
	sketches := fs.String("sketches", "oja,fd,rp", "comma-separated sketches")
	m := fs.String("m", "10", "sketch size")
	jlo := fs.Int("jlo", -6, "smallest log2 α₀")
	jhi := fs.Int("jhi", 4, "largest log2 α₀")
	shuffles := fs.Int("shuffles", 10, "random training orders averaged on the small sets")
	small := fs.Int("small", 1000, "training sets with fewer examples are small")
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
	if *sets != "" {
		datasets = nil
		for _, d := range run.Datasets {
			if strings.Contains(","+*sets+",", ","+d.Name+",") {
				datasets = append(datasets, d)
			}
		}
	}
	const def = math.MinInt // the default's "j"
	type key struct {
		sketch, set string
		j           int
	}
	tmp, err := os.MkdirTemp(env.Temp(), "sontune")
	if err != nil {
		return err
	}
	trains := map[string][]string{}
	for _, ds := range datasets {
		train, _, err := env.Paths(ds.Name, "vw")
		if err != nil {
			return err
		}
		n, err := run.Lines(train)
		if err != nil {
			return err
		}
		if n >= *small || *shuffles < 1 {
			trains[ds.Name] = []string{train}
			continue
		}
		for k := 1; k <= *shuffles; k++ {
			p, err := run.Shuffled(train, tmp, uint64(k))
			if err != nil {
				return err
			}
			trains[ds.Name] = append(trains[ds.Name], p)
		}
	}
	acc := map[key]float64{}
	var mu sync.Mutex
	var jobs []func() error
	sks := strings.Split(*sketches, ",")
	for _, sk := range sks {
		for _, ds := range datasets {
			_, test, err := env.Paths(ds.Name, "vw")
			if err != nil {
				return err
			}
			for j := *jlo - 1; j <= *jhi; j++ {
				k := key{sk, ds.Name, j}
				if j == *jlo-1 {
					k.j = def
				}
				for _, train := range trains[ds.Name] {
					n := float64(len(trains[ds.Name]))
					jobs = append(jobs, func() error {
						flags := []string{"--" + k.sketch, "-m", *m, "--loss_function", *lossName}
						if k.j != def {
							flags = append(flags, "--alpha", run.Pow2(k.j))
						}
						a, err := run.Accuracy(bin, train, test, flags...)
						if err != nil {
							return err
						}
						mu.Lock()
						acc[k] += a / n
						mu.Unlock()
						return nil
					})
				}
			}
		}
	}
	if err := run.Parallel(jobs); err != nil {
		return err
	}
	var csv strings.Builder
	fmt.Fprintln(&csv, "sketch,dataset,log2alpha0,accuracy")
	for _, sk := range sks {
		for _, ds := range datasets {
			for j := *jlo - 1; j <= *jhi; j++ {
				k, name := key{sk, ds.Name, j}, fmt.Sprint(j)
				if j == *jlo-1 {
					k.j, name = def, "default"
				}
				fmt.Fprintf(&csv, "%s,%s,%s,%.2f\n", sk, ds.Name, name, acc[k])
				if err := env.Finite("sontune "+sk+" "+ds.Name, acc[k]); err != nil {
					return err
				}
			}
		}
	}
	if err := env.Write("sontune.csv", []byte(csv.String())); err != nil {
		return err
	}
	fmt.Printf("Test accuracy (%%), one pass, %s loss, m = %s: the default (α₀ from the data) against the best fixed α₀ = 2^j, j = %d…%d (j in parentheses); sets under %d training examples: mean over %d training orders\n\n", *lossName, *m, *jlo, *jhi, *small, *shuffles)
	for _, sk := range sks {
		fmt.Printf("%s:\n| dataset | default | best fixed α₀ | gap |\n|---|---|---|---|\n", sk)
		within, worst := 0, math.Inf(-1)
		for _, ds := range datasets {
			d := acc[key{sk, ds.Name, def}]
			bj := *jlo
			for j := *jlo; j <= *jhi; j++ {
				if acc[key{sk, ds.Name, j}] > acc[key{sk, ds.Name, bj}] {
					bj = j
				}
			}
			b := acc[key{sk, ds.Name, bj}]
			gap := b - d
			if gap <= 0.5 {
				within++
			}
			worst = math.Max(worst, gap)
			fmt.Printf("| %s | %.2f | %.2f (%d) | %+.2f |\n", ds.Name, d, b, bj, -gap)
		}
		fmt.Printf("\nwithin 0.5 pp of the best fixed α₀ on %d of %d datasets; largest shortfall %.2f pp\n\n", within, len(datasets), math.Max(worst, 0))
	}
	return nil
}
