package model

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"math"
	"os"
	"sort"
	"strings"

	"github.com/sparseson/sparseson/internal/outfile"
)

// Version is the model format version this build writes and reads.
const Version = 4

var (
	magic   = [8]byte{'S', 'P', 'R', 'S', 'N', 'M', 'D', 'L'}
	trailer = [4]byte{'E', 'N', 'D', '.'}
	castag  = crc32.MakeTable(crc32.Castagnoli)
)

// ErrCorrupt is wrapped by every error that means "this file is damaged".
var ErrCorrupt = errors.New("corrupt model file")

// Options are the model-shaping settings stored in the header.
type Options map[string]string

// Save writes a model by internal/outfile's rules for models: a regular
// file (or a link's target) is replaced atomically — written to a
// temporary file in its directory, synced and renamed, so a process
// killed at any point leaves the old model or the new one — and a FIFO or
// character device (/dev/stdout) is written into.
func Save(path string, opts Options, body func(*Writer) error) error {
	out, err := outfile.Open(path, outfile.Model)
	if err != nil {
		return fmt.Errorf("save model %s: %w", path, err)
	}
	if err := Encode(out, opts, body); err != nil {
		out.Abort()
		return fmt.Errorf("save model %s: %w", path, err)
	}
	if err := out.Commit(); err != nil {
		return fmt.Errorf("save model %s: %w", path, err)
	}
	return nil
}

// FileMode is the mode new models (and caches) are created with, less the
// umask.
const FileMode = outfile.Mode

// Encode writes a whole model file to out.
func Encode(out io.Writer, opts Options, body func(*Writer) error) error {
	w := newWriter(out)
	w.raw(magic[:])
	w.Uint32(Version)
	keys := make([]string, 0, len(opts))
	for k := range opts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var hdr strings.Builder
	for _, k := range keys {
		if k == "" || strings.ContainsAny(k, "=\n") || strings.Contains(opts[k], "\n") {
			return fmt.Errorf("bad model option %q", k)
		}
		fmt.Fprintf(&hdr, "%s=%s\n", k, opts[k])
	}
	w.String(hdr.String())
	if err := body(w); err != nil {
		return err
	}
	w.raw(trailer[:])
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], w.crc.Sum32())
	if _, err := w.bw.Write(b[:]); err != nil && w.err == nil {
		w.err = err
	}
	if w.err == nil {
		w.err = w.bw.Flush()
	}
	return w.err
}

// Load reads and verifies a model file; the returned Reader yields the body.
// Nothing of the file is interpreted before its checksum has been verified.
//
// A regular file is read twice, streamed both times: once for the
// checksum, once to decode. A model is mostly its learner's arrays, so
// holding the file in memory while they are decoded from it would make
// loading a model (prediction with -t -i) need about twice the model's
// size, more than training it did. The decoding pass checksums what it
// reads again, and the Reader's Done refuses a file that changed between
// the two passes.
func Load(path string) (Options, *Reader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("load model: %w", err)
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		// A pipe or device can be read only once.
		var data []byte
		data, err = io.ReadAll(f)
		f.Close()
		if err != nil {
			return nil, nil, fmt.Errorf("load model: %w", err)
		}
		opts, r, err := Parse(data)
		if err != nil {
			return nil, nil, fmt.Errorf("load model %s: %w", path, err)
		}
		return opts, r, nil
	}
	var opts Options
	var r *Reader
	if err == nil {
		opts, r, err = stream(f, fi.Size())
	}
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("load model %s: %w", path, err)
	}
	return opts, r, nil
}

// Parse verifies a model held in memory (see Load).
func Parse(data []byte) (Options, *Reader, error) {
	size := int64(len(data))
	sum := func() (uint32, error) { return crc32.Checksum(data[:max(size-4, 0)], castag), nil }
	if err := verify(size, data[:min(size, headSize)], data[max(size-tailSize, 0):], sum); err != nil {
		return nil, nil, err
	}
	r := &Reader{buf: data[:size-tailSize], off: int(headSize)}
	opts, err := header(r)
	if err != nil {
		return nil, nil, err
	}
	return opts, r, nil
}

const (
	headSize = int64(len(magic)) + 4   // magic and version
	tailSize = int64(len(trailer)) + 4 // end marker and CRC-32C
)

// verify checks a model file of size bytes, given its head (up to
// headSize bytes), its tail (up to tailSize) and a function computing the
// CRC-32C of all but its last 4 bytes.
func verify(size int64, head, tail []byte, sum func() (uint32, error)) error {
	if size < int64(len(magic)) || !bytes.Equal(head[:len(magic)], magic[:]) {
		return errors.New("not a sparseson model file (bad magic)")
	}
	if size < headSize {
		return fmt.Errorf("%w: truncated header", ErrCorrupt)
	}
	// The version is believed only once the checksum holds: a flipped
	// bit in it is damage, not a newer format. (A newer format keeps the
	// magic, the version word, and the trailer with its CRC-32C.)
	v := binary.LittleEndian.Uint32(head[len(magic):])
	other := ""
	if v != Version {
		other = fmt.Sprintf("; its version field reads %d, this build reads %d: damaged, or a format this build does not know", v, Version)
	}
	if size-tailSize < headSize || !bytes.Equal(tail[:len(trailer)], trailer[:]) {
		return fmt.Errorf("%w: truncated (no end marker)%s", ErrCorrupt, other)
	}
	want := binary.LittleEndian.Uint32(tail[len(trailer):])
	got, err := sum()
	if err != nil {
		return err
	}
	if got != want {
		return fmt.Errorf("%w: checksum mismatch (%08x, file says %08x)%s", ErrCorrupt, got, want, other)
	}
	if v != Version {
		return fmt.Errorf("model format version %d is not supported (this build reads version %d)", v, Version)
	}
	return nil
}

// header reads the options that open the body.
func header(r *Reader) (Options, error) {
	hdr := r.String()
	if r.err != nil {
		return nil, r.err
	}
	opts := Options{}
	for _, line := range strings.Split(hdr, "\n") {
		if line == "" {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			return nil, fmt.Errorf("%w: bad header line %q", ErrCorrupt, line)
		}
		opts[k] = v
	}
	return opts, nil
}

// Writer encodes little-endian values into a model body. Errors are sticky
// and reported by Save.
type Writer struct {
	bw  *bufio.Writer
	crc hash.Hash32
	out io.Writer
	err error
	tmp [8]byte
}

func newWriter(f io.Writer) *Writer {
	w := &Writer{bw: bufio.NewWriterSize(f, 1<<16), crc: crc32.New(castag)}
	w.out = io.MultiWriter(w.bw, w.crc)
	return w
}

func (w *Writer) raw(b []byte) {
	if w.err == nil {
		_, w.err = w.out.Write(b)
	}
}

// Uint32 writes v.
func (w *Writer) Uint32(v uint32) {
	binary.LittleEndian.PutUint32(w.tmp[:4], v)
	w.raw(w.tmp[:4])
}

// Uint64 writes v.
func (w *Writer) Uint64(v uint64) {
	binary.LittleEndian.PutUint64(w.tmp[:], v)
	w.raw(w.tmp[:])
}

// Float64 writes v bit-exactly.
func (w *Writer) Float64(v float64) { w.Uint64(math.Float64bits(v)) }

// Bool writes b as one uint32.
func (w *Writer) Bool(b bool) {
	var v uint32
	if b {
		v = 1
	}
	w.Uint32(v)
}

// String writes a length-prefixed string.
func (w *Writer) String(s string) {
	w.Uint64(uint64(len(s)))
	if w.err == nil {
		_, w.err = io.WriteString(w.out, s)
	}
}

// Float64s writes a length-prefixed slice.
func (w *Writer) Float64s(v []float64) {
	w.Uint64(uint64(len(v)))
	w.Float64sPart(v)
}

// Float64sLen begins a Float64s of n values written in pieces by
// Float64sPart (the same bytes): a matrix's live block saved row by row,
// without a copy of it as large as the model.
func (w *Writer) Float64sLen(n int) { w.Uint64(uint64(n)) }

// Float64sPart writes v's values, a piece of a Float64s begun by
// Float64sLen.
func (w *Writer) Float64sPart(v []float64) {
	var buf [8 * 512]byte
	for len(v) > 0 {
		n := min(len(v), 512)
		for i, x := range v[:n] {
			binary.LittleEndian.PutUint64(buf[8*i:], math.Float64bits(x))
		}
		w.raw(buf[:8*n])
		v = v[n:]
	}
}

// Section writes what body writes as one length-prefixed part, so that a
// reader can hand it to a loader of its own that checks it consumed its
// part exactly (a reduction saves each of its base learners this way).
// The part is buffered in memory before it is written.
func (w *Writer) Section(body func(*Writer) error) error {
	var buf bytes.Buffer
	sub := &Writer{out: &buf}
	if err := body(sub); err != nil {
		return err
	}
	if sub.err != nil {
		if w.err == nil {
			w.err = sub.err
		}
		return sub.err
	}
	w.Uint64(uint64(buf.Len()))
	w.raw(buf.Bytes())
	return w.err
}

// Uint32s writes a length-prefixed slice.
func (w *Writer) Uint32s(v []uint32) {
	w.Uint64(uint64(len(v)))
	var buf [4 * 1024]byte
	for len(v) > 0 {
		n := min(len(v), 1024)
		for i, x := range v[:n] {
			binary.LittleEndian.PutUint32(buf[4*i:], x)
		}
		w.raw(buf[:4*n])
		v = v[n:]
	}
}

// Reader decodes a verified model body, held in memory (Parse) or
// streamed from its file (Load). Reads past the end, or lengths that do
// not fit in what remains, set a sticky ErrCorrupt error and return zeros.
type Reader struct {
	buf []byte // in memory: the body
	off int
	src *source // streamed: the file, shared with the Reader's sections
	pos int64   // streamed: this Reader's offset in the file, and its end
	end int64
	top bool // streamed: the whole body, whose Done checks the trailer
	err error
}

// Err returns the first decoding error.
func (r *Reader) Err() error { return r.err }

// Done reports an error unless the body was consumed exactly.
func (r *Reader) Done() error {
	if r.err != nil {
		return r.err
	}
	if n := r.remaining(); n != 0 {
		return fmt.Errorf("%w: %d unexpected trailing bytes", ErrCorrupt, n)
	}
	if r.top {
		r.err = r.src.finish(r.pos)
	}
	return r.err
}

// Fail records a semantic error found by the caller while decoding.
func (r *Reader) Fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, args...))
	}
}

func (r *Reader) remaining() int64 {
	if r.src != nil {
		return r.end - r.pos
	}
	return int64(len(r.buf) - r.off)
}

// take returns the next n bytes; streamed, they are valid only until the
// next read.
func (r *Reader) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || int64(n) > r.remaining() {
		r.err = fmt.Errorf("%w: truncated body", ErrCorrupt)
		return nil
	}
	if r.src != nil {
		b, err := r.src.read(r.pos, n)
		if err != nil {
			r.err = err
			return nil
		}
		r.pos += int64(n)
		return b
	}
	b := r.buf[r.off : r.off+n]
	r.off += n
	return b
}

// Uint32 reads a uint32.
func (r *Reader) Uint32() uint32 {
	if b := r.take(4); b != nil {
		return binary.LittleEndian.Uint32(b)
	}
	return 0
}

// Uint64 reads a uint64.
func (r *Reader) Uint64() uint64 {
	if b := r.take(8); b != nil {
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}

// Float64 reads a float64.
func (r *Reader) Float64() float64 { return math.Float64frombits(r.Uint64()) }

// Bool reads a bool.
func (r *Reader) Bool() bool {
	v := r.Uint32()
	if v > 1 {
		r.Fail("bad bool %d", v)
	}
	return v == 1
}

func (r *Reader) length(elem int) int {
	n := r.Uint64()
	if r.err == nil && n > uint64(r.remaining()/int64(elem)) {
		r.err = fmt.Errorf("%w: length %d exceeds the file", ErrCorrupt, n)
		return 0
	}
	return int(n)
}

// String reads a length-prefixed string.
func (r *Reader) String() string { return string(r.take(r.length(1))) }

// Section returns a Reader of the next part written by Writer.Section; its
// Done reports whether that part alone was consumed exactly. A damaged
// length makes both readers fail. Streamed, the part must be read before
// r reads on (r skips what the part left unread).
func (r *Reader) Section() *Reader {
	n := r.length(1)
	if r.src == nil {
		b := r.take(n)
		return &Reader{buf: b, err: r.err}
	}
	sub := &Reader{src: r.src, pos: r.pos, end: r.pos + int64(n), err: r.err}
	if r.err == nil {
		r.pos += int64(n)
	}
	return sub
}

// chunk bounds the bytes one streamed read of an array takes, so that
// decoding an array needs no second copy of it.
const chunk = 1 << 15

// Float64s reads a length-prefixed slice into dst (reused if large enough).
func (r *Reader) Float64s(dst []float64) []float64 {
	n := r.length(8)
	if r.err != nil {
		return dst[:0]
	}
	if cap(dst) < n {
		dst = make([]float64, n)
	}
	dst = dst[:n]
	for i := 0; i < n; {
		m := min(n-i, chunk/8)
		b := r.take(8 * m)
		if b == nil {
			return dst[:0]
		}
		for j := range m {
			dst[i+j] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*j:]))
		}
		i += m
	}
	return dst
}

// Uint32s reads a length-prefixed slice.
func (r *Reader) Uint32s(dst []uint32) []uint32 {
	n := r.length(4)
	if r.err != nil {
		return dst[:0]
	}
	if cap(dst) < n {
		dst = make([]uint32, n)
	}
	dst = dst[:n]
	for i := 0; i < n; {
		m := min(n-i, chunk/4)
		b := r.take(4 * m)
		if b == nil {
			return dst[:0]
		}
		for j := range m {
			dst[i+j] = binary.LittleEndian.Uint32(b[4*j:])
		}
		i += m
	}
	return dst
}
