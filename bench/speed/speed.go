// Package speed is the speed suite of go run ./bench: it measures the
// per-example cost of sparseson's learners on news20.train (11314
// examples, ~138 nonzeros each, 107k features): the binary reads a
// prebuilt example cache for several passes (no holdout), so the figure is
// dominated by learning, not by text parsing; the settings run in turn,
// -repeat rounds, and per setting the run with the least CPU time is kept
// (the machine is shared: CPU time is less disturbed by other work than
// wall time, and the rounds give every setting the same mix of load). It
// prints CPU and wall ns/example, examples/s, peak RSS, and the ratios the
// issues ask about (each learner against AdaGrad by CPU time, and -b 24
// against -b 16).
//
// Besides the least CPU time it reports the median of the rounds and
// their spread (max − min over median). -set m is the sketch-size sweep
// drawn as a figure (Oja, FD, RFD, RP at m = 5…50), -set learners every
// learner at m ∈ {0, 5, 10, 20, 50} where m applies, and -set parse the
// parse throughput of plain, gzip and zstd VW text (parse.go). -set text
// and -set synthetic time the main learners at m = 10 reading text in one
// pass, parsing included (text.go): news20.train concatenated -copies
// times as VW text, and the synthetic suite's rotated and scaled sets
// (Luo et al. (NIPS 2016), §5.1, κ = 100, T = 10000, d = 100 dense) concatenated
// -synth_copies times as LIBSVM text, with MB/s of text. -set vw (and
// -set text) times the rows of issue 27's comparison — the default
// learner on the news20 text plain and gzip'd, Oja-SON m = 10, and
// prediction (-t) — with sparseson and with the Vowpal Wabbit binary
// that the environment variable VW names, alternated, with the ratios
// (vw.go); without VW it says it skipped them. Each table is also written
// to -out as speed_<set>.csv.
//
//	go run ./bench speed [-data ../shared/data] [-passes 5] [-repeat 3] [-set son|sketches|bits|ada|m|learners|parse|text|synthetic|vw|all]
package speed

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/sparseson/sparseson/bench/internal/run"
)

type setting struct {
	name  string
	flags []string
	bits  string
	in    *input // nil: news20.train from the example cache, -passes passes
}

// input is a text file a setting reads in one pass without a cache, so
// that its time includes parsing (the text and synthetic sets, text.go).
type input struct {
	label, path string
	mb          float64 // size of the text, MB
}

// Main runs the suite with its command-line arguments.
func Main(env *run.Env, args []string) error {
	fs := flag.NewFlagSet("speed", flag.ContinueOnError)
	env.Register(fs)
	passes := fs.Int("passes", 5, "passes over the cache per timed run")
	repeat := fs.Int("repeat", 3, "timed runs per setting (the fastest is kept)")
	set := fs.String("set", "son", "which settings: son, sketches, bits, ada, m, learners, parse, text, synthetic, vw, all")
	copies := fs.Int("copies", 10, "text: copies of news20.train concatenated into the text read in one pass")
	synthCopies := fs.Int("synth_copies", 10, "synthetic: copies of each synthetic set (T = 10000) concatenated into the text read in one pass")
	kinds := fs.String("kinds", "oja,rp,fd,rfd", "sketches of the bits set")
	extra := fs.String("extra", "", "comma-separated extra settings as name=flags;flags (e.g. fd10=--fd -m 10)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := env.Start(); err != nil {
		return err
	}
	bin, err := env.Bin()
	if err != nil {
		return err
	}
	train, _, err := env.Paths("news20", "vw")
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp(env.Temp(), "speed")
	if err != nil {
		return err
	}
	// --quick: one setting of each kind, one round: the suite's plumbing, not its figures.
	if err := env.QuickDefaults(fs, map[string]string{"set": "quick", "passes": "1", "repeat": "1"}); err != nil {
		return err
	}

	var settings []setting
	// add returns the new setting, so that the text sets can name their input.
	add := func(name, bits string, flags ...string) *setting {
		settings = append(settings, setting{name, flags, bits, nil})
		return &settings[len(settings)-1]
	}
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
	if *set == "m" {
		// The figure of ns/example against m: AdaGrad (no sketch) as the
		// flat line, each sketch at m = 5…50.
		add("AdaGrad", "18")
		for _, k := range []string{"oja", "fd", "rfd", "rp"} {
			for _, m := range []string{"5", "10", "20", "50"} {
				add(k+" m="+m, "18", "--"+k, "-m", m)
			}
		}
	}
	if *set == "learners" {
		// Every learner at its defaults, at m ∈ {0, 5, 10, 20, 50} where m applies.
		add("AdaGrad", "18")
		add("NASA", "18", "--nasa")
		add("SON m=0", "18", "-m", "0")
		for _, m := range []string{"5", "10", "20", "50"} {
			for _, k := range []string{"oja", "fd", "rfd", "rp", "ada_fd", "ftsl", "sada"} {
				add(k+" m="+m, "18", "--"+k, "-m", m)
			}
		}
	}
	if *set == "quick" {
		add("AdaGrad", "18")
		add("oja m=5", "18", "--oja", "-m", "5")
		add("AdaGrad", "20")
	}
	var news *input // news20 as text, written once for the text and vw sets
	if *set == "text" || *set == "quick" {
		if news, err = newsText(env, train, dir, *copies); err != nil {
			return err
		}
		textLearners(add, news)
	}
	if *set == "vw" || *set == "text" || *set == "quick" {
		// The same rows against a VW binary when VW=path names one.
		vw := os.Getenv("VW")
		var plain, gz string
		if vw != "" {
			if news == nil {
				if news, err = newsText(env, train, dir, *copies); err != nil {
					return err
				}
			}
			plain, gz = news.path, news.path+".gz"
			if err := gzipCopy(plain, gz); err != nil {
				return err
			}
		}
		csv, err := compareVW(os.Stdout, bin, vw, plain, gz, *repeat)
		if err != nil {
			return err
		}
		if csv != "" {
			if err := env.Write("speed_vw.csv", []byte(csv)); err != nil {
				return err
			}
		}
		if *set == "vw" {
			return nil
		}
	}
	if *set == "synthetic" || *set == "quick" {
		ins, err := synthText(env, dir, *synthCopies)
		if err != nil {
			return err
		}
		for _, in := range ins {
			textLearners(add, in)
		}
	}
	if *set == "parse" || *set == "all" || *set == "quick" {
		if err := parse(env, bin, train, dir, *repeat); err != nil {
			return err
		}
		if *set == "parse" {
			return nil
		}
	}
	if *set == "bits" || *set == "all" {
		for _, b := range []string{"16", "18", "20", "22", "24", "26", "28", "30"} {
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
		if _, ok := caches[s.bits]; ok || s.in != nil {
			continue
		}
		cache := filepath.Join(dir, "news20.b"+s.bits+".cache")
		if _, err := run.Exec(bin, "--quiet", "-b", s.bits, "--cache_file", cache, train); err != nil {
			return err
		}
		caches[s.bits] = cache
	}
	// The settings run round-robin, -repeat rounds, so that each sees the
	// same mix of load on a shared machine; per setting the run with the
	// least CPU time (user + system) is kept, and its wall time shown too.
	best := make([]*run.Result, len(settings))
	cpus := make([][]time.Duration, len(settings)) // every round's CPU time
	examples := make([]float64, len(settings))
	for r := 0; r < *repeat; r++ {
		for i, s := range settings {
			args := append([]string{"--loss_function", "logistic", "-b", s.bits, "--cache_file", caches[s.bits], "--passes", fmt.Sprint(*passes), "--holdout_off", "-P", "1e12"}, s.flags...)
			args = append(args, train)
			np := *passes
			if s.in != nil {
				args, np = append(append([]string{"--loss_function", "logistic", "-b", s.bits, "-P", "1e12"}, s.flags...), s.in.path), 1
			}
			res, err := run.Exec(bin, args...)
			if err != nil {
				return err
			}
			cpus[i] = append(cpus[i], res.CPU)
			if best[i] == nil || res.CPU < best[i].CPU {
				best[i] = res
			}
			var per float64
			n, ok := res.Summary["number of examples per pass"]
			if !ok {
				n = res.Summary["number of examples"] // one pass
			}
			fmt.Sscan(n, &per)
			examples[i] = per * float64(np)
		}
	}
	text := slices.ContainsFunc(settings, func(s setting) bool { return s.in != nil })
	if text {
		fmt.Printf("VW/LIBSVM text read in one pass without a cache (parsing included: the parser runs on its own threads, so CPU time counts it and wall time overlaps it), %d rounds of every setting in turn, the run with the least CPU time kept; logistic loss; MB/s of text by wall time\n", *repeat)
	} else {
		fmt.Printf("news20.train, %d passes over the example cache, %d rounds of every setting in turn, the run with the least CPU time kept; logistic loss\n", *passes, *repeat)
	}
	fmt.Printf("%-16s %3s %12s %12s %12s %10s %9s %12s %7s", "learner", "-b", "CPU ns/ex", "wall ns/ex", "examples/s", "peak RSS", "vs AdaGrad", "median CPU", "spread")
	if text {
		fmt.Printf(" %8s  %s", "MB/s", "data")
	}
	fmt.Println()
	var csv strings.Builder
	fmt.Fprintln(&csv, "learner,bits,cpu_ns_min,cpu_ns_median,cpu_ns_max,wall_ns,peak_rss_mb,rounds,data,text_mbps")
	adagrad := map[string]float64{} // per data and -b
	fdAt := map[string]float64{}    // FD-SON's CPU ns/example per "m=…" (ada set)
	for i, s := range settings {
		ns := float64(best[i].CPU.Nanoseconds()) / examples[i]
		wall := float64(best[i].Wall.Nanoseconds()) / examples[i]
		label, mbps := "news20 cache", 0.0
		if s.in != nil {
			label, mbps = s.in.label, s.in.mb/best[i].Wall.Seconds()
		}
		if s.name == "AdaGrad" {
			adagrad[label+s.bits] = ns
		}
		ratio := ""
		if a := adagrad[label+s.bits]; a > 0 && s.name != "AdaGrad" {
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
		med, lo, hi := spread(cpus[i])
		medNs, rel := float64(med.Nanoseconds())/examples[i], 0.0
		if med > 0 {
			rel = float64(hi-lo) / float64(med)
		}
		rss := float64(best[i].MaxRSS) / 1024
		fmt.Printf("%-16s %3s %12.0f %12.0f %12.0f %8.1fMB %9s %12.0f %6.1f%%", s.name, s.bits, ns, wall, 1e9/wall, rss, ratio, medNs, 100*rel)
		if text && s.in != nil {
			fmt.Printf(" %8.1f  %s", mbps, label)
		} else if text {
			fmt.Printf(" %8s  %s", "—", label)
		}
		fmt.Printf(" %s\n", vsFD)
		fmt.Fprintf(&csv, "%s,%s,%.0f,%.0f,%.0f,%.0f,%.1f,%d,%s,%.1f\n", s.name, s.bits, ns, medNs, float64(hi.Nanoseconds())/examples[i], wall, rss, len(cpus[i]), label, mbps)
		if err := env.Finite("speed "+s.name, ns, wall, medNs, rss, mbps); err != nil {
			return err
		}
	}
	return env.Write("speed_"+*set+".csv", []byte(csv.String()))
}

// spread returns the median, least and largest of the rounds' CPU times.
func spread(ds []time.Duration) (med, lo, hi time.Duration) {
	s := slices.Clone(ds)
	slices.Sort(s)
	n := len(s)
	if n == 0 {
		return 0, 0, 0
	}
	med = s[n/2]
	if n%2 == 0 {
		med = (s[n/2-1] + s[n/2]) / 2
	}
	return med, s[0], s[n-1]
}
