package main

import (
	"errors"
	"fmt"

	"github.com/sparseson/sparseson/ada"
	"github.com/sparseson/sparseson/learners"
	"github.com/spf13/pflag"
)

// shampooFlags select FTSL-Shampoo for the --softmax K model (ada/shampoo.go).
type shampooFlags struct {
	on        bool
	exactLeft bool
}

func addShampooFlags(fs *pflag.FlagSet, s *shampooFlags) {
	fs.BoolVar(&s.on, "shampoo", false, fmt.Sprintf("with --softmax K: train the K×d model by FTSL-Shampoo (Yang et al. (ICML 2025), Alg. 5) instead of AdaGrad: W = −η·L^{−1/4}·Ḡ·R^{−1/4} with Ḡ the sum of the gradients (p − e_y)xᵀ, R the Frequent Directions sketch of their d×d right factor (τ = -m, default %d) and L of their K×K left factor, each with the mass FD discarded added back and ε = --epsilon (default %g) on the diagonal; η = -l (default %g). O(K·s + m·s + K·m² + m²) per example plus the right sketch's update, K floats per feature", learners.ShampooDefaultTau, learners.ShampooDefaultEpsilon, learners.ShampooDefaultEta))
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
