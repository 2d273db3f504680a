package main

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/sparseson/sparseson/model"
)

// allocated returns the bytes f allocates on the heap.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestLoadMemory: -i streams the model file, for every learner of the
// registry alone and under --oaa: building the learner from the file
// allocates no more than building it from the same bytes already in
// memory, less the read buffer — no copy of the file is held while it is
// decoded, which made prediction (-t -i) need more memory than training.
// (Heap bytes, not RSS: the tables a learner grows while training are
// mapped outside the heap, so the two runs' heaps do not compare.)
func TestLoadMemory(t *testing.T) {
	// The stream's 64 KiB buffer, the checksum pass's 32 KiB, and the
	// jitter of the heap's own bookkeeping (±40 KiB seen).
	const slack = 256 << 10
	teeth := 0 // models big enough that a held copy would fail
	for _, rc := range registryCases() {
		t.Run(rc.name, func(t *testing.T) {
			d := trainedDriver(t, rc, 500)
			data, err := d.encode()
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "m")
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			args := []string{"--quiet", "-t", "-i", path}
			build := func(load func() (model.Options, *model.Reader, error)) uint64 {
				return allocated(func() {
					stored, r, lerr := load()
					if lerr == nil {
						_, lerr = inproc(args, stored, r)
					}
					if lerr != nil {
						err = lerr
					}
				})
			}
			inMemory := build(func() (model.Options, *model.Reader, error) { return model.Parse(data) })
			fromFile := build(func() (model.Options, *model.Reader, error) { return model.Load(path) })
			if err != nil {
				t.Fatal(err)
			}
			if fromFile > inMemory+slack {
				t.Errorf("loading the %d-byte model from its file allocated %d bytes; from memory %d", len(data), fromFile, inMemory)
			}
			if len(data) > slack {
				teeth++
			}
		})
	}
	if teeth < 10 {
		t.Errorf("only %d models outgrow the slack: the test would not see a copy of the file", teeth)
	}
}
