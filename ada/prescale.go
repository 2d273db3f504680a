package ada

import (
	"fmt"
	"io"
	"math"
	"runtime"

	"github.com/sparseson/sparseson/internal/linalg"
	"github.com/sparseson/sparseson/loss"
	"github.com/sparseson/sparseson/model"
	"github.com/sparseson/sparseson/sparse"
)

// Why the papers' constants depend on the units of the features, and what
// Prescaled does about it (docs/algorithms.md §19).
//
// Every learner here steps β by η·P·g with P ≈ (Σ g gᵀ)^{−1/2} (plus δ or
// ρ), g = ℓ′·x. Multiply every feature by k: g and the sketch's √λ grow
// by k, so P shrinks by 1/k and the step in β is unchanged, while the
// weights that give the same predictions are β/k. The change of the margin
// βᵀx per step is therefore k times larger: η is a length in the weight
// space (the diameter D of the papers' regret bounds, η = D/√2), whose
// right value is 1/(the features' scale). On top of that, δ (ADA-FD's
// H = δI + (SᵀS)^{1/2}, ADA-FULL's) and Shampoo's ε are added to matrices
// in the units of g² or |g|, so at k = 255 they vanish, at k = 1/255 they
// dominate. With raw 0–255 pixels ADA-FD's margins run to ±1000 and its
// progressive log loss to 30 times a constant's (docs/algorithms.md §19).
//
// Prescaled runs a learner on x̃_j = x_j/s_j, s_j the root mean square of
// the values feature j has had in training so far (its occurrences, the
// example being learned included; the constant feature, always 1, keeps
// s = 1): the papers' η, δ and ε then apply to features of typical
// magnitude 1, as in the papers' experiments on 0/1 and [−1, 1] data,
// whatever the units of the input — a data set whose feature j is
// multiplied by k_j gives s_j·k_j and the same x̃, the same run, for every
// k_j > 0 at once. A new feature enters at ±1.
//
// Measured (one pass, logistic; docs/algorithms.md §19): the root mean square against
// two other unit-free scales. One σ for all features (the root mean
// square of every nonzero value) leaves mixed units mixed — on spam, word
// frequencies in [0, 100] beside capital-run lengths up to 15841, ADA-FD
// fell to 70.5% against AdaGrad's 91.7%. The largest |x_j| so far (VW's
// --normalized scale) puts the typical value of a heavy-tailed feature
// (counts, lengths) far below 1, where the papers' η is too small: ADA-FD
// 88.5% on spam, ADA-FD(P) 78.3%; with the root mean square 92.1% and
// 92.0%.
//
// The weights the learner holds are for x̃ (β_j = β̃_j/s_j in raw units),
// and s_j moves with every occurrence of j, so β_j drifts by s_old/s_new
// (by less and less: s_j converges as the occurrences add up). VW
// rescales its weights when its scale changes; here β̃_j is β̄_j plus a
// column of the sketch's basis Z, which cannot be rescaled without
// breaking the sketch, so the later steps correct it. A value whose square
// underflows (|x| < 1.5e-154) or overflows gives no scale and, for a
// feature without one, counts as 0.
//
// Cost: for the learners on the SON core's split weights (every learner
// of Learners, NewPrescaledLearner) the sums Σx_j² and n_j are two more
// float64s in the feature's row of the core's own table (son.Config.RMS),
// and x̃ is computed from the row the core fetches for the example anyway:
// a square root and a division per feature, no lookup, no copy of the
// example, no allocation. The first-order learners (NewPrescaledFolded,
// --feature_scale auto) keep them in gd's rows the same way
// (gd.Config.RMS): one text pass of news20 with --sgd takes 1.052e9
// instructions against raw's 1.007e9, as the wrapper 1.155e9. As a wrapper (NewPrescaled: ADA-FULL,
// FTSL-Shampoo) it keeps a table of its own — one more slot lookup and
// row per feature, and a copy of the example's values: 47–49e6 more
// instructions for one pass of news20 than the folded form (ADA-FD 1.726e9
// against 1.678e9), 6–13 % more CPU time on news20 ×10 as text
// (docs/algorithms.md §19). Both forms learn the same bits and save the
// same model.
type Prescaled struct {
	inner sparse.Learner
	pre   prescaler // the wrapper's table of scales (fold == nil)
	// fold is where the scales sit when they are folded into inner's own
	// rows: its split (NewPrescaledLearner, a *son.Split) or the learner
	// itself (NewPrescaledFolded: gd.GD).
	fold folded
}

// folded is a learner that keeps the scales in its own rows and learns
// and predicts on x̃ by itself.
type folded interface {
	Scale(slot uint32) float64
	Scaled() int
	Scales() (keys []uint32, sums []float64)
}

// prescaler holds the scales s_j and the scaled copy of the example.
type prescaler struct {
	tab  *sparse.Table // per feature seen in training: Σx_j², occurrences
	rows []int         // the example's rows in tab (−1: not seen)
	offs []int         // the example's offsets in tab.Rows (learnOffsets)
	new  []int         // learnOffsets' scratch: the offsets of features new to the sums
	ex   sparse.Example
}

func newPrescaler(bits uint) prescaler {
	return prescaler{tab: sparse.NewTable(bits, 2)}
}

// NewPrescaled wraps l, a new learner over 2^bits slots: l learns on x̃
// (see Prescaled).
func NewPrescaled(l sparse.Learner, bits uint) *Prescaled {
	return &Prescaled{inner: l, pre: newPrescaler(bits)}
}

// NewPrescaledLearner returns the learner of cfg on x̃ with the scales
// kept in its split's feature rows (see Prescaled's cost): what
// NewPrescaled(New(cfg, l), cfg.Bits) learns and saves, faster.
func NewPrescaledLearner(cfg Config, l loss.Loss) (*Prescaled, error) {
	a, err := newWith(cfg, l, true)
	if err != nil {
		return nil, err
	}
	return &Prescaled{inner: a, fold: a.sp}, nil
}

// FoldedLearner is a learner that keeps the scales in its own feature
// rows and learns and predicts on x̃ by itself (gd.GD with
// gd.Config.RMS): Scales and SetScales give and take the wrapper's table
// of scales, the features with a value in the order they got their first
// and their sums [Σx_j², n_j], and its Save leaves them out.
type FoldedLearner interface {
	sparse.Learner
	folded
	SetScales(keys []uint32, sums []float64) error
}

// NewPrescaledFolded is Prescaled over l, a new learner that scales x by
// itself: what NewPrescaled around the learner without the scales learns
// and saves, faster (the first-order learners under --feature_scale auto).
func NewPrescaledFolded(l FoldedLearner) *Prescaled {
	return &Prescaled{inner: l, fold: l}
}

// LoadPrescaledFolded restores a Prescaled saved by Save, from
// NewPrescaledFolded or as NewPrescaled around the learner without the
// scales (the same bytes): the scales, then the learner, which load reads
// from r.
func LoadPrescaledFolded(r *model.Reader, load func(r *model.Reader) (FoldedLearner, error)) (*Prescaled, error) {
	keys := r.Uint32s(nil)
	sums := r.Float64s(nil)
	if err := r.Err(); err != nil {
		return nil, err
	}
	l, err := load(r)
	if err != nil {
		return nil, err
	}
	if err := l.SetScales(keys, sums); err != nil {
		return nil, err
	}
	return &Prescaled{inner: l, fold: l}, nil
}

// LoadPrescaled restores a Prescaled saved by Save: the scales, then the
// wrapped learner's state, which load reads from r.
func LoadPrescaled(r *model.Reader, bits uint, load func(r *model.Reader) (sparse.Learner, error)) (*Prescaled, error) {
	p := &Prescaled{pre: newPrescaler(bits)}
	t := p.pre.tab
	t.Keys = r.Uint32s(nil)
	t.Rows = r.Float64s(nil)
	if err := r.Err(); err != nil {
		return nil, err
	}
	if err := t.Rebuild(); err != nil {
		return nil, fmt.Errorf("%w: feature scales: %v", model.ErrCorrupt, err)
	}
	for i := 0; i < len(t.Rows); i += 2 {
		if err := sparse.CheckScaleSum(t.Rows[i], t.Rows[i+1]); err != nil {
			return nil, err
		}
	}
	in, err := load(r)
	if err != nil {
		return nil, err
	}
	p.inner = in
	return p, nil
}

// LoadPrescaledLearner restores a learner of cfg saved by Save, from
// NewPrescaledLearner or as NewPrescaled around New (the same bytes).
func LoadPrescaledLearner(r *model.Reader, cfg Config, l loss.Loss) (*Prescaled, error) {
	keys := r.Uint32s(nil)
	sums := r.Float64s(nil)
	if err := r.Err(); err != nil {
		return nil, err
	}
	a, err := loadWith(r, cfg, l, true)
	if err != nil {
		return nil, err
	}
	if err := a.sp.SetScales(keys, sums); err != nil {
		return nil, err
	}
	return &Prescaled{inner: a, fold: a.sp}, nil
}

// Inner is the wrapped learner.
func (p *Prescaled) Inner() sparse.Learner { return p.inner }

// Scale returns s_j of slot (0 for a feature not seen in training).
func (p *Prescaled) Scale(slot uint32) float64 {
	defer runtime.KeepAlive(p)
	if p.fold != nil {
		return p.fold.Scale(slot)
	}
	return p.pre.scale(p.pre.tab.Find(slot))
}

// raw converts a weight of the scaled problem to the raw features' units.
func (p *Prescaled) raw(slot uint32, w float64) float64 {
	if v := p.Scale(slot); v > 0 {
		return w / v
	}
	return w
}

// scaled returns ex with x_j divided by s_j; learning (learn) first adds
// x_j to s_j's sums (creating the rows of new features). A feature never
// seen in training has no weight: its value is passed as 0.
func (s *prescaler) scaled(ex *sparse.Example, learn bool) *sparse.Example {
	out := &s.ex
	out.Label, out.HasLabel, out.Weight, out.Initial, out.Tag = ex.Label, ex.HasLabel, ex.Weight, ex.Initial, ex.Tag
	out.Idx = ex.Idx
	if cap(out.Val) < len(ex.Val) {
		out.Val = make([]float64, len(ex.Val), 2*len(ex.Val))
	}
	out.Val = out.Val[:len(ex.Val)]
	t := s.tab
	s.rows = s.rows[:0]
	learn = learn && ex.Weight > 0
	if learn && scalable(ex.Val) {
		s.learnOffsets(ex, out.Val)
		return out
	}
	for i, slot := range ex.Idx {
		v := ex.Val[i]
		var r int
		if q := v * v; learn && q > 0 && q <= math.MaxFloat64 {
			r = t.Row(slot)
			row := t.Rows[2*r : 2*r+2]
			if sq := row[0] + q; sq <= math.MaxFloat64 {
				row[0], row[1] = sq, row[1]+1
			}
		} else {
			// A zero value, or one whose square overflows, gives no scale.
			r = t.Find(slot)
		}
		s.rows = append(s.rows, r)
	}
	rows := t.Rows
	for i, r := range s.rows {
		v := 0.0
		if r >= 0 && rows[2*r+1] > 0 {
			v = ex.Val[i] / math.Sqrt(rows[2*r]/rows[2*r+1])
		}
		out.Val[i] = v
	}
	return out
}

// scalable reports whether every value gives a scale (a square in
// (0, MaxFloat64]): then every feature gets a row, and learnOffsets can
// look the rows up in one batch.
func scalable(val []float64) bool {
	for _, v := range val {
		if q := v * v; !(q > 0 && q <= math.MaxFloat64) {
			return false
		}
	}
	return true
}

// learnOffsets is scaled's learning loop when every value gives a scale:
// the same sums and quotients, with the rows found by one Table.Offsets
// (its index chosen once per example, not by a Row call per feature — a
// fifth of the pre-scaling's time on news20). Sums first, then scales, so
// that a slot repeated in the example is scaled as in the general loop:
// the kernels of the learners that fold the sums into their own rows
// (linalg.RMSAdd, linalg.RMSScale).
func (s *prescaler) learnOffsets(ex *sparse.Example, dst []float64) {
	s.offs = s.tab.Offsets(s.offs[:0], ex.Idx)
	rows := s.tab.Rows
	s.new = linalg.RMSAdd(rows, ex.Val, s.offs, 0, s.new[:0])
	linalg.RMSScale(dst[:len(s.offs)], ex.Val, rows, s.offs, 0, 0)
}

// scale is s_j of row r (0 with no value yet).
func (s *prescaler) scale(r int) float64 {
	if r < 0 {
		return 0
	}
	return linalg.RMSOf(s.tab.Rows[2*r], s.tab.Rows[2*r+1])
}

// Predict implements sparse.Learner.
func (p *Prescaled) Predict(ex *sparse.Example) float64 {
	defer runtime.KeepAlive(p)
	if p.fold != nil {
		return p.inner.Predict(ex) // the learner scales x
	}
	return p.inner.Predict(p.pre.scaled(ex, false))
}

// Learn implements sparse.Learner.
func (p *Prescaled) Learn(ex *sparse.Example) float64 {
	defer runtime.KeepAlive(p)
	if p.fold != nil {
		return p.inner.Learn(ex)
	}
	return p.inner.Learn(p.pre.scaled(ex, true))
}

// Weights implements sparse.Learner: the weights in the raw features'
// units, which predict as the learner does.
func (p *Prescaled) Weights(fn func(slot uint32, w float64)) {
	defer runtime.KeepAlive(p)
	p.inner.Weights(func(slot uint32, w float64) { fn(slot, p.raw(slot, w)) })
}

// Save implements sparse.Learner: the scales (the features with one, in
// the order they got their first value, and their sums Σx_j², n_j), then
// the wrapped learner.
func (p *Prescaled) Save(w *model.Writer) error {
	defer runtime.KeepAlive(p)
	if p.fold != nil {
		keys, sums := p.fold.Scales()
		w.Uint32s(keys)
		w.Float64s(sums)
	} else {
		w.Uint32s(p.pre.tab.Keys)
		w.Float64s(p.pre.tab.Rows)
	}
	return p.inner.Save(w)
}

// Rejected counts the wrapped learner's refused steps (the CLI's warning).
func (p *Prescaled) Rejected() int {
	defer runtime.KeepAlive(p)
	if r, ok := p.inner.(interface{ Rejected() int }); ok {
		return r.Rejected()
	}
	return 0
}

// Ignored implements sparse.Capped for a wrapped learner that keeps at
// most a fixed number of slots (ADA-FULL); zero otherwise.
func (p *Prescaled) Ignored() sparse.Ignored {
	defer runtime.KeepAlive(p)
	if c, ok := p.inner.(sparse.Capped); ok {
		return c.Ignored()
	}
	return sparse.Ignored{}
}

// Report implements sparse.Reporter.
func (p *Prescaled) Report(w io.Writer) {
	defer runtime.KeepAlive(p)
	if r, ok := p.inner.(sparse.Reporter); ok {
		r.Report(w)
	}
	var n int
	if p.fold != nil {
		n = p.fold.Scaled()
	} else {
		n = p.pre.tab.Len()
	}
	fmt.Fprintf(w, "features learned as x_j/s_j, s_j = the root mean square of x_j in training, over %d features\n", n)
}

// PrescaledMulticlass is Prescaled around a K-class learner (FTSL-Shampoo):
// the class weights are reported in the raw features' units as well.
type PrescaledMulticlass struct {
	Prescaled
	mc multiclassScorer
}

// multiclassScorer is what the CLI asks of FTSL-Shampoo beyond
// sparse.Multiclass: its raw class scores and per-slot class weights.
type multiclassScorer interface {
	sparse.Multiclass
	Scores(s []float64)
	ClassSlotWeight(k int, slot uint32) float64
}

// NewPrescaledMulticlass wraps m, a new K-class learner over 2^bits slots.
func NewPrescaledMulticlass(m *Shampoo, bits uint) *PrescaledMulticlass {
	return &PrescaledMulticlass{Prescaled: *NewPrescaled(m, bits), mc: m}
}

// LoadPrescaledMulticlass restores a PrescaledMulticlass saved by Save.
func LoadPrescaledMulticlass(r *model.Reader, bits uint, load func(r *model.Reader) (*Shampoo, error)) (*PrescaledMulticlass, error) {
	var m *Shampoo
	p, err := LoadPrescaled(r, bits, func(r *model.Reader) (sparse.Learner, error) {
		var err error
		m, err = load(r)
		return m, err
	})
	if err != nil {
		return nil, err
	}
	return &PrescaledMulticlass{Prescaled: *p, mc: m}, nil
}

// Classes implements sparse.Multiclass.
func (p *PrescaledMulticlass) Classes() int { return p.mc.Classes() }

// Probabilities implements sparse.Multiclass.
func (p *PrescaledMulticlass) Probabilities(q []float64) { p.mc.Probabilities(q) }

// Scores are the raw class scores of the last Predict or Learn.
func (p *PrescaledMulticlass) Scores(s []float64) { p.mc.Scores(s) }

// ClassWeights implements sparse.Multiclass, in the raw features' units.
func (p *PrescaledMulticlass) ClassWeights(k int, fn func(slot uint32, w float64)) {
	defer runtime.KeepAlive(p)
	p.mc.ClassWeights(k, func(slot uint32, w float64) { fn(slot, p.raw(slot, w)) })
}

// ClassSlotWeight is class k's weight at slot, in the raw features' units.
func (p *PrescaledMulticlass) ClassSlotWeight(k int, slot uint32) float64 {
	defer runtime.KeepAlive(p)
	return p.raw(slot, p.mc.ClassSlotWeight(k, slot))
}
