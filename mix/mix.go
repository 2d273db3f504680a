package mix

import (
	"bytes"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/sparseson/sparseson/model"
	"github.com/sparseson/sparseson/sparse"
)

// Config configures a Mixer.
type Config struct {
	// K is the number of shard learners, ≥ 1. With K = 1 the Mixer is the
	// one learner New builds: no merge, no copy.
	K int
	// New builds a fresh, untrained learner. It is called once per shard
	// (shard 0…K−1) and, with K > 1, once more per mixing point for the
	// learner that receives the merge (shard 0). Every call must build the
	// same configuration — a learner told that it sees one of K shards
	// (son.Config.Total = K, the command's --total K) — with its own state:
	// the shards learn on K goroutines at once, so they must share nothing
	// mutable (a loss with a label range, for instance, is per learner).
	New func(shard int) (sparse.Learner, error)
	// Load restores a learner that New's learner saved (the reader holds
	// exactly what its Save wrote). With K > 1 it copies the merged state
	// into every shard; it is not used with K = 1.
	Load func(r *model.Reader) (sparse.Learner, error)
	// Every mixes after every Every examples of the whole stream (global
	// example counts that are multiples of Every); 0 mixes only when Mix is
	// called (the end of a pass).
	Every int64
	// Weighting chooses the merge's averaging rule for each mixing round
	// (round 0 is the first, which merges without a base; after a warm-up
	// every round has one); nil means sparse.ByEvidence for every round.
	Weighting func(round int) sparse.Weighting
	// Warmup is the number of examples at the start of the stream that one
	// learner, Warm's, learns alone before the K shards start from its
	// state (which is then the base of the first mix). A stream no longer
	// than Warmup is the one learner's: with K > 1 the shards only pay
	// where each of them has examples enough to average well (see the
	// package doc). 0: the shards start at once, from New's fresh state.
	Warmup int64
	// Warm builds the warm-up learner: New's learner, but told that it
	// sees the whole stream (son.Config.Total = 1). Its Save must load
	// through Load. Needed when Warmup > 0 and K > 1.
	Warm func() (sparse.Learner, error)
}

// Stats is where a Mixer's time went, for profiling the shards' speed-up.
type Stats struct {
	Examples int64         // examples learned or predicted
	Mixes    int           // mixing rounds done
	Learn    time.Duration // wall time in LearnBatch less its merges and copies, and in the warm-up
	Merge    time.Duration // wall time in Merge (serial)
	Copy     time.Duration // wall time saving the merge and loading it into the shards
	Bytes    int64         // size of the last merged model's Save
	Copies   int           // times the shards were loaded from a saved state
}

// Mixer trains K shard learners on a round-robin split of one example
// stream and mixes them (see the package doc). Its methods are not safe for
// concurrent use; the parallelism is inside LearnBatch and Submit.
type Mixer struct {
	cfg    Config
	shards []sparse.Learner
	// mixed is the last merged state, the base of the next round; nil
	// before the first mix (and always with K = 1).
	mixed sparse.Learner
	// stale: the shards have not yet been restarted from mixed. The copy
	// waits until they next learn, so that the mix at the end of a run,
	// which nothing learns after, costs no copies.
	stale   bool
	warm    sparse.Learner // the warm-up learner while it runs, else nil
	n       int64          // examples of the stream so far
	pending int64          // examples since the last mix
	buf     bytes.Buffer
	stats   Stats
	wg      sync.WaitGroup
	failed  error // a mixing point's error met by Learn
	// lanes[s] is closed when shard s has learned the last segment handed
	// to it (nil: none outstanding). A shard's segments run one after the
	// other in stream order, each waiting for the lane before it, while
	// the shards run independently of each other: a shard slowed by a
	// costly stretch of its examples (FD's compactions) catches up later
	// instead of holding the others at every batch's end.
	lanes []chan struct{}
	busy  sync.WaitGroup // the lanes' outstanding segments
}

// New builds the K shard learners. With K > 1 it refuses a learner that
// cannot be merged, naming it: it must implement sparse.Merger and accept
// a merge of fresh learners of its configuration.
func New(cfg Config) (*Mixer, error) {
	switch {
	case cfg.K < 1:
		return nil, fmt.Errorf("mix: Config.K = %d: need at least one shard", cfg.K)
	case cfg.New == nil:
		return nil, errors.New("mix: Config.New is nil: it must build the shards' learner")
	case cfg.K > 1 && cfg.Load == nil:
		return nil, errors.New("mix: Config.Load is nil: with K > 1 it copies the merged state into the shards")
	case cfg.Every < 0:
		return nil, fmt.Errorf("mix: Config.Every = %d: must be ≥ 0 (0: mix only when asked)", cfg.Every)
	case cfg.Warmup < 0:
		return nil, fmt.Errorf("mix: Config.Warmup = %d: must be ≥ 0", cfg.Warmup)
	case cfg.K > 1 && cfg.Warmup > 0 && cfg.Warm == nil:
		return nil, errors.New("mix: Config.Warm is nil: with Warmup > 0 it builds the warm-up learner")
	}
	m := &Mixer{cfg: cfg, shards: make([]sparse.Learner, cfg.K), lanes: make([]chan struct{}, cfg.K)}
	for s := range m.shards {
		l, err := cfg.New(s)
		if err != nil {
			return nil, fmt.Errorf("mix: shard %d: %w", s, err)
		}
		if l == nil {
			return nil, fmt.Errorf("mix: Config.New(%d) returned no learner", s)
		}
		m.shards[s] = l
	}
	if cfg.K > 1 {
		if err := m.probe(); err != nil {
			return nil, err
		}
	}
	if cfg.K > 1 && cfg.Warmup > 0 {
		l, err := cfg.Warm()
		if err != nil {
			return nil, fmt.Errorf("mix: warm-up learner: %w", err)
		}
		m.warm = l
	}
	return m, nil
}

// probe checks that the learner merges, before any example is spent: a
// learner may implement sparse.Merger and still refuse its configuration
// (gd's NASA steps keep running means, not sums).
func (m *Mixer) probe() error {
	t, err := m.cfg.New(0)
	if err != nil {
		return fmt.Errorf("mix: merge target: %w", err)
	}
	mg, ok := t.(sparse.Merger)
	if !ok {
		return fmt.Errorf("mix: a %T cannot be merged (it does not implement sparse.Merger), so it cannot be trained in K = %d shards", t, m.cfg.K)
	}
	p, err := m.cfg.New(0)
	if err != nil {
		return fmt.Errorf("mix: merge probe: %w", err)
	}
	if err := mg.Merge(&sparse.MergeArgs{Parts: []sparse.Learner{p}, Weighting: m.weighting(0)}); err != nil {
		return fmt.Errorf("mix: a %T cannot be merged, so it cannot be trained in K = %d shards: %w", t, m.cfg.K, err)
	}
	return nil
}

func (m *Mixer) weighting(round int) sparse.Weighting {
	if m.cfg.Weighting == nil {
		return sparse.ByEvidence
	}
	return m.cfg.Weighting(round)
}

// K is the number of shards.
func (m *Mixer) K() int { return m.cfg.K }

// Stats reports where the time went so far.
func (m *Mixer) Stats() Stats { return m.stats }

// LearnBatch learns exs, in order, as part of the stream: example i of the
// stream (counted from 0 over every call) goes to shard i mod K, which
// learns it if it is labeled (Learn) and predicts it otherwise (Predict).
// out[j] (len(out) ≥ len(exs)) receives exs[j]'s progressive prediction,
// as the shard's Learn or Predict returns it. The shards run on K
// goroutines and the call returns when all are done; a mixing point
// (a multiple of Config.Every) inside the batch splits it there, so the
// results do not depend on how the stream is cut into batches. The
// examples are left as they were (a learner that rewrites an example, as
// reduce.OAA does its label, restores it, and each example is in one
// shard's hands only).
func (m *Mixer) LearnBatch(exs []sparse.Example, out []float64) error {
	start, learn, other := time.Now(), m.stats.Learn, m.stats.Merge+m.stats.Copy
	p, err := m.Submit(exs, out)
	if err != nil {
		m.drain()
		return err
	}
	p.Wait()
	m.stats.Learn = learn + time.Since(start) - (m.stats.Merge + m.stats.Copy - other)
	return nil
}

// Batch is a batch handed to the shards by Submit.
type Batch struct {
	lanes []chan struct{} // the shards' lanes after the batch's last segment
}

// Wait returns once every shard has learned its examples of the batch
// (and so of every batch submitted before it).
func (b *Batch) Wait() {
	for _, l := range b.lanes {
		if l != nil {
			<-l
		}
	}
}

// Submit is LearnBatch without the wait: it hands exs to the shards and
// returns, and the batch's predictions are in out once the returned
// Batch's Wait returns; until then exs and out are the shards'. The
// shards learn the batches in the order they are submitted, each shard
// running ahead of the others as far as the submitted batches go; the
// warm-up, a copy of the merged state into the shards and a mixing point
// wait for all of them (they need every shard's state), so the split,
// the mixes and the models are LearnBatch's whatever the timing.
func (m *Mixer) Submit(exs []sparse.Example, out []float64) (*Batch, error) {
	if len(out) < len(exs) {
		return nil, fmt.Errorf("mix: LearnBatch: %d predictions for %d examples", len(out), len(exs))
	}
	for len(exs) > 0 && m.warm != nil {
		n := int(min(int64(len(exs)), m.cfg.Warmup-m.n))
		m.learnWarm(exs[:n], out[:n])
		exs, out = exs[n:], out[n:]
		if err := m.endWarmup(); err != nil {
			return nil, err
		}
	}
	for len(exs) > 0 {
		if err := m.restart(); err != nil {
			return nil, err
		}
		n := len(exs)
		if e := m.cfg.Every; e > 0 && m.cfg.K > 1 {
			n = int(min(int64(n), e-m.n%e))
		}
		m.learnSegment(exs[:n], out[:n])
		exs, out = exs[n:], out[n:]
		if e := m.cfg.Every; e > 0 && m.cfg.K > 1 && m.n%e == 0 {
			if err := m.Mix(); err != nil {
				return nil, err
			}
		}
	}
	return &Batch{lanes: append([]chan struct{}(nil), m.lanes...)}, nil
}

// drain waits for every segment handed to the shards.
func (m *Mixer) drain() {
	m.busy.Wait()
	clear(m.lanes)
}

// learnSegment hands one stretch of examples with no mixing point inside
// to the shards: shard s's examples of it go to a goroutine that waits
// for the shard's previous segment (its lane), so that every shard learns
// its examples in stream order. With K = 1 the one learner learns them
// on the caller's goroutine.
func (m *Mixer) learnSegment(exs []sparse.Example, out []float64) {
	k := m.cfg.K
	first := m.shardOf(m.n)
	if k == 1 {
		for j := range exs {
			out[j] = step(m.shards[0], &exs[j])
		}
	} else {
		for s := range k {
			if (s-first+k)%k >= len(exs) {
				continue // no example of this segment is shard s's
			}
			prev, done := m.lanes[s], make(chan struct{})
			m.lanes[s] = done
			m.busy.Add(1)
			go func() {
				defer m.busy.Done()
				defer close(done)
				if prev != nil {
					<-prev
				}
				m.runShard(s, first, exs, out)
			}()
		}
	}
	m.n += int64(len(exs))
	m.pending += int64(len(exs))
	m.stats.Examples += int64(len(exs))
}

// shardOf is the shard of example i of the stream (counted from 0), i at
// or past the warm-up: the round-robin starts after the warm-up's
// examples (with K = 1 every example is shard 0's).
func (m *Mixer) shardOf(i int64) int {
	return int((i - m.cfg.Warmup) % int64(m.cfg.K))
}

// learnWarm runs exs, all within the warm-up, through the warm-up
// learner.
func (m *Mixer) learnWarm(exs []sparse.Example, out []float64) {
	start := time.Now()
	for j := range exs {
		out[j] = step(m.warm, &exs[j])
	}
	m.n += int64(len(exs))
	m.stats.Examples += int64(len(exs))
	m.stats.Learn += time.Since(start)
}

// endWarmup starts the shards from the warm-up learner's state once the
// warm-up's examples are learned: every shard, and the base of the first
// mix, loads what it saved (so the base has the shards' configuration).
func (m *Mixer) endWarmup() error {
	if m.warm == nil || m.n < m.cfg.Warmup {
		return nil
	}
	start := time.Now()
	base, err := m.copyInto(m.warm, true)
	if err != nil {
		return err
	}
	m.mixed = base
	m.stats.Copy += time.Since(start)
	m.warm, m.pending = nil, 0
	return nil
}

// runShard runs shard s's examples of exs, whose first belongs to shard
// first.
func (m *Mixer) runShard(s, first int, exs []sparse.Example, out []float64) {
	k := m.cfg.K
	l := m.shards[s]
	for j := (s - first + k) % k; j < len(exs); j += k {
		out[j] = step(l, &exs[j])
	}
}

func step(l sparse.Learner, ex *sparse.Example) float64 {
	if ex.HasLabel {
		return l.Learn(ex)
	}
	return l.Predict(ex)
}

// Learn learns one example as LearnBatch would (sparse.Learner), on the
// caller's goroutine. A mixing point's error, which Learn cannot return,
// is kept and returned by the next Mix or Save.
func (m *Mixer) Learn(ex *sparse.Example) float64 {
	m.drain()
	if m.warm != nil {
		p := step(m.warm, ex)
		m.n++
		m.stats.Examples++
		if err := m.endWarmup(); err != nil && m.failed == nil {
			m.failed = err
		}
		return p
	}
	k := int64(m.cfg.K)
	if err := m.restart(); err != nil && m.failed == nil {
		m.failed = err
	}
	p := step(m.shards[m.shardOf(m.n)], ex)
	m.n++
	m.pending++
	m.stats.Examples++
	if e := m.cfg.Every; e > 0 && k > 1 && m.n%e == 0 {
		if err := m.Mix(); err != nil && m.failed == nil {
			m.failed = err
		}
	}
	return p
}

// Mix merges the K shards now, with the last merged state as the base
// (iterative parameter mixing); every shard restarts from the merge
// before it learns again.
// It does nothing with K = 1 or when no example came since the last mix,
// so a pass end that falls on a mixing point mixes once.
func (m *Mixer) Mix() error {
	if m.failed != nil {
		return m.failed
	}
	if m.cfg.K == 1 || m.pending == 0 || m.warm != nil {
		return nil
	}
	m.drain()
	start := time.Now()
	t, err := m.cfg.New(0)
	if err != nil {
		return fmt.Errorf("mix: merge target: %w", err)
	}
	mg, ok := t.(sparse.Merger)
	if !ok {
		return fmt.Errorf("mix: a %T cannot be merged", t)
	}
	round := m.stats.Mixes
	if m.mixed != nil && round == 0 {
		round = 1 // after a warm-up: the first mix has a base
	}
	args := &sparse.MergeArgs{Parts: append([]sparse.Learner(nil), m.shards...), Base: m.mixed, Weighting: m.weighting(round)}
	if err := mg.Merge(args); err != nil {
		return fmt.Errorf("mix: round %d after %d examples: %w", round+1, m.n, err)
	}
	m.stats.Merge += time.Since(start)
	m.mixed, m.stale = t, true
	m.pending = 0
	m.stats.Mixes++
	return nil
}

// restart makes every shard a copy of the last mix if they have not
// learned since it (Mix leaves the copy to the shards' next example).
func (m *Mixer) restart() error {
	if !m.stale {
		return nil
	}
	start := time.Now()
	if _, err := m.copyInto(m.mixed, false); err != nil {
		return err
	}
	m.stale = false
	m.stats.Copy += time.Since(start)
	return nil
}

// copyInto makes every shard a copy of t through t's Save and the
// learner's Load, in memory: the learners have no other copy, and the
// round trip is exact by Save's contract. The K loads run in parallel,
// and with base one more, whose learner it returns (the warm-up's state
// as the base of the first mix).
func (m *Mixer) copyInto(t sparse.Learner, base bool) (sparse.Learner, error) {
	m.drain()
	m.buf.Reset()
	if err := model.Encode(&m.buf, model.Options{}, t.Save); err != nil {
		return nil, fmt.Errorf("mix: save the merged state: %w", err)
	}
	data := m.buf.Bytes()
	m.stats.Bytes = int64(len(data))
	m.stats.Copies++
	n := m.cfg.K
	if base {
		n++
	}
	loaded, errs := make([]sparse.Learner, n), make([]error, n)
	for s := range n {
		m.wg.Add(1)
		go func() {
			defer m.wg.Done()
			_, r, err := model.Parse(data)
			if err == nil {
				loaded[s], err = m.cfg.Load(r)
			}
			errs[s] = err
		}()
	}
	m.wg.Wait()
	for s, err := range errs {
		switch {
		case err != nil && s == m.cfg.K:
			return nil, fmt.Errorf("mix: load the warm-up state as the base: %w", err)
		case err != nil:
			return nil, fmt.Errorf("mix: load the merged state into shard %d: %w", s, err)
		}
	}
	copy(m.shards, loaded)
	if base {
		return loaded[m.cfg.K], nil
	}
	return nil, nil
}

// Learner is the model the run has trained: the merged state of the last
// mix (call Mix first to include the examples since), or the one learner
// with K = 1, or the warm-up learner while it runs. Before the first mix
// with K > 1 and no warm-up it is nil.
func (m *Mixer) Learner() sparse.Learner {
	if m.cfg.K == 1 {
		return m.shards[0]
	}
	if m.warm != nil {
		return m.warm
	}
	return m.mixed
}

// Pending is the number of examples learned since the last mix.
func (m *Mixer) Pending() int64 { return m.pending }

// Predict predicts with the merged model (sparse.Learner); before the
// first mix, with shard 0.
func (m *Mixer) Predict(ex *sparse.Example) float64 {
	if l := m.Learner(); l != nil {
		return l.Predict(ex)
	}
	m.drain()
	return m.shards[0].Predict(ex)
}

// Save mixes what is pending, then saves the merged model (sparse.Learner):
// the one model a sharded run writes with -f, a model of the learner's own
// kind that loads and trains on without the Mixer.
func (m *Mixer) Save(w *model.Writer) error {
	if err := m.Mix(); err != nil {
		return err
	}
	l := m.Learner()
	if l == nil {
		m.drain()
		l = m.shards[0]
	}
	return l.Save(w)
}

// Weights reports the merged model's weights (sparse.Learner; see Predict).
func (m *Mixer) Weights(fn func(slot uint32, w float64)) {
	if l := m.Learner(); l != nil {
		l.Weights(fn)
		return
	}
	m.drain()
	m.shards[0].Weights(fn)
}
