package engine

import (
	"io"

	"github.com/sparseson/sparseson/mix"
	"github.com/sparseson/sparseson/parser"
	"github.com/sparseson/sparseson/sparse"
)

// A pass of a sharded run is a pipeline: the engine's goroutine gathers
// the parser's batches into groups and hands each to the shards
// (mix.Mixer.Submit), which learn it on their own goroutines, each shard
// its share in stream order and as far ahead of the other shards as the
// groups handed over go; meanwhile the engine accounts the oldest group
// the shards have finished (progress table, predictions, cache) and
// gathers the next. Up to shardWindow groups are in the shards' hands.
// Handing the shards one parser batch at a time (about 140 news20
// examples, a few per shard) left most of a 16-core machine idle: each
// batch ended in a barrier, and the accounting of a batch ran while the
// shards waited for the next. Groups with a barrier at each one's end
// still left FD-SON's shards waiting for the one that met a costly
// stretch of its examples (its compactions); without the barrier a
// shard catches up over the following groups (docs/scaling.md). None of
// this changes anything but the timing: the split is by the example
// counter and a mixing point splits whatever batch it falls in and waits
// for every shard (mix.Mixer.Submit), so models and predictions do not
// depend on the group size or the window.

// shardGroupExamples is how many examples a group gathers per shard
// (at least minGroupExamples in all): enough that a hand-off's cost is
// small against the learning. With shardWindow, it sets how far a shard
// may run ahead of the slowest, and the memory the groups in flight hold:
// on 16 cores, groups of 256 in a window of 4 were no faster than groups
// of 128 (FD-SON, news20 ×32) and took about 80 MB more at the peak.
// (Variables so that tests can cut groups of one batch.)
var (
	shardGroupExamples = 128
	minGroupExamples   = 1024
	// maxGroupBatches bounds a group's parser batches, and so the memory
	// a group holds, whatever the examples' sizes.
	maxGroupBatches = 64
	// shardWindow is how many groups may be in the shards' hands at once:
	// room for a shard to run a few groups ahead of a slow one.
	shardWindow = 4
)

// shardGroup is a run of consecutive parser batches that the shards learn
// in one call.
type shardGroup struct {
	batches  []*parser.Batch
	exs      []sparse.Example // the batches' examples in order (shallow copies)
	preds    []float64        // the shards' progressive predictions of exs
	first    int64            // the pass's examples before the group
	held     []int            // the holdout examples whose label is hidden
	learning *mix.Batch       // while the shards have it
}

// groupTarget is the size a group is gathered to.
func (e *Engine) groupTarget() int {
	return max(minGroupExamples, shardGroupExamples*e.shards.m.K())
}

// gather reads batches from src into g until it holds the target number
// of examples or batches, or the input ends; err is io.EOF at the end of
// the input, or the source's error.
func (e *Engine) gather(src parser.Source, g *shardGroup, first int64) error {
	g.batches, g.exs, g.first = g.batches[:0], g.exs[:0], first
	target := e.groupTarget()
	for len(g.exs) < target && len(g.batches) < maxGroupBatches {
		b, err := src.Next()
		if err != nil {
			return err
		}
		g.batches = append(g.batches, b)
		g.exs = append(g.exs, b.Examples...)
	}
	return nil
}

// runShardPass runs a pass of a sharded run (see above). A group handed
// to the shards is always waited for and accounted, so that an
// interruption stops at a group boundary with every learned example in
// the progress table, and no goroutine is left with the shards.
func (e *Engine) runShardPass(src parser.Source, cw *parser.CacheWriter, isHoldout func(int64) bool) (err error) {
	var queue, free []*shardGroup // queue: handed to the shards, in input order
	defer func() {
		for _, g := range queue {
			e.waitGroup(g)
			e.releaseGroup(src, g)
		}
	}()
	var counter, gathered int64
	for {
		var g *shardGroup
		if n := len(free); n > 0 {
			g, free = free[n-1], free[:n-1]
		} else {
			g = &shardGroup{}
		}
		readErr := e.gather(src, g, gathered)
		gathered += int64(len(g.exs))
		stopped := e.stopped.Load()
		if len(g.exs) > 0 && !stopped {
			if err := e.submitGroup(g, isHoldout); err != nil {
				e.releaseGroup(src, g)
				return err
			}
			queue = append(queue, g)
		} else {
			e.releaseGroup(src, g)
		}
		// What was read before the end (or the error, or a stop) is
		// learned and accounted first.
		keep := shardWindow - 1
		if readErr != nil || stopped {
			keep = 0
		}
		for len(queue) > keep {
			h := queue[0]
			queue = queue[1:]
			e.waitGroup(h)
			if err := e.accountGroup(src, h, cw, &counter, isHoldout); err != nil {
				return err
			}
			free = append(free, h)
		}
		switch {
		case readErr == io.EOF:
			return nil
		case readErr != nil:
			return readErr
		case stopped:
			return errInterrupted
		}
	}
}

// accountGroup accounts the learned examples of g in input order, with
// the malformed lines among them, and gives its batches back to src.
func (e *Engine) accountGroup(src parser.Source, g *shardGroup, cw *parser.CacheWriter, counter *int64, isHoldout func(int64) bool) error {
	defer e.releaseGroup(src, g)
	off := 0
	for _, b := range g.batches {
		preds := g.preds[off : off+len(b.Examples)]
		off += len(b.Examples)
		err := e.eachExample(b, func(k int) error {
			ex := &b.Examples[k]
			if cw != nil {
				if err := cw.Add(ex); err != nil {
					return err
				}
			}
			*counter++
			holdout := isHoldout(*counter)
			e.shards.replay.v = preds[k]
			e.process(ex, holdout, nameAt(b, k), e.preds)
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func (e *Engine) releaseGroup(src parser.Source, g *shardGroup) {
	for _, b := range g.batches {
		src.Release(b)
	}
	g.batches = g.batches[:0]
	clear(g.exs) // no references into released batches
	g.exs = g.exs[:0]
}
