package main

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/sparseson/sparseson/ada"
	"github.com/sparseson/sparseson/gd"
	"github.com/sparseson/sparseson/loss"
	"github.com/sparseson/sparseson/model"
	"github.com/sparseson/sparseson/sparse"
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
const adaFullFlag = "ada_full"

// adaDefaultTau is τ when -m is not given: seed 000 §5.1's and seed 003's
// default sketch size (with which seed 000's δ defaults go).
const adaDefaultTau = 20

// adaDefaultEta is η when -l is not given, one value per preconditioner
// form, chosen with go run ./bench ada -part accuracy (README,
// "FD-adaptive learners"): over η = 2^j, j = −4…4, at τ = 20, logistic
// loss, one pass over the 11 shared binary sets, the η with the best mean
// test accuracy among those never more than 2 pp below default AdaGrad on
// news20 and w8a. The same j wins for every learner of a form: j = −2 for
// the δ form (ADA-FD, ADA-FFD, both updates: means 85.35–86.43%), j = −1
// for the escaped-mass form (FTSL, FTFSL, S-ADA, Fast S-ADA: 85.46–86.81%).
// That grid ran on x as it comes (--ada_scale paper); under the default
// --ada_scale auto the features are in [−1, 1] (ada.Prescaled), which on
// the 0/1 sets (splice, w8a) is the same data.
func adaDefaultEta(name string, u ada.Update) float64 {
	if n, ok := ada.Lookup(name); ok && n.Precond == ada.Escaped {
		return 0.5
	}
	return 0.25
}

var adaFlagHelp = map[string]string{
	"ada_fd":    "ADA-FD (seed 000 Alg. 1/2): AdaGrad with H = δI + (SᵀS)^{1/2}, S the FD sketch of the raw gradients (τ = -m rows); per-step shrink, O(τ² + τs) per example",
	"ada_ffd":   "ADA-FFD (seed 000 Alg. 3/4): ADA-FD on the doubled buffer (2τ directions, shrunk when full); every new direction is a row of Z, so on sparse data O(τ²p + τs) per example (p ≤ 3τ) plus O(τ·features seen) amortized compactions: 2–3× the time of --ada_fd on news20 (README)",
	"ftsl":      "FTSL (seed 003): dual averaging with G̃^{1/2} = (ρI + SᵀS)^{1/2}, ρ the mass FD discarded (pseudo-inverse while ρ = 0); per-step shrink, O(τ² + τs)",
	"ftfsl":     "FTFSL (seed 003): FTSL on the doubled buffer (cost as --ada_ffd)",
	"sada":      "S-ADA (Feinberg et al. 2023, as seed 003 states it): mirror descent x −= η(ρI + SᵀS)^{−1/2}g; per-step shrink, O(τ² + τs)",
	"sada_fast": "Fast S-ADA (seed 003): S-ADA on the doubled buffer (cost as --ada_ffd)",
	adaFullFlag: "ADA-FULL (seed 000 Eq. 1/2): the exact H = δI + G^{1/2}, dense, for -b ≤ 12 (O(k·r²) per example, k slots seen, r = rank G); --delta 0 takes the pseudo-inverse",
}

// adaFlagNames in the order a conflict is reported.
var adaFlagNames = []string{"ada_fd", "ada_ffd", "ftsl", "ftfsl", "sada", "sada_fast", adaFullFlag}

func addADAFlags(fs *pflag.FlagSet, a *adaFlags) {
	a.learner = map[string]*bool{}
	for _, n := range adaFlagNames {
		a.learner[n] = fs.Bool(n, false, adaFlagHelp[n])
	}
	fs.BoolVar(&a.dualAveraging, "dual_averaging", false, "--ada_fd, --ada_ffd, --ada_full, --adaptive alone (ADA-DIAG): the primal-dual update β = −η·H⁻¹·Σg (seed 000 Eq. 1)")
	fs.BoolVar(&a.mirrorDescent, "mirror_descent", false, "--ada_fd, --ada_ffd, --ada_full, --adaptive alone: the composite mirror-descent update β −= η·H⁻¹g (seed 000 Eq. 2; the default)")
	fs.StringVar(&a.delta, "delta", "auto", "δ of H = δI + …: for --ada_fd/--ada_ffd/--ada_full, auto is seed 000 §5.1's 10 (dual averaging) or 1 (mirror descent); for --adaptive alone (ADA-DIAG: β −= η(δI + diag(Σgg ᵀ)^{1/2})⁻¹g), auto is 0")
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
		return nil // the loaded model decides (mergeModelOptions)
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

// adaUpdate is the update the flags choose for the named learner.
func (c *config) adaUpdate(name string) ada.Update {
	if n, ok := ada.Lookup(name); ok && n.UpdateFixed {
		return n.Update
	}
	switch {
	case c.ada.dualAveraging:
		return ada.Dual
	case c.ada.mirrorDescent:
		return ada.Mirror
	}
	return ada.DefaultUpdate
}

func updateName(u ada.Update) string {
	if u == ada.Dual {
		return "dual"
	}
	return "mirror"
}

var adaFamily = &family{
	name: "ada",
	options: func(c *config) model.Options {
		name, _ := adaSelected(c)
		u := c.adaUpdate(name)
		eta := adaDefaultEta(name, u)
		if c.changed("learning_rate") {
			eta = c.eta
		}
		tau := adaDefaultTau
		if c.changed("sketch_size") {
			tau = c.sketchSize
		}
		o := model.Options{"ada": name, "update": updateName(u), "learning_rate": fmtFloat(eta)}
		if n, ok := ada.Lookup(name); !ok || n.Precond == ada.Delta {
			delta := ada.DefaultDelta(u)
			if c.ada.delta != "auto" {
				delta, _ = strconv.ParseFloat(c.ada.delta, 64) // validated
			}
			o["delta"] = fmtFloat(delta)
		} else {
			o["epsilon"] = fmtFloat(c.ada.epsilon)
		}
		if name != adaFullFlag {
			o["m"] = strconv.Itoa(tau)
		}
		if c.ada.scale != "paper" {
			// A paper-form model is written as before the option existed
			// (byte for byte); its absence means paper (shape.go).
			o["ada_scale"] = c.ada.scale
		}
		return o
	},
	tunable: map[string]string{"learning_rate": "learning_rate"},
	build: func(o model.Options, l loss.Loss, r *model.Reader) (sparse.Learner, error) {
		cfg, err := adaConfig(o)
		if err != nil {
			return nil, err
		}
		full := o["ada"] == adaFullFlag
		if o["ada_scale"] != "auto" {
			return adaBuild(cfg, full, l, r)
		}
		if r == nil {
			in, err := adaBuild(cfg, full, l, nil)
			if err != nil {
				return nil, err
			}
			return ada.NewPrescaled(in, cfg.Bits), nil
		}
		return ada.LoadPrescaled(r, cfg.Bits, func(r *model.Reader) (sparse.Learner, error) { return adaBuild(cfg, full, l, r) })
	},
	memory: func(o model.Options) (float64, float64, error) {
		cfg, err := adaConfig(o)
		if err != nil {
			return 0, 0, err
		}
		if o["ada"] == adaFullFlag {
			// β_j and a row of U (up to 2^b wide).
			return 8 * (1 + math.Ldexp(1, int(cfg.Bits))), 0, nil
		}
		// A feature's row: β̄_j (or ḡ_j), its Z column, and a deferred-step
		// stamp; the sketch's p×p matrices and the core's ring of maps.
		p := float64(ada.RowCap(cfg))
		return 8*(1+p) + 4, 8*4*p*p + 8*256*(2*p*p+p), nil
	},
	describe: func(o model.Options) []string {
		cfg, _ := adaConfig(o)
		line := "learner = " + cfg.Name()
		if o["ada"] != adaFullFlag {
			line += ", τ = " + o["m"]
		}
		line += ", η = " + o["learning_rate"]
		if v, ok := o["delta"]; ok {
			line += ", δ = " + v
		} else {
			line += ", ε = " + o["epsilon"]
		}
		return []string{line + scaleNote(o)}
	},
}

// scaleNote says in the run header which features the learner sees.
func scaleNote(o model.Options) string {
	if o["ada_scale"] == "auto" {
		return ", on x_j/max|x_j| (--ada_scale auto)"
	}
	return ", on x as given (--ada_scale paper)"
}

// adaBuild makes (r nil) or loads the learner of cfg.
func adaBuild(cfg ada.Config, full bool, l loss.Loss, r *model.Reader) (sparse.Learner, error) {
	switch {
	case full && r == nil:
		return ada.NewFull(cfg, l)
	case full:
		return ada.LoadFull(r, cfg, l)
	case r == nil:
		return ada.New(cfg, l)
	}
	return ada.Load(r, cfg, l)
}

// adaConfig decodes an FD-adaptive model's options.
func adaConfig(o model.Options) (ada.Config, error) {
	var p optParser
	cfg := ada.Config{Bits: uint(p.int(o, "bits")), Eta: p.float(o, "learning_rate")}
	switch o["update"] {
	case "dual":
		cfg.Update = ada.Dual
	case "mirror":
		cfg.Update = ada.Mirror
	default:
		return cfg, fmt.Errorf("model option update=%q is not dual or mirror", o["update"])
	}
	name := o["ada"]
	if name == adaFullFlag {
		cfg.Precond, cfg.Delta = ada.Delta, p.float(o, "delta")
		return cfg, p.err
	}
	n, ok := ada.Lookup(name)
	if !ok {
		return cfg, fmt.Errorf("unknown FD-adaptive learner %q", name)
	}
	if n.UpdateFixed && cfg.Update != n.Update {
		return cfg, fmt.Errorf("model option update=%q does not fit %s", o["update"], n.Paper)
	}
	cfg.Precond, cfg.Buffer, cfg.Tau = n.Precond, n.Buffer, p.int(o, "m")
	if n.Precond == ada.Delta {
		cfg.Delta = p.float(o, "delta")
	} else {
		cfg.Epsilon = p.float(o, "epsilon")
	}
	return cfg, p.err
}
