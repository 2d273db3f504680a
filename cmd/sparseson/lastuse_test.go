package main

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/sparseson/sparseson/model"
)

// gcWriter discards what is written, collecting garbage (and giving the
// cleanups it queues time to run) on each of its first writes.
type gcWriter struct{ writes int }

func (w *gcWriter) Write(p []byte) (int, error) {
	if w.writes < 8 {
		w.writes++
		runtime.GC()
		time.Sleep(2 * time.Millisecond)
	}
	return len(p), nil
}

// saveLast saves d's model as the last use of d: from inside Save, nothing
// but the learner's own method holds the learner.
func saveLast(d *driver) error {
	return model.Encode(&gcWriter{}, d.Options(), d.Learner().Save)
}

// weightsLast reads d's weights out (as --readable_model does) as the last
// use of d, collecting garbage from inside the callback.
func weightsLast(d *driver) {
	var gc gcWriter
	d.Learner().Weights(func(uint32, float64) { gc.Write(nil) })
}

// lastUseDriver returns a driver for rc's learner trained on enough
// examples that saving its rows takes several writes.
func lastUseDriver(t *testing.T, rc registryCase) *driver {
	if strings.HasSuffix(rc.name, "full") {
		return trainedDriver(t, rc, 50) // the full-matrix learners: O(d²) per example
	}
	return trainedDriver(t, rc, 500)
}

// TestLastUse: every learner of the registry, alone and under --oaa, saved
// and read out as its caller's last use of it, with the collector running
// meanwhile. A table's rows live in memory it mapped itself and unmaps
// when the table is collected; a Save whose receiver the collector took
// for dead read them after the unmapping and faulted (seen in CI, in
// TestLoadMemory's encode). The rule that prevents it is checked over the
// source by internal/srccheck; this is the fault itself.
func TestLastUse(t *testing.T) {
	for _, rc := range registryCases() {
		t.Run(rc.name, func(t *testing.T) {
			if err := saveLast(lastUseDriver(t, rc)); err != nil {
				t.Fatal(err)
			}
			weightsLast(lastUseDriver(t, rc))
		})
	}
}
