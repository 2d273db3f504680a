package reduce

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/sparseson/sparseson/sparse"
)

// LearnBatch splits a batch's classes over cores, where Learn splits one
// example's: each thread takes whole classes and runs every example of the
// batch through them, so the hand-off between threads — the wake-up and
// the wait, which per example cost as much as the example's work and kept
// Learn's split from scaling past two cores (issue 29) — happens once per
// batch. Every base still sees exactly the examples, in the order and with
// the labels, that Learn gives it one at a time, and OAA numbers the
// batch's slots in input order before any base runs, as Learn would: the
// models and predictions are bit-identical to calling Learn on each
// example in turn, whatever the number of cores.

// batchState is LearnBatch's scratch, kept between batches so that a
// steady stream allocates nothing.
type batchState struct {
	exs    []sparse.Example // the batch with OAA's numbers as features
	idx    []uint32         // the numbers, side by side
	off    []int            // example j's numbers are idx[off[j]:off[j+1]]
	class  []int            // each example's class, 0: predicted only
	scores []float64        // example j's K scores at j·K
	thr    []sparse.Example // one example per thread, for its ±1 label
	next   atomic.Int64     // the next class to claim
	wg     sync.WaitGroup
}

// LearnBatch learns exs in order, as Learn on each in turn would, and
// writes each one's progressive prediction (the class predicted before it
// is learned; a label that is no class in 1..K is only predicted) to out
// (len(out) ≥ len(exs)). The examples are left as they were. After it,
// Probabilities gives the last example's; BatchProbabilities any one's.
func (o *OAA) LearnBatch(exs []sparse.Example, out []float64) {
	defer runtime.KeepAlive(o)
	if len(exs) == 0 {
		return
	}
	b := o.batchScratch(len(exs))
	k := len(o.bases)
	work := 0
	for j := range exs {
		ex := &exs[j]
		b.off[j] = len(b.idx)
		for _, s := range ex.Idx {
			b.idx = append(b.idx, uint32(o.ids.Row(s)))
		}
		c := int(ex.Label)
		if float64(c) != ex.Label || c < 1 || c > k {
			c = 0
		}
		b.class[j] = c
		work += k * max(1, len(ex.Idx))
	}
	b.off[len(exs)] = len(b.idx)
	for j := range exs {
		b.exs[j] = exs[j]
		b.exs[j].Idx = b.idx[b.off[j]:b.off[j+1]:b.off[j+1]]
	}
	// Shared out only where the batch holds a few examples' worth of the
	// work that Learn would share out (parallelWork).
	threads := min(o.par.threads, k)
	if work < 4*o.par.min {
		threads = 1
	}
	b.next.Store(0)
	for t := 1; t < threads; t++ {
		b.wg.Add(1)
		go func() {
			defer b.wg.Done()
			o.batchThread(b, t, len(exs))
		}()
	}
	o.batchThread(b, 0, len(exs))
	b.wg.Wait()
	for j := range exs {
		out[j] = float64(argmax(b.scores[j*k : j*k+k]))
	}
	copy(o.scores, b.scores[(len(exs)-1)*k:])
	for j := range b.exs[:len(exs)] {
		b.exs[j] = sparse.Example{} // keep no reference to the caller's buffers
	}
}

// batchScratch returns the scratch sized for n examples, the arena empty.
func (o *OAA) batchScratch(n int) *batchState {
	if o.batch == nil {
		o.batch = &batchState{}
	}
	b := o.batch
	k := len(o.bases)
	if len(b.exs) < n {
		b.exs = make([]sparse.Example, n)
		b.class = make([]int, n)
		b.off = make([]int, n+1)
	}
	if len(b.scores) < n*k {
		b.scores = make([]float64, n*k)
	}
	if len(b.thr) < k {
		b.thr = make([]sparse.Example, k)
	}
	b.idx = b.idx[:0]
	return b
}

// batchThread claims classes until none is left and runs the batch's n
// examples through each, on thread t's own copy of each example.
func (o *OAA) batchThread(b *batchState, t, n int) {
	k := len(o.bases)
	ex := &b.thr[t]
	for {
		c := int(b.next.Add(1)) - 1
		if c >= k {
			break
		}
		base := o.bases[c]
		for j := range n {
			*ex = b.exs[j]
			switch b.class[j] {
			case 0:
				b.scores[j*k+c] = base.Predict(ex)
				continue
			case c + 1:
				ex.Label = 1
			default:
				ex.Label = -1
			}
			b.scores[j*k+c] = base.Learn(ex)
		}
	}
	*ex = sparse.Example{}
}

// BatchProbabilities writes example j's class probabilities of the last
// LearnBatch into p (len K), as Probabilities does after Learn.
func (o *OAA) BatchProbabilities(j int, p []float64) {
	defer runtime.KeepAlive(o)
	k := len(o.bases)
	probabilities(o.batch.scores[j*k:j*k+k], p)
}
