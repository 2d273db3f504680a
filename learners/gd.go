package learners

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/sparseson/sparseson/ada"
	"github.com/sparseson/sparseson/gd"
	"github.com/sparseson/sparseson/loss"
	"github.com/sparseson/sparseson/model"
	"github.com/sparseson/sparseson/sparse"
)

// The default first-order update when none of sgd, adaptive and
// normalized is chosen: VW's.
const DefaultAdaptive, DefaultNormalized = true, true

// DefaultNasaC is the default c = √α·D of the NASA steps (Ouyang & Gray
// (KDD 2012), Eq. 10), chosen with go run ./bench nasa -part tune over
// c = 2^j, j = −4…6 (per-feature NASA, logistic loss, one pass, test
// accuracy on the 11 shared binary sets): the best mean accuracy among the
// c never more than 1 pp below AdaGrad on any set. Only c = 1 qualifies
// (mean 86.17% vs AdaGrad's 85.68%); c = 2 has a higher mean (86.29%) but
// loses 5.7 pp on ionosphere (docs/algorithms.md §18).
const DefaultNasaC = 1.0

var gdFamily = &Family{
	Name:    "gd",
	options: gdOptions,
	Tunable: []string{"learning_rate", "power_t", "initial_t", "l2", "nasa_c", "nasa_L"},
	build: func(o model.Options, l loss.Loss, r *model.Reader) (sparse.Learner, error) {
		cfg, err := gdConfig(o)
		if err != nil {
			return nil, err
		}
		if o["feature_scale"] == "auto" {
			return gdPrescaled(cfg, l, r)
		}
		if r == nil {
			return gd.New(cfg, l)
		}
		return gd.Load(r, cfg, l)
	},
	memory: func(o model.Options) (float64, float64, error) {
		cfg, err := gdConfig(o)
		// feature_scale auto: Σx_j² and n_j in the row (gd.Config.RMS).
		cfg.RMS = o["feature_scale"] == "auto"
		return 8 * float64(gd.RowFloats(cfg)), 0, err
	},
	describe: func(o model.Options) []string {
		lines := gdDescribe(o)
		if o["feature_scale"] == "auto" {
			lines[0] += ", on x_j/s_j, s_j the root mean square of x_j (--feature_scale auto)"
		}
		return lines
	},
}

// gdPrescaled makes (r nil) or loads the first-order learner of cfg on
// pre-scaled features (feature_scale auto): ada.Prescaled with the scales
// folded into gd.GD's own rows (gd.Config.RMS), which learns and saves as
// the wrapper with a table of its own around gd.GD did. An update that is not normalized
// steps the margin by η·ℓ′·‖x‖² (sgd) or by a multiple of it that still
// depends on the features' units (AdaGrad without normalization, the NASA
// steps on plain gradient descent, whose H and L are in the units of
// ‖x‖²): on x̃_j = x_j/s_j, s_j the root mean square of feature j's
// training values, the same run follows whatever the units, since a
// feature multiplied by k_j gives s_j·k_j and the same x̃
// (docs/algorithms.md §19).
func gdPrescaled(cfg gd.Config, l loss.Loss, r *model.Reader) (sparse.Learner, error) {
	cfg.RMS = true
	if r == nil {
		g, err := gd.New(cfg, l)
		if err != nil {
			return nil, err
		}
		return ada.NewPrescaledFolded(g), nil
	}
	return ada.LoadPrescaledFolded(r, func(r *model.Reader) (ada.FoldedLearner, error) {
		g, err := gd.Load(r, cfg, l)
		if err != nil {
			return nil, err // not a nil *gd.GD in the interface
		}
		return g, nil
	})
}

// gdDescribe is the run header's description of a first-order model.
func gdDescribe(o model.Options) []string {
	kind := "online gradient descent"
	switch {
	case o["adaptive"] == "true" && o["normalized"] == "true":
		kind = "AdaGrad, normalized"
	case o["adaptive"] == "true" && o["update"] == "dual":
		kind = "ADA-DIAG, dual averaging, δ = " + o["delta"]
	case o["adaptive"] == "true" && o["normalized"] != "true" && o["delta"] != "0" && o["delta"] != "":
		kind = "ADA-DIAG (AdaGrad), δ = " + o["delta"]
	case o["adaptive"] == "true":
		kind = "AdaGrad"
	case o["normalized"] == "true":
		kind = "normalized gradient descent"
	}
	if step := describeNASA(o); step != "" {
		return []string{"learner = " + kind, step}
	}
	return []string{
		"learner = " + kind,
		"learning rate = " + o["learning_rate"],
		"initial_t = " + o["initial_t"],
		"power_t = " + o["power_t"],
	}
}

// gdConfig decodes the first-order learner's options.
func gdConfig(o model.Options) (gd.Config, error) {
	var p optParser
	cfg := gd.Config{
		Bits:       uint(p.int(o, "bits")),
		Adaptive:   p.bool(o, "adaptive"),
		Normalized: p.bool(o, "normalized"),
		Eta:        p.float(o, "learning_rate"),
		PowerT:     p.float(o, "power_t"),
		InitialT:   p.float(o, "initial_t"),
		L2:         p.float(o, "l2"),
	}
	if err := nasaConfig(&cfg, o, &p); err != nil {
		return cfg, err
	}
	if _, ok := o["delta"]; ok {
		// Models from before δ was an option have AdaGrad without it.
		cfg.Delta = p.float(o, "delta")
	}
	cfg.Dual = o["update"] == "dual"
	if _, ok := o["l1"]; ok {
		// Models from before L1 carry no gravity.
		cfg.L1, cfg.L1State = p.float(o, "l1"), true
	}
	return cfg, p.err
}

// nasaConfig sets the step of cfg from a model's options; models written
// before the step was an option use the schedule.
func nasaConfig(cfg *gd.Config, o model.Options, p *optParser) error {
	name, ok := o["step"]
	if !ok {
		return nil
	}
	step, err := gd.ParseStep(name)
	if err != nil {
		return fmt.Errorf("model option step: %w", err)
	}
	cfg.Step = step
	cfg.NasaC = optFloat(o, "nasa_c", DefaultNasaC, p)
	cfg.NasaH = optFloat(o, "nasa_H", 0, p)
	cfg.NasaL = optFloat(o, "nasa_L", 0, p)
	return nil
}

// describeNASA returns the run header's line for the step ("" for none).
func describeNASA(o model.Options) string {
	switch o["step"] {
	case "nasa":
		if o["adaptive"] == "true" {
			return "step = NASA per feature (Ouyang & Gray (KDD 2012), Eq. 10 in AdaGrad's place), c = " + o["nasa_c"]
		}
		return "step = NASA (Ouyang & Gray (KDD 2012), Eq. 10), c = " + o["nasa_c"]
	case "nasa_strong":
		return "step = strongly convex NASA (Ouyang & Gray (KDD 2012), Eq. 27), H = " + o["nasa_H"]
	case "nasa_accel":
		return "step = accelerated NASA (Ouyang & Gray (KDD 2012), Alg. 1, Eq. 38), c = " + o["nasa_c"] + ", L = " + o["nasa_L"]
	case "scalar_adagrad":
		return "step = scalar AdaGrad (Ouyang & Gray (KDD 2012), Eq. 25), l = " + o["learning_rate"]
	case "sadagrad":
		return "step = SAdaGrad (Ouyang & Gray (KDD 2012), Eq. 34), H = " + o["nasa_H"]
	}
	return ""
}

var softmaxFamily = &Family{
	Name:    "softmax",
	options: softmaxOptions,
	Tunable: []string{"learning_rate", "power_t", "initial_t", "l2"},
	Fixed:   []string{"classes"},
	build: func(o model.Options, _ loss.Loss, r *model.Reader) (sparse.Learner, error) {
		cfg, k, err := softmaxConfig(o)
		if err != nil {
			return nil, err
		}
		if r == nil {
			return gd.NewSoftmax(cfg, k)
		}
		return gd.LoadSoftmax(r, cfg, k)
	},
	memory: func(o model.Options) (float64, float64, error) {
		cfg, k, err := softmaxConfig(o)
		if !cfg.Adaptive {
			return 8 * float64(1+k), 0, err
		}
		return 8 * float64(1+2*k), 0, err
	},
	describe: func(o model.Options) []string {
		lines := gdFamily.describe(o)
		lines[0] = "learner = softmax (multinomial logistic), " + o["classes"] + " classes, " + strings.TrimPrefix(lines[0], "learner = ")
		return lines
	},
}

func softmaxConfig(o model.Options) (gd.Config, int, error) {
	cfg, err := gdConfig(o)
	if err != nil {
		return cfg, 0, err
	}
	k, err := strconv.Atoi(o["classes"])
	if err != nil {
		return cfg, 0, fmt.Errorf("model option classes=%q is not an integer", o["classes"])
	}
	return cfg, k, nil
}
