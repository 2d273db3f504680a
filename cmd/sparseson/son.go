package main

import (
	"fmt"
	"math"
	"strconv"

	"github.com/sparseson/sparseson/learners"
	"github.com/sparseson/sparseson/model"
	"github.com/sparseson/sparseson/sparse"
)

// SON defaults, chosen with go run ./bench sontune (README, "Choosing
// SON's defaults"): pre-scaling on, C = ∞ and η_t = 1/√t; α = 2 is the
// best mean test accuracy over the shared binary sets among the α that
// reach news20's target (≥ 92.8%, liblinear's batch optimum).
const (
	defaultAlpha = 2.0
	defaultEta0  = 1.0
)

// defaultProjection is C = ∞: no projection.
var defaultProjection = math.Inf(1)

// sketchFlags select SON's sketches (and --full, full ONS), in the order
// a conflicting command line is reported.
var sketchFlags = append(learners.Sketches(), "full")

// sonSelected reports whether the command line asks for a SON learner, and
// which sketch ("" for the default Oja).
func sonSelected(c *config) (bool, string, error) {
	var chosen []string
	for _, k := range sketchFlags {
		if c.on(k) {
			chosen = append(chosen, k)
		}
	}
	if len(chosen) > 1 {
		return false, "", fmt.Errorf("choose one sketch, not --%s and --%s", chosen[0], chosen[1])
	}
	son := len(chosen) > 0
	for _, f := range []string{"sketch_size", "alpha", "alpha_inverse", "projection", "sigma", "eta0", "sketch_scale", "oja_rate", "diag", "diag_sketch"} {
		son = son || c.changed(f)
	}
	if len(chosen) == 1 {
		return true, chosen[0], nil
	}
	return son, "", nil
}

// sonOptions are the model options of the flags shared by SON and full ONS.
func sonOptions(c *config) model.Options {
	alpha := c.alpha
	if c.alphaInverse > 0 {
		alpha = 1 / c.alphaInverse
	}
	sigma, _ := strconv.ParseFloat(c.sigma, 64) // validated; "auto" below
	if c.sigma == "auto" {
		sigma = 0
		if c.lossName == "squared" && !math.IsInf(c.projection, 1) {
			// Assumption 2 of Luo et al. (NIPS 2016): squared loss is curved with
			// σ = 1/(8C²) when predictions and labels are bounded by C.
			sigma = 1 / (8 * c.projection * c.projection)
		}
	}
	o := model.Options{
		"alpha": fmtFloat(alpha), "projection": fmtFloat(c.projection), "sigma": fmtFloat(sigma),
		"eta0": fmtFloat(c.eta0), "eta_power": fmtFloat(c.etaPower), "sketch_scale": fmtFloat(c.sketchScale), "diag": fmtBool(c.diag),
		"diag_sketch": c.diagSketch,
	}
	if c.diag && c.diagSketch == "scaled" {
		if !c.changed("alpha") && !c.changed("alpha_inverse") {
			o["alpha"] = "auto"
		}
		rate := float64(sparse.DefaultRate)
		if c.changed("learning_rate") {
			rate = c.eta
		}
		o["learning_rate"] = fmtFloat(rate)
	}
	return o
}

// fullOptions are full ONS's model options: it keeps the form of Luo et
// al. (NIPS 2016), Eq. 1–2 (it is the dense reference).
func fullOptions(c *config) model.Options {
	c2 := *c
	c2.diagSketch = "paper"
	o := sonOptions(&c2)
	o["sketch"] = "full"
	return o
}

// sonFamilyOptions are a SON learner's model options.
func sonFamilyOptions(c *config) model.Options {
	_, kind, _ := sonSelected(c)
	if kind == "" {
		kind = "oja"
	}
	if c.sketchSize == 0 {
		kind = "none"
	}
	rfd0 := (kind == "rfd" || kind == "rfd_fast") && !c.changed("alpha") && !c.changed("alpha_inverse") && !(c.diag && c.diagSketch == "scaled")
	if rfd0 && !c.changed("projection") {
		// RFD₀'s pseudo-inverse steps need the bound of Luo et al. (JMLR 2019)'s
		// experiments, K_t = {w : |wᵀx_t| ≤ 1}. (Its η_t = 1/t,
		// --eta_power 1, was less accurate than 1/√t on every shared
		// set but two.)
		c2 := *c
		c2.projection = 1
		c = &c2
	}
	o := sonOptions(c)
	if rfd0 {
		o["alpha"] = "0" // RFD₀ (Luo et al. (JMLR 2019)): α grows from 0, nothing to tune
	}
	o["sketch"], o["m"] = kind, strconv.Itoa(c.sketchSize)
	o["oja_rate"], o["random_seed"] = fmtFloat(c.ojaRate), strconv.FormatUint(c.seed, 10)
	// Absent = exact FD, so that its models stay as they were; a run
	// that loads a model (-i, no sketch flag) states it to be checked.
	if (kind == "fd" || kind == "rfd") && c.fdGate != 0 || c.initial != "" && c.changed("fd_gate") {
		o["fd_gate"] = fmtFloat(c.fdGate)
	}
	return o
}
