package engine

import (
	"fmt"
	"math"

	"github.com/sparseson/sparseson/hashing"
	"github.com/sparseson/sparseson/sparse"
)

// Process predicts (and, unless TestOnly or the example has no label,
// learns from) one example and accounts it in the progress table, as Run
// does for every example of the data. It returns the prediction (the class
// of a multiclass model). With Config.Shards > 1 the example goes to its
// shard, which mixes with the others every ShardMix examples; Learner is
// the last mix.
func (e *Engine) Process(ex *sparse.Example) float64 {
	if e.shards != nil {
		e.shards.replay.v = e.shards.m.Learn(ex)
	}
	return e.process(ex, false, nil, nil)
}

// process is the one path every example takes, from a file, the cache or
// a served connection. names are its features' names when recorded
// (Audit, InvertHash), else nil; preds receives the prediction line (nil:
// none). It returns the prediction (the class of a multiclass model).
func (e *Engine) process(ex *sparse.Example, holdout bool, names []hashing.AuditFeature, preds *predWriter) float64 {
	e.seen++
	train := ex.HasLabel && !holdout && !e.cfg.TestOnly
	if e.invert != nil && names != nil && (e.pass == 0 || !train) {
		// As VW: names are collected in the first pass (and when testing).
		e.invert.add(names)
	}
	var audit []auditEntry
	if e.audit != nil {
		audit = e.auditFeatures(ex, names) // the weights before learning
	}
	var out float64
	if train {
		out = e.out.Learn(ex)
	} else {
		out = e.out.Predict(ex)
	}
	st := exampleStats{holdout: holdout, labeled: ex.HasLabel, train: train, weight: ex.Weight, label: ex.Label, pred: out, nfeat: len(ex.Idx), prob: -1}
	if ex.HasLabel {
		st.loss = e.out.Loss(ex, out) * ex.Weight
		st.watchLoss = st.loss
		if e.binary && train {
			// binary counts the 0/1 loss; the warning compares the loss
			// function's value with the best constant's.
			st.watchLoss = e.loss.Value(e.loss.Clamp(e.out.Raw()), ex.Label) * ex.Weight
		}
	}
	if e.probs != nil {
		e.mc.Probabilities(e.probs)
		st.prob = e.probs[int(out)-1]
		if ex.HasLabel {
			// VW's multiclass log loss, 999 for a zero probability.
			st.logLoss = 999 * ex.Weight
			if p := e.probs[int(ex.Label)-1]; p > 0 {
				st.logLoss = -math.Log(p) * ex.Weight
			}
		}
	}
	if train && e.mc == nil {
		e.loss.Observe(ex.Label)
		if !e.fixMin {
			e.labelMin = math.Min(e.labelMin, ex.Label)
		}
		if !e.fixMax {
			e.labelMax = math.Max(e.labelMax, ex.Label)
		}
		e.checkLabel(ex.Label)
	}
	e.rep.example(&st)
	if audit != nil {
		e.printAudit(out, ex.Tag, audit)
	}
	if e.raw != nil {
		e.writeRaw(ex.Tag)
	}
	if preds == nil {
		return out
	}
	if e.probs != nil {
		preds.writeProbs(e.probs, ex.Tag)
	} else {
		preds.write(out, ex.Tag)
	}
	return out
}

// checkLabel warns once about a training label the loss does not expect.
func (e *Engine) checkLabel(y float64) {
	if e.warnedLabel {
		return
	}
	name := e.loss.Name()
	switch {
	case (e.binary || name == "logistic" || name == "hinge") && y != 1 && y != -1:
		e.warnedLabel = true
		fmt.Fprintf(e.cfg.Stderr, "sparseson: warning: label %v is not -1 or 1 as %s expects\n", y, e.lossLabel())
	case name == "poisson" && y < 0:
		e.warnedLabel = true
		fmt.Fprintf(e.cfg.Stderr, "sparseson: warning: label %v is negative; %s poisson expects counts ≥ 0\n", y, e.cfg.name("loss"))
	}
}
