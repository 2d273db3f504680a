package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/sparseson/sparseson/hashing"
	"github.com/sparseson/sparseson/learners"
	"github.com/sparseson/sparseson/model"
	"github.com/sparseson/sparseson/parser"
	"github.com/sparseson/sparseson/sparse"
)

// ErrCanceled is what Run returns when its context was canceled before
// the first example: nothing was learned or written.
var ErrCanceled = errors.New("canceled before the first example")

// errInterrupted is what runPass returns when the run was canceled.
var errInterrupted = errors.New("interrupted")

// Run trains on (or, TestOnly, predicts) the examples of Data for the
// passes asked, then writes the outputs. Canceling ctx stops the run at
// an example boundary — every example read so far is learned and
// predicted, none half-way — and the run then ends as at the end of the
// data: the outputs are written and Run returns nil (ErrCanceled before
// the first example). The cache being written is then discarded.
func (e *Engine) Run(ctx context.Context) error {
	c := e.cfg
	stop := context.AfterFunc(ctx, e.cancel)
	defer stop()
	inputs := c.Data
	if len(inputs) == 0 {
		inputs = []string{"-"}
	}
	cachePath, err := e.cachePath(inputs)
	if err != nil {
		return err
	}
	// Fail before the first example, not after the whole run: every file
	// the run will write must be writable, and the inputs must open.
	var stdin io.Reader
	if slices.Contains(inputs, "-") {
		stdin = c.Stdin
	}
	if err := e.checkOutputs(cachePath, stdin); err != nil {
		return err
	}
	e.removeStale(cachePath)
	src, cw, err := e.openPass(0, inputs, cachePath)
	if err != nil {
		return err
	}
	e.watchDivergence()
	if err := e.openOutputs(src, cw); err != nil {
		return err
	}
	defer e.closeOutputs()
	e.printHeader(inputs, cachePath)
	passes, interrupted, err := e.passes(src, cw, inputs, cachePath)
	if err != nil {
		return err
	}
	if interrupted && e.seen == 0 {
		return ErrCanceled
	}
	return e.finish(passes, interrupted)
}

// cancel stops the run at the next example boundary and closes the source
// being read, which unblocks a read that waits for input (stdin); for
// stdin, Close itself may wait for that read, here rather than in the run.
func (e *Engine) cancel() {
	e.mu.Lock()
	e.stopped.Store(true)
	src := e.src
	e.mu.Unlock()
	if src != nil {
		src.Close()
	}
}

// reading records the source the run reads from (nil when none).
func (e *Engine) reading(src parser.Source) {
	e.mu.Lock()
	e.src = src
	e.mu.Unlock()
}

// openOutputs opens -p and the VW outputs; on failure it closes the first
// pass's source and discards its cache.
func (e *Engine) openOutputs(src parser.Source, cw *parser.CacheWriter) error {
	var err error
	if e.cfg.Predictions != "" {
		e.preds, err = newPredWriter(e.cfg.Predictions)
	}
	if err == nil {
		err = e.openVWOutputs()
	}
	if err != nil {
		if e.preds != nil {
			e.preds.close()
		}
		src.Close()
		if cw != nil {
			cw.Abort()
		}
	}
	return err
}

// closeOutputs closes what openOutputs opened; it is safe after finish.
func (e *Engine) closeOutputs() {
	if e.preds != nil {
		e.preds.close()
	}
	e.closeVWOutputs()
}

// passes runs the passes, the first from src (and cw), and keeps the best
// pass's model as VW does with a holdout set. It returns the passes run
// and whether the context stopped them.
func (e *Engine) passes(src parser.Source, cw *parser.CacheWriter, inputs []string, cachePath string) (passes int, interrupted bool, err error) {
	c := e.cfg
	var snapshot []byte
	noWin := 0
	for pass := 0; pass < c.Passes; pass++ {
		e.pass = pass
		if pass > 0 {
			if e.stopped.Load() {
				interrupted = true
				break
			}
			if src, cw, err = e.openPass(pass, inputs, cachePath); err != nil {
				return passes, false, err
			}
		}
		err := e.runPass(src, cw)
		if err == nil || err == errInterrupted {
			// The pass's examples are in the shards: the model, its
			// holdout snapshot and the outputs are the mix of them.
			if merr := e.mixShards(); merr != nil {
				return passes, false, merr
			}
		}
		if err == errInterrupted {
			interrupted = true
			break
		} else if err != nil {
			return passes, false, err
		}
		passes++
		if pass == 0 && e.seen == 0 {
			return passes, false, fmt.Errorf("no valid examples in the input (%d malformed lines skipped)", e.skipped)
		}
		improved, measured := e.rep.endPass()
		if improved && c.Passes > 1 {
			var buf bytes.Buffer
			if err := model.Encode(&buf, e.Options(), e.learner.Save); err != nil {
				return passes, false, fmt.Errorf("snapshot the best pass: %w", err)
			}
			snapshot = buf.Bytes()
			noWin = 0
		} else if measured {
			if noWin++; noWin >= c.EarlyTerminate {
				break
			}
		}
		if pass+1 < c.Passes && c.Decay != 1 {
			if err := e.decayRate(); err != nil {
				return passes, false, err
			}
		}
	}
	// An interrupted run keeps the model as trained so far (the pass it
	// stopped in has no holdout loss to compare).
	if snapshot != nil && e.rep.bestPass != passes-1 && !interrupted {
		if err := e.restore(snapshot); err != nil {
			return passes, false, fmt.Errorf("restore the best pass: %w", err)
		}
	}
	if e.shards != nil && e.out == e.shards.out {
		// From here on the model is the merged one (Predict, the outputs).
		e.out = e.outputStage()
	}
	return passes, interrupted, nil
}

// restore replaces the model by the one saved in snapshot.
func (e *Engine) restore(snapshot []byte) error {
	_, r, err := model.Parse(snapshot)
	if err == nil {
		e.learner, err = learners.Build(e.opts, e.loss, e.classes, e.oaa, r)
	}
	if err != nil {
		return err
	}
	e.out = e.outputStage()
	return nil
}

// finish writes the outputs at the end of a run and prints the summary.
func (e *Engine) finish(passes int, interrupted bool) error {
	c := e.cfg
	if e.preds != nil {
		if err := e.preds.close(); err != nil {
			return err
		}
	}
	if c.Final != "" {
		if err := e.Save(c.Final); err != nil {
			return err
		}
	}
	if c.Readable != "" {
		if err := writeReadable(c.Readable, "readable model", e.Options(), e.learner, nil, c.Version); err != nil {
			return err
		}
	}
	if err := e.finishVWOutputs(); err != nil {
		return err
	}
	e.rep.summary(e.loss, passes, e.skipped)
	if rp, ok := e.learner.(sparse.Reporter); ok && c.SketchReport {
		rp.Report(c.Stderr)
	}
	e.warnRejected()
	if c, ok := e.learner.(sparse.Capped); ok {
		// Printed under --quiet too: a warning, not progress.
		if ig := c.Ignored(); ig.Occurrences > 0 {
			fmt.Fprintf(e.cfg.Stderr, "sparseson: warning: %s\n", ig.Line(e.cfg.name("bits")))
		}
	}
	return nil
}

// warnRejected says how many updates the learner refused as numerically
// out of range, if any.
func (e *Engine) warnRejected() {
	r, ok := e.learner.(interface{ Rejected() int })
	if !ok || r.Rejected() == 0 {
		return
	}
	n, w := e.cfg.name, e.cfg.Stderr
	switch e.fam {
	case learners.SON:
		fmt.Fprintf(w, "sparseson: warning: %d SON steps refused as numerically out of range (a weight beyond ±1e140); the model stays finite, but the data's scale does not suit %s: try the default %s pre-scaling or a larger %s\n", r.Rejected(), n("alpha"), n("diag"), n("alpha"))
	case learners.ADA, learners.Shampoo:
		fmt.Fprintf(w, "sparseson: warning: %d FD-adaptive steps refused as numerically out of range (a weight or gradient sum beyond ±1e140, or a gradient beyond the sketch's range); the model stays finite, but the data's scale or %s is far beyond what the learner can represent\n", r.Rejected(), n("learning_rate"))
	default:
		fmt.Fprintf(w, "sparseson: warning: %d updates refused as numerically out of range (a feature's gradient beyond ±1e150: values, namespace scales or interactions far beyond 1e18, or a diverging loss); the model stays finite\n", r.Rejected())
	}
}

func (e *Engine) cachePath(inputs []string) (string, error) {
	c := e.cfg
	n := c.name
	path := c.CacheFile
	if path == "" && c.Cache {
		if inputs[0] == "-" {
			return "", setting(fmt.Errorf("%s names the cache after the first data file; with stdin, give %s FILE", n("Cache"), n("CacheFile")))
		}
		path = inputs[0] + ".cache"
	}
	if c.Passes > 1 && path == "" {
		return "", setting(fmt.Errorf("%s > 1 needs an example cache: add %s or %s FILE", n("Passes"), n("Cache"), n("CacheFile")))
	}
	return path, nil
}

// fingerprint identifies what a cache holds: how examples were hashed and
// parsed, and which inputs (name, size, modification time) they came from,
// so a cache is never silently reused for changed data.
func (e *Engine) fingerprint(inputs []string) (fp string, reusable bool) {
	var b strings.Builder
	fmt.Fprintf(&b, "%s|format=%s", e.hash.Fingerprint(), e.cfg.Format)
	if e.classes > 0 {
		// The cache holds only the lines that were valid classes of K.
		fmt.Fprintf(&b, "|classes=%d", e.classes)
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
func (e *Engine) openPass(pass int, inputs []string, cachePath string) (parser.Source, *parser.CacheWriter, error) {
	format, err := parser.ParseFormat(e.cfg.Format)
	if err != nil {
		return nil, nil, err
	}
	popts := parser.Options{Format: format, Hash: e.hash, Stdin: e.cfg.Stdin, Classes: e.classes, Audit: e.wantNames(), ChunkBytes: e.cfg.ChunkBytes}
	if cachePath == "" {
		src, err := parser.Open(inputs, popts)
		return src, nil, err
	}
	fp, reusable := e.fingerprint(inputs)
	// A cache holds no feature names: --audit and --invert_hash read the
	// text in the first pass (and rewrite the cache).
	if pass > 0 || (reusable && !e.cfg.KillCache && !e.wantNames()) {
		src, err := parser.OpenCache(cachePath, fp, popts)
		if err == nil {
			return src, nil, nil
		}
		if pass > 0 {
			return nil, nil, err
		}
		if !errors.Is(err, os.ErrNotExist) && !errors.Is(err, parser.ErrCacheStale) {
			fmt.Fprintf(e.cfg.Stderr, "sparseson: warning: %v; rebuilding the cache\n", err)
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
func (e *Engine) runPass(src parser.Source, cw *parser.CacheWriter) (err error) {
	e.reading(src)
	defer func() {
		e.reading(nil)
		if e.stopped.Load() {
			// cancel closes the source (it may wait for a read of
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
	holdoutOn, period, after := e.rep.holdoutOn, int64(e.cfg.HoldoutPeriod), int64(e.cfg.HoldoutAfter)
	// VW's holdout: every period-th example, or (HoldoutAfter) every
	// example after the first N of the pass.
	isHoldout := func(counter int64) bool {
		return holdoutOn && ((after == 0 && counter%period == 0) || (after > 0 && counter > after))
	}
	if e.shards != nil {
		return e.runShardPass(src, cw, isHoldout)
	}
	var counter int64
	for {
		b, err := src.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := e.runBatch(b, cw, &counter, isHoldout); err != nil {
			return err
		}
		src.Release(b)
	}
}

// runBatch runs the examples of one parser batch through the model and
// accounts them in order; counter counts the pass's examples. One OAA
// model (oaaBatch) learns the batch's examples ahead of the accounting;
// the rest learn them one at a time in process. (A sharded run takes
// its own path, runShardPass.)
func (e *Engine) runBatch(b *parser.Batch, cw *parser.CacheWriter, counter *int64, isHoldout func(int64) bool) error {
	oaa := e.oaaBatch()
	single := e.out
	defer func() { e.out = single }()
	ahead := 0 // the examples before ahead are learned (oaa)
	return e.eachExample(b, func(k int) error {
		if k >= ahead && e.stopped.Load() {
			return errInterrupted // at an example boundary
		}
		ex := &b.Examples[k]
		if cw != nil {
			if err := cw.Add(ex); err != nil {
				return err
			}
		}
		*counter++
		holdout := isHoldout(*counter)
		if oaa != nil && k >= ahead {
			ahead = e.learnAhead(oaa, b.Examples, k, *counter, isHoldout)
		}
		if k < ahead {
			e.batch.replay.v = e.batch.preds[k]
			e.out = e.batch.out
		} else {
			e.out = single
		}
		e.process(ex, holdout, nameAt(b, k), e.preds)
		return nil
	})
}

// eachExample calls fn for every example of b in order, reporting the
// malformed lines met before each (and those after the last) in their
// place in the input; it stops at fn's first error.
func (e *Engine) eachExample(b *parser.Batch, fn func(k int) error) error {
	j := 0
	for k := range b.Examples {
		for ; j < len(b.Errors) && b.ErrorAt[j] <= k; j++ {
			if err := e.badLine(&b.Errors[j]); err != nil {
				return err
			}
		}
		if err := fn(k); err != nil {
			return err
		}
	}
	for ; j < len(b.Errors); j++ {
		if err := e.badLine(&b.Errors[j]); err != nil {
			return err
		}
	}
	return nil
}

// nameAt is example k's features' names, if the batch recorded them.
func nameAt(b *parser.Batch, k int) []hashing.AuditFeature {
	if k < len(b.Names) {
		return b.Names[k]
	}
	return nil
}

func (e *Engine) badLine(pe *parser.ParseError) error {
	e.skipped++
	if e.cfg.Strict {
		return fmt.Errorf("%v (stopping: %s)", pe, e.cfg.name("Strict"))
	}
	if e.warned < maxWarnings {
		e.warned++
		fmt.Fprintf(e.cfg.Stderr, "sparseson: warning: %v; line skipped\n", pe)
		if e.warned == maxWarnings {
			fmt.Fprintln(e.cfg.Stderr, "sparseson: warning: further malformed lines are skipped and counted without a message")
		}
	}
	return nil
}

func (e *Engine) lossLabel() string {
	if e.binary {
		return e.cfg.name("binary")
	}
	return e.cfg.name("loss") + " " + e.loss.Name()
}

func (e *Engine) printHeader(inputs []string, cachePath string) {
	c := e.cfg
	if c.Quiet {
		return
	}
	w := c.Stderr
	if c.Final != "" {
		fmt.Fprintf(w, "final_regressor = %s\n", c.Final)
	}
	if c.Initial != "" {
		fmt.Fprintf(w, "initial_regressor = %s\n", c.Initial)
	}
	fmt.Fprintf(w, "Num weight bits = %s\n", e.opts["bits"])
	for _, line := range e.fam.Describe(e.opts) {
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
	case e.fam == learners.Softmax || e.fam == learners.Shampoo:
		fmt.Fprintln(w, "loss function = softmax (multinomial logistic)")
	case e.oaa:
		fmt.Fprintf(w, "loss function = %s, one against all (%s %d)\n", e.loss.Name(), c.name("oaa"), e.classes)
	default:
		fmt.Fprintf(w, "loss function = %s\n", e.loss.Name())
	}
	e.rep.header()
}
