package engine

import (
	"fmt"
	"maps"
	"math"
	"runtime"
	"strconv"

	"github.com/sparseson/sparseson/learners"
	"github.com/sparseson/sparseson/loss"
	"github.com/sparseson/sparseson/mix"
	"github.com/sparseson/sparseson/model"
	"github.com/sparseson/sparseson/reduce"
	"github.com/sparseson/sparseson/sparse"
)

// shards is what a run in Config.Shards > 1 shard learners holds besides
// the engine's own state: the Mixer that trains them, the output stage
// that finishes their predictions as the one learner's would be, and the
// label range the shards' losses are seeded with.
type shards struct {
	m      *mix.Mixer
	replay *replayed
	out    reduce.Output // the output stages over replay
	// lo and hi are the union of the shards' label ranges at the last
	// mix (the engine's range before the first): the losses of the
	// learners the merged state is loaded into start from it.
	lo, hi float64
}

// shardCount is the number of shard learners: Shards, or 1 when testing
// (a test only predicts, with the one model).
func (c *Config) shardCount() int {
	if c.TestOnly || c.Shards < 1 {
		return 1
	}
	return c.Shards
}

// checkShards refuses what a sharded run does not provide; nothing is
// built yet. The model options get total K: each shard sees one of K
// shards of the stream, as a --total K run does, and the saved model
// says so.
func (e *Engine) checkShards(r *model.Reader) error {
	c := e.cfg
	k := c.shardCount()
	if k == 1 {
		return nil
	}
	n := c.name
	what := fmt.Sprintf("%s %d", n("Shards"), k)
	switch {
	case r != nil || c.Initial != "":
		return fmt.Errorf("%s trains a new model; it does not start from %s (train the shards from scratch, or go on with one learner)", what, n("Initial"))
	case e.opts["total"] != "" && e.opts["total"] != "1":
		return fmt.Errorf("%s already splits the stream into %d shards; it cannot be combined with %s %s", what, k, n("total"), e.opts["total"])
	case c.Audit:
		return fmt.Errorf("%s does not provide %s (the shards' weights are not one model until they are mixed)", what, n("Audit"))
	case c.Raw != "" && e.classes > 0:
		return fmt.Errorf("%s does not provide %s for a multiclass model (each example's class scores)", what, n("Raw"))
	case e.opts["probabilities"] == "true":
		return fmt.Errorf("%s does not provide %s per example", what, n("probabilities"))
	case c.Decay != 1 && c.Passes > 1:
		return fmt.Errorf("%s does not provide %s (the shards keep their learning rate across passes)", what, n("Decay"))
	}
	e.opts["total"] = strconv.Itoa(k)
	return nil
}

// setupShards builds the K shard learners of a new model (K > 1).
func (e *Engine) setupShards() error {
	c := e.cfg
	k := c.shardCount()
	if k == 1 {
		return nil
	}
	what := fmt.Sprintf("%s %d", c.name("Shards"), k)
	averages := learners.AveragesShards(e.fam, e.opts)
	if err := e.probeMerge(); err != nil {
		return setting(fmt.Errorf("%s needs a learner that merges (%v)", what, err))
	}
	s := &shards{lo: e.labelMin, hi: e.labelMax}
	m, err := mix.New(mix.Config{
		K:     k,
		New:   func(int) (sparse.Learner, error) { return e.buildShard(s, nil, "") },
		Load:  func(r *model.Reader) (sparse.Learner, error) { return e.buildShard(s, r, "") },
		Every: c.ShardMix,
		// The warm-up learner is the one stream's (total 1): a stream
		// shorter than the warm-up trains as without shards.
		Warmup: c.ShardWarmup,
		Warm: func() (sparse.Learner, error) {
			l, err := e.buildShard(s, nil, "1")
			switch w := l.(type) {
			case *observed:
				w.warm = true
			case *reduce.OAA:
				// It runs alone: its classes may take the cores, as
				// without shards (the same model whatever the cores).
				w.SetCores(runtime.GOMAXPROCS(0))
			}
			return l, err
		},
		// The first round averages SON shards whose ridge counts the
		// whole stream's evidence, as sparseson merge does for --total K
		// parts; the later rounds share a base and merge by evidence, a
		// first-order learner's moves added up while the examples are new
		// to the base (the first pass: the mixes run on the engine's
		// goroutine, between its passes or inside the pass's Submit).
		Weighting: func(round int) sparse.Weighting {
			switch {
			case round == 0 && averages:
				return sparse.ByExamples
			case e.pass == 0:
				return sparse.ByNewEvidence
			}
			return sparse.ByEvidence
		},
	})
	if err != nil {
		return setting(fmt.Errorf("%s needs a learner that merges (%v)", what, err))
	}
	s.m = m
	s.replay = &replayed{classes: e.classes}
	e.shards = s
	saved := e.learner
	e.learner = s.replay.learner()
	s.out = e.outputStage()
	e.learner = saved
	e.out = s.out
	if e.mc != nil {
		e.mc = saved.(sparse.Multiclass)
	}
	return nil
}

// probeMerge merges two fresh learners of the model's options, so that a
// learner whose configuration refuses to merge (gd's NASA steps) is
// refused before any example, in the learner's own words.
func (e *Engine) probeMerge() error {
	if err := learners.CheckMergeable(e.fam, e.opts); err != nil {
		return err
	}
	var ls [2]sparse.Learner
	for i := range ls {
		l, err := learners.NewLoss(e.opts)
		if err == nil {
			ls[i], err = learners.Build(e.opts, l, e.classes, e.oaa, nil)
		}
		if err != nil {
			return err
		}
	}
	mg, ok := ls[0].(sparse.Merger)
	if !ok {
		return &learners.NotMergeableError{Family: e.fam, Learner: e.fam.Describe(e.opts)[0], Options: e.opts}
	}
	return mg.Merge(&sparse.MergeArgs{Parts: ls[1:], Weighting: sparse.ByEvidence})
}

// buildShard builds (r nil) or loads a shard learner with its own loss,
// seeded with the run's label range: the learners run on K goroutines at
// once, and a squared loss's derivative reads its range. total, if not
// "", replaces the model's total (the warm-up learner's "1").
func (e *Engine) buildShard(s *shards, r *model.Reader, total string) (sparse.Learner, error) {
	opts := e.opts
	if total != "" {
		opts = maps.Clone(e.opts)
		opts["total"] = total
	}
	l, err := learners.NewLoss(opts)
	if err != nil {
		return nil, err
	}
	if e.classes > 0 {
		learners.ObserveClasses(l)
	} else if e.fixMin || e.fixMax {
		lo, hi := math.NaN(), math.NaN()
		if e.fixMin {
			lo = e.labelMin
		}
		if e.fixMax {
			hi = e.labelMax
		}
		if err := loss.Fix(l, lo, hi); err != nil {
			return nil, err
		}
	}
	lr, err := learners.Build(opts, l, e.classes, e.oaa, r)
	if err != nil {
		return nil, err
	}
	if o, ok := lr.(*reduce.OAA); ok {
		// The shards already take the cores; each OAA's classes on one
		// core give the same model.
		o.SetCores(1)
	}
	if e.classes > 0 {
		// A multiclass model's range is the bases' ±1, not the classes.
		return lr, nil
	}
	l.Observe(s.lo)
	l.Observe(s.hi)
	return &observed{Learner: lr, l: l, s: s, lo: s.lo, hi: s.hi}, nil
}

// mixShards mixes the shards (the end of a pass) and makes the merged
// state the engine's model.
func (e *Engine) mixShards() error {
	s := e.shards
	if s == nil {
		return nil
	}
	if err := s.m.Mix(); err != nil {
		return err
	}
	if l := s.m.Learner(); l != nil {
		e.learner = unobserved(l)
	}
	return nil
}

// submitGroup hands a group to the shards (mix.Mixer.Submit): the
// holdout examples are predicted (their labels hidden until waitGroup,
// so that they keep their place in the round-robin split), the others
// learned; g.preds receives every example's progressive prediction, for
// process to account in input order once waitGroup has returned. Until
// then the group is the shards': the engine accounts the groups before it
// meanwhile (runShardPass), touching nothing but their examples.
func (e *Engine) submitGroup(g *shardGroup, isHoldout func(int64) bool) error {
	if cap(g.preds) < len(g.exs) {
		g.preds = make([]float64, len(g.exs))
	}
	g.preds = g.preds[:len(g.exs)]
	g.held = g.held[:0]
	for k := range g.exs {
		if g.exs[k].HasLabel && isHoldout(g.first+int64(k)+1) {
			g.exs[k].HasLabel = false
			g.held = append(g.held, k)
		}
	}
	b, err := e.shards.m.Submit(g.exs, g.preds)
	if err != nil {
		g.restoreLabels()
		return err
	}
	g.learning = b
	return nil
}

// waitGroup waits until the shards have learned g.
func (e *Engine) waitGroup(g *shardGroup) {
	if g.learning != nil {
		g.learning.Wait()
		g.learning = nil
	}
	g.restoreLabels()
}

func (g *shardGroup) restoreLabels() {
	for _, k := range g.held {
		g.exs[k].HasLabel = true
	}
	g.held = g.held[:0]
}

// observed is a scalar shard learner with its own loss: it records the
// labels it learns in its loss's range (what process does for the one
// learner) and merges the ranges with the models.
type observed struct {
	sparse.Learner
	l      loss.Loss
	s      *shards
	lo, hi float64 // the labels seen, with the seed
	// warm marks the warm-up learner, which runs alone: its range is the
	// run's, which the shards it starts are seeded with.
	warm bool
}

func (o *observed) Learn(ex *sparse.Example) float64 {
	p := o.Learner.Learn(ex)
	o.l.Observe(ex.Label)
	o.lo, o.hi = math.Min(o.lo, ex.Label), math.Max(o.hi, ex.Label)
	if o.warm {
		o.s.lo, o.s.hi = o.lo, o.hi
	}
	return p
}

// Merge merges the inner learners and widens the receiver's range to the
// parts': the range the shards continue from.
func (o *observed) Merge(a *sparse.MergeArgs) error {
	mg, ok := o.Learner.(sparse.Merger)
	if !ok {
		return learners.ErrNotMergeable
	}
	inner := &sparse.MergeArgs{Weighting: a.Weighting, Parts: make([]sparse.Learner, len(a.Parts))}
	lo, hi := o.lo, o.hi
	for i, p := range a.Parts {
		po, ok := p.(*observed)
		if !ok {
			return fmt.Errorf("merge a %T into a shard learner", p)
		}
		inner.Parts[i] = po.Learner
		lo, hi = math.Min(lo, po.lo), math.Max(hi, po.hi)
	}
	if a.Base != nil {
		inner.Base = unobserved(a.Base)
	}
	if err := mg.Merge(inner); err != nil {
		return err
	}
	o.l.Observe(lo)
	o.l.Observe(hi)
	o.lo, o.hi = lo, hi
	o.s.lo, o.s.hi = lo, hi
	return nil
}

func unobserved(l sparse.Learner) sparse.Learner {
	if o, ok := l.(*observed); ok {
		return o.Learner
	}
	return l
}

// replayed stands in for the model under the output stages of a sharded
// run: it returns the prediction a shard made, so that process clamps,
// links and accounts it as it does the one learner's.
type replayed struct {
	v       float64
	classes int
}

func (r *replayed) learner() sparse.Learner {
	if r.classes > 0 {
		return replayedClasses{r}
	}
	return r
}

func (r *replayed) Predict(*sparse.Example) float64      { return r.v }
func (r *replayed) Learn(*sparse.Example) float64        { return r.v }
func (r *replayed) Save(*model.Writer) error             { return nil }
func (r *replayed) Weights(func(slot uint32, w float64)) {}

type replayedClasses struct{ *replayed }

func (r replayedClasses) Classes() int                                   { return r.classes }
func (r replayedClasses) Probabilities([]float64)                        {}
func (r replayedClasses) ClassWeights(int, func(slot uint32, w float64)) {}
