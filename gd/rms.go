package gd

import (
	"fmt"
	"runtime"

	"github.com/sparseson/sparseson/internal/linalg"
	"github.com/sparseson/sparseson/sparse"
)

// Pre-scaling by the root mean square (Config.RMS), for --feature_scale
// auto: the learner runs on x̃_j = x_j/s_j, s_j = √(Σx_j²/n_j) over feature
// j's training values so far, the example being learned included (why:
// package ada's Prescaled, docs/algorithms.md §19). The sums Σx_j² and n_j
// are two columns at the end of the feature's row (rOff), so x̃ comes from
// the row Learn fetches anyway: as a wrapper with a table of its own
// (ada.NewPrescaled around New) the pre-scaling cost a second slot lookup
// and row per feature and a copy of the example's values.
//
// The rules are the wrapper's, bit for bit: a learned example with a
// positive importance weight adds every value whose square is in
// (0, MaxFloat64] to its feature's sums (none whose sum would overflow),
// all of them before any x̃ is computed, so that a slot repeated in the
// example is scaled as its other occurrences; a feature without a value
// in its sums counts as 0, as does a feature never seen in training at
// prediction. Learn's rows are made for every slot of the example, in its
// order, as the wrapped learner makes them, so the table's keys are in
// the same order.
//
// The saved model is the wrapper's too: Scales gives the wrapper's table
// of scales (the features with a value, in the order they got their
// first, with their sums), and Save writes the rows without the two
// columns, so that models written by either form are the same bytes.

// rmsLearn makes the example's rows (g.rows), adds its values to their
// sums when ex.Weight > 0, and returns the example on x̃ (g.sx, whose
// values are g.xt).
func (g *GD) rmsLearn(ex *sparse.Example) *sparse.Example {
	g.rows = g.tab.Offsets(g.rows[:0], ex.Idx)
	offs := g.rows
	rows := g.tab.Rows
	val := ex.Val[:len(offs)]
	r := g.rOff
	if ex.Weight > 0 {
		g.first = linalg.RMSAdd(rows, val, offs, r, g.first[:0])
		for _, o := range g.first {
			g.rmsOrder = append(g.rmsOrder, uint32(o/g.stride))
		}
	}
	if cap(g.xt) < len(offs) {
		g.xt = make([]float64, len(offs), 2*len(offs))
	}
	xt := g.xt[:len(offs)]
	// Two features a step on amd64: news20 ×10 as text under --adaptive
	// took 0.72 CPU-s one feature at a time, 0.67 with the pairs, raw 0.59
	// (least of 7 alternated runs, load 4.4–4.7 on 2 cores).
	linalg.RMSScale(xt, val, rows, offs, r, 0)
	return g.scaledExample(ex, xt)
}

// scaledExample is ex with the values xt, in g.sx: the fields Learn and
// Predict read, as the wrapper copies them.
func (g *GD) scaledExample(ex *sparse.Example, xt []float64) *sparse.Example {
	s := &g.sx
	s.Label, s.HasLabel, s.Weight, s.Initial, s.Tag = ex.Label, ex.HasLabel, ex.Weight, ex.Initial, ex.Tag
	s.Idx, s.Val = ex.Idx, xt
	return s
}

// predictRMS is Predict on x̃: each mode's sum over the seen features in
// the example's order, as the wrapped learner adds them.
func (g *GD) predictRMS(ex *sparse.Example) float64 {
	g.rows = g.tab.FindOffsets(g.rows[:0], ex.Idx)
	offs := g.rows
	rows := g.tab.Rows
	val := ex.Val[:len(offs)]
	r := g.rOff
	if cap(g.xt) < len(offs) {
		g.xt = make([]float64, len(offs), 2*len(offs))
	}
	xt := g.xt[:len(offs)]
	linalg.RMSScaleSeen(xt, val, rows, offs, r, 0)
	switch {
	case g.cfg.Dual:
		var s float64
		for i, o := range offs {
			if o >= 0 {
				s += g.dualWeight(o) * xt[i]
			}
		}
		return ex.Initial + s
	case g.cfg.Step == StepNASAAccel:
		var wx, ux float64
		for i, o := range offs {
			if o >= 0 {
				wx += rows[o+colW] * xt[i]
				ux += rows[o+colU] * xt[i]
			}
		}
		return ex.Initial + g.ns.c*wx + g.ns.e*ux
	case g.cfg.L1 > 0 || g.gravity > 0:
		var dot float64
		for i, o := range offs {
			if o >= 0 {
				dot += trunc(rows[o+colW], g.gravity) * xt[i]
			}
		}
		return ex.Initial + g.scale*dot
	}
	var dot float64
	for i, o := range offs {
		if o >= 0 {
			dot += rows[o+colW] * xt[i]
		}
	}
	return ex.Initial + g.scale*dot
}

// savedRows is the table's rows as Save writes them: without the RMS
// columns, whose sums the owner saves in its own form (Scales).
func (g *GD) savedRows() []float64 {
	return sparse.NarrowRows(g.tab.Rows, len(g.tab.Keys), g.stride, 0, g.savedCols())
}

// savedCols is how many of a row's columns Save writes: those before the
// RMS columns, or all.
func (g *GD) savedCols() int {
	if g.rOff == 0 {
		return g.stride
	}
	return g.rOff
}

// widenRows gives rows read as savedRows wrote them their RMS columns
// (zero until SetScales); rows of another length are left to Rebuild's
// check.
func (g *GD) widenRows() {
	t := g.tab
	t.Rows = sparse.WidenRows(t.Rows, len(t.Keys), g.stride, 0, g.savedCols())
}

// Scale is s_j of slot: 0 for a feature without a training value (or a
// learner without Config.RMS).
func (g *GD) Scale(slot uint32) float64 {
	defer runtime.KeepAlive(g)
	r := g.tab.Find(slot)
	if r < 0 || g.rOff == 0 {
		return 0
	}
	row := g.tab.Rows[r*g.stride+g.rOff:]
	return linalg.RMSOf(row[0], row[1])
}

// Scaled is the number of features with a scale.
func (g *GD) Scaled() int { return len(g.rmsOrder) }

// Scales returns the features with a scale, in the order they got their
// first training value, and their sums [Σx_j², n_j] one pair each: the
// table package ada's Prescaled keeps as a wrapper, and saves.
func (g *GD) Scales() (keys []uint32, sums []float64) {
	defer runtime.KeepAlive(g)
	return sparse.ScaleSums(g.tab, g.rmsOrder, func(r int) int { return r*g.stride + g.rOff })
}

// SetScales installs the sums Scales returned (a loaded model's) into a
// learner of Config.RMS without any: every slot must have a row, and
// appear once, with Σx² > 0 and n ≥ 1 finite.
func (g *GD) SetScales(keys []uint32, sums []float64) error {
	defer runtime.KeepAlive(g)
	if g.rOff == 0 || len(g.rmsOrder) > 0 {
		return fmt.Errorf("gd: SetScales on a learner without Config.RMS or with scales")
	}
	order, err := sparse.SetScaleSums(g.tab, keys, sums, func(r int) int { return r*g.stride + g.rOff })
	if err != nil {
		return err
	}
	g.rmsOrder = order
	return nil
}
