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
func Load(path string) (Options, *Reader, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("load model: %w", err)
	}
	opts, r, err := Parse(data)
	if err != nil {
		return nil, nil, fmt.Errorf("load model %s: %w", path, err)
	}
	return opts, r, nil
}

// Parse verifies a model held in memory (see Load).
func Parse(data []byte) (Options, *Reader, error) {
	if len(data) < len(magic) || !bytes.Equal(data[:len(magic)], magic[:]) {
		return nil, nil, errors.New("not a sparseson model file (bad magic)")
	}
	if len(data) < len(magic)+4 {
		return nil, nil, fmt.Errorf("%w: truncated header", ErrCorrupt)
	}
	// The version is believed only once the checksum holds: a flipped
	// bit in it is damage, not a newer format. (A newer format keeps the
	// magic, the version word, and the trailer with its CRC-32C.)
	v := binary.LittleEndian.Uint32(data[len(magic):])
	other := ""
	if v != Version {
		other = fmt.Sprintf("; its version field reads %d, this build reads %d: damaged, or a format this build does not know", v, Version)
	}
	end := len(data) - 4 - len(trailer)
	if end < len(magic)+4 || !bytes.Equal(data[end:end+len(trailer)], trailer[:]) {
		return nil, nil, fmt.Errorf("%w: truncated (no end marker)%s", ErrCorrupt, other)
	}
	want := binary.LittleEndian.Uint32(data[len(data)-4:])
	if got := crc32.Checksum(data[:len(data)-4], castag); got != want {
		return nil, nil, fmt.Errorf("%w: checksum mismatch (%08x, file says %08x)%s", ErrCorrupt, got, want, other)
	}
	if v != Version {
		return nil, nil, fmt.Errorf("model format version %d is not supported (this build reads version %d)", v, Version)
	}
	r := &Reader{buf: data[:end], off: len(magic) + 4}
	hdr := r.String()
	if r.err != nil {
		return nil, nil, r.err
	}
	opts := Options{}
	for _, line := range strings.Split(hdr, "\n") {
		if line == "" {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			return nil, nil, fmt.Errorf("%w: bad header line %q", ErrCorrupt, line)
		}
		opts[k] = v
	}
	return opts, r, nil
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

// Reader decodes a verified model body. Reads past the end, or lengths that
// do not fit in what remains, set a sticky ErrCorrupt error and return zeros.
type Reader struct {
	buf []byte
	off int
	err error
}

// Err returns the first decoding error.
func (r *Reader) Err() error { return r.err }

// Done reports an error unless the body was consumed exactly.
func (r *Reader) Done() error {
	if r.err != nil {
		return r.err
	}
	if r.off != len(r.buf) {
		return fmt.Errorf("%w: %d unexpected trailing bytes", ErrCorrupt, len(r.buf)-r.off)
	}
	return nil
}

// Fail records a semantic error found by the caller while decoding.
func (r *Reader) Fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, args...))
	}
}

func (r *Reader) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.buf)-r.off {
		r.err = fmt.Errorf("%w: truncated body", ErrCorrupt)
		return nil
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
	if r.err == nil && n > uint64((len(r.buf)-r.off)/elem) {
		r.err = fmt.Errorf("%w: length %d exceeds the file", ErrCorrupt, n)
		return 0
	}
	return int(n)
}

// String reads a length-prefixed string.
func (r *Reader) String() string { return string(r.take(r.length(1))) }

// Section returns a Reader of the next part written by Writer.Section; its
// Done reports whether that part alone was consumed exactly. A damaged
// length makes both readers fail.
func (r *Reader) Section() *Reader {
	b := r.take(r.length(1))
	return &Reader{buf: b, err: r.err}
}

// Float64s reads a length-prefixed slice into dst (reused if large enough).
func (r *Reader) Float64s(dst []float64) []float64 {
	n := r.length(8)
	b := r.take(8 * n)
	if b == nil {
		return dst[:0]
	}
	if cap(dst) < n {
		dst = make([]float64, n)
	}
	dst = dst[:n]
	for i := range dst {
		dst[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return dst
}

// Uint32s reads a length-prefixed slice.
func (r *Reader) Uint32s(dst []uint32) []uint32 {
	n := r.length(4)
	b := r.take(4 * n)
	if b == nil {
		return dst[:0]
	}
	if cap(dst) < n {
		dst = make([]uint32, n)
	}
	dst = dst[:n]
	for i := range dst {
		dst[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return dst
}
