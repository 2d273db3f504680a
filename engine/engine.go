// Package engine runs sparseson's learners over data as Vowpal Wabbit
// does: the passes over files or stdin (plain, gzip or zstd; VW or LIBSVM
// text) with VW's holdout and example cache, the per-example path that
// training, testing and serving share, the outputs (model file,
// predictions, raw scores, readable model, audit) and VW's progressive
// validation table and summary on stderr.
//
// A run is configured by a Config (Defaults for VW's defaults) whose
// Options are the model's options, decoded by package learners:
//
//	cfg := engine.Defaults()
//	cfg.Options = learners.DefaultOptions(18) // or a saved model: cfg.Initial
//	cfg.Data, cfg.Final = []string{"train.vw"}, "model.bin"
//	e, err := engine.New(cfg)
//	...
//	err = e.Run(ctx) // canceling ctx stops at an example boundary and saves
//
// Run reads the data for the passes asked and writes the outputs; Serve
// answers example lines over TCP (VW's daemon); Process, ParseLine and
// Predict take one example at a time.
//
// Errors name Config's fields ("Config.Passes 0: must be ≥ 1") unless
// Config.Name says otherwise; a *SettingError is a setting's own fault.
package engine

import (
	"fmt"
	"io"
	"math"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/sparseson/sparseson/hashing"
	"github.com/sparseson/sparseson/learners"
	"github.com/sparseson/sparseson/loss"
	"github.com/sparseson/sparseson/model"
	"github.com/sparseson/sparseson/parser"
	"github.com/sparseson/sparseson/reduce"
	"github.com/sparseson/sparseson/sparse"
)

// maxWarnings malformed lines are shown individually; the rest are counted.
const maxWarnings = 10

// Engine runs one model over data: it holds the model, its outputs and
// the statistics of the run.
type Engine struct {
	cfg *Config

	fam     *learners.Family
	opts    model.Options
	hash    hashing.Config
	loss    loss.Loss
	learner sparse.Learner // the model: what is saved and loaded
	out     reduce.Output  // the stack's top: what each example runs through
	rep     *reporter
	preds   *predWriter
	vwOut   // Raw, Audit, InvertHash (vwout.go)

	// A multiclass model (oaa K, softmax K); mc is nil for a scalar one.
	classes int
	oaa     bool
	mc      sparse.Multiclass
	probs   []float64 // class probabilities of the example (option probabilities)

	// shards trains Config.Shards > 1 shard learners (shards.go); nil
	// with one learner.
	shards *shards
	// batch is the scratch of an OAA model learning batches (oaabatch.go).
	batch *oaaAhead

	binary             bool
	labelMin, labelMax float64
	fixMin, fixMax     bool // MinPrediction, MaxPrediction given
	pass               int
	skipped            int64
	seen               int64 // valid examples read in the first pass
	warned             int
	warnedLabel        bool

	builder *hashing.Builder // ParseLine's

	// stopped is set when the run's context is canceled; src is the
	// source being read, closed then to unblock a read of stdin.
	stopped atomic.Bool
	mu      sync.Mutex
	src     parser.Source
}

// New builds the model the configuration describes (new, or loaded from
// Initial) with its output stack. It reads no data and writes nothing.
func New(cfg Config) (*Engine, error) {
	c := &cfg
	if c.Stdin == nil {
		c.Stdin = strings.NewReader("")
	}
	if c.Stdout == nil {
		c.Stdout = io.Discard
	}
	if c.Stderr == nil {
		c.Stderr = io.Discard
	}
	if err := c.Validate(); err != nil {
		return nil, setting(err)
	}
	e := &Engine{cfg: c}
	stored, r := c.Options, c.Resume
	if c.Initial != "" && r == nil {
		o, rd, err := model.Load(c.Initial)
		if err != nil {
			return nil, err
		}
		r = rd
		if stored == nil {
			stored = o
		}
	}
	if stored == nil {
		return nil, setting(fmt.Errorf("%s: no model options (give a new model's options or an Initial model)", c.name("Options")))
	}
	if err := e.setupModel(stored, r); err != nil {
		return nil, err
	}
	if err := e.setupShards(); err != nil {
		return nil, err
	}
	holdoutOn := (c.Passes > 1 || c.HoldoutAfter > 0) && !c.HoldoutOff && !c.TestOnly
	add, factor, _ := c.progressSchedule()
	e.rep = newReporter(c.Stderr, c.Quiet, add, factor, holdoutOn)
	e.rep.multiclass, e.rep.logLossOn = e.classes > 0, e.probs != nil
	return e, nil
}

// setupModel builds the loss and the learner of options opts, new (r nil)
// or loaded from r. Its errors are SettingErrors where the settings alone
// decide them; what a loaded model's own content decides is not.
func (e *Engine) setupModel(opts model.Options, r *model.Reader) error {
	c := e.cfg
	var err error
	// byModel marks an error that a new model's options (the settings
	// alone) would make a setting error.
	byModel := func(err error) error {
		if r == nil {
			return setting(err)
		}
		return err
	}
	e.opts = model.Options{}
	for k, v := range opts {
		e.opts[k] = v
	}
	if e.fam = learners.Lookup(e.opts["learner"]); e.fam == nil {
		return fmt.Errorf("load model %s: unknown learner %q", c.Initial, e.opts["learner"])
	}
	if e.hash, err = learners.HashConfig(e.opts); err != nil {
		return byModel(err)
	}
	if e.loss, err = learners.NewLoss(e.opts); err != nil {
		return byModel(err)
	}
	if err := e.setupLabelRange(); err != nil {
		return byModel(err)
	}
	e.binary = e.opts["binary"] == "true"
	if err := e.setupClasses(); err != nil {
		return byModel(err)
	}
	if err := e.checkShards(r); err != nil {
		return setting(err)
	}
	if err := e.checkMemory(); err != nil {
		return err
	}
	if e.learner, err = learners.Build(e.opts, e.loss, e.classes, e.oaa, r); err != nil {
		if c.Initial != "" {
			return fmt.Errorf("load model %s: %w", c.Initial, err)
		}
		return setting(err)
	}
	if r != nil {
		if err := e.checkWeights(); err != nil {
			return err
		}
	}
	e.out = e.outputStage()
	return setting(e.setupVW())
}

// setupLabelRange reads the saved label range and the ends of it that are
// fixed.
func (e *Engine) setupLabelRange() error {
	if _, ok := e.opts["label_min"]; !ok {
		return nil
	}
	var err error
	if e.labelMin, err = learners.Float(e.opts, "label_min"); err != nil {
		return err
	}
	if e.labelMax, err = learners.Float(e.opts, "label_max"); err != nil {
		return err
	}
	if math.IsNaN(e.labelMin-e.labelMax) || math.IsInf(e.labelMin-e.labelMax, 0) {
		return fmt.Errorf("load model %s: %w: label range [%v, %v]", e.cfg.Initial, model.ErrCorrupt, e.labelMin, e.labelMax)
	}
	// A range fixed by MinPrediction/MaxPrediction stays fixed (for a
	// Poisson model, observing the range would not even narrow its
	// initial [−50, 50]).
	lo, hi := math.NaN(), math.NaN()
	e.fixMin, e.fixMax = strings.Contains(e.opts["label_fixed"], "min"), strings.Contains(e.opts["label_fixed"], "max")
	if e.fixMin {
		lo = e.labelMin
	}
	if e.fixMax {
		hi = e.labelMax
	}
	if e.fixMin || e.fixMax {
		if err := loss.Fix(e.loss, lo, hi); err != nil {
			return fmt.Errorf("load model %s: %w: a fixed label range for %s loss", e.cfg.Initial, model.ErrCorrupt, e.loss.Name())
		}
	}
	return nil
}

// checkWeights makes sure a loaded model applies finite weights. Every
// learner checks its state is finite; the weights it applies (w̄ + Zᵀb for
// SON, a scale times the stored weight for gd) must be finite too,
// whatever state a damaged or foreign file holds.
func (e *Engine) checkWeights() error {
	var bad error
	e.learner.Weights(func(slot uint32, w float64) {
		if bad == nil && (math.IsNaN(w) || math.IsInf(w, 0)) {
			bad = fmt.Errorf("load model %s: %w: the weight of slot %d is %v", e.cfg.Initial, model.ErrCorrupt, slot, w)
		}
	})
	return bad
}

// setupClasses reads K from the options and checks the output options
// against it.
func (e *Engine) setupClasses() error {
	var err error
	if e.classes, e.oaa, err = learners.Classes(e.opts); err != nil {
		return err
	}
	if e.classes > 0 {
		learners.ObserveClasses(e.loss)
	}
	n := e.cfg.name
	switch {
	case e.opts["probabilities"] == "true" && e.classes == 0:
		return setting(fmt.Errorf("%s needs a multiclass model (%s K or %s K)", n("probabilities"), n("oaa"), n("softmax")))
	case e.classes > 0 && (e.binary || (e.opts["link"] != "identity" && e.opts["link"] != "")):
		return setting(fmt.Errorf("%s and %s report scalar predictions; a multiclass model reports classes (and %s its class probabilities)", n("binary"), n("link"), n("probabilities")))
	case e.opts["probabilities"] == "true" && e.oaa && e.loss.Name() != "logistic":
		fmt.Fprintf(e.cfg.Stderr, "sparseson: warning: %s should be used with %s logistic (the bases' scores are read as log-odds); this model uses %s\n", n("probabilities"), n("loss"), e.loss.Name())
	}
	return nil
}

// outputStage puts the output reductions on top of the model: the class
// of a multiclass model, else the clamped score, its sign (binary) or its
// link (link logistic, …).
func (e *Engine) outputStage() reduce.Output {
	if mc, ok := e.learner.(sparse.Multiclass); ok {
		e.mc = mc
		if e.opts["probabilities"] == "true" {
			e.probs = make([]float64, mc.Classes())
		}
		return reduce.Classes(mc)
	}
	e.mc, e.probs = nil, nil
	out := reduce.Scalar(e.learner, e.loss)
	switch {
	case e.binary:
		return reduce.Binary(out)
	case e.opts["link"] != "identity" && e.opts["link"] != "":
		if linked, err := reduce.LinkNamed(out, e.opts["link"]); err == nil {
			return linked
		}
	}
	return out
}

// Options returns the model's options as they are saved, including the
// label range that clips predictions.
func (e *Engine) Options() model.Options {
	o := model.Options{}
	for k, v := range e.opts {
		o[k] = v
	}
	o["label_min"], o["label_max"] = learners.FormatFloat(e.labelMin), learners.FormatFloat(e.labelMax)
	delete(o, "label_fixed")
	switch {
	case e.fixMin && e.fixMax:
		o["label_fixed"] = "min,max"
	case e.fixMin:
		o["label_fixed"] = "min"
	case e.fixMax:
		o["label_fixed"] = "max"
	}
	return o
}

// Save writes the model to path atomically (a temporary file renamed).
func (e *Engine) Save(path string) error { return model.Save(path, e.Options(), e.learner.Save) }

// Learner returns the model.
func (e *Engine) Learner() sparse.Learner { return e.learner }

// Family returns the model's learner family.
func (e *Engine) Family() *learners.Family { return e.fam }

// Hashing returns how the model hashes examples' features.
func (e *Engine) Hashing() hashing.Config { return e.hash }

// Classes returns K of a multiclass model, 0 for a scalar one.
func (e *Engine) Classes() int { return e.classes }

// Probabilities returns the class probabilities of the last example
// processed (nil unless the model reports them).
func (e *Engine) Probabilities() []float64 { return e.probs }

// Examples returns the number of valid examples processed so far.
func (e *Engine) Examples() int64 { return e.seen }

// Predict returns the model's prediction for ex, as Process would report
// it, without learning or accounting.
func (e *Engine) Predict(ex *sparse.Example) float64 { return e.out.Predict(ex) }
