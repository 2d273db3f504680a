package engine

import (
	"io"

	"github.com/sparseson/sparseson/parser"
	"github.com/sparseson/sparseson/sparse"
)

// A pass of a sharded run is a pipeline of three stages on two goroutines:
// the engine's goroutine gathers the parser's batches into a group and
// accounts the group before it (progress table, predictions, cache)
// while the K shards learn the group in between on their own goroutines.
// Handing the shards one parser batch at a time (about 140 news20
// examples, a few per shard) left most of a 16-core machine idle: each
// batch ended in a barrier, and the accounting of a batch ran while the
// shards waited for the next (docs/scaling.md). The groups change
// nothing but the timing: the split is by the example counter and a
// mixing point splits whatever batch it falls in (mix.LearnBatch), so
// models and predictions do not depend on the group size.

// shardGroupExamples is how many examples a group gathers per shard
// (at least minGroupExamples in all): enough that the barrier at a
// group's end and the shards' uneven shares of it are small against the
// learning.
// (Variables so that tests can cut groups of one batch.)
var (
	shardGroupExamples = 256
	minGroupExamples   = 1024
	// maxGroupBatches bounds a group's parser batches, and so the memory
	// a group holds, whatever the examples' sizes.
	maxGroupBatches = 64
)

// shardGroup is a run of consecutive parser batches that the shards learn
// in one call.
type shardGroup struct {
	batches []*parser.Batch
	exs     []sparse.Example // the batches' examples in order (shallow copies)
	preds   []float64        // the shards' progressive predictions of exs
	first   int64            // the pass's examples before the group
	done    chan error       // the shards' result, once they have learned it
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

// startLearning hands g to the shards on a goroutine of their own; the
// result arrives on g.done.
func (e *Engine) startLearning(g *shardGroup, isHoldout func(int64) bool) {
	if cap(g.preds) < len(g.exs) {
		g.preds = make([]float64, len(g.exs))
	}
	g.preds = g.preds[:len(g.exs)]
	go func() {
		g.done <- e.learnShards(g.exs, g.preds, func(k int) bool { return isHoldout(g.first + int64(k) + 1) })
	}()
}

// runShardPass runs a pass of a sharded run (see above). A group whose
// learning has started is always waited for and accounted, so that an
// interruption stops at a group boundary with every learned example in
// the progress table, and no goroutine is left with the shards.
func (e *Engine) runShardPass(src parser.Source, cw *parser.CacheWriter, isHoldout func(int64) bool) (err error) {
	groups := [2]*shardGroup{{done: make(chan error, 1)}, {done: make(chan error, 1)}}
	var learning *shardGroup // in the shards' hands
	defer func() {
		if learning != nil {
			if lerr := <-learning.done; err == nil {
				err = lerr
			}
		}
	}()
	var counter, gathered int64
	for i := 0; ; i++ {
		g := groups[i%2]
		readErr := e.gather(src, g, gathered)
		gathered += int64(len(g.exs))
		prev := learning
		if prev != nil {
			learning = nil
			if err := <-prev.done; err != nil {
				return err
			}
		}
		start := len(g.exs) > 0 && !e.stopped.Load()
		if start {
			e.startLearning(g, isHoldout)
			learning = g
		}
		if prev != nil {
			if err := e.accountGroup(src, prev, cw, &counter, isHoldout); err != nil {
				return err
			}
		}
		if !start {
			e.releaseGroup(src, g)
			if e.stopped.Load() {
				return errInterrupted
			}
		}
		if readErr != nil {
			// What was read before the end (or the error) is learned
			// and accounted first.
			if learning != nil {
				learning = nil
				if err := <-g.done; err != nil {
					return err
				}
				if err := e.accountGroup(src, g, cw, &counter, isHoldout); err != nil {
					return err
				}
			}
			if readErr == io.EOF {
				return nil
			}
			return readErr
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
