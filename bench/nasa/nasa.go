// Package nasa is the nasa suite of go run ./bench; it reproduces the
// experiments of Hua Ouyang and Alexander Gray, "NASA: Achieving Lower
// Regrets and Faster Rates via Adaptive Stepsizes", KDD 2012, with the sparseson
// binary, and picks --nasa_c's default:
//
//	-part ridge   §6.1: environment-changing ridge regression, NASA vs OGD, convex and strongly convex
//	-part real    §6.2: the same protocol on abalone (ridge) and hinge-loss binary sets
//	-part sim     §6.3.1: regret bounds of OGD, AdaGrad and NASA on simulated gradients
//	-part table1  Table 1's spirit: cumulative hinge loss of OGD, AdaGrad and NASA over 1 and 4 epochs of news20
//	-part tune    test accuracy of --nasa over c = 2^j on every shared binary set (logistic, one pass): --nasa_c's default
//	-part accept  the acceptance: --nasa at its default c against AdaGrad on news20 and w8a, accuracy and ns/example
//
//	go run ./bench nasa [-data ../shared/data] [-part ridge,real,sim,table1,tune,accept]
//
// -part ridge also writes its cumulative-loss curves to -out as
// nasa_ridge_*.csv, from which the figures suite draws Ouyang & Gray's (KDD 2012) Fig. 1.
//
// Every part but sim runs the built binary (bench/internal/run) and reads
// the cumulative loss Σ_t ℓ(p_t, y_t) off its progressive predictions (-p):
// p_t is the prediction made before example t is learned. sparseson (as
// VW) clips reported predictions, and the squared loss's derivative, to
// the range of labels seen so far; to measure the paper's f_t the inputs
// start with two importance-0 examples labeled ±10⁹ that widen that range
// without teaching anything (wideRange; §6.1 also shows the clipped
// losses). sim runs no learner: like the paper's
// Fig. 5–7 it evaluates the regret bounds (Eq. 19, 24, 26) on simulated
// gradient sequences, which the command line cannot express.
//
// The paper's NASA is the scalar step of plain gradient descent
// (--nasa --sgd, --nasa_strong H); OGD is --sgd with η/√t (convex) or
// 1/(Ht) (strongly convex, -l 1/H --power_t 1). Its ridge loss
// λ‖x‖² with λ = 10⁻⁴ is --l2 2e-4 (sparseson's --l2 λ' shrinks by
// 1 − λ'η, the gradient step of λ'/2·‖x‖²); the reported sums leave out the
// λ‖x_t‖² term itself (below 10⁻³ per example here).
package nasa

import (
	"flag"
	"fmt"
	"strings"

	"github.com/sparseson/sparseson/bench/internal/run"
)

// Main runs the suite with its command-line arguments.
func Main(env *run.Env, args []string) error {
	fs := flag.NewFlagSet("nasa", flag.ContinueOnError)
	env.Register(fs)
	parts := fs.String("part", "ridge,real,sim,table1,tune,accept", "comma-separated parts to run")
	hinge := fs.String("hinge_sets", "letter_am,splice", "binary sets of §6.2's hinge-loss runs")
	shuffles := fs.Int("shuffles", 10, "random orders of news20 per Table 1 cell (the paper: 10 runs)")
	repeat := fs.Int("repeat", 15, "alternated timed runs per learner in -part accept (the best is kept)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := env.Start(); err != nil {
		return err
	}
	if err := env.QuickDefaults(fs, map[string]string{"part": "sim,real", "hinge_sets": "heart_scale", "shuffles": "1", "repeat": "1"}); err != nil {
		return err
	}
	want := map[string]bool{}
	for _, p := range strings.Split(*parts, ",") {
		want[p] = true
	}
	var bin string
	if want["ridge"] || want["real"] || want["table1"] || want["tune"] || want["accept"] {
		var err error
		if bin, err = env.Bin(); err != nil {
			return err
		}
	}
	steps := []struct {
		name string
		fn   func() error
	}{
		{"ridge", func() error { return ridge(env, bin) }},
		{"real", func() error { return realData(env, bin, strings.Split(*hinge, ",")) }},
		{"sim", func() error { sim(); return nil }},
		{"table1", func() error { return table1(env, bin, *shuffles) }},
		{"tune", func() error { return tune(env, bin) }},
		{"accept", func() error { return accept(env, bin, *repeat) }},
	}
	for _, s := range steps {
		if want[s.name] {
			if err := s.fn(); err != nil {
				return fmt.Errorf("%s: %w", s.name, err)
			}
		}
	}
	return nil
}
