// Package figures is the figures suite of go run ./bench: the papers'
// figures, and two of our own, drawn with gonum.org/v1/plot as PNG and SVG
// under -out from the CSV files the other suites write. The papers, cited
// below by their short form (the full list is docs/references.md):
// Luo et al. (NIPS 2016) = Haipeng Luo, Alekh Agarwal, Nicolò
// Cesa-Bianchi, John Langford, "Efficient Second Order Online Learning by
// Sketching", NIPS 2016; Luo et al. (JMLR 2019) = Luo Luo, Cheng Chen,
// Zhihua Zhang, Wu-Jun Li, Tong Zhang, "Robust Frequent Directions with
// Application in Online Learning", JMLR 20, 2019; Wan & Zhang (TPAMI 2022)
// = Yuanyu Wan, Lijun Zhang, "Efficient Adaptive Online Learning via
// Frequent Directions", IEEE TPAMI 2022; Ouyang & Gray (KDD 2012) = Hua
// Ouyang, Alexander Gray, "NASA: Achieving Lower Regrets and Faster Rates
// via Adaptive Stepsizes", KDD 2012; Yang et al. (ICML 2025) = Sifan Yang,
// Yuanyu Wan, Peijia Li, Yibo Wang, Xiao Zhang, Zhewei Wei, Lijun Zhang,
// "Dimension-Free Adaptive Subgradient Methods with Frequent Directions",
// ICML 2025.
//
// The figures, by file name:
//
//	luo2016_fig1       Luo et al. (NIPS 2016), Fig. 1: progressive error vs κ, AdaGrad and Oja-SON m = 0, 5, 10 (synthetic)
//	luo2019_spectral   Luo et al. (JMLR 2019), Fig. 1: relative spectral error of FD and RFD vs sketch size (spectral)
//	wanzhang2022_regret     Wan & Zhang (TPAMI 2022), §5.2 (its Fig. 1): regret curves of the online regression (ada -part regression)
//	wanzhang2022_tau        Wan & Zhang (TPAMI 2022), §5.2: regret vs τ of ADA-FD and ADA-FFD (ada -part regression)
//	wanzhang2022_tau_time   Wan & Zhang (TPAMI 2022), §5.2: CPU time per example vs τ of the same runs
//	ouyanggray2012_fig1       Ouyang & Gray (KDD 2012), Fig. 1: NASA vs OGD under the change of environment (nasa -part ridge)
//	yang2025_*          Yang et al.'s (ICML 2025) comparison: progressive mistakes vs η of FTSL/FTFSL, S-ADA, ADA-FD/FFD (ada -part sketchy)
//	speed_m            ns/example vs m per sketch, log–log, AdaGrad as the flat line (speed -set learners or -set m)
//	speed_bits         ns/example vs -b (speed -set bits)
//
// Without -plot_only it first runs the suites that make the data, in the
// settings noted per figure (the speed CSVs are reused when an earlier
// speed run of `bench all` left them in -out).
//
//	go run ./bench figures [-plot_only]
package figures

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/sparseson/sparseson/bench/ada"
	"github.com/sparseson/sparseson/bench/internal/run"
	"github.com/sparseson/sparseson/bench/nasa"
	"github.com/sparseson/sparseson/bench/spectral"
	"github.com/sparseson/sparseson/bench/speed"
	"github.com/sparseson/sparseson/bench/synthetic"
	"gonum.org/v1/plot/plotter"
)

// Figure names one figure for BENCHMARKS.md.
type Figure struct {
	Name, Title, About string
}

// List is every figure the suite draws (Yang et al.'s (ICML 2025) comparison one per dataset).
var List = []Figure{
	{"luo2016_fig1", "Luo et al. (NIPS 2016), Fig. 1: invariance to the condition number", "`go run ./bench synthetic -learners \"AdaGrad,SON m=0 default,Oja m=5 default,Oja m=10 default\"`: one-pass progressive error (squared loss) on the rotated synthetic set, T = 10000, d = 100; AdaGrad at its best -l over 2^j, Oja-SON at its defaults."},
	{"luo2019_spectral", "Luo et al. (JMLR 2019), Fig. 1: relative spectral error of FD and RFD", "`go run ./bench spectral`: ‖AᵀA − BᵀB‖₂/‖A‖_F² (FD) and ‖AᵀA − BᵀB − αI‖₂/‖A‖_F² (RFD), A = the first 2000 rows of each set; doubled-buffer sketches written densely in bench/spectral (not the fd package's)."},
	{"wanzhang2022_regret", "Wan & Zhang (TPAMI 2022), §5.2: regret curves", "`go run ./bench ada -part regression -only main,tau -ada_full=false`: cumulative absolute loss (= regret, the targets are noise-free) of each learner at its best η, mirror descent, τ = 20; ADA-FULL left out (≈ 6 CPU-minutes a run)."},
	{"wanzhang2022_tau", "Wan & Zhang (TPAMI 2022), §5.2: regret vs τ", "The same run: cumulative loss at the best η against the sketch size τ, mirror descent."},
	{"wanzhang2022_tau_time", "Wan & Zhang (TPAMI 2022), §5.2: time vs τ", "The same runs: CPU µs per example (process start-up included, T = 10000, d = 500) against τ, the median over the η grid's runs at each τ, mirror descent; ADA-DIAG as the sketch-free line. Runs went two at a time on the shared cores."},
	{"ouyanggray2012_fig1", "Ouyang & Gray (KDD 2012), Fig. 1: NASA vs OGD when the environment changes", "`go run ./bench nasa -part ridge`: cumulative squared loss of the ridge regression whose coefficients double at t = 2000 (the variances reading, the paper's unclipped loss), each learner at its best constant."},
	{"yang2025_satellite_grey", "Yang et al.'s (ICML 2025) comparison on satellite_grey (τ = 9)", "`go run ./bench ada -part sketchy`: one pass, online hinge loss; progressive mistake rate against η = 2^j."},
	{"yang2025_letter_am", "Yang et al.'s (ICML 2025) comparison on letter_am (τ = 4)", "The same on letter_am."},
	{"speed_m", "CPU ns/example vs sketch size m", "From the speed table above (`-set learners`): the least CPU time of three rounds, one pass over news20's example cache. Log–log: a slope of 1 is linear in m, 2 quadratic."},
	{"speed_bits", "CPU ns/example vs -b", "From the -b table above (`-set bits`), m = 10."},
}

// Main runs the suite with its command-line arguments.
func Main(env *run.Env, args []string) error {
	fs := flag.NewFlagSet("figures", flag.ContinueOnError)
	env.Register(fs)
	plotOnly := fs.Bool("plot_only", false, "draw from the CSV files already in -out, running nothing")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := env.Start(); err != nil {
		return err
	}
	if !*plotOnly {
		if err := makeData(env); err != nil {
			return err
		}
	}
	for _, d := range []struct {
		name string
		fn   func(*run.Env) error
	}{
		{"luo2016_fig1", luoNIPSFig1}, {"luo2019_spectral", luoJMLRSpectral}, {"wanzhang2022", wanZhangRegression},
		{"ouyanggray2012_fig1", ouyangGrayFig1}, {"yang2025", yangComparison}, {"speed", speedFigures},
	} {
		if err := d.fn(env); err != nil {
			return fmt.Errorf("figure %s: %w", d.name, err)
		}
	}
	fmt.Printf("figures written to %s\n", env.Out)
	return nil
}

// makeData runs the suites whose CSV files the figures are drawn from.
func makeData(env *run.Env) error {
	steps := []struct {
		name string
		fn   func() error
	}{
		{"synthetic", func() error {
			return synthetic.Main(env, []string{"-learners", "AdaGrad,SON m=0 default,Oja m=5 default,Oja m=10 default"})
		}},
		{"spectral", func() error { return spectral.Main(env, nil) }},
		{"ada regression", func() error {
			return ada.Main(env, []string{"-part", "regression", "-only", "main,tau", "-ada_full=false"})
		}},
		{"ada sketchy", func() error { return ada.Main(env, []string{"-part", "sketchy"}) }},
		{"nasa ridge", func() error { return nasa.Main(env, []string{"-part", "ridge"}) }},
		{"speed", func() error {
			for _, f := range []string{"speed_learners.csv", "speed_m.csv"} {
				if _, err := os.Stat(env.OutPath(f)); err == nil {
					return nil
				}
			}
			return speed.Main(env, []string{"-set", "m", "-passes", "1", "-repeat", "3"})
		}},
		{"speed bits", func() error {
			if _, err := os.Stat(env.OutPath("speed_bits.csv")); err == nil {
				return nil
			}
			return speed.Main(env, []string{"-set", "bits", "-kinds", "oja,fd,rfd,rp", "-passes", "1", "-repeat", "3"})
		}},
	}
	for _, s := range steps {
		if err := s.fn(); err != nil {
			return fmt.Errorf("data for the figures, %s: %w", s.name, err)
		}
	}
	return nil
}

func luoNIPSFig1(env *run.Env) error {
	rows, err := readCSV(env.OutPath("synthetic_rotated.csv"))
	if err != nil {
		return err
	}
	names := map[string]string{
		"AdaGrad": "AdaGrad (best -l)", "SON m=0 default": "Oja-SON m = 0", "Oja m=5 default": "Oja-SON m = 5", "Oja m=10 default": "Oja-SON m = 10",
	}
	return draw(env, "luo2016_fig1", axes{title: "Luo et al. (NIPS 2016), Fig. 1: synthetic, d = 100", x: "condition number κ", y: "progressive error (%)"},
		group(rows, func(r map[string]string) (string, float64, float64, bool) {
			n, ok := names[r["learner"]]
			return n, num(r["kappa"]), num(r["error_pct"]), ok
		}, "AdaGrad (best -l)", "Oja-SON m = 0", "Oja-SON m = 5", "Oja-SON m = 10"))
}

func luoJMLRSpectral(env *run.Env) error {
	rows, err := readCSV(env.OutPath("spectral.csv"))
	if err != nil {
		return err
	}
	var ss []series
	for _, kind := range []string{"fd", "rfd"} {
		ss = append(ss, group(rows, func(r map[string]string) (string, float64, float64, bool) {
			return r["dataset"] + " " + strings.ToUpper(kind), num(r["m"]), num(r[kind]), true
		})...)
	}
	return draw(env, "luo2019_spectral", axes{title: "Luo et al. (JMLR 2019): relative spectral error of the covariance sketch", x: "sketch size m", y: "‖AᵀA − BᵀB (− αI)‖₂ / ‖A‖²_F", logX: true, logY: true}, ss)
}

func wanZhangRegression(env *run.Env) error {
	curves, err := readCSV(env.OutPath("ada_regression_main_tau_curves.csv"))
	if err != nil {
		return err
	}
	err = draw(env, "wanzhang2022_regret", axes{title: "Wan & Zhang (TPAMI 2022), §5.2: online regression, d = 500 (mirror descent)", x: "round t", y: "regret (cumulative |loss|)", logY: true},
		group(curves, func(r map[string]string) (string, float64, float64, bool) {
			tau := r["tau"]
			ok := r["update"] == "M" && (tau == "0" || tau == "20")
			name := r["learner"]
			if tau != "0" {
				name += " τ=" + tau
			}
			return name, num(r["t"]), num(r["cumulative_loss"]), ok
		}))
	if err != nil {
		return err
	}
	rows, err := readCSV(env.OutPath("ada_regression_main_tau.csv"))
	if err != nil {
		return err
	}
	best := map[[2]string]float64{}
	for _, r := range rows {
		if r["update"] != "M" || (r["learner"] != "ADA-FD" && r["learner"] != "ADA-FFD") || r["group"] == "full" {
			continue
		}
		k := [2]string{r["learner"], r["tau"]}
		if v, ok := best[k]; !ok || num(r["cumulative_loss"]) < v {
			best[k] = num(r["cumulative_loss"])
		}
	}
	var ss []series
	for _, l := range []string{"ADA-FD", "ADA-FFD"} {
		s := series{name: l}
		for k, v := range best {
			if k[0] == l {
				s.xy = append(s.xy, plotter.XY{X: num(k[1]), Y: v})
			}
		}
		ss = append(ss, s)
	}
	if err := draw(env, "wanzhang2022_tau", axes{title: "Wan & Zhang (TPAMI 2022), §5.2: regret at the best η vs sketch size", x: "sketch size τ", y: "regret (cumulative |loss|)"}, ss); err != nil {
		return err
	}
	return wanZhangTime(env, rows)
}

// wanZhangTime draws the time side of Wan & Zhang (TPAMI 2022), §5.2's τ comparison: CPU
// µs per example against τ, the median over the η grid's runs at each τ
// (a step's cost does not depend on η), ADA-DIAG as the τ-free line.
func wanZhangTime(env *run.Env, rows []map[string]string) error {
	cpu := map[[2]string][]float64{}
	for _, r := range rows {
		if r["update"] != "M" || r["group"] == "full" || r["cpu_ns_per_example"] == "" {
			continue
		}
		k := [2]string{r["learner"], r["tau"]}
		cpu[k] = append(cpu[k], num(r["cpu_ns_per_example"])/1e3)
	}
	median := func(v []float64) float64 {
		v = slices.Clone(v)
		slices.Sort(v)
		if n := len(v); n%2 == 0 {
			return (v[n/2-1] + v[n/2]) / 2
		}
		return v[len(v)/2]
	}
	var ss []series
	var taus []float64
	for _, l := range []string{"ADA-FD", "ADA-FFD"} {
		s := series{name: l}
		for k, v := range cpu {
			if k[0] == l {
				s.xy = append(s.xy, plotter.XY{X: num(k[1]), Y: median(v)})
				taus = append(taus, num(k[1]))
			}
		}
		ss = append(ss, s)
	}
	if v := cpu[[2]string{"ADA-DIAG", "0"}]; len(v) > 0 && len(taus) > 0 {
		flat := series{name: "ADA-DIAG (no sketch)"}
		for _, x := range []float64{slices.Min(taus), slices.Max(taus)} {
			flat.xy = append(flat.xy, plotter.XY{X: x, Y: median(v)})
		}
		ss = append(ss, flat)
	}
	return draw(env, "wanzhang2022_tau_time", axes{title: "Wan & Zhang (TPAMI 2022), §5.2: time per example vs sketch size", x: "sketch size τ", y: "CPU µs/example (median over η)", logY: true}, ss)
}

func ouyangGrayFig1(env *run.Env) error {
	var ss []series
	for _, part := range []string{"convex", "strong"} {
		rows, err := readCSV(env.OutPath("nasa_ridge_var_paper_" + part + ".csv"))
		if err != nil {
			return err
		}
		ss = append(ss, group(rows, func(r map[string]string) (string, float64, float64, bool) {
			return r["learner"] + " (" + r["constant"] + ")", num(r["t"]), num(r["cumulative_loss"]), true
		})...)
	}
	return draw(env, "ouyanggray2012_fig1", axes{title: "Ouyang & Gray (KDD 2012), Fig. 1: ridge regression, coefficients double at t = 2000", x: "round t", y: "cumulative squared loss", logY: true}, ss)
}

func yangComparison(env *run.Env) error {
	rows, err := readCSV(env.OutPath("ada_sketchy.csv"))
	if err != nil {
		return err
	}
	for _, ds := range []string{"satellite_grey", "letter_am"} {
		var sub []map[string]string
		for _, r := range rows {
			if r["dataset"] == ds {
				sub = append(sub, r)
			}
		}
		err := draw(env, "yang2025_"+ds, axes{title: "Yang et al.'s (ICML 2025) comparison on " + ds + ": one pass, hinge loss", x: "log₂ η", y: "progressive mistakes (%)"},
			group(sub, func(r map[string]string) (string, float64, float64, bool) {
				return r["learner"], num(r["log2eta"]), 100 * num(r["mistake_rate"]), true
			}))
		if err != nil {
			return err
		}
	}
	return nil
}

func speedFigures(env *run.Env) error {
	rows, err := firstCSV(env, "speed_learners.csv", "speed_m.csv")
	if err != nil {
		return err
	}
	var ada float64
	for _, r := range rows {
		if r["learner"] == "AdaGrad" && r["bits"] == "18" {
			ada = num(r["cpu_ns_min"])
		}
	}
	sketches := map[string]string{"oja": "Oja-SON", "fd": "FD-SON", "rfd": "RFD₀-SON", "rp": "RP-SON"}
	ss := group(rows, func(r map[string]string) (string, float64, float64, bool) {
		k, m, ok := strings.Cut(r["learner"], " m=")
		if !ok || r["bits"] != "18" {
			return "", 0, 0, false
		}
		name, ok := sketches[k]
		return name, num(m), num(r["cpu_ns_min"]), ok
	}, "Oja-SON", "FD-SON", "RFD₀-SON", "RP-SON")
	if ada > 0 && len(ss) > 0 {
		flat := series{name: "AdaGrad"}
		for _, x := range []float64{5, 50} {
			flat.xy = append(flat.xy, plotter.XY{X: x, Y: ada})
		}
		ss = append(ss, flat)
	}
	if err := draw(env, "speed_m", axes{title: "news20: CPU ns/example vs sketch size", x: "sketch size m", y: "CPU ns/example", logX: true, logY: true}, ss); err != nil {
		return err
	}
	rows, err = firstCSV(env, "speed_bits.csv")
	if err != nil {
		return err
	}
	return draw(env, "speed_bits", axes{title: "news20: CPU ns/example vs hash bits, m = 10", x: "-b (log₂ of the weight table)", y: "CPU ns/example", logY: true},
		group(rows, func(r map[string]string) (string, float64, float64, bool) {
			k, _, _ := strings.Cut(r["learner"], " m=")
			name, ok := sketches[k]
			if r["learner"] == "AdaGrad" {
				name, ok = "AdaGrad", true
			}
			return name, num(r["bits"]), num(r["cpu_ns_min"]), ok
		}))
}

// group turns CSV rows into series by the name pick gives each row (in
// order of first appearance, or in the order of names if given).
func group(rows []map[string]string, pick func(map[string]string) (string, float64, float64, bool), names ...string) []series {
	idx := map[string]int{}
	var out []series
	for _, n := range names {
		idx[n] = len(out)
		out = append(out, series{name: n})
	}
	for _, r := range rows {
		n, x, y, ok := pick(r)
		if !ok {
			continue
		}
		i, seen := idx[n]
		if !seen {
			i = len(out)
			idx[n] = i
			out = append(out, series{name: n})
		}
		out[i].xy = append(out[i].xy, plotter.XY{X: x, Y: y})
	}
	return out
}
