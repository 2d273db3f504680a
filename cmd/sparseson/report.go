package main

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

// example accounts one example. lossV is already weighted; labeled says
// whether a label was present; holdout marks held-out examples.
func (r *reporter) example(holdout, labeled bool, lossV, weight, label, pred float64, nfeat int) {
	if holdout {
		if labeled {
			r.hoWeight += weight
			r.hoWeightSince += weight
			r.hoPassWeight += weight
			r.hoLoss += lossV
			r.hoLossSince += lossV
			r.hoPassLoss += lossV
		}
	} else {
		if labeled {
			r.weightedLabeled += weight
			r.labels.Add(label, weight)
		} else {
			r.weightedUnlabeled += weight
		}
		r.sumLoss += lossV
		r.sumLossSinceDump += lossV
		r.totalFeatures += int64(nfeat)
		r.examples++
	}
	if r.weightedExamples() >= r.dumpAt && !r.quiet {
		r.row(labeled, label, pred, nfeat)
	}
}

func (r *reporter) row(labeled bool, label, pred float64, nfeat int) {
	var avg, since, suffix string
	if r.holdoutOn && r.pass >= 1 {
		avg, since, suffix = ratio(r.hoLoss, r.hoWeight, "unknown"), ratio(r.hoLossSince, r.hoWeightSince, "unknown"), " h"
		r.hoLossSince, r.hoWeightSince = 0, 0
	} else {
		avg = ratio(r.sumLoss, r.weightedLabeled, "n.a.")
		since = ratio(r.sumLossSinceDump, r.weightedLabeled-r.oldWeightedLabeled, "n.a.")
	}
	lab := "unknown"
	if labeled {
		lab = strconv.FormatFloat(label, 'f', 4, 64)
	}
	fmt.Fprintf(r.w, "%-8s %-8s %12d %14.1f %14s %14.4f %8d%s\n", avg, since, r.examples, r.weightedExamples(), lab, pred, nfeat, suffix)
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

// summary prints VW's end-of-run block.
func (r *reporter) summary(l loss.Loss, passes int, skipped int64) {
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
}
