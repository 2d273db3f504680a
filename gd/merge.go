package gd

import (
	"errors"
	"fmt"
	"math"
	"runtime"

	"github.com/sparseson/sparseson/internal/linalg"
	"github.com/sparseson/sparseson/sparse"
)

// Merge implements sparse.Merger (sparseson merge; the rules in
// sparse/merge.go). Per feature seen by any part:
//
//   - the weight (with --l2's scale and --l1's truncation applied) is the
//     average of the parts' weights: by evidence — each part's AdaGrad sum
//     Σ importance·ℓ'²x_j² — for adaptive models, as VW's merger does
//     (gd.cc, merge_weights_with_save_resume), with a base by
//     sparse.EvidenceAverage; else by the parts' weighted example counts (VW's
//     per_model_weighting), a part that never saw the feature counting
//     with weight 0;
//   - the AdaGrad sum is the sum of the parts' (base + Σ(part − base) with
//     a base): the merged model's rates are those of a model that has seen
//     every part's examples, exactly;
//   - with --normalized, the feature's scale N_j (the largest |x_j| seen)
//     is the largest of the parts', exactly. The parts' weights are not
//     rescaled to it as Learn rescales a weight when a larger |x_j|
//     arrives: VW's merger does not either, and on news20 (4 shards,
//     AdaGrad) the rescale cost 0.29 points of test accuracy (92.57%
//     against 92.86%) — a part that never met the large values predicts
//     its own examples with its own scale;
//   - the example count and the normalisation sums add up; the merged
//     model has --l2's scale 1 and no pending --l1 gravity: the parts'
//     truncated weights (what they predict with) are averaged, and the
//     truncation starts afresh, so a merged --l1 model predicts as its
//     parts' average but trains on as a model whose weights were just
//     synced (l1.go), not as a continuation of a part.
//
// NASA's steps (nasa.go) keep per-feature running means of the gradient,
// not sums, and are refused.
func (g *GD) Merge(a *sparse.MergeArgs) error {
	defer runtime.KeepAlive(g)
	defer runtime.KeepAlive(a) // the parts: their tables are read to the end
	parts, tabs, base, err := g.mergeParts(a)
	if err != nil {
		return err
	}
	counts := g.mergeCounters(parts, base)
	u := sparse.NewUnion(tabs...)
	g.tab.AddRows(u)
	mergeFeatures(u, len(parts), counts, a.Weighting, g.cfg.Adaptive, func(fm *featureMerge, j int) {
		g.mergeFeature(fm, u, j, u.Keys[j], parts, base)
	})
	if !linalg.AllFinite(g.tab.Rows) {
		return errors.New("merge: the merged model is not finite")
	}
	return nil
}

// mergeParts checks the receiver, the parts and the base.
func (g *GD) mergeParts(a *sparse.MergeArgs) (parts []*GD, tabs []*sparse.Table, base *GD, err error) {
	if g.tab.Len() != 0 || g.t != g.cfg.InitialT {
		return nil, nil, nil, errors.New("merge: the receiving learner is not new")
	}
	if g.cfg.RMS {
		// As the wrapper's models (learners.MergeFiles refuses them).
		return nil, nil, nil, errors.New("models trained on x_j/s_j (Config.RMS) cannot be merged: each part's weights and accumulators are in the units of its own scales s_j")
	}
	if g.cfg.Step != StepSchedule {
		return nil, nil, nil, fmt.Errorf("models trained with %s steps cannot be merged: their per-feature state is a running mean, not a sum; train the shards with the AdaGrad, normalized or plain gradient descent updates", g.cfg.Step)
	}
	return castParts(a, "a first-order learner with this configuration", func(l sparse.Learner) (*GD, bool) {
		p, ok := l.(*GD)
		return p, ok && p.cfg == g.cfg
	})
}

// mergeCounters adds up the example count and the normalisation sums, and
// returns each part's own example count (the ByExamples weights).
func (g *GD) mergeCounters(parts []*GD, base *GD) (counts []float64) {
	g.t, g.normSum, g.totalWeight, counts = mergedCounters(parts, base, g.cfg.InitialT)
	return counts
}

// mergeFeature writes the merged row j of feature j (slot key; AddRows
// made the row): the weight by fm's rule, Σg² summed, the scale N_j the
// largest.
func (g *GD) mergeFeature(fm *featureMerge, u *sparse.Union, j int, key uint32, parts []*GD, base *GD) {
	st := g.stride
	nmax := 0.0
	var w0, g0 float64
	if base != nil {
		if r := base.tab.Find(key); r >= 0 {
			row := base.tab.Rows[r*st : r*st+st]
			w0, g0 = base.scale*trunc(row[colW], base.gravity), row[colG]
			nmax = row[colN]
		}
	}
	gsum := g0
	for i, p := range parts {
		r := u.Row(i, j)
		fm.raw[i], fm.kept[i], fm.ev[i] = 0, w0, 0
		if r < 0 {
			continue
		}
		row := p.tab.Rows[r*st : r*st+st]
		w := p.scale * trunc(row[colW], p.gravity)
		fm.raw[i], fm.kept[i] = w, w
		nmax = math.Max(nmax, row[colN])
		if g.cfg.Adaptive {
			fm.ev[i] = math.Max(0, row[colG]-g0)
			gsum += fm.ev[i]
		}
	}
	o := j * st
	rows := g.tab.Rows
	rows[o+colW] = fm.weight(g0, w0)
	if g.cfg.Adaptive {
		rows[o+colG] = gsum
	}
	rows[o+colN] = nmax
}

// mergeFeatures calls feature for every feature j of u, on every core by
// blocks of sparse.MergeBlock features, each block with its own scratch
// (a featureMerge of k parts): every feature writes only its own row.
func mergeFeatures(u *sparse.Union, k int, counts []float64, w sparse.Weighting, adaptive bool, feature func(fm *featureMerge, j int)) {
	sparse.ForBlocks(len(u.Keys), sparse.MergeBlock, func(_, lo, hi int) {
		fm := newFeatureMerge(k, counts, w.Evidence() && adaptive, w == sparse.ByNewEvidence)
		for j := lo; j < hi; j++ {
			feature(fm, j)
		}
	})
}

// featureMerge combines one weight of the parts: by EvidenceAverage
// (AddedMoves on examples new to the base) where the evidence rule
// applies and there is evidence, else by Weigh over the parts' example
// counts. raw, kept and ev are set per weight by the
// caller: each part's weight (0 where it never saw the feature), the same
// with the base's weight there, and its evidence.
type featureMerge struct {
	counts            []float64
	byEvidence, added bool
	raw, kept, ev     []float64
}

func newFeatureMerge(k int, counts []float64, byEvidence, added bool) *featureMerge {
	return &featureMerge{counts: counts, byEvidence: byEvidence, added: added, raw: make([]float64, k), kept: make([]float64, k), ev: make([]float64, k)}
}

// weight is the merged weight, given the base's evidence g0 and weight w0.
func (fm *featureMerge) weight(g0, w0 float64) float64 {
	w, ok := 0.0, false
	switch {
	case fm.byEvidence && fm.added:
		w, ok = sparse.AddedMoves(g0, w0, fm.ev, fm.kept)
	case fm.byEvidence:
		w, ok = sparse.EvidenceAverage(g0, fm.ev, fm.kept)
	}
	if !ok {
		w = sparse.Weigh(fm.counts, fm.raw)
	}
	return w
}

// Rekey implements sparse.Rekeyer.
func (g *GD) Rekey(f func(slot uint32) uint32) error { return g.tab.Rekey(f) }

// Merge implements sparse.Merger for the softmax model, by GD.Merge's
// rules applied to each of the K weights of a feature: weight w_kj averaged
// by evidence (its own AdaGrad sum G_kj) or by example counts, G_kj
// summed, the feature scale N_j the largest, counts and normalisation sums
// added.
func (m *Softmax) Merge(a *sparse.MergeArgs) error {
	defer runtime.KeepAlive(m)
	defer runtime.KeepAlive(a) // the parts: their tables are read to the end
	parts, tabs, base, err := m.mergeParts(a)
	if err != nil {
		return err
	}
	counts := m.mergeCounters(parts, base)
	u := sparse.NewUnion(tabs...)
	m.tab.AddRows(u)
	mergeFeatures(u, len(parts), counts, a.Weighting, m.cfg.Adaptive, func(fm *featureMerge, j int) {
		m.mergeFeature(fm, u, j, u.Keys[j], parts, base)
	})
	if !linalg.AllFinite(m.tab.Rows) {
		return errors.New("merge: the merged model is not finite")
	}
	return nil
}

// mergeParts checks the receiver, the parts and the base.
func (m *Softmax) mergeParts(a *sparse.MergeArgs) (parts []*Softmax, tabs []*sparse.Table, base *Softmax, err error) {
	if m.tab.Len() != 0 || m.t != m.cfg.InitialT {
		return nil, nil, nil, errors.New("merge: the receiving softmax model is not new")
	}
	return castParts(a, fmt.Sprintf("a %d-class softmax model with this configuration", m.k), func(l sparse.Learner) (*Softmax, bool) {
		p, ok := l.(*Softmax)
		return p, ok && p.cfg == m.cfg && p.k == m.k
	})
}

// mergeCounters adds up the example count and the normalisation sums, and
// returns each part's own example count (the ByExamples weights).
func (m *Softmax) mergeCounters(parts []*Softmax, base *Softmax) (counts []float64) {
	m.t, m.normSum, m.totalWeight, counts = mergedCounters(parts, base, m.cfg.InitialT)
	return counts
}

// mergeFeature writes the merged row of feature j (slot key): the scale
// N_j the largest, then each class's weight by fm's rule and its Σg²
// summed.
func (m *Softmax) mergeFeature(fm *featureMerge, u *sparse.Union, j int, key uint32, parts []*Softmax, base *Softmax) {
	st, K := m.stride(), m.k
	var b0 []float64
	nmax := 0.0
	if base != nil {
		if r := base.tab.Find(key); r >= 0 {
			b0 = base.tab.Rows[r*st : r*st+st]
			nmax = b0[smN]
		}
	}
	for i, p := range parts {
		if r := u.Row(i, j); r >= 0 {
			nmax = math.Max(nmax, p.tab.Rows[r*st+smN])
		}
	}
	o := j * st
	rows := m.tab.Rows
	rows[o+smN] = nmax
	for c := 0; c < K; c++ {
		var w0, g0 float64
		if b0 != nil {
			w0 = base.scale * b0[1+c]
			if m.cfg.Adaptive {
				g0 = b0[1+K+c]
			}
		}
		gsum := g0
		for i, p := range parts {
			fm.raw[i], fm.kept[i], fm.ev[i] = 0, w0, 0
			r := u.Row(i, j)
			if r < 0 {
				continue
			}
			pr := p.tab.Rows[r*st : r*st+st]
			fm.raw[i] = p.scale * pr[1+c]
			fm.kept[i] = fm.raw[i]
			if m.cfg.Adaptive {
				fm.ev[i] = math.Max(0, pr[1+K+c]-g0)
				gsum += fm.ev[i]
			}
		}
		rows[o+1+c] = fm.weight(g0, w0)
		if m.cfg.Adaptive {
			rows[o+1+K+c] = gsum
		}
	}
}

// Rekey implements sparse.Rekeyer.
func (m *Softmax) Rekey(f func(slot uint32) uint32) error { return m.tab.Rekey(f) }

// mergeable is what GD and Softmax share for a merge: the clock and
// normalisation sums that add up, and the feature table.
type mergeable interface {
	*GD | *Softmax
	mergeState() (t, normSum, totalWeight float64, tab *sparse.Table)
}

func (g *GD) mergeState() (float64, float64, float64, *sparse.Table) {
	return g.t, g.normSum, g.totalWeight, g.tab
}

func (m *Softmax) mergeState() (float64, float64, float64, *sparse.Table) {
	return m.t, m.normSum, m.totalWeight, m.tab
}

// castParts type-asserts a merge's parts and base with same, which also
// checks that a learner has the receiver's configuration (what names it
// in the error), and checks that every part was trained from the base.
func castParts[P mergeable](a *sparse.MergeArgs, what string, same func(sparse.Learner) (P, bool)) (parts []P, tabs []*sparse.Table, base P, err error) {
	if len(a.Parts) == 0 {
		return nil, nil, base, errors.New("merge: no models to merge")
	}
	parts = make([]P, len(a.Parts))
	tabs = make([]*sparse.Table, len(a.Parts))
	for i, l := range a.Parts {
		p, ok := same(l)
		if !ok {
			return nil, nil, base, fmt.Errorf("model %d: not %s (%T)", i+1, what, l)
		}
		parts[i] = p
		_, _, _, tabs[i] = p.mergeState()
	}
	if a.Base == nil {
		return parts, tabs, base, nil
	}
	b, ok := same(a.Base)
	if !ok {
		return nil, nil, base, fmt.Errorf("base model: not %s (%T)", what, a.Base)
	}
	bt, _, _, btab := b.mergeState()
	for i, tab := range tabs {
		if t, _, _, _ := parts[i].mergeState(); t < bt || tab.Len() < btab.Len() {
			return nil, nil, base, fmt.Errorf("model %d has seen fewer examples or features than the base: it was not trained from the base (-i)", i+1)
		}
	}
	return parts, tabs, b, nil
}

// mergedCounters adds up the parts' example clocks and normalisation sums
// (base + Σ(part − base) with a base, sparse.MergedSum), and returns each
// part's own example count (the ByExamples weights).
func mergedCounters[P mergeable](parts []P, base P, initialT float64) (t, normSum, totalWeight float64, counts []float64) {
	var none P
	sum := func(get func(P) float64, empty float64) float64 {
		v := make([]float64, len(parts))
		for i, p := range parts {
			v[i] = get(p)
		}
		if base != none {
			empty = get(base)
		}
		return sparse.MergedSum(v, empty)
	}
	t = sum(func(p P) float64 { t, _, _, _ := p.mergeState(); return t }, initialT)
	normSum = sum(func(p P) float64 { _, n, _, _ := p.mergeState(); return n }, 0)
	totalWeight = sum(func(p P) float64 { _, _, w, _ := p.mergeState(); return w }, 0)
	counts = make([]float64, len(parts))
	for i, p := range parts {
		pt, _, _, _ := p.mergeState()
		counts[i] = pt - initialT
	}
	return t, normSum, totalWeight, counts
}
