package engine

import (
	"github.com/sparseson/sparseson/reduce"
	"github.com/sparseson/sparseson/sparse"
)

// oaaAhead is the scratch of an OAA model that learns a parser batch's
// training examples in one hand-off to its class threads
// ((*reduce.OAA).LearnBatch, bit-identical to Learn on each in turn), so
// that the handshake with the threads is paid once per batch rather than
// once per example.
type oaaAhead struct {
	replay *replayed
	out    reduce.Output // the class stage over replay
	preds  []float64
}

// oaaBatch returns the OAA model that learns batches ahead, or nil: the
// paths that read the model per example (the audit's weights before
// learning, each example's probabilities, its class scores for Raw) stay
// on Learn, and so do test runs and shards.
func (e *Engine) oaaBatch() *reduce.OAA {
	if e.shards != nil || !e.oaa || e.cfg.TestOnly || e.probs != nil || e.audit != nil || e.raw != nil {
		return nil
	}
	o, ok := e.learner.(*reduce.OAA)
	if !ok {
		return nil
	}
	if e.batch == nil || e.batch.replay.classes != e.classes {
		r := &replayed{classes: e.classes}
		e.batch = &oaaAhead{replay: r, out: reduce.Classes(replayedClasses{r})}
	}
	return o
}

// learnAhead learns the run of training examples of exs that starts at k
// (counted c in the pass) with o.LearnBatch, their predictions left in
// e.batch.preds, and returns the run's end: k when example k is not
// learned (unlabeled or held out), which process then predicts itself.
func (e *Engine) learnAhead(o *reduce.OAA, exs []sparse.Example, k int, c int64, isHoldout func(int64) bool) int {
	r := k
	for r < len(exs) && exs[r].HasLabel && !isHoldout(c+int64(r-k)) {
		r++
	}
	if r == k {
		return k
	}
	if cap(e.batch.preds) < len(exs) {
		e.batch.preds = make([]float64, len(exs))
	}
	e.batch.preds = e.batch.preds[:len(exs)]
	o.LearnBatch(exs[k:r], e.batch.preds[k:r])
	return r
}
