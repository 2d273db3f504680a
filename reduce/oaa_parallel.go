package reduce

import (
	"runtime"
	"sync/atomic"
	"time"

	"github.com/sparseson/sparseson/sparse"
)

// OAA learns an example's K classes on several cores at once. The bases
// are independent learners — none shares state with another; each reads
// the example and writes only itself and its own score — so every base
// sees exactly the examples, in the order, that the serial loop gives it:
// the results are bit-identical whatever the number of cores, and as
// deterministic.
//
// An example's work is small (tens of microseconds for K = 20 on news20)
// and arrives one example at a time, while waking a parked thread costs
// about as much (80–100 µs measured on this project's 2-core VMs, where
// an idle virtual CPU must be rescheduled by the hypervisor), so starting
// a goroutine per example gains nothing. Instead a helper goroutine stays
// awake while examples keep coming: it spins on one atomic word for up to
// spinFor after its last piece of work (yielding its core to the parser
// and any other goroutine on every few tries) and then parks until woken.
// The caller never waits for the helper to start: the classes are handed
// out in chunks from both ends of one range — the caller from the front,
// the helper from the back, so each mostly keeps the same classes in its
// own cache — and the caller takes whatever chunks remain; it waits only
// for a chunk the helper has already begun. A helper that is parked, slow
// or descheduled therefore costs the example nothing but the chunk in
// hand, and with one core (GOMAXPROCS = 1) there is no helper at all.

// parallelWork is the least work, classes × the example's nonzeros, for
// which an example's classes are shared out; below it a few atomic
// operations and a cache line moving between cores are not repaid.
const parallelWork = 1024

// chunkWork is the least work, classes × nonzeros, of one chunk.
const chunkWork = 256

// spinFor is how long the helper stays awake after its last chunk.
const spinFor = 200 * time.Microsecond

// waitSpin is how long the caller spins for a chunk a helper holds before
// it sleeps: several chunks' work when the helper is running.
const waitSpin = 50 * time.Microsecond

// parallel hands out the classes of one example at a time to the caller
// and its helpers. state packs the example's generation (high 32 bits)
// with the range of chunks not yet claimed, [lo, hi) (16 bits each): one
// compare-and-swap claims a chunk and proves it belongs to the current
// example.
type parallel struct {
	threads int // the caller and its helpers; 1: always serial
	min     int // the least classes × nonzeros worth sharing out

	o       *oaaCore
	state   atomic.Uint64
	done    atomic.Int32 // chunks finished in this generation
	chunk   int          // classes per chunk (for this generation)
	c       int          // the class learned (0: predict)
	exs     []sparse.Example
	started bool
	parked  []atomic.Bool
	wake    []chan struct{}
	stop    atomic.Bool

	waiting  atomic.Bool   // the caller sleeps until a helper's chunk is done
	finished chan struct{} // a helper's chunk is done (capacity 1)
}

// oaaCore is the part of OAA that the helpers read: they must not keep
// the OAA itself alive, or its cleanup (which stops them) would never run.
type oaaCore struct {
	bases  []sparse.Learner
	scores []float64
}

func newParallel(core *oaaCore, cores int) *parallel {
	t := max(1, min(cores, len(core.bases)))
	return &parallel{threads: t, min: parallelWork, o: core, exs: make([]sparse.Example, t), finished: make(chan struct{}, 1)}
}

// each runs every base on ex: learns with ±1 labels for class c, or, when
// c is 0, predicts. The scores land in the core's scores; ex itself is
// left as it was.
func (p *parallel) each(ex *sparse.Example, c int) {
	k := len(p.o.bases)
	work := k * max(1, len(ex.Idx))
	if p.threads == 1 || work < p.min {
		y := ex.Label
		p.o.span(ex, 0, k, c)
		ex.Label = y
		return
	}
	if !p.started {
		p.start()
	}
	// Chunks of at least chunkWork each, at most 2^16 − 1 of them (the
	// state word's 16-bit range), of equal size but the last.
	chunks := min(k, max(1, k*len(ex.Idx)/chunkWork), 1<<16-1)
	p.chunk = (k + chunks - 1) / chunks
	chunks = (k + p.chunk - 1) / p.chunk
	p.c = c
	for i := range p.exs {
		p.exs[i] = *ex // each thread's own label; Idx and Val are read-only
	}
	p.done.Store(0)
	gen := (p.state.Load()>>32 + 1) & 0xffffffff
	p.state.Store(gen<<32 | uint64(chunks))
	for i := range p.parked {
		if p.parked[i].Load() {
			select {
			case p.wake[i] <- struct{}{}:
			default:
			}
		}
	}
	for {
		n, ok := p.claim(gen, true)
		if !ok {
			break
		}
		p.run(0, n)
	}
	p.await(chunks)
	for i := range p.exs {
		p.exs[i] = sparse.Example{} // keep no reference to ex's buffers
	}
}

// await returns when the chunks a helper began are done. It spins for up
// to waitSpin, then sleeps until a helper finishes one: a helper the OS
// has descheduled (more busy threads than cores) may hold its chunk for a
// time slice, milliseconds, which spinning would burn while keeping the
// helper off this core.
func (p *parallel) await(chunks int) {
	start := time.Now()
	for spins := 0; int(p.done.Load()) < chunks; spins++ {
		if spins&63 != 63 {
			continue
		}
		yield()
		if time.Since(start) < waitSpin {
			continue
		}
		// Either a helper sees waiting set after its done.Add and sends,
		// or this load sees its increment; a token left over from an
		// earlier example only makes the loop look again.
		p.waiting.Store(true)
		for int(p.done.Load()) < chunks {
			<-p.finished
		}
		p.waiting.Store(false)
		return
	}
}

// claim takes the next chunk of generation gen, from the front or the back
// of the range not yet claimed; false when none is left (or gen is past).
func (p *parallel) claim(gen uint64, front bool) (int, bool) {
	for {
		s := p.state.Load()
		lo, hi := int(s>>16&0xffff), int(s&0xffff)
		if s>>32 != gen || lo >= hi {
			return 0, false
		}
		if front {
			if p.state.CompareAndSwap(s, gen<<32|uint64(lo+1)<<16|uint64(hi)) {
				return lo, true
			}
		} else if p.state.CompareAndSwap(s, gen<<32|uint64(lo)<<16|uint64(hi-1)) {
			return hi - 1, true
		}
	}
}

// run learns chunk n on thread t's copy of the example.
func (p *parallel) run(t, n int) {
	lo := n * p.chunk
	p.o.span(&p.exs[t], lo, min(lo+p.chunk, len(p.o.bases)), p.c)
	p.done.Add(1)
	if t > 0 && p.waiting.Load() {
		select {
		case p.finished <- struct{}{}:
		default:
		}
	}
}

// start launches the helpers; stopParallel (the OAA's cleanup, or
// SetCores) ends them.
func (p *parallel) start() {
	p.started = true
	h := p.threads - 1
	p.parked = make([]atomic.Bool, h)
	p.wake = make([]chan struct{}, h)
	for i := range h {
		p.wake[i] = make(chan struct{}, 1)
		go p.helper(i)
	}
}

func stopParallel(p *parallel) {
	if !p.started {
		return
	}
	p.stop.Store(true)
	for i := range p.wake {
		select {
		case p.wake[i] <- struct{}{}:
		default:
		}
	}
}

// helper is helper i's loop: claim chunks from the back while any are
// left, spin for more for up to spinFor, then park.
func (p *parallel) helper(i int) {
	t := i + 1
	idle := time.Now()
	for spins := 0; ; spins++ {
		if p.stop.Load() {
			return
		}
		gen := p.state.Load() >> 32
		if n, ok := p.claim(gen, false); ok {
			p.run(t, n)
			spins, idle = 0, time.Time{}
			continue
		}
		if spins&15 != 15 {
			continue
		}
		yield()
		if idle.IsZero() {
			idle = time.Now()
		} else if time.Since(idle) > spinFor {
			p.parked[i].Store(true)
			// An example published after the store above finds the flag
			// set and wakes us; one published before it is seen here.
			if s := p.state.Load(); s>>32 == gen && s>>16&0xffff >= s&0xffff {
				<-p.wake[i]
			}
			p.parked[i].Store(false)
			spins, idle = 0, time.Time{}
		}
	}
}

// yield lets the parser and other goroutines run, and other threads have
// this core (osYield).
func yield() {
	runtime.Gosched()
	osYield()
}

// span runs the bases lo ≤ k < hi on ex (see each); it leaves ex.Label set
// to the last base's ±1.
func (o *oaaCore) span(ex *sparse.Example, lo, hi, c int) {
	for k := lo; k < hi; k++ {
		if c == 0 {
			o.scores[k] = o.bases[k].Predict(ex)
			continue
		}
		ex.Label = -1
		if k+1 == c {
			ex.Label = 1
		}
		o.scores[k] = o.bases[k].Learn(ex)
	}
}

// SetCores sets how many cores learn an example's classes (at least 1; the
// default is GOMAXPROCS). Results do not depend on it.
func (o *OAA) SetCores(n int) {
	defer runtime.KeepAlive(o)
	stopParallel(o.par)
	o.par = newParallel(o.par.o, n)
	runtime.AddCleanup(o, stopParallel, o.par)
}
