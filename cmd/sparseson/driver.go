package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/sparseson/sparseson/hashing"
	"github.com/sparseson/sparseson/loss"
	"github.com/sparseson/sparseson/model"
	"github.com/sparseson/sparseson/parser"
	"github.com/sparseson/sparseson/reduce"
	"github.com/sparseson/sparseson/sparse"
)

// maxWarnings malformed lines are shown individually; the rest are counted.
const maxWarnings = 10

// parserChunkBytes is the text the parser hands a worker at a time (0: its
// default); the determinism test makes it small, so that a short input is
// spread over all the parsing goroutines.
var parserChunkBytes int

// driver runs the passes over the data and accounts every example.
type driver struct {
	ctx    context.Context // stops --daemon (nil: SIGINT and SIGTERM do)
	cfg    *config
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer

	fam     *family
	opts    model.Options
	hash    hashing.Config
	loss    loss.Loss
	learner sparse.Learner // the model: what is saved and loaded
	out     reduce.Output  // the stack's top: what each example runs through
	rep     *reporter
	preds   *predWriter
	vwOut   // -r, --audit, --invert_hash (vwout.go)

	// A multiclass model (--oaa K, --softmax K); mc is nil for a scalar one.
	classes int
	oaa     bool
	mc      sparse.Multiclass
	probs   []float64 // class probabilities of the example (--probabilities)

	binary             bool
	labelMin, labelMax float64
	fixMin, fixMax     bool // --min_prediction, --max_prediction
	pass               int
	sigs               *stopper // --save_on_signal (signal.go)
	skipped            int64
	seen               int64 // valid examples read in the first pass
	warned             int
	warnedLabel        bool
}

func (d *driver) run() (err error) {
	c := d.cfg
	if err := d.setup(); err != nil {
		return err
	}
	if c.vw.daemon {
		return d.serve()
	}
	var stopSigs func()
	d.sigs, stopSigs = d.watchSignals()
	defer func() {
		// A signal during the save, or any time after the last example,
		// ends the run with 128 + its number too, as --help promises.
		stopSigs()
		if err == nil && d.sigs.interrupted() {
			err = &interruptError{sig: d.sigs.sig, examples: d.seen, saved: c.final}
		}
	}()
	inputs := c.data
	if len(inputs) == 0 {
		inputs = []string{"-"}
	}
	cachePath, err := d.cachePath(inputs)
	if err != nil {
		return err
	}
	// Fail before the first example, not after the whole run: every file
	// the run will write must be writable, and the inputs must open.
	var stdin io.Reader
	if slices.Contains(inputs, "-") {
		stdin = d.stdin
	}
	if err := checkOutputsReading(c, cachePath, stdin); err != nil {
		return err
	}
	removeStale(c, cachePath, d.stderr)
	src, cw, err := d.openPass(0, inputs, cachePath)
	if err != nil {
		return err
	}
	holdoutOn := (c.passes > 1 || c.vw.holdoutAfter > 0) && !c.holdoutOff && !c.testOnly
	add, factor, _ := c.progressSchedule()
	d.rep = newReporter(d.stderr, c.quiet, add, factor, holdoutOn)
	d.rep.multiclass, d.rep.logLossOn = d.classes > 0, d.probs != nil
	d.watchDivergence()
	if c.predictions != "" {
		if d.preds, err = newPredWriter(c.predictions); err != nil {
			src.Close()
			if cw != nil {
				cw.Abort()
			}
			return err
		}
		defer d.preds.close()
	}
	if err := d.openVWOutputs(); err != nil {
		src.Close()
		if cw != nil {
			cw.Abort()
		}
		return err
	}
	defer d.closeVWOutputs()
	d.printHeader(inputs, cachePath)

	var snapshot []byte
	passes, noWin := 0, 0
	interrupted := false
	for pass := 0; pass < c.passes; pass++ {
		d.pass = pass
		if pass > 0 {
			if d.sigs.interrupted() {
				interrupted = true
				break
			}
			if src, cw, err = d.openPass(pass, inputs, cachePath); err != nil {
				return err
			}
		}
		if err := d.runPass(src, cw, holdoutOn); err == errInterrupted {
			interrupted = true
			break
		} else if err != nil {
			return err
		}
		passes++
		if pass == 0 && d.seen == 0 {
			return fmt.Errorf("no valid examples in the input (%d malformed lines skipped)", d.skipped)
		}
		improved, measured := d.rep.endPass()
		if improved && c.passes > 1 {
			var buf bytes.Buffer
			if err := model.Encode(&buf, d.modelOptions(), d.learner.Save); err != nil {
				return fmt.Errorf("snapshot the best pass: %w", err)
			}
			snapshot = buf.Bytes()
			noWin = 0
		} else if measured {
			if noWin++; noWin >= c.earlyTerminate {
				break
			}
		}
		if pass+1 < c.passes && c.vw.decay != 1 {
			if err := d.decayRate(); err != nil {
				return err
			}
		}
	}
	if interrupted && d.seen == 0 {
		return &interruptError{sig: d.sigs.sig}
	}
	// An interrupted run keeps the model as trained so far (the pass it
	// stopped in has no holdout loss to compare).
	if snapshot != nil && d.rep.bestPass != passes-1 && !interrupted {
		// As VW: with a holdout set the model kept is the best pass's.
		_, r, err := model.Parse(snapshot)
		if err == nil {
			d.learner, err = d.buildLearner(r)
		}
		if err != nil {
			return fmt.Errorf("restore the best pass: %w", err)
		}
		d.out = d.outputStage()
	}
	if d.preds != nil {
		if err := d.preds.close(); err != nil {
			return err
		}
	}
	if c.final != "" {
		if err := model.Save(c.final, d.modelOptions(), d.learner.Save); err != nil {
			return err
		}
	}
	if c.readable != "" {
		if err := writeReadable(c.readable, d.modelOptions(), d.learner, nil); err != nil {
			return err
		}
	}
	if err := d.finishVWOutputs(); err != nil {
		return err
	}
	d.rep.summary(d.loss, passes, d.skipped)
	if rp, ok := d.learner.(sparse.Reporter); ok && c.sketchReport {
		rp.Report(d.stderr)
	}
	if r, ok := d.learner.(interface{ Rejected() int }); ok && r.Rejected() > 0 {
		switch d.fam {
		case sonFamily:
			fmt.Fprintf(d.stderr, "sparseson: warning: %d SON steps refused as numerically out of range (a weight beyond ±1e140); the model stays finite, but the data's scale does not suit --alpha: try the default --diag pre-scaling or a larger --alpha\n", r.Rejected())
		case adaFamily, shampooFamily:
			fmt.Fprintf(d.stderr, "sparseson: warning: %d FD-adaptive steps refused as numerically out of range (a weight or gradient sum beyond ±1e140, or a gradient beyond the sketch's range); the model stays finite, but the data's scale or -l is far beyond what the learner can represent\n", r.Rejected())
		default:
			fmt.Fprintf(d.stderr, "sparseson: warning: %d updates refused as numerically out of range (a feature's gradient beyond ±1e150: values, namespace scales or interactions far beyond 1e18, or a diverging loss); the model stays finite\n", r.Rejected())
		}
	}
	return nil
}

// setup decides the model options (from -i or the flags) and builds the
// loss and the learner.
func (d *driver) setup() error {
	if d.cfg.initial == "" {
		return d.setupModel(nil, nil)
	}
	stored, r, err := model.Load(d.cfg.initial)
	if err != nil {
		return err
	}
	return d.setupModel(stored, r)
}

// setupModel is setup with the model of -i already read and verified
// (stored and r nil for a new model). The model-file fuzzer enters here.
// Its errors are usage errors (exit 2) where the command line alone, or
// its conflict with the model, decides them; what the model's own content
// decides is a runtime error.
func (d *driver) setupModel(stored model.Options, r *model.Reader) error {
	c := d.cfg
	var err error
	// byModel marks an error that a new model's options (the flags alone)
	// would make a usage error.
	byModel := func(err error) error {
		if r == nil {
			return usage(err)
		}
		return err
	}
	if d.fam, err = chooseFamily(c); err != nil {
		return usage(err)
	}
	if r != nil {
		fam := families[stored["learner"]]
		if fam == nil {
			return fmt.Errorf("load model %s: unknown learner %q", c.initial, stored["learner"])
		}
		if d.fam != fam && d.fam != defaultFamily {
			return usagef("the model in %s is a %s learner; the command line asks for %s", c.initial, fam.name, d.fam.name)
		}
		d.fam = fam
		if d.opts, err = mergeModelOptions(c, fam, stored); err != nil {
			return usage(err)
		}
	} else {
		d.opts = sharedOptions(c)
		for k, v := range d.fam.options(c) {
			d.opts[k] = v
		}
		d.opts["learner"] = d.fam.name
	}
	if d.hash, err = hashConfig(d.opts); err != nil {
		return byModel(err)
	}
	if d.loss, err = newLoss(d.opts); err != nil {
		return byModel(err)
	}
	if _, ok := d.opts["label_min"]; ok {
		var p optParser
		d.labelMin, d.labelMax = p.float(d.opts, "label_min"), p.float(d.opts, "label_max")
		if p.err != nil {
			return byModel(p.err)
		}
		if math.IsNaN(d.labelMin-d.labelMax) || math.IsInf(d.labelMin-d.labelMax, 0) {
			return fmt.Errorf("load model %s: %w: label range [%v, %v]", c.initial, model.ErrCorrupt, d.labelMin, d.labelMax)
		}
		// A range fixed by --min_prediction/--max_prediction stays fixed
		// (for a Poisson model, observing the range would not even
		// narrow its initial [−50, 50]).
		lo, hi := math.NaN(), math.NaN()
		d.fixMin, d.fixMax = strings.Contains(d.opts["label_fixed"], "min"), strings.Contains(d.opts["label_fixed"], "max")
		if d.fixMin {
			lo = d.labelMin
		}
		if d.fixMax {
			hi = d.labelMax
		}
		if d.fixMin || d.fixMax {
			if err := loss.Fix(d.loss, lo, hi); err != nil {
				return fmt.Errorf("load model %s: %w: a fixed label range for %s loss", c.initial, model.ErrCorrupt, d.loss.Name())
			}
		}
	}
	d.binary = d.opts["binary"] == "true"
	if err := d.setupClasses(); err != nil {
		return byModel(err)
	}
	if err := d.checkMemory(); err != nil {
		return err
	}
	if d.learner, err = d.buildLearner(r); err != nil {
		if c.initial != "" {
			return fmt.Errorf("load model %s: %w", c.initial, err)
		}
		return usage(err)
	}
	if r != nil {
		// Every learner checks its state is finite; the weights it
		// applies (w̄ + Zᵀb for SON, a scale times the stored weight for
		// gd) must be finite too, whatever state a damaged or foreign
		// file holds.
		var bad error
		d.learner.Weights(func(slot uint32, w float64) {
			if bad == nil && (math.IsNaN(w) || math.IsInf(w, 0)) {
				bad = fmt.Errorf("load model %s: %w: the weight of slot %d is %v", c.initial, model.ErrCorrupt, slot, w)
			}
		})
		if bad != nil {
			return bad
		}
	}
	d.out = d.outputStage()
	return usage(d.setupVW())
}

// modelOptions are the options saved with the model, including the label
// range that clips predictions.
func (d *driver) modelOptions() model.Options {
	o := model.Options{}
	for k, v := range d.opts {
		o[k] = v
	}
	o["label_min"], o["label_max"] = fmtFloat(d.labelMin), fmtFloat(d.labelMax)
	delete(o, "label_fixed")
	switch {
	case d.fixMin && d.fixMax:
		o["label_fixed"] = "min,max"
	case d.fixMin:
		o["label_fixed"] = "min"
	case d.fixMax:
		o["label_fixed"] = "max"
	}
	return o
}

func (d *driver) cachePath(inputs []string) (string, error) {
	c := d.cfg
	path := c.cacheFile
	if path == "" && c.cache {
		if inputs[0] == "-" {
			return "", usagef("-c names the cache after the first data file; with stdin, give --cache_file FILE")
		}
		path = inputs[0] + ".cache"
	}
	if c.passes > 1 && path == "" {
		return "", usagef("--passes > 1 needs an example cache: add -c or --cache_file FILE")
	}
	return path, nil
}

// fingerprint identifies what a cache holds: how examples were hashed and
// parsed, and which inputs (name, size, modification time) they came from,
// so a cache is never silently reused for changed data.
func (d *driver) fingerprint(inputs []string) (fp string, reusable bool) {
	var b strings.Builder
	fmt.Fprintf(&b, "%s|format=%s", d.hash.Fingerprint(), d.cfg.format)
	if d.classes > 0 {
		// The cache holds only the lines that were valid classes of K.
		fmt.Fprintf(&b, "|classes=%d", d.classes)
	}
	reusable = true
	for _, in := range inputs {
		st, err := os.Stat(in)
		if in == "-" || err != nil || !st.Mode().IsRegular() {
			reusable = false
			fmt.Fprintf(&b, "|%s", in)
			continue
		}
		fmt.Fprintf(&b, "|%s:%d:%d", in, st.Size(), st.ModTime().UnixNano())
	}
	return b.String(), reusable
}

// openPass returns the source of a pass and, when the first pass reads
// text for a cache, the cache writer.
func (d *driver) openPass(pass int, inputs []string, cachePath string) (parser.Source, *parser.CacheWriter, error) {
	format, err := parser.ParseFormat(d.cfg.format)
	if err != nil {
		return nil, nil, err
	}
	popts := parser.Options{Format: format, Hash: d.hash, Stdin: d.stdin, Classes: d.classes, Audit: d.wantNames(), ChunkBytes: parserChunkBytes}
	if cachePath == "" {
		src, err := parser.Open(inputs, popts)
		return src, nil, err
	}
	fp, reusable := d.fingerprint(inputs)
	// A cache holds no feature names: --audit and --invert_hash read the
	// text in the first pass (and rewrite the cache).
	if pass > 0 || (reusable && !d.cfg.killCache && !d.wantNames()) {
		src, err := parser.OpenCache(cachePath, fp, popts)
		if err == nil {
			return src, nil, nil
		}
		if pass > 0 {
			return nil, nil, err
		}
		if !errors.Is(err, os.ErrNotExist) && !errors.Is(err, parser.ErrCacheStale) {
			fmt.Fprintf(d.stderr, "sparseson: warning: %v; rebuilding the cache\n", err)
		}
	}
	cw, err := parser.CreateCache(cachePath, fp)
	if err != nil {
		return nil, nil, err
	}
	src, err := parser.Open(inputs, popts)
	if err != nil {
		cw.Abort()
		return nil, nil, err
	}
	return src, cw, nil
}

// runPass runs the examples of src (and writes them to the cache cw, if
// any) through the model; it closes both.
func (d *driver) runPass(src parser.Source, cw *parser.CacheWriter, holdoutOn bool) (err error) {
	d.sigs.reading(src)
	defer func() {
		d.sigs.reading(nil)
		if d.sigs.interrupted() {
			// The watcher closes the source (it may wait for a read of
			// stdin); the cache, incomplete, is discarded below.
			err = errInterrupted
		} else if cerr := src.Close(); err == nil && cerr != nil {
			err = cerr
		}
		if cw != nil {
			if err == nil {
				err = cw.Commit()
			} else {
				cw.Abort()
			}
		}
	}()
	period, after := int64(d.cfg.holdoutPeriod), int64(d.cfg.vw.holdoutAfter)
	var counter int64
	for {
		b, err := src.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		e := 0
		for k := range b.Examples {
			if d.sigs.interrupted() {
				return errInterrupted // at an example boundary
			}
			for ; e < len(b.Errors) && b.ErrorAt[e] <= k; e++ {
				if err := d.badLine(&b.Errors[e]); err != nil {
					return err
				}
			}
			ex := &b.Examples[k]
			if cw != nil {
				if err := cw.Add(ex); err != nil {
					return err
				}
			}
			counter++
			// VW's holdout: every period-th example, or (--holdout_after)
			// every example after the first N of the pass.
			holdout := holdoutOn && ((after == 0 && counter%period == 0) || (after > 0 && counter > after))
			var names []hashing.AuditFeature
			if k < len(b.Names) {
				names = b.Names[k]
			}
			d.process(ex, holdout, names, d.preds)
		}
		for ; e < len(b.Errors); e++ {
			if err := d.badLine(&b.Errors[e]); err != nil {
				return err
			}
		}
		src.Release(b)
	}
}

func (d *driver) badLine(pe *parser.ParseError) error {
	d.skipped++
	if d.cfg.strict {
		return fmt.Errorf("%v (stopping: --strict)", pe)
	}
	if d.warned < maxWarnings {
		d.warned++
		fmt.Fprintf(d.stderr, "sparseson: warning: %v; line skipped\n", pe)
		if d.warned == maxWarnings {
			fmt.Fprintln(d.stderr, "sparseson: warning: further malformed lines are skipped and counted without a message")
		}
	}
	return nil
}

func (d *driver) lossLabel() string {
	if d.binary {
		return "--binary"
	}
	return "--loss_function " + d.loss.Name()
}

func (d *driver) printHeader(inputs []string, cachePath string) {
	if d.cfg.quiet {
		return
	}
	w := d.stderr
	if d.cfg.final != "" {
		fmt.Fprintf(w, "final_regressor = %s\n", d.cfg.final)
	}
	if d.cfg.initial != "" {
		fmt.Fprintf(w, "initial_regressor = %s\n", d.cfg.initial)
	}
	fmt.Fprintf(w, "Num weight bits = %s\n", d.opts["bits"])
	for _, line := range d.fam.describe(d.opts) {
		fmt.Fprintln(w, line)
	}
	if cachePath == "" {
		fmt.Fprintln(w, "using no cache")
	} else {
		fmt.Fprintf(w, "using cache_file = %s\n", cachePath)
	}
	names := make([]string, len(inputs))
	for i, in := range inputs {
		names[i] = in
		if in == "-" {
			names[i] = "stdin"
		}
	}
	fmt.Fprintf(w, "Reading datafile = %s\n", strings.Join(names, ", "))
	fmt.Fprintf(w, "num sources = %d\n", len(inputs))
	switch {
	case d.fam == softmaxFamily || d.fam == shampooFamily:
		fmt.Fprintln(w, "loss function = softmax (multinomial logistic)")
	case d.oaa:
		fmt.Fprintf(w, "loss function = %s, one against all (--oaa %d)\n", d.loss.Name(), d.classes)
	default:
		fmt.Fprintf(w, "loss function = %s\n", d.loss.Name())
	}
	d.rep.header()
}
