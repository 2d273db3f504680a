package main

import (
	"fmt"
	"math"

	"github.com/sparseson/sparseson/learners"
)

// SON defaults, chosen with go run ./bench sontune (docs/algorithms.md
// §14): pre-scaling on, C = ∞ and η_t = 1/√t; α = 2 is the
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
