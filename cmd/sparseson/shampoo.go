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
	fs.BoolVar(&s.on, "shampoo", false, fmt.Sprintf("with --softmax K: train the K×d model by FTSL-Shampoo (Yang et al. (ICML 2025), Alg. 5) instead of AdaGrad: W = −η·L^{−1/4}·Ḡ·R^{−1/4} with Ḡ the sum of the gradients (p − e_y)xᵀ, R the Frequent Directions sketch of their d×d right factor (τ = -m, default %d) and L of their K×K left factor, each with the mass FD discarded added back and ε = --epsilon (default %g) on the diagonal; η = -l (default %g, the paper's form %g). Under --ada_scale auto (the default) a new model also completes R^{−1/4} per coordinate, a feature stepping by at least (R_jj + ε)^{−1/4} with R_jj = Σ‖p − e_y‖²x_j² its own history, and divides L by the number of examples and η by √N, N the mean ‖x‖² (docs/algorithms.md §20); --ada_scale paper is the paper's form. O(K·s + m·s + K·m² + m²) per example plus the right sketch's update, K floats per feature (K + 1 with the completion)", learners.ShampooDefaultTau, learners.ShampooDefaultEpsilon, learners.ShampooDiagDefaultEta, learners.ShampooDefaultEta))
	fs.BoolVar(&s.exactLeft, "shampoo_exact_left", false, "with --shampoo: keep the K×K left factor L exactly (no sketch; the same as a left sketch size > K), O(K³) per example")
}
