package parser

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/sparseson/sparseson/hashing"
	"github.com/sparseson/sparseson/sparse"
)

// fuzzCacheBits is the hash space the cache fuzzer reads with.
const fuzzCacheBits = 12

// FuzzCacheRead reads cache files: any file is refused (stale or corrupt,
// with a message) when opened or while read, or yields only examples with
// the parser's guarantees — slots in the hash space, each once, finite
// nonzero values, finite labels, weights ≥ 0. Each input is tried as it
// is and resealed (block and file checksums recomputed) so that mutations
// reach the record decoder.
func FuzzCacheRead(f *testing.F) {
	dir := f.TempDir()
	for i, exs := range [][]sparse.Example{
		cacheExamples(f, 6)[:5],
		cacheExamples(f, 8)[5:],
		{{Label: 3, HasLabel: true, Weight: 1, Tag: []byte("t"), Idx: []uint32{1, 4095, 2}, Val: []float64{1, 7, 0.5}}},
	} {
		p := filepath.Join(dir, "seed")
		w, err := CreateCache(p, "fp")
		if err != nil {
			f.Fatal(err)
		}
		for k := range exs {
			// Slots within the fuzzer's hash space.
			ex := exs[k]
			ex.Idx = append([]uint32(nil), ex.Idx...)
			for j := range ex.Idx {
				ex.Idx[j] &= 1<<fuzzCacheBits - 1
			}
			if err := w.Add(&ex); err != nil {
				f.Fatal(err)
			}
		}
		if err := w.Commit(); err != nil {
			f.Fatal(err)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		if i == 0 {
			f.Add(data[:len(data)/2])
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "in")
		for _, d := range [][]byte{data, resealCache(data)} {
			if d == nil {
				continue
			}
			if err := os.WriteFile(p, d, 0o644); err != nil {
				t.Fatal(err)
			}
			readCacheChecked(t, p)
		}
	})
}

func readCacheChecked(t *testing.T, path string) {
	src, err := OpenCache(path, "fp", Options{Hash: hashing.Config{Bits: fuzzCacheBits}, Workers: 2})
	if err != nil {
		if err.Error() == "" || !(errors.Is(err, ErrCacheStale) || errors.Is(err, ErrCacheCorrupt)) {
			t.Fatalf("open: %q", err)
		}
		return
	}
	defer src.Close()
	for {
		b, err := src.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			if err.Error() == "" || !errors.Is(err, ErrCacheCorrupt) {
				t.Fatalf("read: %q", err)
			}
			return
		}
		for i := range b.Examples {
			checkExample(t, &b.Examples[i], fuzzCacheBits)
		}
		src.Release(b)
	}
}

// resealCache recomputes the checksums of a cache file's blocks and of
// the whole file, as far as its structure can be followed; nil if it is not
// a cache.
func resealCache(data []byte) []byte {
	if len(data) < 12+trailerSize || string(data[:8]) != cacheMagic {
		return nil
	}
	out := append([]byte(nil), data...)
	fpLen, k := binary.Uvarint(out[12:])
	if k <= 0 || fpLen > uint64(len(out)) {
		return nil
	}
	pos := 12 + k + int(fpLen)
	end := len(out) - trailerSize
	if pos > end || string(out[end:end+8]) != cacheEndMagic {
		return nil
	}
	for pos+blockHeader <= end {
		n := int(binary.LittleEndian.Uint32(out[pos:]))
		if n <= 0 || n > end-pos-blockHeader {
			break
		}
		body := out[pos+blockHeader : pos+blockHeader+n]
		binary.LittleEndian.PutUint32(out[pos+4:], crc32.Checksum(body, castagnoli))
		pos += blockHeader + n
	}
	binary.LittleEndian.PutUint32(out[end+16:], crc32.Checksum(out[:end], castagnoli))
	return out
}

// FuzzDecompress feeds arbitrary bytes as an input through the whole text
// path (compression sniffed by magic bytes, gzip or zstd, line splitting,
// parsing): it ends with io.EOF or an error with a message, never a
// panic, and only valid examples come out. Seeds are compressed text,
// concatenated and truncated streams, lines of too many words, lines that
// tell no format; the mode byte picks the format and the line and feature
// limits.
func FuzzDecompress(f *testing.F) {
	text := []byte("1 |f a b:2 c\n-1 0.5 'x|g d e\n2 1:3 4:0.5\n|f a\n")
	longWords := []byte("1 |f " + strings.Repeat("x ", 5000) + "\nx x x x x x x x x x x x x x x x x x\n1 |f a\n")
	gz := func(b []byte) []byte {
		var buf bytes.Buffer
		w := gzip.NewWriter(&buf)
		w.Write(b)
		w.Close()
		return buf.Bytes()
	}
	zs := func(b []byte) []byte {
		var buf bytes.Buffer
		w, _ := zstd.NewWriter(&buf)
		w.Write(b)
		w.Close()
		return buf.Bytes()
	}
	for _, s := range [][]byte{
		text,
		gz(text),
		zs(text),
		append(gz(text), gz(text)...),
		gz(text)[:20],
		zs(text)[:10],
		append(zs(text), zs(text)...),
		{0x1f, 0x8b},
		{0x28, 0xb5, 0x2f, 0xfd},
		// A zstd frame header declaring the largest window.
		{0x28, 0xb5, 0x2f, 0xfd, 0x00, 0xf8, 0x01, 0x00, 0x00},
		// Lines of more words than a line may have, plain and as bombs.
		longWords,
		gz(longWords),
		zs(longWords),
		// Lines that tell no format before one that does, and lines in
		// the other format after it.
		[]byte("1\n# c\n\n1 |f a\n2 1:3\n"),
		[]byte("# c|d\n1 1:2\n1 |f a\n"),
	} {
		f.Add(s, uint8(0))
	}
	f.Fuzz(func(t *testing.T, data []byte, mode uint8) {
		opt := Options{Stdin: bytes.NewReader(data), Format: Format(mode % 3), MaxLineBytes: 64 + int(mode)*64, ChunkBytes: 256, Workers: 2,
			Hash: hashing.Config{MaxFeatures: 8 + int(mode)}}
		src, err := Open([]string{"-"}, opt)
		if err != nil {
			t.Fatal(err)
		}
		defer src.Close()
		for {
			b, err := src.Next()
			if err == io.EOF {
				return
			}
			if err != nil {
				if err.Error() == "" {
					t.Fatal("empty error")
				}
				return
			}
			for i := range b.Examples {
				checkExample(t, &b.Examples[i], hashing.DefaultBits)
			}
			for _, e := range b.Errors {
				if e.Msg == "" || e.Line < 1 {
					t.Fatalf("bad parse error %+v", e)
				}
			}
			src.Release(b)
		}
	})
}

// TestZstdWindowBounded: a zstd frame declaring a 512 MiB window (a
// 15-byte header) is refused with a message instead of making the decoder
// allocate the window; 128 MiB is accepted.
func TestZstdWindowBounded(t *testing.T) {
	data := bytes.Repeat([]byte("1 |f a b\n"), 100)
	frame := func(wd byte) []byte {
		// magic, frame header (no checksum, no content size), window
		// descriptor, one raw last block.
		f := []byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, wd}
		h := uint32(1) | uint32(len(data))<<3
		return append(append(f, byte(h), byte(h>>8), byte(h>>16)), data...)
	}
	for _, tc := range []struct {
		wd byte
		ok bool
	}{{0x98, false}, {0x88, true}} { // 2^29, 2^27 bytes
		src, err := Open([]string{"-"}, Options{Stdin: bytes.NewReader(frame(tc.wd))})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for {
			b, err := src.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				if tc.ok || !bytes.Contains([]byte(err.Error()), []byte("zstd window is above 128 MiB")) {
					t.Fatalf("window %#x: %v", tc.wd, err)
				}
				break
			}
			n += len(b.Examples)
			src.Release(b)
		}
		src.Close()
		if tc.ok && n != 100 {
			t.Fatalf("window %#x: %d examples", tc.wd, n)
		}
	}
}
