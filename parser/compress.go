package parser

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// compression is what an input was found to hold.
type compression uint8

const (
	plain compression = iota
	gzipped
	zstded
)

func (c compression) String() string {
	switch c {
	case gzipped:
		return "gzip"
	case zstded:
		return "zstd"
	}
	return "plain"
}

var (
	gzipMagic = []byte{0x1f, 0x8b}
	zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}
)

// input is one opened input: the decompressed text and how to release it.
type input struct {
	name string
	comp compression
	r    io.Reader // decompressed bytes

	file     *os.File // nil for stdin
	zr       *zstd.Decoder
	ahead    *readAhead
	closeMu  sync.Once
	closeErr error
}

// openInput opens a file, or stdin for "-", and sniffs its compression by
// magic bytes (file names are not trusted: stdin has none, and .gz files
// are sometimes plain).
func openInput(name string, stdin io.Reader) (*input, error) {
	in := &input{name: name}
	var raw io.Reader
	if name == "-" {
		in.name = stdinName
		if stdin == nil {
			stdin = os.Stdin
		}
		raw = stdin
	} else {
		f, err := os.Open(name)
		if err != nil {
			return nil, err // *PathError already names the file
		}
		in.file = f
		raw = f
	}
	br := bufio.NewReaderSize(raw, 64<<10)
	magic, err := br.Peek(4)
	if err != nil && err != io.EOF && !errors.Is(err, bufio.ErrBufferFull) {
		in.close()
		return nil, fmt.Errorf("read %s: %w", in.name, err)
	}
	switch {
	case hasPrefix(magic, gzipMagic):
		in.comp = gzipped
		zr, err := gzip.NewReader(br)
		if err != nil {
			in.close()
			return nil, in.readErr(err)
		}
		// Inflating is the slowest step of reading gzip (several times
		// the cost of splitting the text into chunks), so it runs on a
		// goroutine of its own, ahead of the one that fills the chunks.
		in.ahead = newReadAhead(zr)
		in.r = in.ahead
	case hasPrefix(magic, zstdMagic):
		in.comp = zstded
		// One decoder goroutine at most: the pipeline already reads on its
		// own goroutine, and the parse workers want the other cores.
		// The window is allocated whole when a frame starts: without a
		// bound a 15-byte header made the decoder allocate 512 MiB. 128
		// MiB is the zstd tool's own default limit (levels up to --ultra
		// -22 stay within it; --long=28 and above need --memory there too).
		zr, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(maxZstdWindow))
		if err != nil {
			in.close()
			return nil, in.readErr(err)
		}
		in.zr = zr
		in.r = zr
	default:
		in.r = br
	}
	return in, nil
}

// maxZstdWindow bounds the window of a zstd frame (see openInput).
const maxZstdWindow = 128 << 20

func hasPrefix(b, p []byte) bool {
	return len(b) >= len(p) && string(b[:len(p)]) == string(p)
}

// readErr wraps a read error with the input's name, and says plainly when
// a compressed stream ended early: truncation must never look like a
// clean end of data.
func (in *input) readErr(err error) error {
	if errors.Is(err, io.ErrUnexpectedEOF) || (in.comp != plain && err == io.EOF) {
		return fmt.Errorf("read %s: %w (truncated %s stream)", in.name, io.ErrUnexpectedEOF, in.comp)
	}
	if errors.Is(err, zstd.ErrWindowSizeExceeded) {
		return fmt.Errorf("read %s: %w: the zstd window is above %d MiB (the zstd tool's default limit); decompress it with zstd -d --memory=... and pipe the text in", in.name, err, maxZstdWindow>>20)
	}
	if in.comp != plain {
		return fmt.Errorf("read %s: %w (corrupt %s stream)", in.name, err, in.comp)
	}
	return fmt.Errorf("read %s: %w", in.name, err)
}

// close releases the input; it may be called more than once and from
// another goroutine (to interrupt a blocked read of a file).
func (in *input) close() error {
	in.closeMu.Do(func() {
		if in.file != nil {
			in.closeErr = in.file.Close()
		}
	})
	return in.closeErr
}

// release frees the decompressor. Only the goroutine that reads may call
// it, once it is done reading.
func (in *input) release() {
	if in.ahead != nil {
		in.ahead.stop()
		in.ahead = nil
	}
	if in.zr != nil {
		in.zr.Close()
		in.zr = nil
	}
}

// readAhead reads its source on a goroutine of its own into a few large
// buffers, so that decompressing overlaps the work of its reader.
type readAhead struct {
	full chan aheadBuf // filled, in order
	free chan []byte
	done chan struct{}
	cur  aheadBuf // being read from
	err  error    // the source's error, once cur is drained
}

type aheadBuf struct {
	b   []byte
	off int
	err error // what the source returned after b
}

const (
	aheadBufs  = 3
	aheadBytes = 128 << 10
)

func newReadAhead(src io.Reader) *readAhead {
	a := &readAhead{
		full: make(chan aheadBuf, aheadBufs),
		free: make(chan []byte, aheadBufs),
		done: make(chan struct{}),
	}
	for range aheadBufs - 1 {
		a.free <- make([]byte, aheadBytes)
	}
	go a.fill(src, make([]byte, aheadBytes))
	return a
}

// fill decodes into free buffers until the source ends or fails, or stop
// is called.
func (a *readAhead) fill(src io.Reader, b []byte) {
	for {
		// Not io.ReadFull: it would turn a clean end after a short
		// read into io.ErrUnexpectedEOF, the word for truncation.
		n := 0
		var err error
		for n < len(b) && err == nil {
			var m int
			m, err = src.Read(b[n:])
			n += m
		}
		select {
		case a.full <- aheadBuf{b: b[:n], err: err}:
		case <-a.done:
			return
		}
		if err != nil {
			return
		}
		select {
		case b = <-a.free:
		case <-a.done:
			return
		}
	}
}

// Read implements io.Reader with the source's errors.
func (a *readAhead) Read(p []byte) (int, error) {
	for a.cur.off == len(a.cur.b) {
		if a.err != nil {
			return 0, a.err
		}
		if a.cur.b != nil {
			a.free <- a.cur.b[:cap(a.cur.b)]
		}
		a.cur = <-a.full
		a.err = a.cur.err
	}
	n := copy(p, a.cur.b[a.cur.off:])
	a.cur.off += n
	return n, nil
}

// stop ends the goroutine; it may be blocked in the source's Read until
// the input is closed.
func (a *readAhead) stop() { close(a.done) }
