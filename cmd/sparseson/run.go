package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"path/filepath"

	"github.com/sparseson/sparseson/engine"
	"github.com/sparseson/sparseson/learners"
	"github.com/sparseson/sparseson/model"
)

// engineConfig is the engine's configuration of the command line, without
// the model (newEngine adds it).
func engineConfig(c *config, stdin io.Reader, stdout, stderr io.Writer) engine.Config {
	e := engine.Config{
		Initial: c.initial, Data: c.data, Stdin: stdin, Stdout: stdout, Stderr: stderr,
		Format: c.format, Strict: c.strict, TestOnly: c.testOnly, Quiet: c.quiet, Progress: c.progress,
		SketchReport: c.sketchReport,
		Passes:       c.passes, Cache: c.cache, CacheFile: c.cacheFile, KillCache: c.killCache,
		HoldoutOff: c.holdoutOff, HoldoutPeriod: c.holdoutPeriod, HoldoutAfter: c.vw.holdoutAfter,
		EarlyTerminate: c.earlyTerminate, Decay: c.vw.decay,
		Shards: c.cluster.shards, ShardMix: c.cluster.shardMix, ShardWarmup: c.cluster.warmup,
		MinPrediction: c.vw.minPred, MaxPrediction: c.vw.maxPred, MaxMemory: c.maxMemory,
		Final: c.final, Predictions: c.predictions, Raw: c.vw.raw, Readable: c.readable,
		InvertHash: c.vw.invertHash, Audit: c.vw.audit,
		Host: c.vw.host, Port: c.vw.port, NumChildren: c.vw.numChildren, MaxLine: c.vw.maxLine,
		IdleTimeout: c.vw.idleTimeout(), PidFile: c.vw.pidFile, PortFile: c.vw.portFile,
		Version: buildVersion(), ChunkBytes: parserChunkBytes, Name: flagName,
	}
	if c.profile != "" {
		e.ProfileFile = filepath.Join(c.profilePath, profileFiles[c.profile])
	}
	return e
}

// parserChunkBytes is the text the parser hands a worker at a time (0: its
// default); the determinism test makes it small, so that a short input is
// spread over all the parsing goroutines.
var parserChunkBytes int

// newEngine decides the model's options — the flags', or those of the
// model of -i checked against the flags — and builds the engine.
func newEngine(c *config, stdin io.Reader, stdout, stderr io.Writer) (*engine.Engine, error) {
	cfg := engineConfig(c, stdin, stdout, stderr)
	var stored model.Options
	if c.initial != "" {
		var err error
		if stored, cfg.Resume, err = model.Load(c.initial); err != nil {
			return nil, err
		}
	}
	var err error
	if cfg.Options, err = runOptions(c, stored); err != nil {
		return nil, err
	}
	e, err := engine.New(cfg)
	return e, fromEngine(err)
}

// fromEngine marks the engine's setting errors as usage errors (exit 2).
func fromEngine(err error) error {
	var se *engine.SettingError
	if errors.As(err, &se) {
		return usage(err)
	}
	return err
}

// runOptions returns the model options of a new model (stored nil) or
// those a model with options stored runs with.
func runOptions(c *config, stored model.Options) (model.Options, error) {
	fam, err := chooseFamily(c)
	if err != nil {
		return nil, usage(err)
	}
	if stored == nil {
		return learners.NewOptions(fam, settings(c)), nil
	}
	mfam := learners.Lookup(stored["learner"])
	if mfam == nil {
		return nil, fmt.Errorf("load model %s: unknown learner %q", c.initial, stored["learner"])
	}
	if fam != mfam && fam != learners.Default {
		return nil, usagef("the model in %s is a %s learner; the command line asks for %s", c.initial, mfam.Name, fam.Name)
	}
	o, err := learners.Resume(mfam, stored, settings(c))
	var re *learners.ResumeError
	switch {
	case errors.As(err, &re) && re.Foreign:
		err = fmt.Errorf("--%s does not apply to the model in %s (a %s learner%s); drop it", re.Setting, c.initial, mfam.Name, learners.FormNote(stored))
	case errors.As(err, &re):
		err = fmt.Errorf("the model in %s was trained with %s=%q but the command line asks for %q (--%s); drop the option or train a new model", c.initial, re.Key, re.Stored, re.Want, re.Setting)
	}
	return o, usage(err)
}

// runEngine trains, tests or serves as the command line says, stopping at
// the first signal (ctx's end in tests).
func runEngine(ctx context.Context, c *config, stdin io.Reader, stdout, stderr io.Writer) error {
	e, err := newEngine(c, stdin, stdout, stderr)
	if err != nil {
		return err
	}
	if c.vw.daemon {
		runCtx, stop := watchSignals(ctx)
		err := e.Serve(runCtx)
		sig := stop()
		if err != nil {
			return fromEngine(err)
		}
		saved := ""
		if c.final != "" && !c.testOnly {
			saved = c.final
		}
		return &interruptError{sig: sig, examples: e.Examples(), saved: saved}
	}
	if !c.saveOnSignal {
		return fromEngine(e.Run(context.Background()))
	}
	runCtx, stop := watchSignals(ctx)
	err = e.Run(runCtx)
	sig := stop()
	switch {
	case err == engine.ErrCanceled:
		return &interruptError{sig: sig}
	case err == nil && sig != nil:
		return &interruptError{sig: sig, examples: e.Examples(), saved: c.final}
	}
	return fromEngine(err)
}
