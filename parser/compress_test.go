package parser

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"testing"
	"testing/iotest"
	"time"
)

// errAfter yields data in odd-sized reads, then err.
type errAfter struct {
	data []byte
	err  error
}

func (e *errAfter) Read(p []byte) (int, error) {
	if len(e.data) == 0 {
		return 0, e.err
	}
	n := copy(p[:min(len(p), 1000+len(e.data)%777)], e.data)
	e.data = e.data[n:]
	return n, nil
}

// TestReadAhead: the bytes come through in order and the source's own
// error ends them — a truncated stream's io.ErrUnexpectedEOF is never
// made a clean end, nor a clean end truncation.
func TestReadAhead(t *testing.T) {
	data := make([]byte, 3*aheadBytes+12345)
	for i := range data {
		data[i] = byte(i * 31)
	}
	boom := errors.New("boom")
	for _, tc := range []struct {
		name string
		n    int
		err  error
	}{
		{"empty", 0, io.EOF},
		{"short", 100, io.EOF},
		{"exactly one buffer", aheadBytes, io.EOF},
		{"several buffers", len(data), io.EOF},
		{"truncated", len(data), io.ErrUnexpectedEOF},
		{"truncated within the first buffer", 10, io.ErrUnexpectedEOF},
		{"failed", aheadBytes + 1, boom},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newReadAhead(&errAfter{data: data[:tc.n], err: tc.err})
			defer a.stop()
			got, err := io.ReadAll(iotest.OneByteReader(io.LimitReader(a, 1<<30)))
			if tc.err == io.EOF {
				if err != nil {
					t.Fatalf("err = %v at a clean end", err)
				}
			} else if !errors.Is(err, tc.err) {
				t.Fatalf("err = %v, want %v", err, tc.err)
			}
			if !bytes.Equal(got, data[:tc.n]) {
				t.Fatalf("got %d bytes, want %d, or they differ", len(got), tc.n)
			}
			if n, err := a.Read(make([]byte, 8)); n != 0 || err == nil {
				t.Fatalf("a read after the end gave %d bytes, %v", n, err)
			}
		})
	}
}

// TestReadAheadStop: a reader that stops early (a pipeline closed
// mid-file) leaves no goroutine behind.
func TestReadAheadStop(t *testing.T) {
	before := runtime.NumGoroutine()
	for range 20 {
		a := newReadAhead(&errAfter{data: make([]byte, 10*aheadBytes), err: io.EOF})
		a.Read(make([]byte, 10))
		a.stop()
	}
	deadline := time.After(time.Minute)
	for runtime.NumGoroutine() > before {
		select {
		case <-deadline:
			t.Fatalf("%d goroutines, %d before", runtime.NumGoroutine(), before)
		case <-time.After(10 * time.Millisecond):
		}
	}
}
