// Command bench runs sparseson's reproducible benchmarks and paper
// reproductions, one suite at a time or all of them:
//
//	go run ./bench <suite> [flags]     one suite (flags: go run ./bench <suite> -h)
//	go run ./bench all                 the tables and figures behind BENCHMARKS.md (allSteps in all.go); writes it
//	go run ./bench --quick             every suite on tiny inputs, asserting finite outputs (CI); needs no shared data
//
// The suites (papers by short form; the full references are in
// docs/references.md and in each suite's package doc):
//
//	speed      ns/example, median and spread, peak RSS of each learner on news20 (cache, and ×10 as text) and the synthetic sets; the -b sweep; parse throughput
//	accuracy   test accuracy of every learner on every shared binary set (Luo et al. (JMLR 2019), Table 2, issue 4)
//	figures    the papers' figures as PNG and SVG (figures.go): Luo et al. (NIPS 2016), Fig. 1, Luo et al.'s (JMLR 2019) spectral error, Wan & Zhang (TPAMI 2022), §5.2, Ouyang & Gray (KDD 2012), Fig. 1, Yang et al.'s (ICML 2025) comparison, ns/example vs m and vs -b
//	synthetic  Luo et al. (NIPS 2016), §5.1: progressive error vs condition number κ
//	spectral   Luo et al. (JMLR 2019), §6.1: relative spectral error of FD and RFD against sketch size
//	sontune    the sweep behind SON's default α, C and to-sketch scale
//	nasa       NASA, Ouyang & Gray (KDD 2012): §6.1, §6.2, §6.3.1, Table 1, --nasa_c's sweep and acceptance
//	multiclass 20-class news20: test error, cost and RSS of the OAA learners and softmax, -l sweep, OAA vs K × binary cost
//	news20mc   writes 20-class news20 VW files (and the bundled testdata slice)
//	ada        the FD-adaptive learners (Wan & Zhang (TPAMI 2022) and Yang et al. (ICML 2025)): accuracy and default η, Wan & Zhang (TPAMI 2022), §5.2, Yang et al.'s (ICML 2025) comparison
//
// Every suite shares one flag and I/O layer (bench/internal/run.Env):
// -data DIR (default ../shared/data) is where the shared datasets are
// read from, -out DIR (default bench/out) where CSV files and figures are
// written, and --quick swaps every input for its first few hundred lines
// and every sweep for one setting; its inputs are bundled in
// testdata/quick (run.QuickData), so that it runs on a fresh clone. The suites run the sparseson binary,
// built once per run from ./cmd/sparseson, so they measure exactly what a
// user gets; run them from the repository root. The real datasets are
// developer data and are not part of the repository.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/sparseson/sparseson/bench/accuracy"
	"github.com/sparseson/sparseson/bench/ada"
	"github.com/sparseson/sparseson/bench/figures"
	"github.com/sparseson/sparseson/bench/internal/run"
	"github.com/sparseson/sparseson/bench/multiclass"
	"github.com/sparseson/sparseson/bench/nasa"
	"github.com/sparseson/sparseson/bench/news20mc"
	"github.com/sparseson/sparseson/bench/sontune"
	"github.com/sparseson/sparseson/bench/spectral"
	"github.com/sparseson/sparseson/bench/speed"
	"github.com/sparseson/sparseson/bench/synthetic"
)

// suite is one entry of the dispatcher.
type suite struct {
	name string
	main func(env *run.Env, args []string) error
}

var suites = []suite{
	{"speed", speed.Main},
	{"accuracy", accuracy.Main},
	{"figures", figures.Main},
	{"synthetic", synthetic.Main},
	{"spectral", spectral.Main},
	{"sontune", sontune.Main},
	{"nasa", nasa.Main},
	{"multiclass", multiclass.Main},
	{"news20mc", news20mc.Main},
	{"ada", ada.Main},
}

func main() {
	if err := dispatch(os.Args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		fmt.Fprintf(os.Stderr, "bench: %v\n", err)
		os.Exit(1)
	}
}

func dispatch(args []string) error {
	env := run.NewEnv()
	defer env.Close()
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	env.Register(fs)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: go run ./bench [-data DIR] [-out DIR] [--quick] <suite|all> [suite flags]\nsuites:")
		for _, s := range suites {
			fmt.Fprintf(fs.Output(), " %s", s.name)
		}
		fmt.Fprintln(fs.Output())
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	rest := fs.Args()
	if len(rest) == 0 {
		if !env.Quick {
			fs.Usage()
			return errors.New("no suite named (all runs every one; --quick alone smoke-tests every one)")
		}
		return quick(env)
	}
	name, sargs := rest[0], rest[1:]
	if name == "all" {
		return all(env, sargs)
	}
	for _, s := range suites {
		if s.name == name {
			return s.main(env, sargs)
		}
	}
	return fmt.Errorf("unknown suite %q", name)
}

// quick runs every suite on tiny inputs; each asserts (run.Env.Finite)
// that what it reports is a finite number. Beside each suite's wall time
// it prints the CPU time it took (this process and the runs it started):
// on a shared machine the wall time says more about the load.
func quick(env *run.Env) error {
	start, cpu0 := time.Now(), cpuTime()
	if err := env.Start(); err != nil {
		return err
	}
	fmt.Printf("quick: data from %s\n", env.Data)
	for _, s := range suites {
		t, c := time.Now(), cpuTime()
		// The suites' tables go to stdout; a quick run shows only its verdicts.
		restore, err := silence()
		if err != nil {
			return err
		}
		err = s.main(env, nil)
		restore()
		if err != nil {
			return fmt.Errorf("--quick %s: %w", s.name, err)
		}
		fmt.Printf("quick %-10s ok  %5.1fs  (CPU %5.1fs)\n", s.name, time.Since(t).Seconds(), (cpuTime() - c).Seconds())
	}
	fmt.Printf("quick: every suite ran, %d numbers checked finite, %.0fs (CPU %.0fs, load average %s)\n", env.Checked(), time.Since(start).Seconds(), (cpuTime() - cpu0).Seconds(), loadAvg())
	return nil
}

// cpuTime is the user and system time of this process and of the
// children it has waited for.
func cpuTime() time.Duration {
	var t time.Duration
	for _, who := range []int{syscall.RUSAGE_SELF, syscall.RUSAGE_CHILDREN} {
		var ru syscall.Rusage
		if syscall.Getrusage(who, &ru) == nil {
			t += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		}
	}
	return t
}

// silence sends stdout to /dev/null until restore is called.
func silence() (restore func(), err error) {
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		return nil, err
	}
	saved := os.Stdout
	os.Stdout = null
	return func() { os.Stdout = saved; null.Close() }, nil
}

// capture runs fn with stdout copied into a buffer as well, and returns
// what it printed.
func capture(fn func() error) (string, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return "", err
	}
	saved := os.Stdout
	os.Stdout = w
	var buf strings.Builder
	done := make(chan struct{})
	go func() {
		io.Copy(io.MultiWriter(saved, &buf), r)
		close(done)
	}()
	err = fn()
	w.Close()
	<-done
	os.Stdout = saved
	r.Close()
	return buf.String(), err
}
