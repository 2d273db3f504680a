package gd

import (
	"errors"
	"math"

	"github.com/sparseson/sparseson/sparse"
)

// ADA-DIAG under dual averaging (Config.Dual): Duchi, Hazan and Singer
// 2011's primal-dual subgradient method with the diagonal proximal term,
// as Wan & Zhang (TPAMI 2022), Eq. 1 writes it for φ = 0,
//
//	β_{t+1,j} = −η·ḡ_{t,j}/(δ + G_{t,j}^{1/2}),  ḡ_t = Σ_{s≤t} g_s,  G_t = Σ_{s≤t} g_s².
//
// A feature's row holds ḡ_j (colW) and G_j (colG); its weight is formed
// when read, O(s) per example. Importance h counts as h copies (G_j gains
// h·g², ḡ_j gains h·g), as in the mirror-descent AdaGrad.

// checkDual validates Config.Dual.
func (cfg *Config) checkDual() error {
	if !cfg.Dual {
		return nil
	}
	if !cfg.Adaptive || cfg.Normalized || cfg.Step != StepSchedule || cfg.L1 > 0 || cfg.L2 > 0 {
		return errors.New("Config.Dual: dual averaging is ADA-DIAG's: it needs Config.Adaptive alone (no Config.Normalized, NASA steps, Config.L1 or Config.L2)")
	}
	return nil
}

// dualWeight is β_j of a row.
func (g *GD) dualWeight(o int) float64 {
	G := g.tab.Rows[o+colG]
	if !(G > 0) {
		return 0
	}
	var r float64
	switch {
	case g.cfg.Delta > 0 && g.cfg.PowerT == 0.5:
		r = 1 / (g.cfg.Delta + math.Sqrt(G))
	case g.cfg.Delta > 0:
		r = 1 / (g.cfg.Delta + math.Pow(G, g.cfg.PowerT))
	case g.cfg.PowerT == 0.5:
		r = 1 / math.Sqrt(G)
	default:
		r = math.Pow(G, -g.cfg.PowerT)
	}
	w := -g.cfg.Eta * g.tab.Rows[o+colW] * r
	// The state (ḡ, G) is finite, but |ḡ|/√G grows like √t, so a huge η
	// (up to the largest float -l accepts) can overflow the weight it
	// implies: saturate at ±maxDualWeight, the bound the SON and ADA
	// learners keep, so the model's weights stay finite and loadable.
	if w > maxDualWeight {
		return maxDualWeight
	}
	if w < -maxDualWeight {
		return -maxDualWeight
	}
	return w
}

// maxDualWeight bounds |β_j| (sparse's maxWeight: squares of sums of such
// weights stay finite).
const maxDualWeight = 1e140

// predictDual is βᵀx over the seen features.
func (g *GD) predictDual(ex *sparse.Example) float64 {
	var s float64
	for i, slot := range ex.Idx {
		if r := g.tab.Find(slot); r >= 0 {
			s += g.dualWeight(r*g.stride) * ex.Val[i]
		}
	}
	return ex.Initial + s
}

// learnDual is one round of dual averaging; looked says g.rows holds the
// example's rows already (Config.RMS).
func (g *GD) learnDual(ex *sparse.Example, looked bool) float64 {
	if !looked {
		g.rows = g.rows[:0]
		for _, slot := range ex.Idx {
			g.rows = append(g.rows, g.tab.Row(slot)*g.stride)
		}
	}
	var s float64
	for i, o := range g.rows {
		s += g.dualWeight(o) * ex.Val[i]
	}
	p := ex.Initial + s
	h := ex.Weight
	d := g.loss.Deriv(p, ex.Label)
	if !(h > 0) || math.IsNaN(p) || math.IsInf(p, 0) || math.IsNaN(d) || math.IsInf(d, 0) || d == 0 {
		return p
	}
	if !gradInRange(h*d, ex) {
		// As the mirror-descent AdaGrad: a feature's gradient beyond
		// ±1e150 is refused, so ḡ_j stays finite.
		g.rejected++
		return p
	}
	g.t += h
	rows := g.tab.Rows
	for i, o := range g.rows {
		gx := d * ex.Val[i]
		rows[o+colW] += h * gx
		// Saturated, not infinite (a tiny h with a huge ℓ′·x): the
		// state is saved, and G_j at the top of the range zeroes β_j.
		rows[o+colG] = min(rows[o+colG]+h*gx*gx, math.MaxFloat64)
	}
	return p
}
