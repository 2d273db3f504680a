package main

import (
	"fmt"
	"math"
	"sync"

	"github.com/sparseson/sparseson/bench/internal/run"
)

// tuneGrid is the c = 2^j of -part tune.
var tuneGrid = []int{-4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6}

// tune trains --nasa (per feature, the default learner's) and the paper's
// scalar --nasa --sgd at each c = 2^j for one pass on every shared binary
// set (logistic loss) and prints test accuracies, their mean over the sets
// and AdaGrad's (no flags) for reference. --nasa_c's default is the c of
// the best mean accuracy of --nasa.
func tune(bin, dataDir string) error {
	type key struct {
		ds, variant string
		j           int
	}
	variants := []struct {
		name  string
		flags []string
	}{{"--nasa", []string{"--nasa"}}, {"--nasa --sgd", []string{"--nasa", "--sgd"}}}
	var mu sync.Mutex
	acc := map[key]float64{}
	adagrad := map[string]float64{}
	var jobs []func() error
	for _, ds := range run.Datasets {
		train, test := run.Paths(dataDir, ds.Name, "vw")
		ds := ds.Name
		jobs = append(jobs, func() error {
			a, err := run.Accuracy(bin, train, test, "--loss_function", "logistic")
			mu.Lock()
			adagrad[ds] = a
			mu.Unlock()
			return err
		})
		for _, v := range variants {
			for _, j := range tuneGrid {
				v, j := v, j
				jobs = append(jobs, func() error {
					flags := append([]string{"--loss_function", "logistic", "--nasa_c", run.Pow2(j)}, v.flags...)
					a, err := run.Accuracy(bin, train, test, flags...)
					mu.Lock()
					acc[key{ds, v.name, j}] = a
					mu.Unlock()
					return err
				})
			}
		}
	}
	if err := run.Parallel(jobs); err != nil {
		return err
	}
	for _, v := range variants {
		fmt.Printf("\nTest accuracy (%%) of %s, logistic loss, one pass, c = 2^j\n%-15s %8s", v.name, "dataset", "AdaGrad")
		for _, j := range tuneGrid {
			fmt.Printf(" %6s", fmt.Sprintf("j=%d", j))
		}
		fmt.Println()
		mean := map[int]float64{}
		var meanAda float64
		for _, ds := range run.Datasets {
			fmt.Printf("%-15s %8.2f", ds.Name, adagrad[ds.Name])
			meanAda += adagrad[ds.Name] / float64(len(run.Datasets))
			for _, j := range tuneGrid {
				a := acc[key{ds.Name, v.name, j}]
				mean[j] += a / float64(len(run.Datasets))
				fmt.Printf(" %6.2f", a)
			}
			fmt.Println()
		}
		fmt.Printf("%-15s %8.2f", "mean", meanAda)
		bestJ, bestMean := 0, math.Inf(-1)
		for _, j := range tuneGrid {
			fmt.Printf(" %6.2f", mean[j])
			if mean[j] > bestMean {
				bestJ, bestMean = j, mean[j]
			}
		}
		fmt.Printf("\nbest mean: c = 2^%d (%.2f%%, AdaGrad %.2f%%)\n", bestJ, bestMean, meanAda)
	}
	return nil
}

// accept measures the acceptance: --nasa at its default c, logistic
// loss, one pass, against AdaGrad (no flags) on news20 and w8a. The speed
// figure comes from go run ./bench/speed -set none -extra "NASA=--nasa".
func accept(bin, dataDir string) error {
	fmt.Printf("\nAcceptance: test accuracy (%%), logistic loss, one pass (train -f, then -t -i --binary)\n%-8s %8s %8s %8s\n", "dataset", "AdaGrad", "--nasa", "diff")
	for _, ds := range []string{"news20", "w8a"} {
		train, test := run.Paths(dataDir, ds, "vw")
		a, err := run.Accuracy(bin, train, test, "--loss_function", "logistic")
		if err != nil {
			return err
		}
		b, err := run.Accuracy(bin, train, test, "--loss_function", "logistic", "--nasa")
		if err != nil {
			return err
		}
		fmt.Printf("%-8s %8.2f %8.2f %+8.2f\n", ds, a, b, b-a)
	}
	return nil
}
