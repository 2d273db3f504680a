package parser

import (
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/sparseson/sparseson/hashing"
	"github.com/sparseson/sparseson/sparse"
)

func bitIdentical(a, b *sparse.Example) bool {
	if math.Float64bits(a.Label) != math.Float64bits(b.Label) || a.HasLabel != b.HasLabel ||
		math.Float64bits(a.Weight) != math.Float64bits(b.Weight) ||
		math.Float64bits(a.Initial) != math.Float64bits(b.Initial) ||
		string(a.Tag) != string(b.Tag) || len(a.Idx) != len(b.Idx) || len(a.Val) != len(b.Val) {
		return false
	}
	for i := range a.Idx {
		if a.Idx[i] != b.Idx[i] || math.Float64bits(a.Val[i]) != math.Float64bits(b.Val[i]) {
			return false
		}
	}
	return true
}

// cacheExamples is a mix of parsed text and hand-made edge cases.
func cacheExamples(t testing.TB, n int) []sparse.Example {
	t.Helper()
	vw, _ := newsLike(n, 11)
	exs := reference(t, vw, VW, hashing.Config{})
	odd := []sparse.Example{
		{},
		{Label: -0.0, HasLabel: true, Weight: 0, Initial: -2.5, Tag: []byte("a tag")},
		{Label: math.Copysign(0, -1), HasLabel: true, Weight: 1, Idx: []uint32{0, 262143, 5}, Val: []float64{1, -1, 0.1}},
		{Weight: 3.25, Tag: []byte{0, 1, 2}, Idx: []uint32{7, 3, 1 << 17},
			Val: []float64{1 << 53, -(1 << 53), 1<<53 + 2}},
		{Weight: 1, Idx: []uint32{1, 2, 3, 4, 5, 6},
			Val: []float64{5e-324, math.MaxFloat32, 1.5, -1e18, 1e-7, float64(float32(0.1))}},
	}
	return append(odd, exs...)
}

func writeCache(t testing.TB, path, fp string, exs []sparse.Example) {
	t.Helper()
	w, err := CreateCache(path, fp)
	if err != nil {
		t.Fatal(err)
	}
	for i := range exs {
		if err := w.Add(&exs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
}

func TestCacheRoundTrip(t *testing.T) {
	dir := t.TempDir()
	fp := hashing.Config{}.Fingerprint()
	for _, n := range []int{0, 1, 3000} {
		exs := cacheExamples(t, n)
		path := filepath.Join(dir, "c.cache")
		writeCache(t, path, fp, exs)
		for _, opt := range []Options{{}, {Workers: 3}, {Workers: 1}} {
			src, err := OpenCache(path, fp, opt)
			if err != nil {
				t.Fatal(err)
			}
			got := drain(t, src)
			if got.err != nil {
				t.Fatal(got.err)
			}
			if len(got.examples) != len(exs) {
				t.Fatalf("n=%d: %d examples back, want %d", n, len(got.examples), len(exs))
			}
			for i := range exs {
				if !bitIdentical(&got.examples[i], &exs[i]) {
					t.Fatalf("example %d:\n got %+v\nwant %+v", i, got.examples[i], exs[i])
				}
			}
			if got.stats.Examples != int64(len(exs)) {
				t.Fatalf("stats %+v", got.stats)
			}
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("left behind: %v", entries)
	}
}

func TestCacheSmallerThanText(t *testing.T) {
	dir := t.TempDir()
	vw, _ := newsLike(2000, 12)
	exs := reference(t, vw, VW, hashing.Config{})
	path := filepath.Join(dir, "c")
	writeCache(t, path, "x", exs)
	fi, _ := os.Stat(path)
	t.Logf("text %d bytes, cache %d bytes (%.0f%%)", len(vw), fi.Size(), 100*float64(fi.Size())/float64(len(vw)))
	if fi.Size() > int64(len(vw)) {
		t.Errorf("cache (%d bytes) larger than the text (%d)", fi.Size(), len(vw))
	}
}

func TestCacheAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c")
	w, err := CreateCache(path, "fp")
	if err != nil {
		t.Fatal(err)
	}
	exs := cacheExamples(t, 10)
	for i := range exs {
		w.Add(&exs[i])
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("cache visible before Commit: %v", err)
	}
	if err := w.Abort(); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 0 {
		t.Fatalf("Abort left %v", entries)
	}
	if _, err := OpenCache(path, "fp", Options{}); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("open after abort: %v", err)
	}
	if _, err := CreateCache(filepath.Join(dir, "no", "such", "dir"), "fp"); err == nil {
		t.Fatal("cache in a missing directory")
	}
}

func TestCacheStale(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c")
	fp := hashing.Config{}.Fingerprint()
	writeCache(t, path, fp, cacheExamples(t, 5))
	if _, err := OpenCache(path, hashing.Config{Bits: 20}.Fingerprint(), Options{}); !errors.Is(err, ErrCacheStale) {
		t.Fatalf("other fingerprint: %v", err)
	}
	data, _ := os.ReadFile(path)
	version := append([]byte(nil), data...)
	version[8]++
	text := []byte("1 |f a b c\n1 |f a b c\n1 |f a b c\n1 |f a b c\n")
	for name, content := range map[string][]byte{"version": version, "text": text, "empty": nil, "short": []byte("1 |")} {
		p := writeFile(t, dir, name, content)
		if _, err := OpenCache(p, fp, Options{}); !errors.Is(err, ErrCacheStale) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestCacheCorrupt(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c")
	fp := "fingerprint"
	exs := cacheExamples(t, 1500)
	writeCache(t, path, fp, exs)
	data, _ := os.ReadFile(path)

	// Every truncation is refused, at open or while reading; none yields
	// a short but clean stream.
	for _, cut := range []int{4, 9, 13, 20, 30, len(data) / 3, len(data) / 2, len(data) - 21, len(data) - 20, len(data) - 1} {
		p := writeFile(t, dir, "cut", data[:cut])
		src, err := OpenCache(p, fp, Options{})
		if err != nil {
			if !errors.Is(err, ErrCacheCorrupt) {
				t.Errorf("cut %d: %v", cut, err)
			}
			continue
		}
		if got := drain(t, src); !errors.Is(got.err, ErrCacheCorrupt) {
			t.Errorf("cut %d: read %d examples, err %v", cut, len(got.examples), got.err)
		}
	}
	// Flipped bits anywhere past the fingerprint are caught.
	for _, off := range []int{30, 40, len(data) / 4, len(data) / 2, len(data) - 30, len(data) - 12, len(data) - 2} {
		bad := append([]byte(nil), data...)
		bad[off] ^= 0x10
		p := writeFile(t, dir, "flip", bad)
		src, err := OpenCache(p, fp, Options{})
		if err != nil {
			if !errors.Is(err, ErrCacheCorrupt) && !errors.Is(err, ErrCacheStale) {
				t.Errorf("flip %d: %v", off, err)
			}
			continue
		}
		got := drain(t, src)
		if !errors.Is(got.err, ErrCacheCorrupt) {
			t.Errorf("flip at %d of %d: read %d examples, err %v", off, len(data), len(got.examples), got.err)
		}
		for i := range got.examples {
			if !bitIdentical(&got.examples[i], &exs[i]) {
				t.Fatalf("flip at %d: a damaged example (%d) was delivered", off, i)
			}
		}
	}
}

func TestCacheNoAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are meaningless under the race detector")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "c")
	vw, _ := newsLike(2000, 13)
	exs := reference(t, vw, VW, hashing.Config{})
	w, _ := CreateCache(path, "fp")
	for k := 0; k < 50; k++ {
		for i := range exs {
			w.Add(&exs[i])
		}
	}
	// Writing allocates nothing per example either.
	if n := testing.AllocsPerRun(1000, func() { w.Add(&exs[7]) }); n != 0 {
		t.Errorf("Add: %v allocations", n)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	src, err := OpenCache(path, "fp", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	step := func() {
		b, err := src.Next()
		if err != nil {
			t.Fatal(err)
		}
		src.Release(b)
	}
	// Warm up: every recycled batch must have met its largest block.
	for i := 0; i < 80; i++ {
		step()
	}
	if n := testing.AllocsPerRun(20, step); n != 0 {
		t.Errorf("reading: %v allocations per batch", n)
	}
}

// Caches are created with mode 0644 less the umask, as models are.
func TestCacheMode(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	path := filepath.Join(t.TempDir(), "c.cache")
	w, err := CreateCache(path, "fp")
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", st.Mode().Perm())
	}
}

// TestCacheRefusesDuplicateSlots: a record holding a slot twice (which
// the writer never produces: the parser merges repeated features) is
// corruption, even with valid checksums.
func TestCacheRefusesDuplicateSlots(t *testing.T) {
	b := appendRecord(nil, &sparse.Example{Weight: 1, Idx: []uint32{5, 9, 5}, Val: []float64{1, 2, 3}})
	var ex sparse.Example
	var seen slotSet
	if _, err := decodeRecord(b, &ex, 1<<18-1, &seen); !errors.Is(err, ErrCacheCorrupt) {
		t.Fatalf("duplicate slot: %v", err)
	}
	b = appendRecord(nil, &sparse.Example{Weight: 1, Idx: []uint32{5, 9, 6}, Val: []float64{1, 2, 3}})
	if _, err := decodeRecord(b, &ex, 1<<18-1, &seen); err != nil {
		t.Fatal(err)
	}
	// Non-finite values, labels and negative weights are refused too.
	for _, bad := range []sparse.Example{
		{Weight: 1, Idx: []uint32{1}, Val: []float64{math.NaN()}},
		{Weight: 1, Idx: []uint32{1}, Val: []float64{math.Inf(1)}},
		{Weight: -1},
		{Weight: math.Inf(1)},
		{Weight: 1, HasLabel: true, Label: math.NaN()},
		{Weight: 1, Initial: math.Inf(-1)},
	} {
		if _, err := decodeRecord(appendRecord(nil, &bad), &ex, 1<<18-1, &seen); !errors.Is(err, ErrCacheCorrupt) {
			t.Fatalf("%+v: %v", bad, err)
		}
	}
}

// TestUvarint: the unrolled decoder gives binary.Uvarint's value and
// length for every input of one and two bytes, every three-byte input
// with a clear third high bit or not, short inputs, and the encodings of
// values up to 2⁶⁴−1 (so a change in any unrolled case fails here).
func TestUvarint(t *testing.T) {
	check := func(b []byte) {
		t.Helper()
		u, k := uvarint(b)
		wu, wk := binary.Uvarint(b)
		if u != wu || k != wk {
			t.Fatalf("uvarint(% x) = %d, %d; binary.Uvarint %d, %d", b, u, k, wu, wk)
		}
	}
	check(nil)
	for x := 0; x < 1<<8; x++ {
		check([]byte{byte(x)})
		for y := 0; y < 1<<8; y++ {
			check([]byte{byte(x), byte(y)})
			check([]byte{byte(x), byte(y), byte(x ^ y)})
			check([]byte{byte(x), byte(y), byte(x ^ y), 0x01})
		}
	}
	for _, v := range []uint64{0, 1, 127, 128, 16383, 16384, 1<<21 - 1, 1 << 21, 1<<35 + 3, 1<<63 + 5, ^uint64(0)} {
		check(binary.AppendUvarint(nil, v))
		check(append(binary.AppendUvarint(nil, v), 0xff, 0x00))
	}
}
