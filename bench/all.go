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

// allSteps are the runs behind BENCHMARKS.md, chosen to finish in about
// half an hour on 2 shared cores: a few passes per timed run (the rounds
// are alternated, so every setting sees the same load), logistic loss
// only for the accuracy table.
var allSteps = []step{
	{"Speed: every learner at m ∈ {0, 5, 10, 20, 50}", "speed", []string{"-set", "learners", "-passes", "5", "-repeat", "3"},
		"news20.train (11314 examples) read five times from the example cache per run (56,570 examples, no holdout), three rounds of every setting in turn; logistic loss, -b 18, each learner at its defaults. CPU ns/example is the round with the least CPU time (user + system, all threads); the median and the spread ((max − min) / median) are over the three rounds."},
	{"Speed: the hash space -b 16…24", "speed", []string{"-set", "bits", "-kinds", "oja,fd,rfd,rp", "-passes", "3", "-repeat", "3"},
		"The same protocol (three passes per run) at -b 16, 18, 20, 22, 24, m = 10."},
	{"Parse throughput", "speed", []string{"-set", "parse", "-repeat", "5"},
		"Test-only runs (no learning) over plain, gzip and zstd copies of the same text."},
	{"Accuracy of every learner on every shared binary set", "accuracy", []string{"-loss", "logistic"},
		"One pass, test accuracy (%); plain columns at their defaults, starred at the best α₀ (AdaGrad: -l) = 2^j, j = −8…8, chosen on the test set; liblinear from ../shared/data/MANIFEST.md."},
	{"Accuracy on 20-class news20", "multiclass", []string{"-part", "errors"},
		"Test error (%) after one pass and after three (holdout keeps the best pass)."},
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
		cmd := strings.TrimSpace("go run ./bench " + st.suite + " " + strings.Join(st.args, " "))
		sec := fmt.Sprintf("## %s\n\n`%s` (%.1f min, load average at the end %s)\n\n%s\n\n```\n%s\n```\n", st.title, cmd, time.Since(t).Minutes(), loadAvg(), st.about, strings.TrimRight(out, "\n"))
		if st.suite == "figures" {
			sec += figureSection(env)
		}
		sections = append(sections, sec)
	}
	commit := gitOutput("rev-parse", "--short", "HEAD")
	if gitOutput("status", "--porcelain", "--untracked-files=no") != "" {
		commit += " (with uncommitted changes)"
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
	b.WriteString("\nThe best sketch's test accuracy against liblinear per dataset is the last table of the accuracy section.\n\n")
	return b.String()
}
