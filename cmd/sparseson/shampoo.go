package main

import (
	"fmt"

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
