package main

import (
	"fmt"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/sparseson/sparseson/parser"
)

// --save_on_signal (default on): SIGINT or SIGTERM during training stops
// the run at an example boundary — every example read so far is learned
// and written to -p, none half-way — and the run then ends as it would at
// the end of the data: -f, --readable_model and the other outputs are
// written, the summary printed, and the status is 128 + the signal's
// number (130, 143). Hours of training are not lost to a Ctrl-C. A
// second signal stops the process at once, as without the option; the
// model file is written to a temporary file and renamed, so the previous
// model stays intact either way. The cache being written is discarded (it
// would be incomplete). With --save_on_signal=false the signals keep
// their default action: the process stops at once and writes nothing.
// (--daemon handles the signals itself: it stops serving and saves.)

// stopper watches for the signals during a run.
type stopper struct {
	stopped atomic.Bool
	mu      sync.Mutex
	sig     os.Signal
	src     parser.Source // the source being read, closed to unblock it
	done    chan struct{}
}

// watchSignals starts watching (nil: the option is off). Signals come from
// the process, or, when the driver has a context (tests), from it as a
// SIGINT. stop ends the watch; once it has returned, a signal that came at
// any time before — during the save too — is recorded in s (interrupted),
// and a later one has its default action. stop may be called again.
func (d *driver) watchSignals() (s *stopper, stop func()) {
	if !d.cfg.saveOnSignal {
		return nil, func() {}
	}
	s = &stopper{done: make(chan struct{})}
	ch := make(chan os.Signal, 1)
	var ctxDone <-chan struct{}
	if d.ctx != nil {
		ctxDone = d.ctx.Done()
	} else {
		signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	}
	// decided is closed once the watcher has recorded a signal or seen
	// the stop — not after closing the source, which for stdin may wait
	// for a read that never returns.
	decided := make(chan struct{})
	go func() {
		var sig os.Signal
		select {
		case sig = <-ch:
		case <-ctxDone:
			sig = os.Interrupt
		case <-s.done:
			close(decided)
			return
		}
		// A second signal has its default action again.
		signal.Stop(ch)
		src := s.record(sig)
		close(decided)
		if src != nil {
			// Unblocks a read that waits for input (stdin); for stdin,
			// Close itself may wait for that read, here rather than in
			// the run.
			src.Close()
		}
	}()
	var once sync.Once
	return s, func() {
		once.Do(func() {
			signal.Stop(ch)
			close(s.done)
			<-decided
			// A signal delivered before Stop that the watcher did not
			// take (it saw done first) waits in ch.
			select {
			case sig := <-ch:
				s.record(sig)
			default:
			}
		})
	}
}

// record notes that sig stopped the run and returns the source to close.
func (s *stopper) record(sig os.Signal) parser.Source {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sig == nil {
		s.sig = sig
	}
	s.stopped.Store(true)
	return s.src
}

// reading records the source the run reads from (nil when none).
func (s *stopper) reading(src parser.Source) {
	if s == nil {
		return
	}
	s.mu.Lock()
	s.src = src
	s.mu.Unlock()
}

// interrupted reports whether a signal has stopped the run.
func (s *stopper) interrupted() bool { return s != nil && s.stopped.Load() }

// errInterrupted is what runPass returns when a signal stopped it.
var errInterrupted = fmt.Errorf("interrupted")

// interruptError ends a run that a signal stopped after saving.
type interruptError struct {
	sig      os.Signal
	examples int64
	saved    string // the model file written, if any
}

func (e *interruptError) Error() string {
	name := "SIGINT"
	if e.sig == syscall.SIGTERM {
		name = "SIGTERM"
	}
	msg := fmt.Sprintf("stopped by %s after %d examples", name, e.examples)
	if e.saved != "" {
		msg += "; the model was saved to " + e.saved
	}
	return msg
}

// status is the exit status of a process stopped by the signal: 128 + its
// number, as the shell reports it.
func (e *interruptError) status() int {
	if s, ok := e.sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 130
}
