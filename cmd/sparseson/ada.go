package main

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/sparseson/sparseson/ada"
	"github.com/sparseson/sparseson/gd"
	"github.com/sparseson/sparseson/learners"
	"github.com/spf13/pflag"
)

// adaFlags are the FD-adaptive learners' flags (package ada).
type adaFlags struct {
	learner       map[string]*bool // --ada_fd … --sada_fast, --ada_full
	dualAveraging bool
	mirrorDescent bool
	delta         string
	epsilon       float64
	scale         string // --ada_scale: auto or paper
}

// adaFullFlag selects the dense ADA-FULL reference.
const adaFullFlag = learners.ADAFull

var adaFlagHelp = map[string]string{
	"ada_fd":    "ADA-FD (Wan & Zhang (TPAMI 2022), Alg. 1/2): AdaGrad with H = δI + (SᵀS)^{1/2}, S the FD sketch of the raw gradients (τ = -m rows); per-step shrink, O(τ² + τs) per example",
	"ada_ffd":   "ADA-FFD (Wan & Zhang (TPAMI 2022), Alg. 3/4): ADA-FD on the doubled buffer (2τ directions, shrunk when full); every new direction is a row of Z, so on sparse data O(τ²p + τs) per example (p ≤ 3τ) plus O(τ·features seen) amortized compactions: 2–3× the time of --ada_fd on news20 (BENCHMARKS.md)",
	"ftsl":      "FTSL (Yang et al. (ICML 2025)): dual averaging with G̃^{1/2} = (ρI + SᵀS)^{1/2}, ρ the mass FD discarded (pseudo-inverse while ρ = 0); per-step shrink, O(τ² + τs)",
	"ftfsl":     "FTFSL (Yang et al. (ICML 2025)): FTSL on the doubled buffer (cost as --ada_ffd)",
	"sada":      "S-ADA (Feinberg et al. 2023, as Yang et al. (ICML 2025) states it): mirror descent x −= η(ρI + SᵀS)^{−1/2}g; per-step shrink, O(τ² + τs)",
	"sada_fast": "Fast S-ADA (Yang et al. (ICML 2025)): S-ADA on the doubled buffer (cost as --ada_ffd)",
	adaFullFlag: "ADA-FULL (Wan & Zhang (TPAMI 2022), Eq. 1/2): the exact H = δI + G^{1/2}, dense, for -b ≤ 12 (O(k·r²) per example, k slots seen, r = rank G); --delta 0 takes the pseudo-inverse",
}

// adaFlagNames in the order a conflict is reported.
var adaFlagNames = learners.ADANames

func addADAFlags(fs *pflag.FlagSet, a *adaFlags) {
	a.learner = map[string]*bool{}
	for _, n := range adaFlagNames {
		a.learner[n] = fs.Bool(n, false, adaFlagHelp[n])
	}
	fs.BoolVar(&a.dualAveraging, "dual_averaging", false, "--ada_fd, --ada_ffd, --ada_full, --adaptive alone (ADA-DIAG): the primal-dual update β = −η·H⁻¹·Σg (Wan & Zhang (TPAMI 2022), Eq. 1)")
	fs.BoolVar(&a.mirrorDescent, "mirror_descent", false, "--ada_fd, --ada_ffd, --ada_full, --adaptive alone: the composite mirror-descent update β −= η·H⁻¹g (Wan & Zhang (TPAMI 2022), Eq. 2; the default)")
	fs.StringVar(&a.delta, "delta", "auto", "δ of H = δI + …: for --ada_fd/--ada_ffd/--ada_full, auto is Wan & Zhang (TPAMI 2022), §5.1's 10 (dual averaging) or 1 (mirror descent); for --adaptive alone (ADA-DIAG: β −= η(δI + diag(Σgg ᵀ)^{1/2})⁻¹g), auto is 0")
	fs.StringVar(&a.scale, "ada_scale", "auto", "units of the features for the FD-adaptive learners (--ada_fd … --sada_fast, --ada_full) and --shampoo: auto learns on x_j/s_j, s_j the largest |x_j| seen so far (VW's --normalized scale), so that η and δ do not depend on the features' units; paper takes x as it comes (the papers' form, and models saved before this flag)")
	fs.Float64Var(&a.epsilon, "epsilon", 0, "ε added to the escaped mass ρ of --ftsl, --ftfsl, --sada, --sada_fast: (ρ + ε)I + SᵀS (0: the pseudo-inverse while ρ = 0); with --shampoo, ε > 0 of both factors L and R (default 1)")
}

// adaOn reports whether the flags choose an FD-adaptive learner.
func (c *config) adaOn() bool {
	for _, n := range adaFlagNames {
		if c.on(n) {
			return true
		}
	}
	return false
}

// adaSelected returns the FD-adaptive learner the flags choose ("" for
// none).
func adaSelected(c *config) (string, error) {
	var chosen []string
	for _, n := range adaFlagNames {
		if c.on(n) {
			chosen = append(chosen, n)
		}
	}
	if len(chosen) > 1 {
		return "", fmt.Errorf("choose one FD-adaptive learner, not --%s and --%s", chosen[0], chosen[1])
	}
	if len(chosen) == 0 {
		return "", nil
	}
	return chosen[0], nil
}

// validateADA checks the FD-adaptive flags against each other and the
// rest of the command line.
func (c *config) validateADA() error {
	a := &c.ada
	name, err := adaSelected(c)
	if err != nil {
		return err
	}
	delta, derr := strconv.ParseFloat(a.delta, 64)
	switch {
	case a.delta != "auto" && (derr != nil || !(delta >= 0) || math.IsInf(delta, 0)):
		return fmt.Errorf("--delta %q: want auto or a number ≥ 0", a.delta)
	case !(a.epsilon >= 0) || math.IsInf(a.epsilon, 0):
		return fmt.Errorf("--epsilon %v: must be ≥ 0 and finite", a.epsilon)
	case a.scale != "auto" && a.scale != "paper":
		return fmt.Errorf("--ada_scale %q: want auto or paper", a.scale)
	case a.dualAveraging && a.mirrorDescent:
		return errors.New("choose one update: --dual_averaging or --mirror_descent")
	}
	update := a.dualAveraging || a.mirrorDescent
	if name == "" && c.initial != "" {
		return nil // the loaded model decides (learners.Resume)
	}
	if name == "" {
		switch {
		case update && (!c.adaptive || c.normalized || c.sgd):
			return errors.New("--dual_averaging and --mirror_descent choose the update of --ada_fd, --ada_ffd, --ada_full, or of --adaptive alone (ADA-DIAG)")
		case a.dualAveraging && (c.l2 > 0 || c.vw.l1 > 0 || c.nasaStep() != gd.StepSchedule):
			return errors.New("ADA-DIAG's dual averaging (--adaptive --dual_averaging) has no --l1, --l2 or NASA step")
		case c.changed("epsilon") && !c.shampoo.on:
			return errors.New("--epsilon applies to --ftsl, --ftfsl, --sada, --sada_fast and --shampoo")
		case c.changed("ada_scale") && !c.shampoo.on:
			return errors.New("--ada_scale applies to the FD-adaptive learners (--ada_fd, --ada_ffd, --ftsl, --ftfsl, --sada, --sada_fast, --ada_full) and --shampoo")
		case c.changed("delta") && (!c.adaptive || c.normalized || c.sgd):
			return errors.New("--delta applies to the FD-adaptive learners (--ada_fd, --ada_ffd, --ada_full) and to --adaptive alone (ADA-DIAG)")
		}
		return nil
	}
	n, named := ada.Lookup(name)
	escaped := named && n.Precond == ada.Escaped
	switch {
	case named && n.UpdateFixed && update:
		other := map[string]string{"ftsl": "its mirror-descent form is --sada", "ftfsl": "its mirror-descent form is --sada_fast", "sada": "its dual-averaging form is --ftsl", "sada_fast": "its dual-averaging form is --ftfsl"}[name]
		return fmt.Errorf("--%s has a fixed update (%s); drop --dual_averaging/--mirror_descent", name, other)
	case escaped && c.changed("delta"):
		return fmt.Errorf("--delta does not apply to --%s, whose preconditioner is (ρI + SᵀS)^{1/2} (see --epsilon)", name)
	case !escaped && c.changed("epsilon"):
		return fmt.Errorf("--epsilon applies to the escaped-mass learners (--ftsl, --ftfsl, --sada, --sada_fast), not --%s", name)
	case a.delta != "auto" && delta == 0 && name != adaFullFlag:
		return fmt.Errorf("--%s needs δ > 0 (δ = 0 is only meaningful for --ada_full, the pseudo-inverse)", name)
	case name != adaFullFlag && (c.sketchSize < 1 || c.sketchSize > ada.MaxTau):
		return fmt.Errorf("-m %d: the sketch size τ of --%s must be in 1..%d", c.sketchSize, name, ada.MaxTau)
	case name == adaFullFlag && c.bits > ada.MaxFullBits:
		return fmt.Errorf("--ada_full is dense: -b %d exceeds %d", c.bits, ada.MaxFullBits)
	case name == adaFullFlag && c.changed("sketch_size"):
		return errors.New("--ada_full has no sketch: drop -m")
	case c.softmax > 0:
		return fmt.Errorf("--%s is a binary (or regression) learner; use it with --oaa K, not --softmax", name)
	case c.vw.l1 > 0 || c.l2 > 0:
		return fmt.Errorf("--%s: --l1 and --l2 break the closed form of the update (β = −η·P·Σg, β −= η·P·g); a composite step would need a proximal map in P's metric, which has no closed form outside a diagonal P: not supported", name)
	}
	for _, f := range []string{"sgd", "adaptive", "normalized", "power_t", "initial_t", "oja", "rp", "fd", "fd_fast", "rfd", "rfd_fast", "full", "alpha", "alpha_inverse", "projection", "sigma", "eta0", "eta_power", "sketch_scale", "oja_rate", "diag", "diag_sketch"} {
		if c.changed(f) {
			return fmt.Errorf("--%s does not apply to --%s", f, name)
		}
	}
	for _, f := range nasaFlagNames {
		if c.changed(f) {
			return fmt.Errorf("--%s is a step size of the first-order learner; it does not apply to --%s", f, name)
		}
	}
	return nil
}
