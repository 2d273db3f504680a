package parser

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"

	"github.com/sparseson/sparseson/hashing"
	"github.com/sparseson/sparseson/internal/outfile"
	"github.com/sparseson/sparseson/sparse"
)

// A cache file is
//
//	header:  "SPSNCACH" | version u32 | uvarint len(fingerprint) | fingerprint
//	blocks:  u32 len(body) | u32 CRC-32C(body) | body (whole records)
//	trailer: "SPSNEND1" | u64 examples | u32 CRC-32C(header and blocks)
//
// All fixed-size integers are little-endian. Blocks carry their own CRC so
// that corruption is caught before a damaged example reaches a learner; the
// trailer is written last, so a file without it is an interrupted write.
//
// A record is
//
//	flags byte (hasLabel, weight≠1, initial≠0, tag)
//	[label f64] [weight f64] [initial f64] [uvarint len(tag) | tag]
//	uvarint n, then n features: uvarint(zigzag(idx − previous idx)<<2 | kind)
//	followed by the value: kind 0 = 1.0 (nothing stored), 1 = an integer
//	(zigzag varint), 2 = a float32 that holds the value exactly (4 bytes),
//	3 = float64 (8 bytes).
//
// Indices are stored as deltas because nearby slots are common after
// digit-hashed features; values take the smallest exact form, so reading
// back gives bit-identical examples.
const (
	cacheMagic    = "SPSNCACH"
	cacheEndMagic = "SPSNEND1"
	cacheVersion  = 1
	trailerSize   = 8 + 8 + 4
	blockHeader   = 8
	cacheBlock    = 64 << 10
)

// Errors for caches that cannot be used. Both are wrapped with details.
var (
	// ErrCacheStale: the file is not a cache of this program and version,
	// or was made with other settings (fingerprint).
	ErrCacheStale = errors.New("stale cache")
	// ErrCacheCorrupt: the file is truncated or damaged.
	ErrCacheCorrupt = errors.New("corrupt cache")
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

const (
	flagLabel   = 1 << 0
	flagWeight  = 1 << 1
	flagInitial = 1 << 2
	flagTag     = 1 << 3
	flagsKnown  = flagLabel | flagWeight | flagInitial | flagTag
)

// CacheWriter writes a cache file. Nothing appears at the final path until
// Commit succeeds (internal/outfile's rules for a cache: a regular file,
// or a link's target, replaced atomically).
type CacheWriter struct {
	path  string
	f     *outfile.File
	w     *bufio.Writer
	block []byte
	crc   uint32 // of everything written so far
	count uint64
	err   error // sticky
}

// CreateCache starts a cache for path, for examples made under the given
// fingerprint (which should cover everything that changes the examples:
// the hashing config, the input format, the inputs themselves).
func CreateCache(path, fingerprint string) (*CacheWriter, error) {
	f, err := outfile.Open(path, outfile.Cache)
	if err != nil {
		return nil, fmt.Errorf("create cache %s: %w", path, err)
	}
	w := &CacheWriter{path: path, f: f, w: bufio.NewWriterSize(f, 1<<20),
		block: make([]byte, 0, cacheBlock+4096)}
	h := []byte(cacheMagic)
	h = binary.LittleEndian.AppendUint32(h, cacheVersion)
	h = binary.AppendUvarint(h, uint64(len(fingerprint)))
	h = append(h, fingerprint...)
	w.write(h)
	if w.err != nil {
		w.Abort()
		return nil, w.err
	}
	return w, nil
}

func (w *CacheWriter) write(p []byte) {
	if w.err != nil {
		return
	}
	w.crc = crc32.Update(w.crc, castagnoli, p)
	if _, err := w.w.Write(p); err != nil {
		w.err = fmt.Errorf("write cache %s: %w", w.path, err)
	}
}

// Add appends an example.
func (w *CacheWriter) Add(ex *sparse.Example) error {
	if w.err != nil {
		return w.err
	}
	if len(ex.Idx) != len(ex.Val) {
		return fmt.Errorf("cache: example has %d indices but %d values", len(ex.Idx), len(ex.Val))
	}
	w.block = appendRecord(w.block, ex)
	w.count++
	if len(w.block) >= cacheBlock {
		w.flushBlock()
	}
	return w.err
}

func (w *CacheWriter) flushBlock() {
	if len(w.block) == 0 {
		return
	}
	var hdr [blockHeader]byte
	binary.LittleEndian.PutUint32(hdr[0:], uint32(len(w.block)))
	binary.LittleEndian.PutUint32(hdr[4:], crc32.Checksum(w.block, castagnoli))
	w.write(hdr[:])
	w.write(w.block)
	w.block = w.block[:0]
}

// Commit finishes the cache and moves it into place atomically.
func (w *CacheWriter) Commit() error {
	if w.f == nil {
		return errors.New("cache: already committed or aborted")
	}
	w.flushBlock()
	var tr [trailerSize]byte
	copy(tr[:], cacheEndMagic)
	binary.LittleEndian.PutUint64(tr[8:], w.count)
	binary.LittleEndian.PutUint32(tr[16:], w.crc)
	if w.err == nil {
		if _, err := w.w.Write(tr[:]); err != nil {
			w.err = err
		}
	}
	if w.err == nil {
		w.err = w.w.Flush()
	}
	if w.err != nil {
		err := fmt.Errorf("write cache %s: %w", w.path, w.err)
		w.Abort()
		return err
	}
	f := w.f
	w.f = nil
	if err := f.Commit(); err != nil {
		return fmt.Errorf("install cache %s: %w", w.path, err)
	}
	return nil
}

// Abort discards the cache being written. It is safe after Commit (then
// it does nothing).
func (w *CacheWriter) Abort() error {
	if w.f == nil {
		return nil
	}
	f := w.f
	w.f = nil
	if err := f.Abort(); err != nil {
		return fmt.Errorf("discard the cache being written for %s: %w", w.path, err)
	}
	return nil
}

func appendRecord(b []byte, ex *sparse.Example) []byte {
	var flags byte
	if ex.HasLabel {
		flags |= flagLabel
	}
	if math.Float64bits(ex.Weight) != math.Float64bits(1) {
		flags |= flagWeight
	}
	if math.Float64bits(ex.Initial) != 0 {
		flags |= flagInitial
	}
	if len(ex.Tag) > 0 {
		flags |= flagTag
	}
	b = append(b, flags)
	if flags&flagLabel != 0 {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(ex.Label))
	}
	if flags&flagWeight != 0 {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(ex.Weight))
	}
	if flags&flagInitial != 0 {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(ex.Initial))
	}
	if flags&flagTag != 0 {
		b = binary.AppendUvarint(b, uint64(len(ex.Tag)))
		b = append(b, ex.Tag...)
	}
	b = binary.AppendUvarint(b, uint64(len(ex.Idx)))
	prev := int64(0)
	vals := ex.Val[:len(ex.Idx)]
	for i, idx := range ex.Idx {
		d := int64(idx) - prev
		prev = int64(idx)
		zz := uint64(d<<1) ^ uint64(d>>63)
		v := vals[i]
		switch {
		case v == 1:
			b = binary.AppendUvarint(b, zz<<2)
		case v != 0 && v == math.Trunc(v) && math.Abs(v) <= 1<<53:
			b = binary.AppendUvarint(b, zz<<2|1)
			b = binary.AppendVarint(b, int64(v))
		case float64(float32(v)) == v:
			b = binary.AppendUvarint(b, zz<<2|2)
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(float32(v)))
		default:
			b = binary.AppendUvarint(b, zz<<2|3)
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
		}
	}
	return b
}

var errRecord = fmt.Errorf("%w: bad record", ErrCacheCorrupt)

// decodeRecord reads one record from the front of b into ex, reusing its
// buffers, and returns the rest of b. Slots above mask are corruption.
func decodeRecord(b []byte, ex *sparse.Example, mask uint32, seen *slotSet) ([]byte, error) {
	if len(b) == 0 {
		return nil, errRecord
	}
	flags := b[0]
	b = b[1:]
	if flags&^flagsKnown != 0 {
		return nil, errRecord
	}
	ex.Reset()
	f64 := func() (float64, bool) {
		if len(b) < 8 {
			return 0, false
		}
		v := math.Float64frombits(binary.LittleEndian.Uint64(b))
		b = b[8:]
		return v, true
	}
	// What the text parser guarantees is checked again: a cache is only
	// checksummed, and a file made to pass the checksums must not bring a
	// NaN, an infinity or a negative weight to a learner.
	var ok bool
	if flags&flagLabel != 0 {
		if ex.Label, ok = f64(); !ok || ex.Label-ex.Label != 0 {
			return nil, errRecord
		}
		ex.HasLabel = true
	}
	if flags&flagWeight != 0 {
		if ex.Weight, ok = f64(); !ok || !(ex.Weight >= 0) || ex.Weight-ex.Weight != 0 {
			return nil, errRecord
		}
	}
	if flags&flagInitial != 0 {
		if ex.Initial, ok = f64(); !ok || ex.Initial-ex.Initial != 0 {
			return nil, errRecord
		}
	}
	if flags&flagTag != 0 {
		n, k := binary.Uvarint(b)
		if k <= 0 || n > uint64(len(b)-k) {
			return nil, errRecord
		}
		ex.Tag = append(ex.Tag[:0], b[k:k+int(n)]...)
		b = b[k+int(n):]
	}
	n, k := binary.Uvarint(b)
	// Each feature takes at least one byte, which bounds n before any
	// buffer is sized by it.
	if k <= 0 || n > uint64(len(b)-k) {
		return nil, errRecord
	}
	b = b[k:]
	if cap(ex.Idx) < int(n) || cap(ex.Val) < int(n) {
		c := 16 // powers of two, so that reused examples settle quickly
		for c < int(n) {
			c <<= 1
		}
		ex.Idx = make([]uint32, 0, c)
		ex.Val = make([]float64, 0, c)
	}
	idx := ex.Idx[:n]
	val := ex.Val[:n]
	seen.reset(int(n))
	prev := int64(0)
	for i := range idx {
		u, k := uvarint(b)
		if k <= 0 {
			return nil, errRecord
		}
		b = b[k:]
		zz := u >> 2
		d := int64(zz>>1) ^ -int64(zz&1)
		cur := prev + d
		if cur < 0 || cur > int64(mask) {
			return nil, errRecord
		}
		prev = cur
		if !seen.add(uint32(cur)) {
			return nil, errRecord // a slot twice: the writer merges them
		}
		idx[i] = uint32(cur)
		var v float64
		switch u & 3 {
		case 0:
			v = 1
		case 1:
			ux, k := uvarint(b)
			if k <= 0 {
				return nil, errRecord
			}
			b = b[k:]
			v = float64(int64(ux>>1) ^ -int64(ux&1)) // binary.Varint's zigzag
		case 2:
			if len(b) < 4 {
				return nil, errRecord
			}
			v = float64(math.Float32frombits(binary.LittleEndian.Uint32(b)))
			b = b[4:]
		case 3:
			if len(b) < 8 {
				return nil, errRecord
			}
			v = math.Float64frombits(binary.LittleEndian.Uint64(b))
			b = b[8:]
		}
		if v == 0 || v-v != 0 {
			return nil, errRecord
		}
		val[i] = v
	}
	ex.Idx, ex.Val = idx, val
	return b, nil
}

// uvarint is binary.Uvarint with its one-, two- and three-byte cases
// unrolled (a feature's slot delta and small integer values take one to
// three bytes): the same value and length for every input, without the
// loop that, with its Varint twin, was a third of a cached Oja-SON pass's
// instructions (news20, 3 cached passes: decoding 0.84e9 → 0.63e9 of
// 2.53e9).
func uvarint(b []byte) (uint64, int) {
	if len(b) >= 3 {
		b0, b1, b2 := b[0], b[1], b[2]
		switch {
		case b0 < 0x80:
			return uint64(b0), 1
		case b1 < 0x80:
			return uint64(b0&0x7f) | uint64(b1)<<7, 2
		case b2 < 0x80:
			return uint64(b0&0x7f) | uint64(b1&0x7f)<<7 | uint64(b2)<<14, 3
		}
	}
	return binary.Uvarint(b)
}

// cacheSource reads a cache file through the same pipeline as text.
type cacheSource struct {
	*pipeline
	f       *os.File
	name    string
	first   int64 // offset of the first block
	end     int64 // offset of the trailer
	headCRC uint32
	count   uint64
	crc     uint32
}

// OpenCache opens a cache made by CreateCache with the same fingerprint.
// It returns an error wrapping ErrCacheStale if the file is not such a
// cache or has another fingerprint, and one wrapping ErrCacheCorrupt if it
// is truncated; damage found while reading makes Next fail.
func OpenCache(path, fingerprint string, opt Options) (Source, error) {
	opt = opt.withDefaults()
	if err := opt.Hash.Validate(); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	s, err := openCache(f, path, fingerprint)
	if err != nil {
		f.Close()
		return nil, err
	}
	s.pipeline = newPipeline(opt)
	mask := uint32(1)<<opt.Hash.Bits - 1
	if opt.Hash.Bits == 0 {
		mask = uint32(1)<<hashing.DefaultBits - 1
	}
	s.atEOF = func() error {
		if n := s.examples.Load(); uint64(n) != s.count {
			return fmt.Errorf("cache %s: %w: %d examples, trailer says %d", path, ErrCacheCorrupt, n, s.count)
		}
		return nil
	}
	s.start(s.read, func() func(*chunk, *Batch) error {
		var seen slotSet // per worker
		return func(c *chunk, b *Batch) error { return decodeBlock(c, b, mask, &seen) }
	})
	return s, nil
}

func openCache(f *os.File, path, fingerprint string) (*cacheSource, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := fi.Size()
	corrupt := func(why string) error { return fmt.Errorf("cache %s: %w: %s", path, ErrCacheCorrupt, why) }
	stale := func(why string) error { return fmt.Errorf("cache %s: %w: %s", path, ErrCacheStale, why) }
	var head [8 + 4 + binary.MaxVarintLen64]byte
	n, err := f.ReadAt(head[:], 0)
	if err != nil && err != io.EOF {
		return nil, fmt.Errorf("read cache %s: %w", path, err)
	}
	if n < len(cacheMagic) {
		if n > 0 && string(head[:n]) == cacheMagic[:n] {
			return nil, corrupt("truncated header")
		}
		return nil, stale("not a sparseson cache")
	}
	if string(head[:8]) != cacheMagic {
		return nil, stale("not a sparseson cache")
	}
	if n < 12 {
		return nil, corrupt("truncated header")
	}
	if v := binary.LittleEndian.Uint32(head[8:]); v != cacheVersion {
		return nil, stale(fmt.Sprintf("format version %d, want %d", v, cacheVersion))
	}
	fpLen, k := binary.Uvarint(head[12:n])
	if k <= 0 || fpLen > uint64(size) {
		return nil, corrupt("truncated header")
	}
	start := int64(12+k) + int64(fpLen)
	if start+trailerSize > size {
		return nil, corrupt("truncated (no trailer)")
	}
	header := make([]byte, start)
	if _, err := f.ReadAt(header, 0); err != nil {
		return nil, fmt.Errorf("read cache %s: %w", path, err)
	}
	if string(header[12+k:]) != fingerprint {
		return nil, stale("made with other settings")
	}
	var tr [trailerSize]byte
	if _, err := f.ReadAt(tr[:], size-trailerSize); err != nil {
		return nil, fmt.Errorf("read cache %s: %w", path, err)
	}
	if string(tr[:8]) != cacheEndMagic {
		return nil, corrupt("truncated (no trailer)")
	}
	return &cacheSource{
		f: f, name: path, first: start, end: size - trailerSize,
		headCRC: crc32.Checksum(header, castagnoli),
		count:   binary.LittleEndian.Uint64(tr[8:]),
		crc:     binary.LittleEndian.Uint32(tr[16:]),
	}, nil
}

// read is the reader goroutine: one block per chunk.
func (s *cacheSource) read() {
	var seq int64
	defer s.f.Close()
	err := s.readBlocks(&seq)
	s.finish(&seq, err)
}

func (s *cacheSource) readBlocks(seq *int64) error {
	corrupt := func(why string) error {
		return fmt.Errorf("cache %s: %w: %s", s.name, ErrCacheCorrupt, why)
	}
	r := bufio.NewReaderSize(io.NewSectionReader(s.f, s.first, s.end-s.first), 1<<20)
	crc := s.headCRC
	pos := s.first
	var hdr [blockHeader]byte
	for pos < s.end {
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			return corrupt("truncated block header")
		}
		crc = crc32.Update(crc, castagnoli, hdr[:])
		size := int64(binary.LittleEndian.Uint32(hdr[:]))
		pos += blockHeader
		if size == 0 || size > s.end-pos {
			return corrupt("bad block length")
		}
		c := s.getChunk()
		if c == nil {
			return nil
		}
		if int64(cap(c.buf)) < size {
			c.buf = make([]byte, size)
		}
		c.data = c.buf[:size]
		if _, err := io.ReadFull(r, c.data); err != nil {
			s.free <- c
			return fmt.Errorf("read cache %s: %w", s.name, err)
		}
		pos += size
		if crc32.Checksum(c.data, castagnoli) != binary.LittleEndian.Uint32(hdr[4:]) {
			s.free <- c
			return corrupt(fmt.Sprintf("checksum mismatch in block at offset %d", pos-size-blockHeader))
		}
		crc = crc32.Update(crc, castagnoli, c.data)
		c.file = s.name
		c.bytes = size + blockHeader
		// Lines are counted by the worker, which knows the record count.
		if !s.send(c, seq, true) {
			return nil
		}
	}
	if crc != s.crc {
		return corrupt("checksum mismatch")
	}
	return io.EOF
}

// decodeBlock decodes a block's records into b.
func decodeBlock(c *chunk, b *Batch, mask uint32, seen *slotSet) error {
	data := c.data
	for len(data) > 0 {
		ex := b.next()
		rest, err := decodeRecord(data, ex, mask, seen)
		if err != nil {
			return fmt.Errorf("cache %s: %w", c.file, err)
		}
		b.keep()
		data = rest
	}
	c.lines = int64(len(b.Examples))
	return nil
}

// slotSet is the set of an example's slots while its record is decoded:
// the writer never stores a slot twice, so a repeated one is damage (a
// file made to pass the checksums), and learners rely on each slot
// appearing once (NASA's saved ‖G‖² no longer matched its sums, and the
// model was refused). Open addressing, cleared in O(1) by a stamp, as
// hashing's slot table; about 0.4 µs per news20 example, in the decoding
// workers (a bitmap over the hash space was no faster).
type slotSet struct {
	ent   []slotStamp
	mask  uint32
	shift uint32
	stamp uint32
}

type slotStamp struct{ stamp, slot uint32 }

// reset empties the set and makes room for n slots at load ≤ 1/2.
func (t *slotSet) reset(n int) {
	size, log := 64, uint32(6)
	for size < 2*n {
		size <<= 1
		log++
	}
	if len(t.ent) < size || (len(t.ent) > 1<<16 && len(t.ent) > 64*size) {
		t.ent = make([]slotStamp, size)
		t.mask, t.shift, t.stamp = uint32(size-1), 32-log, 0
	}
	t.stamp++
	if t.stamp == 0 {
		clear(t.ent)
		t.stamp = 1
	}
}

// add inserts slot and reports whether it was new.
func (t *slotSet) add(slot uint32) bool {
	for j := (slot * 0x9e3779b1) >> t.shift; ; j++ {
		e := &t.ent[j&t.mask]
		if e.stamp != t.stamp {
			e.stamp, e.slot = t.stamp, slot
			return true
		}
		if e.slot == slot {
			return false
		}
	}
}
