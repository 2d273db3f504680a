package gd

import (
	"math"

	"github.com/sparseson/sparseson/sparse"
)

// learnAdaNorm is Learn for the default learner (--adaptive --normalized,
// power_t ½, no --l1): the same arithmetic in the same order as the
// general loop of Learn, so models are bit-identical, with the
// configuration's branches taken once per example rather than per feature
// and each feature's row (w, G, N) read through one bounds-checked
// three-value slice. With δ = 0, 1/(δ+√G) is exactly 1/√G, so one formula
// serves both.
func (g *GD) learnAdaNorm(ex *sparse.Example) float64 {
	g.rows = g.tab.Offsets(g.rows[:0], ex.Idx)
	offs := g.rows
	rows := g.tab.Rows
	val := ex.Val[:len(offs)]
	var dot, maxX float64
	for i, o := range offs {
		x := val[i]
		dot += rows[o+colW] * x
		// Not the builtin max, whose NaN handling costs a few
		// instructions a feature: a NaN x makes dot, and so p, NaN, and
		// the example returns below before maxX is read.
		if ax := math.Abs(x); ax > maxX {
			maxX = ax
		}
	}
	p := ex.Initial + g.scale*dot
	wt := ex.Weight
	d := g.loss.Deriv(p, ex.Label)
	if !(wt > 0) || math.IsNaN(p) || math.IsInf(p, 0) || math.IsNaN(d) {
		return p
	}
	if !(math.Abs(wt*d)*maxX <= maxGrad) { // gradInRange
		g.rejected++
		return p
	}
	if d == 0 {
		return p
	}
	g.t += wt
	n := len(offs)
	if cap(g.rate) < n {
		g.rate = make([]float64, n)
	}
	rate := g.rate[:n]
	grad2 := wt * d * d
	delta := g.cfg.Delta
	var normX, sens float64
	for i, o := range offs {
		row := rows[o : o+stride : o+stride]
		x := val[i]
		x2 := x * x
		// Saturated, not infinite, as in Learn; a NaN stays NaN, as
		// with the builtin min.
		G := row[colG] + grad2*x2
		if G > math.MaxFloat64 {
			G = math.MaxFloat64
		}
		row[colG] = G
		if !(G > 0) {
			rate[i] = 0
			continue
		}
		r := 1 / (delta + math.Sqrt(G))
		ax := math.Abs(x)
		N := row[colN]
		if ax > N {
			if N > 0 {
				row[colW] *= N / ax
			}
			row[colN] = ax
			N = ax
		}
		nn := N * N
		r /= N
		if nn < 0x1p-1022 || math.IsInf(r, 0) {
			rate[i] = 0 // as in Learn: a scale that underflows
			continue
		}
		normX += x2 / nn
		rate[i] = r
		sens += x2 * r
	}
	g.normSum += wt * normX
	g.totalWeight += wt
	mult := 1.0
	if g.normSum > 0 {
		mult = math.Sqrt(g.totalWeight / g.normSum)
	}
	eta := g.cfg.Eta * wt
	u := -d * eta * mult / g.scale
	if math.IsNaN(u*sens) || math.IsInf(u*sens, 0) {
		return p
	}
	for i, o := range offs {
		if w := rows[o+colW] + u*val[i]*rate[i]; w-w == 0 {
			rows[o+colW] = w
		}
	}
	if g.cfg.L2 > 0 {
		g.scale *= 1 - g.cfg.L2*eta
		if g.scale < 1e-9 || !(g.scale > 0) {
			g.syncScale()
		}
	}
	return p
}
