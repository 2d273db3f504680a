// Command sontune is the sweep behind the defaults of sparseson's SON
// learners: one pass of Oja-SON (m = 10, logistic loss) on every shared
// binary dataset for each α = 2^j, j = −3…12, projection bound C, to-sketch
// scale and with or without --diag. It prints, per setting, the test
// accuracy on each dataset and the mean and worst shortfall from the best
// setting of that dataset, so a default can be chosen that is never far
// from the tuned optimum.
//
//	go run ./bench/sontune [-data ../shared/data] [-out bench/out/sontune.csv]
package main

import (
	"flag"
	"fmt"
	"log"
	"math"
	"sort"
	"strings"
	"sync"

	"github.com/sparseson/sparseson/bench/internal/run"
)

func main() {
	dataDir := flag.String("data", "../shared/data", "directory of the shared datasets")
	out := flag.String("out", "bench/out/sontune.csv", "where to write every result")
	lossName := flag.String("loss", "logistic", "loss function")
	sets := flag.String("sets", "", "comma-separated datasets (default: all binary sets)")
	jlo := flag.Int("jlo", -3, "smallest log2 α")
	jhi := flag.Int("jhi", 12, "largest log2 α")
	diags := flag.String("diag", "false,true", "diag settings to sweep")
	flag.Parse()
	bin, err := run.Binary()
	if err != nil {
		log.Fatal(err)
	}
	type setting struct {
		diag  bool
		C     string
		scale string // "" = √(σ+η₀/√t) with η₀ = 1
		alpha int    // j of 2^j
	}
	var settings []setting
	for _, diag := range []bool{false, true} {
		if !strings.Contains(*diags, fmt.Sprint(diag)) {
			continue
		}
		for _, C := range []string{"1", "4", "inf"} {
			for _, scale := range []string{"", "0.5"} {
				for j := *jlo; j <= *jhi; j++ {
					settings = append(settings, setting{diag, C, scale, j})
				}
			}
		}
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
	acc := make(map[string]map[setting]float64)
	var mu sync.Mutex
	var jobs []func() error
	for _, ds := range datasets {
		acc[ds.Name] = map[setting]float64{}
		train, test := run.Paths(*dataDir, ds.Name, "vw")
		for _, s := range settings {
			ds, s := ds, s
			jobs = append(jobs, func() error {
				flags := []string{"--oja", "-m", "10", "--loss_function", *lossName, "--alpha", run.Pow2(s.alpha), "--projection", s.C}
				flags = append(flags, fmt.Sprintf("--diag=%v", s.diag))
				if s.scale != "" {
					flags = append(flags, "--sketch_scale", s.scale)
				}
				a, err := run.Accuracy(bin, train, test, flags...)
				if err != nil {
					return err
				}
				mu.Lock()
				acc[ds.Name][s] = a
				mu.Unlock()
				return nil
			})
		}
	}
	if err := run.Parallel(jobs); err != nil {
		log.Fatal(err)
	}
	var csv strings.Builder
	fmt.Fprintln(&csv, "dataset,diag,C,scale,log2alpha,accuracy")
	best := map[string]float64{}
	for _, ds := range datasets {
		for s, a := range acc[ds.Name] {
			fmt.Fprintf(&csv, "%s,%v,%s,%s,%d,%.2f\n", ds.Name, s.diag, s.C, s.scale, s.alpha, a)
			best[ds.Name] = math.Max(best[ds.Name], a)
		}
	}
	if err := run.WriteFile(*out, []byte(csv.String())); err != nil {
		log.Fatal(err)
	}
	type row struct {
		s          setting
		mean, wrst float64
	}
	var rows []row
	for _, s := range settings {
		var sum, worst float64
		for _, ds := range datasets {
			short := best[ds.Name] - acc[ds.Name][s]
			sum += short
			worst = math.Max(worst, short)
		}
		rows = append(rows, row{s, sum / float64(len(datasets)), worst})
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].mean < rows[j].mean })
	fmt.Printf("loss %s; shortfall (pp) from each dataset's best setting; best first\n", *lossName)
	fmt.Printf("%-5s %-4s %-6s %-6s %9s %9s |", "diag", "C", "scale", "alpha", "mean", "worst")
	for _, ds := range datasets {
		fmt.Printf(" %7.7s", ds.Name)
	}
	fmt.Println()
	for i, r := range rows {
		if i >= 25 {
			break
		}
		scale := r.s.scale
		if scale == "" {
			scale = "sched"
		}
		fmt.Printf("%-5v %-4s %-6s 2^%-4d %9.2f %9.2f |", r.s.diag, r.s.C, scale, r.s.alpha, r.mean, r.wrst)
		for _, ds := range datasets {
			fmt.Printf(" %7.2f", acc[ds.Name][r.s])
		}
		fmt.Println()
	}
	fmt.Printf("%-40s |", "best per dataset")
	for _, ds := range datasets {
		fmt.Printf(" %7.2f", best[ds.Name])
	}
	fmt.Println()
}
