package model

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// encode returns a whole model file whose body body writes.
func encode(t testing.TB, body func(*Writer) error) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := Encode(&buf, Options{"learner": "test"}, body); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// both returns a Reader of data held in memory and one streamed from a
// file, for tests that want the same answers from each.
func both(t testing.TB, data []byte) map[string]*Reader {
	t.Helper()
	_, mem, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "m.bin")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	_, file, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if file.src == nil {
		t.Fatal("Load of a regular file did not stream it")
	}
	return map[string]*Reader{"Parse": mem, "Load": file}
}

// decodeAll reads a body as the ops its own words name, so that any file
// drives both kinds of Reader through the same calls; it returns what it
// read, errors included.
func decodeAll(r *Reader, depth int) string {
	var out strings.Builder
	for i := 0; i < 64 && r.Err() == nil && r.remaining() > 0; i++ {
		switch op := r.Uint32() % 6; op {
		case 0:
			fmt.Fprint(&out, r.Float64s(nil))
		case 1:
			fmt.Fprint(&out, r.Uint32s(nil))
		case 2:
			fmt.Fprintf(&out, "%q", r.String())
		case 3:
			if depth < 3 {
				s := r.Section()
				fmt.Fprintf(&out, "{%s}", decodeAll(s, depth+1))
			}
		case 4:
			fmt.Fprint(&out, r.Bool())
		default:
			fmt.Fprint(&out, r.Uint64())
		}
	}
	fmt.Fprintf(&out, " done: %v", r.Done() != nil)
	return out.String()
}

func TestStreamMatchesParse(t *testing.T) {
	long := make([]float64, 3*chunk/8+5)
	for i := range long {
		long[i] = float64(i) * math.Pi
	}
	ids := make([]uint32, chunk/4+1)
	for i := range ids {
		ids[i] = uint32(i * 7)
	}
	cases := []struct {
		name string
		body func(*Writer) error
	}{
		{"empty", func(*Writer) error { return nil }},
		{"arrays longer than a chunk", func(w *Writer) error {
			w.Uint32(0)
			w.Float64s(long)
			w.Uint32(1)
			w.Uint32s(ids)
			return nil
		}},
		{"string longer than the read buffer", func(w *Writer) error {
			w.Uint32(2)
			w.String(strings.Repeat("x", 1<<17+3))
			return nil
		}},
		{"sections, one left unread", func(w *Writer) error {
			for i := range 3 {
				w.Uint32(3)
				if err := w.Section(func(s *Writer) error {
					s.Uint32(5)
					s.Uint64(uint64(i))
					s.Uint32(0)
					s.Float64s(long[:100*(i+1)])
					return nil
				}); err != nil {
					return err
				}
			}
			w.Uint32(4)
			w.Bool(true)
			return nil
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rs := both(t, encode(t, c.body))
			want, got := decodeAll(rs["Parse"], 0), decodeAll(rs["Load"], 0)
			if got != want {
				t.Fatalf("streamed:\n%.300s\nin memory:\n%.300s", got, want)
			}
			if strings.HasSuffix(want, "done: true") {
				t.Fatalf("the body was not consumed exactly: %.300s", want)
			}
		})
	}
	// A section left half read: the outer Reader skips the rest.
	data := encode(t, func(w *Writer) error {
		w.Section(func(s *Writer) error { s.Float64s(long); return nil })
		w.Uint32(42)
		return nil
	})
	for name, r := range both(t, data) {
		s := r.Section()
		s.Uint64()
		s.take(8)
		if r.Uint32() != 42 || r.Done() != nil {
			t.Errorf("%s: the outer reader is out of step after a half-read section: %v", name, r.Err())
		}
	}
}

// A file rewritten between the checksum pass and the decoding pass is
// refused, not decoded as if verified.
func TestStreamRefusesChangedFile(t *testing.T) {
	vals := make([]float64, 1<<17) // 1 MiB: far beyond the read buffer
	data := encode(t, func(w *Writer) error { w.Float64s(vals); return nil })
	path := filepath.Join(t.TempDir(), "m.bin")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	_, r, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte{1}, int64(len(data)/2)); err != nil {
		t.Fatal(err)
	}
	f.Close()
	r.Float64s(nil)
	if err := r.Done(); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "changed") {
		t.Fatalf("Done = %v, want the file refused as changed", err)
	}
}

// Loading a model allocates about its arrays once: not the file and then
// the arrays decoded from it, which made prediction (-t -i) need more
// memory than training.
func TestLoadAllocatesTheModelOnce(t *testing.T) {
	vals := make([]float64, 1<<20) // 8 MiB
	data := encode(t, func(w *Writer) error { w.Float64s(vals); return nil })
	path := filepath.Join(t.TempDir(), "m.bin")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, r, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	got := r.Float64s(nil)
	if err := r.Done(); err != nil || len(got) != len(vals) {
		t.Fatalf("%d values, %v", len(got), err)
	}
	runtime.ReadMemStats(&after)
	alloc, model := after.TotalAlloc-before.TotalAlloc, uint64(8*len(vals))
	if alloc > model+model/4 {
		t.Fatalf("loading a model of %d bytes of arrays allocated %d bytes", model, alloc)
	}
}

// A model read from a pipe (-i /dev/stdin) cannot be read twice; it is
// read whole.
func TestLoadPipe(t *testing.T) {
	data := encode(t, func(w *Writer) error { w.Uint32(4); w.Bool(true); return nil })
	path := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	go func() {
		if f, err := os.OpenFile(path, os.O_WRONLY, 0); err == nil {
			f.Write(data)
			f.Close()
		}
	}()
	type result struct {
		r   *Reader
		err error
	}
	done := make(chan result, 1)
	go func() { _, r, err := Load(path); done <- result{r, err} }()
	select {
	case res := <-done:
		if res.err != nil {
			t.Fatal(res.err)
		}
		if res.r.Uint32() != 4 || !res.r.Bool() || res.r.Done() != nil {
			t.Fatalf("decoded wrongly: %v", res.r.Err())
		}
	case <-time.After(time.Minute):
		t.Fatal("Load of a FIFO hung")
	}
}

// FuzzStreamMatchesParse: any file decodes the same, and fails the same,
// streamed as held in memory.
func FuzzStreamMatchesParse(f *testing.F) {
	f.Add(encode(f, func(w *Writer) error { w.Uint32(0); w.Float64s([]float64{1, 2}); return nil }))
	f.Add(encode(f, func(w *Writer) error {
		w.Uint32(3)
		w.Section(func(s *Writer) error { s.Uint32(2); s.String("ab"); return nil })
		w.Uint32(1)
		w.Uint32s([]uint32{7, 8})
		return nil
	}))
	f.Add([]byte("SPRSNMDL"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "m.bin")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, mem, perr := Parse(data)
		_, file, lerr := Load(path)
		if (perr == nil) != (lerr == nil) || (lerr != nil && !strings.HasSuffix(lerr.Error(), perr.Error())) {
			t.Fatalf("Parse: %v; Load: %v", perr, lerr)
		}
		if perr != nil {
			return
		}
		if want, got := decodeAll(mem, 0), decodeAll(file, 0); got != want {
			t.Fatalf("streamed:\n%.300s\nin memory:\n%.300s", got, want)
		}
	})
}
