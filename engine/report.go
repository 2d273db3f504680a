package engine

import (
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/sparseson/sparseson/loss"
)

// reporter keeps VW's running statistics and prints its progressive
// validation table (at doubling example weights by default) and its end
// summary. Holdout examples (every 10th with --passes > 1) are tracked
// apart; from the second pass on the table shows holdout loss, marked "h".
type reporter struct {
	w      io.Writer
	quiet  bool
	add    bool
	factor float64
	dumpAt float64
	pass   int // 0-based
	// training and unlabeled examples
	examples                  int64
	weightedLabeled           float64
	weightedUnlabeled         float64
	oldWeightedLabeled        float64
	sumLoss, sumLossSinceDump float64
	totalFeatures             int64
	labels                    loss.LabelStats
	// holdout examples
	holdoutOn                  bool
	hoWeight, hoLoss           float64
	hoWeightSince, hoLossSince float64
	hoPassWeight, hoPassLoss   float64
	bestHoldout                float64
	bestPass                   int
	// multiclass: labels and predictions are classes, the loss the error
	// rate; with logLossOn (--probabilities) the multiclass log loss
	// −log p_y is summed as well (VW reports it in the summary only).
	multiclass, logLossOn bool
	logLoss, hoLogLoss    float64
	// watch is the divergence warning (diverge.go); nil: none.
	watch *divergence
}

// exampleStats is what the reporter counts of one example. loss and
// logLoss are already weighted; prob is the predicted class's probability
// (negative when there is none). A trained example (train) is watched for
// divergence with watchLoss, its weighted loss under the loss function
// (loss itself, except under --binary, where loss is the 0/1 loss).
type exampleStats struct {
	holdout, labeled, train   bool
	loss, logLoss, watchLoss  float64
	weight, label, pred, prob float64
	nfeat                     int
}

func newReporter(w io.Writer, quiet, add bool, factor float64, holdoutOn bool) *reporter {
	r := &reporter{w: w, quiet: quiet, add: add, factor: factor, dumpAt: 1, holdoutOn: holdoutOn, bestHoldout: math.Inf(1), bestPass: -1}
	if add {
		r.dumpAt = factor
	}
	return r
}

func (r *reporter) weightedExamples() float64 { return r.weightedLabeled + r.weightedUnlabeled }

func (r *reporter) header() {
	if r.quiet {
		return
	}
	fmt.Fprintf(r.w, "%-8s %-8s %12s %14s %14s %14s %8s\n", "average", "since", "example", "example", "current", "current", "current")
	fmt.Fprintf(r.w, "%-8s %-8s %12s %14s %14s %14s %8s\n", "loss", "last", "counter", "weight", "label", "predict", "features")
}

// example accounts one example.
func (r *reporter) example(e *exampleStats) {
	if e.holdout {
		if e.labeled {
			r.hoWeight += e.weight
			r.hoWeightSince += e.weight
			r.hoPassWeight += e.weight
			r.hoLoss += e.loss
			r.hoLossSince += e.loss
			r.hoPassLoss += e.loss
			r.hoLogLoss += e.logLoss
		}
	} else {
		if e.labeled {
			r.weightedLabeled += e.weight
			if !r.multiclass {
				r.labels.Add(e.label, e.weight)
			}
		} else {
			r.weightedUnlabeled += e.weight
		}
		if e.train && r.watch != nil {
			r.watch.add(r.w, e.watchLoss, e.weight, e.label)
		}
		r.sumLoss += e.loss
		r.sumLossSinceDump += e.loss
		r.logLoss += e.logLoss
		r.totalFeatures += int64(e.nfeat)
		r.examples++
	}
	if r.weightedExamples() >= r.dumpAt && !r.quiet {
		r.row(e)
	}
}

func (r *reporter) row(e *exampleStats) {
	var avg, since, suffix string
	if r.holdoutOn && r.pass >= 1 {
		avg, since, suffix = ratio(r.hoLoss, r.hoWeight, "unknown"), ratio(r.hoLossSince, r.hoWeightSince, "unknown"), " h"
		r.hoLossSince, r.hoWeightSince = 0, 0
	} else {
		avg = ratio(r.sumLoss, r.weightedLabeled, "n.a.")
		since = ratio(r.sumLossSinceDump, r.weightedLabeled-r.oldWeightedLabeled, "n.a.")
	}
	lab := "unknown"
	var pred string
	if r.multiclass {
		// VW's multiclass columns: classes, and with --probabilities the
		// predicted class's probability, "3(45%)".
		if e.labeled {
			lab = strconv.FormatFloat(e.label, 'f', 0, 64)
		}
		pred = strconv.FormatFloat(e.pred, 'f', 0, 64)
		if e.prob >= 0 {
			pred += "(" + strconv.FormatFloat(100*e.prob, 'f', 0, 64) + "%)"
		}
	} else {
		if e.labeled {
			lab = strconv.FormatFloat(e.label, 'f', 4, 64)
		}
		pred = strconv.FormatFloat(e.pred, 'f', 4, 64)
	}
	fmt.Fprintf(r.w, "%-8s %-8s %12d %14.1f %14s %14s %8d%s\n", avg, since, r.examples, r.weightedExamples(), lab, pred, e.nfeat, suffix)
	r.sumLossSinceDump = 0
	r.oldWeightedLabeled = r.weightedLabeled
	if r.add {
		r.dumpAt = r.weightedExamples() + r.factor
	} else {
		r.dumpAt = r.weightedExamples() * r.factor
	}
}

func ratio(num, den float64, none string) string {
	if den == 0 {
		return none
	}
	return strconv.FormatFloat(num/den, 'f', 6, 64)
}

// endPass closes a pass's holdout accounting. It reports whether this pass
// set a new best holdout loss, and whether any holdout example was seen.
func (r *reporter) endPass() (improved, measured bool) {
	defer func() { r.hoPassLoss, r.hoPassWeight = 0, 0; r.pass++ }()
	if !r.holdoutOn || r.hoPassWeight == 0 {
		return false, false
	}
	l := r.hoPassLoss / r.hoPassWeight
	if l < r.bestHoldout {
		r.bestHoldout, r.bestPass = l, r.pass
		return true, true
	}
	return false, true
}

// summary prints VW's end-of-run block. The divergence warning is judged
// first: it is printed, once, with --quiet too (it is not progress).
func (r *reporter) summary(l loss.Loss, passes int, skipped int64) {
	if r.watch != nil {
		r.watch.finish(r.w)
	}
	if r.quiet {
		if skipped > 0 {
			fmt.Fprintf(r.w, "sparseson: %d malformed lines skipped\n", skipped)
		}
		return
	}
	w := r.w
	fmt.Fprintln(w, "\nfinished run")
	if passes <= 1 {
		fmt.Fprintf(w, "number of examples = %d\n", r.examples)
	} else {
		fmt.Fprintf(w, "number of examples per pass = %d\n", r.examples/int64(passes))
		fmt.Fprintf(w, "passes used = %d\n", passes)
	}
	fmt.Fprintf(w, "weighted example sum = %f\n", r.weightedExamples())
	fmt.Fprintf(w, "weighted label sum = %f\n", r.labels.WeightedLabels)
	switch {
	case !r.holdoutOn && r.weightedLabeled > 0:
		fmt.Fprintf(w, "average loss = %f\n", r.sumLoss/r.weightedLabeled)
	case !r.holdoutOn:
		fmt.Fprintln(w, "average loss = n.a.")
	case math.IsInf(r.bestHoldout, 1):
		fmt.Fprintln(w, "average loss = undefined (no holdout)")
	default:
		fmt.Fprintf(w, "average loss = %f h\n", r.bestHoldout)
	}
	switch {
	case !r.logLossOn:
	case !r.holdoutOn && r.weightedLabeled > 0:
		fmt.Fprintf(w, "average multiclass log loss = %f\n", r.logLoss/r.weightedLabeled)
	case r.holdoutOn && r.hoWeight > 0:
		// Over every holdout example of every pass (VW keeps no
		// per-pass log loss).
		fmt.Fprintf(w, "average multiclass log loss = %f h\n", r.hoLogLoss/r.hoWeight)
	}
	if c, cl, ok := loss.BestConstant(l, &r.labels); ok {
		fmt.Fprintf(w, "best constant = %f\n", c)
		if !math.IsNaN(cl) {
			fmt.Fprintf(w, "best constant's loss = %f\n", cl)
		}
	}
	fmt.Fprintf(w, "total feature number = %d\n", r.totalFeatures)
	if skipped > 0 {
		fmt.Fprintf(w, "malformed lines skipped = %d\n", skipped)
	}
	if r.watch != nil && r.watch.fired {
		fmt.Fprintf(w, "warning: %s\n", r.watch.message())
	}
}
