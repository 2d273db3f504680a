// Command speed measures the per-example cost of sparseson's learners on
// news20.train (11314 examples, ~138 nonzeros each, 107k features): the
// binary reads a prebuilt example cache for several passes (no holdout),
// so the figure is dominated by learning, not by text parsing; the
// settings run in turn, -repeat rounds, and per setting the run with the
// least CPU time is kept (the machine is shared: CPU time is less
// disturbed by other work than wall time, and the rounds give every
// setting the same mix of load). It prints CPU and wall ns/example,
// examples/s, peak RSS, and the ratios the issues ask about (each learner
// against AdaGrad by CPU time, and -b 24 against -b 16).
//
//	go run ./bench/speed [-data ../shared/data] [-passes 5] [-repeat 3] [-set son|sketches|bits|ada|all]
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/sparseson/sparseson/bench/internal/run"
)

type setting struct {
	name  string
	flags []string
	bits  string
}

func main() {
	dataDir := flag.String("data", "../shared/data", "directory of the shared datasets")
	passes := flag.Int("passes", 5, "passes over the cache per timed run")
	repeat := flag.Int("repeat", 3, "timed runs per setting (the fastest is kept)")
	set := flag.String("set", "son", "which settings: son, sketches, bits, ada, all")
	kinds := flag.String("kinds", "oja,rp,fd,rfd", "sketches of the bits set")
	extra := flag.String("extra", "", "comma-separated extra settings as name=flags;flags (e.g. fd10=--fd -m 10)")
	flag.Parse()
	bin, err := run.Binary()
	if err != nil {
		log.Fatal(err)
	}
	train, _ := run.Paths(*dataDir, "news20", "vw")
	dir, err := os.MkdirTemp("", "speed")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	var settings []setting
	add := func(name, bits string, flags ...string) { settings = append(settings, setting{name, flags, bits}) }
	if *set == "son" || *set == "all" {
		add("AdaGrad", "18")
		for _, m := range []string{"0", "5", "10", "20"} {
			add("Oja m="+m, "18", "--oja", "-m", m)
		}
	}
	if *set == "sketches" || *set == "all" {
		add("AdaGrad", "18")
		add("Oja m=10", "18", "--oja", "-m", "10")
		for _, m := range []string{"5", "10", "20", "50"} {
			for _, k := range []string{"rp", "fd", "fd_fast", "rfd"} {
				add(k+" m="+m, "18", "--"+k, "-m", m)
			}
		}
	}
	if *set == "ada" || *set == "all" {
		// The FD-adaptive learners (issue 12) beside FD-SON at the same m.
		add("AdaGrad", "18")
		for _, m := range []string{"10", "20"} {
			add("fd m="+m, "18", "--fd", "-m", m)
			for _, l := range [][]string{{"ada_fd(M)", "--ada_fd"}, {"ada_fd(P)", "--ada_fd", "--dual_averaging"}, {"ftsl", "--ftsl"}, {"sada", "--sada"},
				{"ada_ffd(M)", "--ada_ffd"}, {"ada_ffd(P)", "--ada_ffd", "--dual_averaging"}, {"ftfsl", "--ftfsl"}, {"sada_fast", "--sada_fast"}} {
				add(l[0]+" m="+m, "18", append(l[1:], "-m", m)...)
			}
		}
	}
	if *set == "bits" || *set == "all" {
		for _, b := range []string{"16", "18", "20", "22", "24"} {
			add("AdaGrad", b)
			for _, k := range strings.Split(*kinds, ",") {
				add(k+" m=10", b, "--"+k, "-m", "10")
			}
		}
	}
	for _, e := range strings.Split(*extra, ",") {
		if name, flags, ok := strings.Cut(e, "="); ok {
			add(name, "18", strings.Fields(flags)...)
		}
	}

	caches := map[string]string{}
	for _, s := range settings {
		if _, ok := caches[s.bits]; ok {
			continue
		}
		cache := filepath.Join(dir, "news20.b"+s.bits+".cache")
		if _, err := run.Exec(bin, "--quiet", "-b", s.bits, "--cache_file", cache, train); err != nil {
			log.Fatal(err)
		}
		caches[s.bits] = cache
	}
	// The settings run round-robin, -repeat rounds, so that each sees the
	// same mix of load on a shared machine; per setting the run with the
	// least CPU time (user + system) is kept, and its wall time shown too.
	best := make([]*run.Result, len(settings))
	examples := make([]float64, len(settings))
	for r := 0; r < *repeat; r++ {
		for i, s := range settings {
			args := append([]string{"--loss_function", "logistic", "-b", s.bits, "--cache_file", caches[s.bits], "--passes", fmt.Sprint(*passes), "--holdout_off", "-P", "1e12"}, s.flags...)
			res, err := run.Exec(bin, append(args, train)...)
			if err != nil {
				log.Fatal(err)
			}
			if best[i] == nil || res.CPU < best[i].CPU {
				best[i] = res
			}
			var per float64
			n, ok := res.Summary["number of examples per pass"]
			if !ok {
				n = res.Summary["number of examples"] // one pass
			}
			fmt.Sscan(n, &per)
			examples[i] = per * float64(*passes)
		}
	}
	fmt.Printf("news20.train, %d passes over the example cache, %d rounds of every setting in turn, the run with the least CPU time kept; logistic loss\n", *passes, *repeat)
	fmt.Printf("%-16s %3s %12s %12s %12s %10s %9s\n", "learner", "-b", "CPU ns/ex", "wall ns/ex", "examples/s", "peak RSS", "vs AdaGrad")
	adagrad := map[string]float64{}
	fdAt := map[string]float64{} // FD-SON's CPU ns/example per "m=…" (ada set)
	for i, s := range settings {
		ns := float64(best[i].CPU.Nanoseconds()) / examples[i]
		wall := float64(best[i].Wall.Nanoseconds()) / examples[i]
		if s.name == "AdaGrad" {
			adagrad[s.bits] = ns
		}
		ratio := ""
		if a := adagrad[s.bits]; a > 0 && s.name != "AdaGrad" {
			ratio = fmt.Sprintf("%.2f×", ns/a)
		}
		vsFD := ""
		if _, m, ok := strings.Cut(s.name, " m="); ok && *set == "ada" {
			if strings.HasPrefix(s.name, "fd ") {
				fdAt[m] = ns
			} else if f := fdAt[m]; f > 0 {
				vsFD = fmt.Sprintf("%.2f× FD-SON", ns/f)
			}
		}
		fmt.Printf("%-16s %3s %12.0f %12.0f %12.0f %8.1fMB %9s %s\n", s.name, s.bits, ns, wall, 1e9/wall, float64(best[i].MaxRSS)/1024, ratio, vsFD)
	}
}
