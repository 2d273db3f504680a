package gd

import (
	"fmt"
	"math"
	"runtime"

	"github.com/sparseson/sparseson/sparse"
)

// --l1 is VW's lazy form of truncated gradient (Langford, Li and Zhang,
// "Sparse Online Learning via Truncated Gradient", JMLR 2009; VW's gd.cc):
// one global gravity g grows by λ₁·η_t with every update (η_t the step's
// scalar rate, the same that --l2 contracts with), and the model's weight
// of a feature is the stored weight soft-thresholded by it,
// trunc(w, g) = sign(w)·max(|w| − g, 0), times the --l2 scale. Gradient
// steps go to the stored, untruncated weight; the truncation is applied
// when a weight is read, so an update costs O(s) and nothing sweeps the
// table — except a sync (syncScale), which folds the gravity into every
// stored weight once it exceeds maxGravity, as VW does.

// maxGravity is when the gravity is folded into the stored weights (VW's
// bound), before it grows to a size where w − g loses w's digits.
const maxGravity = 1e3

// trunc is VW's trunc_weight.
func trunc(w, g float64) float64 {
	switch {
	case g < w:
		return w - g
	case g < -w:
		return w + g
	}
	return 0
}

func (cfg *Config) checkL1() error {
	switch {
	case cfg.L1 < 0 || math.IsInf(cfg.L1, 0) || math.IsNaN(cfg.L1):
		return fmt.Errorf("Config.L1 must be ≥ 0 and finite, got %v", cfg.L1)
	case cfg.L1 > 0 && cfg.Step != StepSchedule:
		return fmt.Errorf("Config.L1 (truncated gradient) works with the plain, adaptive and normalized steps (Config.Step schedule), not with %s", cfg.Step)
	}
	return nil
}

// truncDot is Σ trunc(w_j, g)·x_j over the example's features: over the
// rows in g.rows (from Learn) when rowsKnown is 0, else looked up.
func (g *GD) truncDot(ex *sparse.Example, rowsKnown int) (dot float64) {
	rows, grav := g.tab.Rows, g.gravity
	if rowsKnown == 0 {
		for i, o := range g.rows {
			dot += trunc(rows[o+colW], grav) * ex.Val[i]
		}
		return dot
	}
	for i, slot := range ex.Idx {
		if r := g.tab.Find(slot); r >= 0 {
			dot += trunc(rows[r*g.stride+colW], grav) * ex.Val[i]
		}
	}
	return dot
}

// addGravity adds this update's λ₁·η and folds it into the weights when
// it has grown large.
func (g *GD) addGravity(eta float64) {
	g.gravity += g.cfg.L1 * eta
	if g.gravity > maxGravity {
		g.syncScale()
	}
}

// SlotWeight returns the weight the model applies at slot (0 if the slot
// has never been seen), in O(1): --audit's lookup.
func (g *GD) SlotWeight(slot uint32) float64 {
	defer runtime.KeepAlive(g)
	r := g.tab.Find(slot)
	if r < 0 {
		return 0
	}
	o := r * g.stride
	if g.cfg.Dual {
		return g.dualWeight(o)
	}
	if g.cfg.Step == StepNASAAccel {
		return g.ns.c*g.tab.Rows[o+colW] + g.ns.e*g.tab.Rows[o+colU]
	}
	return g.scale * trunc(g.tab.Rows[o+colW], g.gravity)
}

// ClassSlotWeight returns class k's weight at slot (0 if unseen): --audit's
// lookup for the softmax model.
func (m *Softmax) ClassSlotWeight(k int, slot uint32) float64 {
	defer runtime.KeepAlive(m)
	r := m.tab.Find(slot)
	if r < 0 {
		return 0
	}
	return m.scale * m.tab.Rows[r*m.stride()+k]
}

// Scores writes the K raw scores of the last example into s (VW's
// --raw_predictions of a multiclass model).
func (m *Softmax) Scores(s []float64) { copy(s, m.s) }
