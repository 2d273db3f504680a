package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
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
// --daemon stops serving on the first signal and saves.
//
// The engine knows nothing of signals: the first one cancels the context
// it runs under (engine.Run, engine.Serve).

// watchSignals returns a context that the first SIGINT or SIGTERM cancels
// — or, when parent is not nil (tests), parent's end, taken as a SIGINT —
// and the function that ends the watch. Once stop has returned, a signal
// that came at any time before (during the save too) is what it returns,
// nil for none, and a later one has its default action. stop may be
// called again.
func watchSignals(parent context.Context) (ctx context.Context, stop func() os.Signal) {
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan os.Signal, 1)
	var parentDone <-chan struct{}
	if parent != nil {
		parentDone = parent.Done()
	} else {
		signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	}
	var (
		mu      sync.Mutex
		sig     os.Signal
		done    = make(chan struct{})
		decided = make(chan struct{})
	)
	record := func(s os.Signal) {
		mu.Lock()
		if sig == nil {
			sig = s
		}
		mu.Unlock()
		cancel()
	}
	go func() {
		defer close(decided)
		select {
		case s := <-ch:
			signal.Stop(ch) // a second signal has its default action again
			record(s)
		case <-parentDone:
			signal.Stop(ch)
			record(os.Interrupt)
		case <-done:
		}
	}()
	var once sync.Once
	return ctx, func() os.Signal {
		once.Do(func() {
			signal.Stop(ch)
			close(done)
			<-decided
			// A signal delivered before Stop that the watcher did not
			// take (it saw done first) waits in ch.
			select {
			case s := <-ch:
				record(s)
			default:
			}
			cancel()
		})
		mu.Lock()
		defer mu.Unlock()
		return sig
	}
}

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
