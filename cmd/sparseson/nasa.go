package main

import (
	"github.com/sparseson/sparseson/learners"
	"github.com/spf13/pflag"
)

// nasaFlags are the Ouyang & Gray (KDD 2012) step sizes of the first-order learner.
type nasaFlags struct {
	nasa, accel, scalarAdaGrad bool
	c, strongH, sadagradH, L   float64
}

// nasaFlagNames are the flags that choose a step, in the order a conflict
// is reported.
var nasaFlagNames = learners.StepNames

func addNASAFlags(fs *pflag.FlagSet, n *nasaFlags) {
	fs.BoolVar(&n.nasa, "nasa", false, "NASA steps (Ouyang & Gray (KDD 2012), Eq. 10), η = c/√(Σ_{i≤t} δ̄_i²) with δ̄_i = g_i − mean(g_1..g_i): per feature in the AdaGrad learner (the default, or --adaptive [--normalized]; c takes -l's place), or with --sgd the paper's scalar step on ‖δ̄_i‖². First step guarded: δ̄_1 := g_1 (the paper's η_1 = ∞). Not for SON")
	fs.Float64Var(&n.c, "nasa_c", learners.DefaultNasaC, "c = √α·D of --nasa and --nasa_accel: roughly how far a step may move")
	fs.Float64Var(&n.strongH, "nasa_strong", 0, "H: strongly convex NASA step (Eq. 27): η_t = 1/H while Σ‖δ̄_i‖² < 1, then max‖δ̄_i‖²/(H·Σ‖δ̄_i‖²); implies --sgd")
	fs.BoolVar(&n.accel, "nasa_accel", false, "accelerated stochastic NASA (Alg. 1, AC-SA, with Eq. 38) for --passes: predicts with x^ag; needs --nasa_L; O(s) per example plus a rare O(d_seen) rewrite of its split form; implies --sgd")
	fs.Float64Var(&n.L, "nasa_L", 0, "L, the smoothness (gradient Lipschitz) constant of the loss for --nasa_accel: it cannot be estimated online, give it (e.g. ¼·max‖x‖² for logistic loss)")
	fs.BoolVar(&n.scalarAdaGrad, "scalar_adagrad", false, "the paper's scalar AdaGrad baseline (Eq. 25): η_t = l/√(Σ‖g_i‖²) with l from -l; implies --sgd")
	fs.Float64Var(&n.sadagradH, "sadagrad", 0, "H: the paper's SAdaGrad baseline (Eq. 34): η_t = max‖g_i‖²/(H·Σ‖g_i‖²); implies --sgd")
}
