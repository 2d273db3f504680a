package main

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/sparseson/sparseson/ada"
	"github.com/sparseson/sparseson/loss"
	"github.com/sparseson/sparseson/model"
	"github.com/sparseson/sparseson/sparse"
	"github.com/spf13/pflag"
)

// shampooFlags select FTSL-Shampoo for the --softmax K model (ada/shampoo.go).
type shampooFlags struct {
	on        bool
	exactLeft bool
}

// FTSL-Shampoo's defaults when -l, -m and --epsilon are not given: the
// setting of the grid η ∈ {½ … 256}, ε ∈ {0.01, 1, 100}, τ ∈ {5, 10, 20}
// with the smallest mean relative excess one-pass test error over
// 20-class news20 and three-class abalone (go run ./bench multiclass
// -part shampoo; README, "FTSL-Shampoo"): 34.17% and 40.07% against the
// grid's best 33.18% and 39.93%.
const (
	shampooDefaultEta     = 4.0
	shampooDefaultTau     = 20
	shampooDefaultEpsilon = 1.0
)

func addShampooFlags(fs *pflag.FlagSet, s *shampooFlags) {
	fs.BoolVar(&s.on, "shampoo", false, fmt.Sprintf("with --softmax K: train the K×d model by FTSL-Shampoo (seed 003 Alg. 5) instead of AdaGrad: W = −η·L^{−1/4}·Ḡ·R^{−1/4} with Ḡ the sum of the gradients (p − e_y)xᵀ, R the Frequent Directions sketch of their d×d right factor (τ = -m, default %d) and L of their K×K left factor, each with the mass FD discarded added back and ε = --epsilon (default %g) on the diagonal; η = -l (default %g). O(K·s + m·s + K·m² + m²) per example plus the right sketch's update, K floats per feature", shampooDefaultTau, shampooDefaultEpsilon, shampooDefaultEta))
	fs.BoolVar(&s.exactLeft, "shampoo_exact_left", false, "with --shampoo: keep the K×K left factor L exactly (no sketch; the same as a left sketch size > K), O(K³) per example")
}

// validateShampoo checks --shampoo against the rest of the command line.
func (c *config) validateShampoo() error {
	s := &c.shampoo
	switch {
	case s.exactLeft && !s.on:
		return errors.New("--shampoo_exact_left applies to --shampoo")
	case !s.on:
		return nil
	case c.softmax == 0 && c.initial == "":
		return errors.New("--shampoo trains the --softmax K model: give --softmax K")
	case c.softmax > ada.MaxShampooClasses:
		return fmt.Errorf("--shampoo: its K×K left factor allows at most %d classes", ada.MaxShampooClasses)
	case c.changed("epsilon") && !(c.ada.epsilon > 0):
		return fmt.Errorf("--shampoo needs ε > 0 (--epsilon), got %v", c.ada.epsilon)
	case c.changed("sketch_size") && c.sketchSize < 1:
		return fmt.Errorf("-m %d: the sketch size τ of --shampoo must be ≥ 1", c.sketchSize)
	case c.vw.l1 > 0 || c.l2 > 0:
		return errors.New("--shampoo: --l1 and --l2 break the closed form W = −η·L^{−1/4}·Ḡ·R^{−1/4}; not supported")
	case c.oaa > 0:
		return errors.New("--shampoo trains the --softmax model, not --oaa")
	}
	for _, f := range []string{"sgd", "adaptive", "normalized", "power_t", "initial_t", "oja", "rp", "fd", "fd_fast", "rfd", "rfd_fast", "full", "alpha", "alpha_inverse", "projection", "sigma", "eta0", "eta_power", "sketch_scale", "oja_rate", "diag", "diag_sketch", "dual_averaging", "mirror_descent", "delta"} {
		if c.changed(f) {
			return fmt.Errorf("--%s does not apply to --shampoo", f)
		}
	}
	for _, f := range append(append([]string{}, nasaFlagNames...), adaFlagNames...) {
		if c.changed(f) {
			return fmt.Errorf("--%s does not apply to --shampoo", f)
		}
	}
	return nil
}

var shampooFamily = &family{
	name: "shampoo",
	options: func(c *config) model.Options {
		eta, tau, eps := shampooDefaultEta, shampooDefaultTau, shampooDefaultEpsilon
		if c.changed("learning_rate") {
			eta = c.eta
		}
		if c.changed("sketch_size") {
			tau = c.sketchSize
		}
		if c.changed("epsilon") {
			eps = c.ada.epsilon
		}
		o := model.Options{
			"classes": strconv.Itoa(c.softmax), "loss": "logistic",
			"learning_rate": fmtFloat(eta), "m": strconv.Itoa(tau), "epsilon": fmtFloat(eps),
			"shampoo_exact_left": fmtBool(c.shampoo.exactLeft),
		}
		if c.ada.scale != "paper" {
			o["ada_scale"] = c.ada.scale // absent: paper (shape.go)
		}
		return o
	},
	// η only scales W = −η·P·Ḡ, so a resumed run may change it.
	tunable: map[string]string{"learning_rate": "learning_rate"},
	fixed:   map[string]string{"classes": "softmax", "shampoo_exact_left": "shampoo_exact_left"},
	build: func(o model.Options, _ loss.Loss, r *model.Reader) (sparse.Learner, error) {
		cfg, err := shampooConfig(o)
		if err != nil {
			return nil, err
		}
		switch {
		case o["ada_scale"] != "auto" && r == nil:
			return ada.NewShampoo(cfg)
		case o["ada_scale"] != "auto":
			return ada.LoadShampoo(r, cfg)
		case r == nil:
			m, err := ada.NewShampoo(cfg)
			if err != nil {
				return nil, err
			}
			return ada.NewPrescaledMulticlass(m, cfg.Bits), nil
		}
		return ada.LoadPrescaledMulticlass(r, cfg.Bits, func(r *model.Reader) (*ada.Shampoo, error) { return ada.LoadShampoo(r, cfg) })
	},
	memory: func(o model.Options) (float64, float64, error) {
		cfg, err := shampooConfig(o)
		if err != nil {
			return 0, 0, err
		}
		// A feature's row: its K entries of Ḡ, the split table's
		// [β̄_j, Z_j] and a deferred-step stamp; fixed: Y (p×K), the
		// sketch's p×p matrices and the core's ring of maps, the left
		// factor.
		p, k := float64(ada.ShampooRowCap(cfg)), float64(cfg.Classes)
		return 8*(k+1+p) + 4, 8 * (p*k + 4*p*p + 256*(2*p*p+p) + k*(k+1)), nil
	},
	describe: func(o model.Options) []string {
		k, _ := strconv.Atoi(o["classes"])
		m, _ := strconv.Atoi(o["m"])
		left := "sketched, τ_L = τ"
		switch {
		case o["shampoo_exact_left"] == "true":
			left = "exact"
		case m >= k:
			// L̂L̂ᵀ has rank ≤ K − 1 (1ᵀ(p − e_y) = 0): τ ≥ K keeps it exactly.
			left = "exact (τ ≥ K)"
		}
		return []string{
			"learner = FTSL-Shampoo, softmax (multinomial logistic), " + o["classes"] + " classes",
			"sketch size τ = " + o["m"] + ", left factor " + left + ", ε = " + o["epsilon"] + ", η = " + o["learning_rate"] + scaleNote(o),
		}
	},
}

// shampooConfig decodes an FTSL-Shampoo model's options.
func shampooConfig(o model.Options) (ada.ShampooConfig, error) {
	var p optParser
	cfg := ada.ShampooConfig{
		Bits:    uint(p.int(o, "bits")),
		Classes: p.int(o, "classes"),
		Tau:     p.int(o, "m"),
		Eta:     p.float(o, "learning_rate"),
		Epsilon: p.float(o, "epsilon"),
	}
	cfg.LeftTau = cfg.Tau
	if p.bool(o, "shampoo_exact_left") {
		cfg.LeftTau = 0
	}
	if p.err != nil {
		return cfg, p.err
	}
	return cfg, cfg.Validate()
}
