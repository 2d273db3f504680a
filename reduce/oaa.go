package reduce

import (
	"fmt"
	"io"
	"math"
	"runtime"

	"github.com/sparseson/sparseson/model"
	"github.com/sparseson/sparseson/sparse"
)

// Factory builds one base learner: a new one when r is nil, else the one
// saved in r (a part of the model that the learner must consume exactly).
// The CLI passes its learner family's build function.
type Factory func(r *model.Reader) (sparse.Learner, error)

// OAA is one-against-all (VW's --oaa K): K binary base learners, base k
// trained on the label +1 for examples of class k and −1 for the others,
// and the predicted class is the first whose base scores highest.
//
// Each class is a whole learner of its own (weights, AdaGrad or NASA
// accumulators, SON's sketch and counters), built by the family's Factory,
// and all K read one parsed, hashed example: parsing and hashing happen
// once per example, and the per-feature work of the K learners is exactly
// that of K binary learners. VW instead strides one weight array by K
// (class k's weight of feature j at slot j·K + k); that needs the learner
// to know K, and a learner with per-model state (a sketch, step counters)
// could not be strided at all.
//
// What K separate learners lose is locality: each keeps a slot index of
// 2^b entries, and a hashed feature lands at a random place in each of the
// K indexes — K cache misses per feature where a binary learner, whose
// index stays in cache, has none (measured on news20 with K = 20: 1.3× the
// cost of K binary learners). So OAA numbers the slots itself, in the
// order it first meets them, and hands its bases the example with each
// slot replaced by that number: one lookup in OAA's own index per feature,
// and the bases' indexes are used only in their first d_seen entries, the
// frequent features' at the front, as their weight rows already are. The
// numbering is a bijection of the slots seen, so no learner can tell the
// difference (none depends on a slot's value); Weights maps the numbers
// back.
//
// The example's label is rewritten to ±1 for each base, and its features
// to OAA's numbers, and both are restored before Learn returns; an example
// whose label is not a class in 1..K (the parser refuses those when told
// K) is predicted, not learned from.
type OAA struct {
	bases  []sparse.Learner
	scores []float64     // the bases' raw scores of the last example
	ids    *sparse.Table // slot → its number (row), Keys: number → slot
	idx    []uint32      // the example's features as numbers
	par    *parallel     // the classes' split over cores (oaa_parallel.go)
	batch  *batchState   // LearnBatch's scratch (oaa_batch.go)
}

// NewOAA builds K untrained bases for a hash space of 2^bits slots.
func NewOAA(k int, bits uint, newBase Factory) (*OAA, error) {
	o, err := newOAA(k, bits)
	if err != nil {
		return nil, err
	}
	for i := range o.bases {
		b, err := newBase(nil)
		if err != nil {
			return nil, err
		}
		o.bases[i] = b
	}
	return o, nil
}

func newOAA(k int, bits uint) (*OAA, error) {
	if k < 2 {
		return nil, fmt.Errorf("NewOAA: %d classes: need at least 2", k)
	}
	if bits < 1 || bits > sparse.MaxBits {
		return nil, fmt.Errorf("NewOAA: bits %d out of range 1..%d", bits, sparse.MaxBits)
	}
	core := &oaaCore{bases: make([]sparse.Learner, k), scores: make([]float64, k)}
	o := &OAA{bases: core.bases, scores: core.scores, ids: sparse.NewTable(bits, 0)}
	o.par = newParallel(core, runtime.GOMAXPROCS(0))
	// The helpers hold the core, not o: when o is unreachable they stop.
	runtime.AddCleanup(o, stopParallel, o.par)
	return o, nil
}

// LoadOAA restores an OAA saved by Save; k and bits are the model's.
func LoadOAA(r *model.Reader, k int, bits uint, newBase Factory) (*OAA, error) {
	o, err := newOAA(k, bits)
	if err != nil {
		return nil, err
	}
	if got := r.Uint32(); r.Err() == nil && int(got) != k {
		r.Fail("the model holds %d classes, its options say %d", got, k)
	}
	o.ids.Keys = r.Uint32s(nil)
	if err := r.Err(); err != nil {
		return nil, err
	}
	if err := o.ids.Rebuild(); err != nil {
		return nil, fmt.Errorf("%w: %v", model.ErrCorrupt, err)
	}
	for i := range o.bases {
		b, err := newBase(r.Section())
		if err != nil {
			return nil, fmt.Errorf("class %d: %w", i+1, err)
		}
		// The bases know features by OAA's numbers only: one beyond the
		// numbering (a damaged or foreign file) would index past it, and
		// would later stand for a feature numbered after loading.
		bad := -1
		n := uint32(len(o.ids.Keys))
		b.Weights(func(id uint32, _ float64) {
			if id >= n && bad < 0 {
				bad = int(id)
			}
		})
		if bad >= 0 {
			return nil, fmt.Errorf("class %d: %w: feature number %d beyond the %d numbered", i+1, model.ErrCorrupt, bad, n)
		}
		o.bases[i] = b
	}
	if err := r.Done(); err != nil {
		return nil, err
	}
	return o, nil
}

// Classes implements sparse.Multiclass.
func (o *OAA) Classes() int { return len(o.bases) }

// number replaces ex's features by their numbers and returns the slots to
// restore. Slots first met in a prediction are numbered too: the bases
// have no row for them, as for any unseen feature.
func (o *OAA) number(ex *sparse.Example) []uint32 {
	o.idx = o.idx[:0]
	for _, s := range ex.Idx {
		o.idx = append(o.idx, uint32(o.ids.Row(s)))
	}
	slots := ex.Idx
	ex.Idx = o.idx
	return slots
}

// Predict implements sparse.Learner: the predicted class.
func (o *OAA) Predict(ex *sparse.Example) float64 {
	defer runtime.KeepAlive(o)
	slots := o.number(ex)
	o.par.each(ex, 0)
	ex.Idx = slots
	return float64(argmax(o.scores))
}

// Learn implements sparse.Learner: the progressive prediction (the class
// the bases predicted before this example), then each base learns ±1.
func (o *OAA) Learn(ex *sparse.Example) float64 {
	defer runtime.KeepAlive(o)
	y := ex.Label
	c := int(y)
	if float64(c) != y || c < 1 || c > len(o.bases) {
		return o.Predict(ex)
	}
	slots := o.number(ex)
	o.par.each(ex, c)
	ex.Label, ex.Idx = y, slots
	return float64(argmax(o.scores))
}

// argmax returns the 1-based index of the first largest score; NaN scores
// never win (class 1 if all are NaN).
func argmax(s []float64) int {
	best, arg := math.Inf(-1), 1
	for k, v := range s {
		if v > best {
			best, arg = v, k+1
		}
	}
	return arg
}

// Probabilities implements sparse.Multiclass as VW's --oaa --probabilities
// does: each base's logistic 1/(1 + e^−s) of its score (clamped to
// [−50, 50], logistic loss's range), normalised to sum 1. They are
// probabilities when the bases were trained with logistic loss.
func (o *OAA) Probabilities(p []float64) {
	defer runtime.KeepAlive(o)
	probabilities(o.scores, p)
}

// probabilities writes the normalised logistics of the scores into p.
func probabilities(scores, p []float64) {
	var sum float64
	for k, s := range scores {
		if math.IsNaN(s) {
			p[k] = 0
			continue
		}
		p[k] = 1 / (1 + math.Exp(-math.Max(-50, math.Min(50, s))))
		sum += p[k]
	}
	if !(sum > 0) {
		for k := range p {
			p[k] = 1 / float64(len(p))
		}
		return
	}
	for k := range p {
		p[k] /= sum
	}
}

// Save implements sparse.Learner: K, the slots in the order of their
// numbers, then each base as its own part.
func (o *OAA) Save(w *model.Writer) error {
	defer runtime.KeepAlive(o)
	w.Uint32(uint32(len(o.bases)))
	w.Uint32s(o.ids.Keys)
	for k, b := range o.bases {
		if err := w.Section(b.Save); err != nil {
			return fmt.Errorf("class %d: %w", k+1, err)
		}
	}
	return nil
}

// Weights implements sparse.Learner: every class's weights, class after
// class (a slot appears once per class that has seen it).
func (o *OAA) Weights(fn func(slot uint32, w float64)) {
	defer runtime.KeepAlive(o)
	for k := range o.bases {
		o.ClassWeights(k+1, fn)
	}
}

// ClassWeights implements sparse.Multiclass.
func (o *OAA) ClassWeights(k int, fn func(slot uint32, w float64)) {
	defer runtime.KeepAlive(o)
	o.bases[k-1].Weights(func(id uint32, w float64) { fn(o.ids.Keys[id], w) })
}

// Report implements sparse.Reporter: each class's report, if the bases
// have one.
func (o *OAA) Report(w io.Writer) {
	defer runtime.KeepAlive(o)
	for k, b := range o.bases {
		if r, ok := b.(sparse.Reporter); ok {
			fmt.Fprintf(w, "class %d:\n", k+1)
			r.Report(w)
		}
	}
}

// Ignored implements sparse.Capped: the bases' ignored features, summed
// over the classes.
func (o *OAA) Ignored() sparse.Ignored {
	defer runtime.KeepAlive(o)
	var ig sparse.Ignored
	for _, b := range o.bases {
		if c, ok := b.(sparse.Capped); ok {
			ig = ig.Add(c.Ignored())
		}
	}
	return ig
}

// Rejected sums the steps the bases refused as numerically out of range
// (the SON core's count).
func (o *OAA) Rejected() int {
	defer runtime.KeepAlive(o)
	n := 0
	for _, b := range o.bases {
		if r, ok := b.(interface{ Rejected() int }); ok {
			n += r.Rejected()
		}
	}
	return n
}
