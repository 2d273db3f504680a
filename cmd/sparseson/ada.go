package main

import (
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
	"ada_ffd":   "ADA-FFD (Wan & Zhang (TPAMI 2022), Alg. 3/4): ADA-FD on the doubled buffer (2τ directions, shrunk when full); every new direction is a row of Z, so on sparse data O(τ²p + τs) per example (p ≤ 2τ) plus O(τ·features seen) amortized compactions: about 1.5× the instructions of --ada_fd on news20 at τ = 10 (Z row cap 2τ)",
	"ftsl":      "FTSL (Yang et al. (ICML 2025)): dual averaging with G̃^{1/2} = (ρI + SᵀS)^{1/2}, ρ the mass FD discarded (pseudo-inverse while ρ = 0); per-step shrink, O(τ² + τs); gated (--fd_gate), a gradient whose part outside the sketch the gate would drop takes a projected step instead (its in-span part alone, no shrink; --ada_scale auto)",
	"ftfsl":     "FTFSL (Yang et al. (ICML 2025)): FTSL on the doubled buffer (cost as --ada_ffd)",
	"sada":      "S-ADA (Feinberg et al. 2023, as Yang et al. (ICML 2025) states it): mirror descent x −= η(ρI + SᵀS)^{−1/2}g; per-step shrink, O(τ² + τs)",
	"sada_fast": "Fast S-ADA (Yang et al. (ICML 2025)): S-ADA on the doubled buffer (cost as --ada_ffd)",
	adaFullFlag: "ADA-FULL (Wan & Zhang (TPAMI 2022), Eq. 1/2): the exact H = δI + G^{1/2}, dense over the first 4096 features seen, at any -b (O(k·r²) per example, k ≤ 4096 features kept, r = rank G; later features are ignored, with a warning); --delta 0 takes the pseudo-inverse",
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
	fs.StringVar(&a.delta, "delta", "auto", "δ of H = δI + …: for --ada_fd/--ada_ffd/--ada_full, auto is Wan & Zhang (TPAMI 2022), §5.1's 10 (dual averaging) or 1 (mirror descent), to which --ada_fd/--ada_ffd under --ada_scale auto add √r, r the mass FD discarded; for --adaptive alone (ADA-DIAG: β −= η(δI + diag(Σgg ᵀ)^{1/2})⁻¹g), auto is 0")
	fs.StringVar(&a.scale, "ada_scale", "auto", "units of the features for the FD-adaptive learners (--ada_fd … --sada_fast, --ada_full) and --shampoo: auto learns on x_j/s_j, s_j the root mean square of feature j's training values so far, so that η, δ and ε do not depend on the features' units, and for --ftsl, --ftfsl, --sada, --sada_fast also completes the preconditioner per coordinate (a feature steps by at least AdaGrad's η·g_j/√(Σĝ_j² + ε) where the escaped mass would step it less) with η divided by √N, as for --ada_fd and --ada_ffd, whose δ then grows to δ + √r with the escaped mass r, N the mean ‖x‖² of the examples learned (VW's normalized update's factor; docs/algorithms.md §19); paper takes x as it comes (the papers' form, and models saved before this flag)")
	fs.Float64Var(&a.epsilon, "epsilon", 0, "ε added to the escaped mass ρ of --ftsl, --ftfsl, --sada, --sada_fast: (ρ + ε)I + SᵀS (0: the pseudo-inverse while ρ = 0); default 1 for --ftsl and --ftfsl under --ada_scale auto (dual averaging's weight along a direction of small eigenvalue grows like η√t without it), else 0, the papers'; with --shampoo, ε > 0 of both factors L and R (default 1)")
}
