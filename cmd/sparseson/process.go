package main

import (
	"fmt"
	"math"

	"github.com/sparseson/sparseson/hashing"
	"github.com/sparseson/sparseson/sparse"
)

// process predicts (and learns from) one example and accounts it: the one
// path every example takes, from a file, the cache or a --daemon
// connection. names are its features' names when recorded (--audit,
// --invert_hash), else nil; preds receives the prediction line (nil: none).
// It returns the prediction (the class of a multiclass model).
func (d *driver) process(ex *sparse.Example, holdout bool, names []hashing.AuditFeature, preds *predWriter) float64 {
	d.seen++
	train := ex.HasLabel && !holdout && !d.cfg.testOnly
	if d.invert != nil && names != nil && (d.pass == 0 || !train) {
		// As VW: names are collected in the first pass (and when testing).
		d.invert.add(names)
	}
	var audit []auditEntry
	if d.audit != nil {
		audit = d.auditFeatures(ex, names) // the weights before learning
	}
	var out float64
	if train {
		out = d.out.Learn(ex)
	} else {
		out = d.out.Predict(ex)
	}
	st := exampleStats{holdout: holdout, labeled: ex.HasLabel, train: train, weight: ex.Weight, label: ex.Label, pred: out, nfeat: len(ex.Idx), prob: -1}
	if ex.HasLabel {
		st.loss = d.out.Loss(ex, out) * ex.Weight
		st.watchLoss = st.loss
		if d.binary && train {
			// --binary counts the 0/1 loss; the warning compares the loss
			// function's value with the best constant's.
			st.watchLoss = d.loss.Value(d.loss.Clamp(d.out.Raw()), ex.Label) * ex.Weight
		}
	}
	if d.probs != nil {
		d.mc.Probabilities(d.probs)
		st.prob = d.probs[int(out)-1]
		if ex.HasLabel {
			// VW's multiclass log loss, 999 for a zero probability.
			st.logLoss = 999 * ex.Weight
			if p := d.probs[int(ex.Label)-1]; p > 0 {
				st.logLoss = -math.Log(p) * ex.Weight
			}
		}
	}
	if train && d.mc == nil {
		d.loss.Observe(ex.Label)
		if !d.fixMin {
			d.labelMin = math.Min(d.labelMin, ex.Label)
		}
		if !d.fixMax {
			d.labelMax = math.Max(d.labelMax, ex.Label)
		}
		d.checkLabel(ex.Label)
	}
	d.rep.example(&st)
	if audit != nil {
		d.printAudit(out, ex.Tag, audit)
	}
	if d.raw != nil {
		d.writeRaw(ex.Tag)
	}
	if preds == nil {
		return out
	}
	if d.probs != nil {
		preds.writeProbs(d.probs, ex.Tag)
	} else {
		preds.write(out, ex.Tag)
	}
	return out
}

// checkLabel warns once about a training label the loss does not expect.
func (d *driver) checkLabel(y float64) {
	if d.warnedLabel {
		return
	}
	name := d.loss.Name()
	switch {
	case (d.binary || name == "logistic" || name == "hinge") && y != 1 && y != -1:
		d.warnedLabel = true
		fmt.Fprintf(d.stderr, "sparseson: warning: label %v is not -1 or 1 as %s expects\n", y, d.lossLabel())
	case name == "poisson" && y < 0:
		d.warnedLabel = true
		fmt.Fprintf(d.stderr, "sparseson: warning: label %v is negative; --loss_function poisson expects counts ≥ 0\n", y)
	}
}
