package nasa

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"

	"github.com/sparseson/sparseson/bench/internal/run"
)

// The protocol of §6.1 and §6.2: OGD and NASA, convex and strongly
// convex, each at its best constant. The convex constants (OGD's η of
// η/√t, NASA's c) are searched on one grid; H on {10⁰, …, 10⁶} for both
// strongly convex learners (the paper's set). The convex block also shows
// VW's AdaGrad and per-feature NASA (--nasa) on the same grid, which the
// paper does not have.
var (
	convexGrid = decades(-5, 2, 2)
	hGrid      = decades(0, 6, 1)
)

// The paper's scalar steps run on x as given (--feature_scale raw), as in
// its experiments.
func convexSettings() []setting {
	return []setting{
		{"OGD η/√t", func(v float64) []string {
			return []string{"--sgd", "--feature_scale", "raw", "-l", fmtG(v), "--power_t", "0.5"}
		}, convexGrid},
		{"NASA (Eq. 10)", func(v float64) []string {
			return []string{"--sgd", "--feature_scale", "raw", "--nasa", "--nasa_c", fmtG(v)}
		}, convexGrid},
		// Not in the paper: the per-feature learners, for reference.
		{"AdaGrad (VW's)", func(v float64) []string { return []string{"-l", fmtG(v)} }, convexGrid},
		{"NASA per feat.", func(v float64) []string { return []string{"--nasa", "--nasa_c", fmtG(v)} }, convexGrid},
	}
}

func strongSettings() []setting {
	return []setting{
		{"OGD 1/(Ht)", func(v float64) []string {
			return []string{"--sgd", "--feature_scale", "raw", "-l", fmtG(1 / v), "--power_t", "1"}
		}, hGrid},
		{"NASA (Eq. 27)", func(v float64) []string { return []string{"--nasa_strong", fmtG(v), "--feature_scale", "raw"} }, hGrid},
	}
}

// protocol runs both settings on data and prints the cumulative loss at
// the checkpoints (example counts) and OGD/NASA's ratio of totals.
func protocol(env *run.Env, tag, bin, title, data string, labels []float64, l lossFn, common []string, checkpoints []int) error {
	fmt.Printf("\n%s\n", title)
	fmt.Printf("%-8s %-14s %10s", "setting", "learner", "constant")
	for _, c := range checkpoints {
		fmt.Printf(" %11s", fmt.Sprintf("Σ to %d", c))
	}
	fmt.Println()
	for _, part := range []struct {
		name     string
		settings []setting
		constant string
	}{{"convex", convexSettings(), "η / c"}, {"strong", strongSettings(), "H"}} {
		curves, vals, err := best(bin, labels, l, data, common, part.settings)
		if err != nil {
			return err
		}
		for i, s := range part.settings {
			fmt.Printf("%-8s %-14s %10s", part.name, s.name, fmtG(vals[i]))
			for _, c := range checkpoints {
				fmt.Printf(" %11.6g", curves[i][c-1])
			}
			fmt.Println()
		}
		if err := env.Finite("nasa "+title, curves[0][len(curves[0])-1], curves[1][len(curves[1])-1]); err != nil {
			return err
		}
		if tag != "" {
			if err := writeCurves(env, "nasa_"+tag+"_"+part.name+".csv", part.settings, vals, curves); err != nil {
				return err
			}
		}
		ogd, nasa := curves[0][len(curves[0])-1], curves[1][len(curves[1])-1]
		fmt.Printf("%-8s OGD/NASA total ratio %.3f (best constants: %s = %s and %s)\n", part.name, ogd/nasa, part.constant, fmtG(vals[0]), fmtG(vals[1]))
	}
	return nil
}

// ridge is §6.1: s_t ∈ ℝ⁶ with coordinates N(2, 10), y_t = c·s_t + n_t,
// n_t ~ N(0, 0.01), c = c₁ for t ≤ 2000 and c₂ = 2c₁ after, 4000 samples,
// f_t(x) = (y_t − xᵀs_t)² + λ‖x‖², λ = 10⁻⁴, no intercept. The paper does
// not say whether 10 and 0.01 are variances or standard deviations: both
// readings are run, each with the paper's squared loss and with VW's,
// which clips the prediction to the range of labels seen before taking
// the derivative — a guard that lets OGD take larger steps early on.
func ridge(env *run.Env, bin string) error {
	dir, cleanup, err := tempDir()
	if err != nil {
		return err
	}
	defer cleanup()
	c1 := []float64{0.31, -0.45, 0.92, 0.03, -0.75, -0.39}
	for _, reading := range []struct {
		name, tag    string
		sdS, sdNoise float64
	}{
		{"variances (s ~ N(2, sd √10), noise sd 0.1)", "var", math.Sqrt(10), 0.1},
		{"standard deviations (s ~ N(2, sd 10), noise sd 0.01)", "sd", 10, 0.01},
	} {
		rng := rand.New(rand.NewPCG(2012, 1))
		xs := make([][]float64, 4000)
		ys := make([]float64, 4000)
		labels := []float64{math.NaN(), math.NaN()} // wideRange
		for t := range xs {
			f := 1.0
			if t >= 2000 {
				f = 2
			}
			xs[t] = make([]float64, 6)
			for j := range xs[t] {
				xs[t][j] = 2 + reading.sdS*rng.NormFloat64()
				ys[t] += f * c1[j] * xs[t][j]
			}
			ys[t] += reading.sdNoise * rng.NormFloat64()
		}
		for _, wide := range []bool{true, false} {
			path := filepath.Join(dir, "ridge.vw")
			if err := writeVW(path, xs, ys, wide); err != nil {
				return err
			}
			lab, loss, tag := append(labels, ys...), "the paper's (unclipped) squared loss", "ridge_"+reading.tag+"_paper"
			if !wide {
				lab, loss, tag = ys, "VW's squared loss (derivative and reported prediction clipped to the label range seen)", "ridge_"+reading.tag+"_vw"
			}
			title := "§6.1 environment-changing ridge regression, N(2, 10) and N(0, 0.01) read as " + reading.name + "; " + loss + "; Σ_t (y_t − p_t)², switch after t = 2000"
			if err := protocol(env, tag, bin, title, path, lab, squared, []string{"--noconstant", "--l2", "2e-4"}, []int{1000, 2000, 2500, 3000, 4000}); err != nil {
				return err
			}
		}
	}
	return nil
}

// realData is §6.2's protocol on the shared abalone set (ridge regression,
// λ = 10⁻⁴) and on binary sets with the SVM loss [1 − y·xᵀs]₊ + λ‖x‖²; one
// pass over the training file, the constant feature kept.
func realData(env *run.Env, bin string, hingeSets []string) error {
	dir, cleanup, err := tempDir()
	if err != nil {
		return err
	}
	defer cleanup()
	abalone, _, err := env.Paths("abalone", "vw")
	if err != nil {
		return err
	}
	train, err := widened(dir, abalone)
	if err != nil {
		return err
	}
	labels, err := readLabels(train)
	if err != nil {
		return err
	}
	n := len(labels) - 2
	quarters := []int{n / 4, n / 2, 3 * n / 4, n}
	if err := protocol(env, "", bin, fmt.Sprintf("§6.2 abalone (ridge, squared loss + λ‖x‖², %d examples, one pass)", n), train, labels, squared, []string{"--l2", "2e-4"}, quarters); err != nil {
		return err
	}
	for _, name := range hingeSets {
		path, _, err := env.Paths(strings.TrimSpace(name), "vw")
		if err != nil {
			return err
		}
		train, err := widened(dir, path)
		if err != nil {
			return err
		}
		labels, err := readLabels(train)
		if err != nil {
			return err
		}
		n := len(labels) - 2
		title := fmt.Sprintf("§6.2 %s (SVM: hinge loss + λ‖x‖², %d examples, one pass)", name, n)
		if err := protocol(env, "", bin, title, train, labels, hinge, []string{"--loss_function", "hinge", "--l2", "2e-4"}, []int{n / 4, n / 2, 3 * n / 4, n}); err != nil {
			return err
		}
	}
	return nil
}

// writeCurves stores the best runs' cumulative losses, every 10th example,
// as CSV: the data of Ouyang & Gray's (KDD 2012) Fig. 1.
func writeCurves(env *run.Env, name string, settings []setting, vals []float64, curves [][]float64) error {
	var csv strings.Builder
	fmt.Fprintln(&csv, "learner,constant,t,cumulative_loss")
	for i, s := range settings {
		c := curves[i]
		for t := 9; t < len(c); t += 10 {
			fmt.Fprintf(&csv, "%s,%s,%d,%.6g\n", s.name, fmtG(vals[i]), t+1, c[t])
		}
	}
	return env.Write(name, []byte(csv.String()))
}
