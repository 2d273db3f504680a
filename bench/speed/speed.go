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
// (vw.go); without VW it says it skipped them. -set shards times the
// default learner, Oja-SON and FD-SON (m = 10) on the news20 text with
// --shards K, K = 1, 2, 4, against their one stream by wall time
// (shards.go). Each table is also written to -out as speed_<set>.csv.
//
//	go run ./bench speed [-data ../shared/data] [-passes 5] [-repeat 3] [-set son|sketches|bits|ada|m|learners|parse|text|synthetic|vw|shards|all]
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

// options are the suite's flags.
type options struct {
	passes, repeat, copies, synthCopies int
	set, kinds, extra                   string
}

// Main runs the suite with its command-line arguments.
func Main(env *run.Env, args []string) error {
	fs := flag.NewFlagSet("speed", flag.ContinueOnError)
	env.Register(fs)
	var o options
	fs.IntVar(&o.passes, "passes", 5, "passes over the cache per timed run")
	fs.IntVar(&o.repeat, "repeat", 3, "timed runs per setting (the fastest is kept)")
	fs.StringVar(&o.set, "set", "son", "which settings: son, sketches, bits, ada, m, learners, parse, text, synthetic, vw, shards, all")
	fs.IntVar(&o.copies, "copies", 10, "text: copies of news20.train concatenated into the text read in one pass")
	fs.IntVar(&o.synthCopies, "synth_copies", 10, "synthetic: copies of each synthetic set (T = 10000) concatenated into the text read in one pass")
	fs.StringVar(&o.kinds, "kinds", "oja,rp,fd,rfd", "sketches of the bits set")
	fs.StringVar(&o.extra, "extra", "", "comma-separated extra settings as name=flags;flags (e.g. fd10=--fd -m 10)")
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
	var p plan
	p.fixed(o.set)
	done, err := p.text(env, bin, train, dir, o)
	if err != nil || done {
		return err
	}
	p.bitsAndExtra(o)
	caches, err := buildCaches(bin, train, dir, p.settings)
	if err != nil {
		return err
	}
	t, err := timeRounds(bin, train, caches, p.settings, o)
	if err != nil {
		return err
	}
	return t.report(env, p.settings, o)
}

// plan is the list of settings a run times, in the order of its table.
type plan struct{ settings []setting }

// add appends a setting and returns it, so that the text sets can name
// their input.
func (p *plan) add(name, bits string, flags ...string) *setting {
	p.settings = append(p.settings, setting{name, flags, bits, nil})
	return &p.settings[len(p.settings)-1]
}

// fixed adds the settings of the sets that read the news20 cache.
func (p *plan) fixed(set string) {
	if set == "son" || set == "all" {
		p.add("AdaGrad", "18")
		for _, m := range []string{"0", "5", "10", "20"} {
			p.add("Oja m="+m, "18", "--oja", "-m", m)
		}
	}
	if set == "sketches" || set == "all" {
		p.add("AdaGrad", "18")
		p.add("Oja m=10", "18", "--oja", "-m", "10")
		for _, m := range []string{"5", "10", "20", "50"} {
			for _, k := range []string{"rp", "fd", "fd_fast", "rfd"} {
				p.add(k+" m="+m, "18", "--"+k, "-m", m)
			}
		}
	}
	if set == "ada" || set == "all" {
		// The FD-adaptive learners (issue 12) beside FD-SON at the same m.
		p.add("AdaGrad", "18")
		for _, m := range []string{"10", "20"} {
			p.add("fd m="+m, "18", "--fd", "-m", m)
			for _, l := range [][]string{{"ada_fd(M)", "--ada_fd"}, {"ada_fd(P)", "--ada_fd", "--dual_averaging"}, {"ftsl", "--ftsl"}, {"sada", "--sada"},
				{"ada_ffd(M)", "--ada_ffd"}, {"ada_ffd(P)", "--ada_ffd", "--dual_averaging"}, {"ftfsl", "--ftfsl"}, {"sada_fast", "--sada_fast"}} {
				p.add(l[0]+" m="+m, "18", append(l[1:], "-m", m)...)
			}
		}
	}
	if set == "m" {
		// The figure of ns/example against m: AdaGrad (no sketch) as the
		// flat line, each sketch at m = 5…50.
		p.add("AdaGrad", "18")
		for _, k := range []string{"oja", "fd", "rfd", "rp"} {
			for _, m := range []string{"5", "10", "20", "50"} {
				p.add(k+" m="+m, "18", "--"+k, "-m", m)
			}
		}
	}
	if set == "learners" {
		// Every learner at its defaults, at m ∈ {0, 5, 10, 20, 50} where m applies.
		p.add("AdaGrad", "18")
		p.add("NASA", "18", "--nasa")
		p.add("SON m=0", "18", "-m", "0")
		for _, m := range []string{"5", "10", "20", "50"} {
			for _, k := range []string{"oja", "fd", "rfd", "rp", "ada_fd", "ftsl", "sada"} {
				p.add(k+" m="+m, "18", "--"+k, "-m", m)
			}
		}
	}
	if set == "quick" {
		p.add("AdaGrad", "18")
		p.add("oja m=5", "18", "--oja", "-m", "5")
		p.add("AdaGrad", "20")
	}
}

// text adds the settings that read text (the text and synthetic sets)
// and runs the parts that time themselves: the VW comparison and the
// parse throughput. done is true when the set was one of those alone.
func (p *plan) text(env *run.Env, bin, train, dir string, o options) (done bool, err error) {
	var news *input // news20 as text, written once for the text and vw sets
	if o.set == "text" || o.set == "quick" {
		if news, err = newsText(env, train, dir, o.copies); err != nil {
			return false, err
		}
		textLearners(p.add, news)
		if err := predictLearners(p.add, bin, dir, news); err != nil {
			return false, err
		}
	}
	if o.set == "shards" {
		if news, err = newsText(env, train, dir, o.copies); err != nil {
			return false, err
		}
		shardLearners(p.add, news)
	}
	if o.set == "vw" || o.set == "text" || o.set == "quick" {
		if err := vwPart(env, bin, train, dir, news, o); err != nil || o.set == "vw" {
			return true, err
		}
	}
	if o.set == "synthetic" || o.set == "quick" {
		ins, err := synthText(env, dir, o.synthCopies)
		if err != nil {
			return false, err
		}
		for _, in := range ins {
			textLearners(p.add, in)
		}
	}
	if o.set == "parse" || o.set == "all" || o.set == "quick" {
		if err := parse(env, bin, train, dir, o.repeat); err != nil || o.set == "parse" {
			return true, err
		}
	}
	return false, nil
}

// vwPart times the VW comparison's rows against a VW binary when VW=path
// names one (news: the news20 text, if already written).
func vwPart(env *run.Env, bin, train, dir string, news *input, o options) error {
	vw := os.Getenv("VW")
	var plain, gz string
	if vw != "" {
		if news == nil {
			var err error
			if news, err = newsText(env, train, dir, o.copies); err != nil {
				return err
			}
		}
		plain, gz = news.path, news.path+".gz"
		if err := gzipCopy(plain, gz); err != nil {
			return err
		}
	}
	csv, err := compareVW(os.Stdout, bin, vw, plain, gz, o.repeat)
	if err != nil || csv == "" {
		return err
	}
	return env.Write("speed_vw.csv", []byte(csv))
}

// bitsAndExtra adds the -b sweep and the -extra settings.
func (p *plan) bitsAndExtra(o options) {
	if o.set == "bits" || o.set == "all" {
		for _, b := range []string{"16", "18", "20", "22", "24", "26", "28", "30"} {
			p.add("AdaGrad", b)
			for _, k := range strings.Split(o.kinds, ",") {
				p.add(k+" m=10", b, "--"+k, "-m", "10")
			}
		}
	}
	for _, e := range strings.Split(o.extra, ",") {
		if name, flags, ok := strings.Cut(e, "="); ok {
			p.add(name, "18", strings.Fields(flags)...)
		}
	}
}

// buildCaches writes news20's example cache once per -b the cache
// settings use.
func buildCaches(bin, train, dir string, settings []setting) (map[string]string, error) {
	caches := map[string]string{}
	for _, s := range settings {
		if _, ok := caches[s.bits]; ok || s.in != nil {
			continue
		}
		cache := filepath.Join(dir, "news20.b"+s.bits+".cache")
		if _, err := run.Exec(bin, "--quiet", "-b", s.bits, "--cache_file", cache, train); err != nil {
			return nil, err
		}
		caches[s.bits] = cache
	}
	return caches, nil
}

// timings are the rounds of every setting: the run with the least CPU
// time, every round's CPU time, and the examples a run learns.
type timings struct {
	best     []*run.Result
	cpus     [][]time.Duration
	examples []float64
}

// timeRounds runs the settings round-robin, -repeat rounds, so that each
// sees the same mix of load on a shared machine; per setting the run with
// the least CPU time (user + system) is kept, and its wall time shown
// too. The runs are one at a time — unlike run.Grid's, whose concurrent
// runs would time each other.
func timeRounds(bin, train string, caches map[string]string, settings []setting, o options) (timings, error) {
	t := timings{make([]*run.Result, len(settings)), make([][]time.Duration, len(settings)), make([]float64, len(settings))}
	for r := 0; r < o.repeat; r++ {
		for i, s := range settings {
			args := append([]string{"--loss_function", "logistic", "-b", s.bits, "--cache_file", caches[s.bits], "--passes", fmt.Sprint(o.passes), "--holdout_off", "-P", "1e12"}, s.flags...)
			args = append(args, train)
			np := o.passes
			if s.in != nil {
				args, np = append(append([]string{"--loss_function", "logistic", "-b", s.bits, "-P", "1e12"}, s.flags...), s.in.path), 1
			}
			res, err := run.Exec(bin, args...)
			if err != nil {
				return t, err
			}
			t.cpus[i] = append(t.cpus[i], res.CPU)
			if t.best[i] == nil || res.CPU < t.best[i].CPU {
				t.best[i] = res
			}
			var per float64
			n, ok := res.Summary["number of examples per pass"]
			if !ok {
				n = res.Summary["number of examples"] // one pass
			}
			fmt.Sscan(n, &per)
			t.examples[i] = per * float64(np)
		}
	}
	return t, nil
}

// report prints the table (with the ratios against AdaGrad and, in the
// ada set, against FD-SON) and writes speed_<set>.csv.
func (t timings) report(env *run.Env, settings []setting, o options) error {
	text := slices.ContainsFunc(settings, func(s setting) bool { return s.in != nil })
	if text {
		fmt.Printf("VW/LIBSVM text read in one pass without a cache (parsing included: the parser runs on its own threads, so CPU time counts it and wall time overlaps it), %d rounds of every setting in turn, the run with the least CPU time kept; logistic loss; MB/s of text by wall time\n", o.repeat)
	} else {
		fmt.Printf("news20.train, %d passes over the example cache, %d rounds of every setting in turn, the run with the least CPU time kept; logistic loss\n", o.passes, o.repeat)
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
	oneStream := shardBase{}        // each learner's wall ns/example at K = 1 (shards set)
	for i, s := range settings {
		best, ex := t.best[i], t.examples[i]
		ns := float64(best.CPU.Nanoseconds()) / ex
		wall := float64(best.Wall.Nanoseconds()) / ex
		label, mbps := "news20 cache", 0.0
		if s.in != nil {
			label, mbps = s.in.label, s.in.mb/best.Wall.Seconds()
		}
		if s.name == "AdaGrad" {
			adagrad[label+s.bits] = ns
		}
		ratio := ""
		if a := adagrad[label+s.bits]; a > 0 && s.name != "AdaGrad" {
			ratio = fmt.Sprintf("%.2f×", ns/a)
		}
		vsFD := ""
		if o.set == "shards" {
			vsFD = oneStream.ratio(s.name, wall)
		}
		if _, m, ok := strings.Cut(s.name, " m="); ok && o.set == "ada" {
			if strings.HasPrefix(s.name, "fd ") {
				fdAt[m] = ns
			} else if f := fdAt[m]; f > 0 {
				vsFD = fmt.Sprintf("%.2f× FD-SON", ns/f)
			}
		}
		med, lo, hi := spread(t.cpus[i])
		medNs, rel := float64(med.Nanoseconds())/ex, 0.0
		if med > 0 {
			rel = float64(hi-lo) / float64(med)
		}
		rss := float64(best.MaxRSS) / 1024
		fmt.Printf("%-16s %3s %12.0f %12.0f %12.0f %8.1fMB %9s %12.0f %6.1f%%", s.name, s.bits, ns, wall, 1e9/wall, rss, ratio, medNs, 100*rel)
		if text && s.in != nil {
			fmt.Printf(" %8.1f  %s", mbps, label)
		} else if text {
			fmt.Printf(" %8s  %s", "—", label)
		}
		fmt.Printf(" %s\n", vsFD)
		fmt.Fprintf(&csv, "%s,%s,%.0f,%.0f,%.0f,%.0f,%.1f,%d,%s,%.1f\n", s.name, s.bits, ns, medNs, float64(hi.Nanoseconds())/ex, wall, rss, len(t.cpus[i]), label, mbps)
		if err := env.Finite("speed "+s.name, ns, wall, medNs, rss, mbps); err != nil {
			return err
		}
	}
	return env.Write("speed_"+o.set+".csv", []byte(csv.String()))
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
