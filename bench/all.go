package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/sparseson/sparseson/bench/figures"
	"github.com/sparseson/sparseson/bench/internal/run"
)

// step is one suite run of `bench all`, with the arguments that make
// BENCHMARKS.md's table and what the table is.
type step struct {
	title, suite string
	args         []string
	about        string
}

// allSteps are the runs behind BENCHMARKS.md, chosen to finish in under
// 45 minutes on 2 shared cores (≈ 39 estimated at load 4–6): a few
// passes per timed run (the rounds are alternated, so every setting sees
// the same load), logistic loss only for the accuracy table, reduced
// grids for the ada accuracy, sontune and NASA Table 1 tables. The steps
// run one after another: every accuracy suite already runs its settings
// on all cores (run.Parallel), so two at a time would gain nothing.
var allSteps = []step{
	{"Speed: every learner at m ∈ {0, 5, 10, 20, 50}", "speed", []string{"-set", "learners", "-passes", "3", "-repeat", "3"},
		"news20.train (11314 examples) read three times from the example cache per run (33,942 examples, no holdout), three rounds of every setting in turn; logistic loss, -b 18, each learner at its defaults. CPU ns/example is the round with the least CPU time (user + system, all threads); the median and the spread ((max − min) / median) are over the three rounds."},
	{"Speed: the hash space -b 16…30", "speed", []string{"-set", "bits", "-kinds", "oja,fd,rfd,rp", "-passes", "3", "-repeat", "3"},
		"The same protocol (three passes per run) at -b 16, 18, …, 30, m = 10 (above -b 22 the slot index is a hash table of the features seen)."},
	{"Speed: news20.train ×10 as VW text", "speed", []string{"-set", "text", "-repeat", "3"},
		"The main learners at m = 10 (ADA-FD: the FD-adaptive learner, at its default τ = 10) reading news20.train concatenated ten times (113,140 examples) as plain VW text in one pass, no cache: parsing included; the rows marked -t predict the same text with a model trained on it (-t -i). MB/s is of text, by wall time; three rounds in turn, least CPU time kept."},
	{"Speed: --shards K on news20.train ×10 as text", "speed", []string{"-set", "shards", "-repeat", "3"},
		"The default learner, Oja-SON and FD-SON (m = 10) reading news20.train ×10 as plain VW text in one pass with --shards 1, 2 and 4 (one process, K learners mixed at the pass end), three rounds in turn, least CPU time kept; the last column is the wall time against the same learner's one stream. The parser shares the machine's cores with the K learners."},
	{"Speed: the synthetic sets", "speed", []string{"-set", "synthetic", "-repeat", "3"},
		"The same learners on the synthetic suite's sets (Luo et al. (NIPS 2016), §5.1, κ = 100, T = 10000, d = 100 dense; rotated, and scaled per coordinate by 10^U(−2,2)), each concatenated ten times (100,000 examples) as LIBSVM text, one pass, parsing included."},
	{"Parse throughput", "speed", []string{"-set", "parse", "-repeat", "5"},
		"Test-only runs (no learning) over plain, gzip and zstd copies of the same text."},
	{"Accuracy of every learner on every shared binary set", "accuracy", []string{"-loss", "logistic"},
		"One pass, test accuracy (%); plain columns at their defaults, starred at the best α₀ (AdaGrad: -l) = 2^j, j = −8…8, chosen on the test set; liblinear from ../shared/data/MANIFEST.md."},
	{"Accuracy on 20-class news20", "multiclass", []string{"-part", "errors"},
		"One-pass progressive error (%, the training run's average 0/1 loss), test error (%) after one pass and after three (holdout keeps the best pass)."},
	{"20-class news20 over the 2^j grid", "multiclass", []string{"-part", "tune", "-only", "^(AdaGrad-OAA|Oja-SON-OAA m=10)$"},
		"One-pass test error (%) at -l = 2^j, j = −2…3 (chosen on the test set, which flatters every column alike); the first-order and the sketched OAA learner."},
	{"20-class news20: one-against-all against K binary runs", "multiclass", []string{"-part", "cost", "-repeat", "3"},
		"AdaGrad-OAA (K = 20, its classes learned on both cores) against binary AdaGrad, both from their example caches, 1 and 10 passes, best of 3 alternated rounds; wall and CPU time (CPU includes OAA's helper spinning between examples)."},
	{"Luo et al. (NIPS 2016), §5.1: progressive error vs κ, every learner", "synthetic", nil,
		"The rotated family (the paper's): every learner of the synthetic suite, the tuned ones at their best rate over 2^j."},
	{"Luo et al. (NIPS 2016), §5.1, scaled: progressive error vs κ", "synthetic", []string{"-family", "scaled"},
		"The same with every coordinate scaled by its own 10^U(−2,2)."},
	{"NASA, Ouyang & Gray (KDD 2012): §6.2, §6.3.1 and Table 1", "nasa", []string{"-part", "real,sim,table1", "-shuffles", "3"},
		"§6.1 (ridge) is in the figures section; Table 1 over 3 random orders of news20 per cell (the paper: 10)."},
	{"FD-adaptive learners (Wan & Zhang (TPAMI 2022) and Yang et al. (ICML 2025)): accuracy on every shared binary set", "ada", []string{"-part", "accuracy", "-jlo", "-2", "-jhi", "2"},
		"One pass, logistic loss, test accuracy at the defaults and at the best η = 2^j, j = −2…2 (on the test set)."},
	{"SON's default against tuned α₀", "sontune", []string{"-jlo", "-4", "-jhi", "2", "-shuffles", "5"},
		"Every sketch at m = 10: the default against the best fixed α₀ = 2^j, j = −4…2 (on the test set); the small sets averaged over 5 random orders."},
	{"Figures", "figures", nil,
		"The data behind every figure, then the figures (bench/out/*.png, *.svg)."},
}

// all runs allSteps and writes BENCHMARKS.md: each step's command, its
// printed tables and its figures, with the commit, the machine and the
// load it ran under.
func all(env *run.Env, args []string) error {
	if len(args) > 0 {
		return fmt.Errorf("all takes no suite flags (got %q)", args)
	}
	if err := env.Start(); err != nil {
		return err
	}
	byName := map[string]suite{}
	for _, s := range suites {
		byName[s.name] = s
	}
	start := time.Now()
	load0 := loadAvg()
	// The commit and whether the tree differs from it are taken before
	// the suites run: they rewrite the tracked bench/out files and
	// BENCHMARKS.md, which would otherwise always read as changes.
	commit := gitOutput("rev-parse", "--short", "HEAD")
	if gitOutput("status", "--porcelain", "--untracked-files=no", "--", ".", ":(exclude)bench/out", ":(exclude)BENCHMARKS.md") != "" {
		commit += " (with uncommitted changes)"
	}
	var md strings.Builder
	var sections, failed []string
	for _, st := range allSteps {
		t := time.Now()
		out, err := capture(func() error { return byName[st.suite].main(env, st.args) })
		if err != nil {
			// One failed suite does not throw away the others' half hour:
			// the failure is reported in its section and in the exit status.
			failed = append(failed, st.suite)
			out += "\nFAILED: " + err.Error()
			fmt.Fprintf(os.Stderr, "all: %s: %v\n", st.suite, err)
		}
		cmd := strings.TrimSpace("go run ./bench " + st.suite + " " + shellJoin(st.args))
		sec := fmt.Sprintf("## %s\n\n`%s` (%.1f min, load average at the end %s)\n\n%s\n\n```\n%s\n```\n", st.title, cmd, time.Since(t).Minutes(), loadAvg(), st.about, strings.TrimRight(out, "\n"))
		if st.suite == "figures" {
			sec += figureSection(env)
		}
		sections = append(sections, sec)
	}
	fmt.Fprintf(&md, "# Benchmarks\n\nWritten by `go run ./bench all` (bench/all.go) — do not edit by hand; every table below is the output of the command above it.\n\n")
	fmt.Fprintf(&md, "- commit: %s\n- machine: %d cores (%s), %s, %s/%s\n- load average: %s at the start, %s at the end (the machine is shared; timings are CPU time, alternated rounds)\n- wall time of the whole run: %.1f min\n- started %s\n\n",
		commit, runtime.NumCPU(), cpuModel(), runtime.Version(), runtime.GOOS, runtime.GOARCH, load0, loadAvg(), time.Since(start).Minutes(), start.UTC().Format(time.RFC3339))
	md.WriteString(headlines(env))
	md.WriteString(strings.Join(sections, "\n"))
	if err := os.WriteFile("BENCHMARKS.md", []byte(md.String()), 0o644); err != nil {
		return err
	}
	if len(failed) > 0 {
		return fmt.Errorf("all: suites failed: %s (BENCHMARKS.md says how)", strings.Join(failed, ", "))
	}
	return nil
}

// figureSection links every figure the figures suite wrote, relative to
// the repository root where BENCHMARKS.md lives.
func figureSection(env *run.Env) string {
	var b strings.Builder
	for _, f := range figures.List {
		png := filepath.ToSlash(filepath.Join(env.Out, f.Name+".png"))
		if _, err := os.Stat(png); err != nil {
			continue
		}
		fmt.Fprintf(&b, "\n### %s\n\n%s\n\n![%s](%s) ([SVG](%s))\n", f.Title, f.About, f.Title, png, strings.TrimSuffix(png, ".png")+".svg")
	}
	return b.String()
}

// shellJoin joins args as a shell command line, quoting those a shell
// would split or expand, so that BENCHMARKS.md's commands can be pasted.
func shellJoin(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = a
		if a == "" || strings.ContainsAny(a, " \t|&;()<>$`\\\"'*?[]#~!{}^") {
			q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(q, " ")
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown CPU"
	}
	for _, l := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown CPU"
}

func gitOutput(args ...string) string {
	out, err := exec.Command("git", args...).Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(out))
}

// headlines are the ratios issue 17 asks the closing note to quote,
// computed from the speed CSV files of this run: CPU ns/example (least of
// the rounds) of one setting over another.
func headlines(env *run.Env) string {
	ns := map[string]float64{} // "learner@bits" → CPU ns/example
	for _, f := range []string{"speed_learners.csv", "speed_bits.csv"} {
		b, err := os.ReadFile(env.OutPath(f))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n")[1:] {
			c := strings.Split(line, ",")
			var v float64
			if len(c) < 3 {
				continue
			}
			if _, err := fmt.Sscan(c[2], &v); err == nil {
				k := c[0] + "@" + c[1]
				if _, seen := ns[k]; !seen || f == "speed_learners.csv" {
					ns[k] = v
				}
			}
		}
	}
	var b strings.Builder
	b.WriteString("## Headline ratios\n\nCPU time per example, from the speed tables below (least CPU time of the rounds; -b 18 unless said).\n\n| ratio | value |\n|---|---|\n")
	row := func(label, num, den string) {
		if n, d := ns[num], ns[den]; n > 0 && d > 0 {
			fmt.Fprintf(&b, "| %s | %.2f× |\n", label, n/d)
		}
	}
	row("Oja-SON m = 10 / AdaGrad", "oja m=10@18", "AdaGrad@18")
	row("FD-SON m = 10 / Oja-SON m = 10", "fd m=10@18", "oja m=10@18")
	row("RFD₀-SON m = 10 / Oja-SON m = 10", "rfd m=10@18", "oja m=10@18")
	row("RP-SON m = 10 / Oja-SON m = 10", "rp m=10@18", "oja m=10@18")
	for _, k := range []string{"AdaGrad", "oja m=10", "fd m=10", "rfd m=10", "rp m=10"} {
		row(k+": -b 24 / -b 16", k+"@24", k+"@16")
	}
	for _, k := range []string{"AdaGrad", "oja m=10", "fd m=10"} {
		row(k+": -b 30 / -b 18", k+"@30", k+"@18")
	}
	b.WriteString("\nThe best sketch's test accuracy against liblinear per dataset is the last table of the accuracy section.\n\n")
	return b.String()
}
