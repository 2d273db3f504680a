package parser

import (
	"bytes"
	"fmt"
	"io"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/sparseson/sparseson/hashing"
)

// wordsReader yields head, then n bytes of "x x x …", then tail, without
// ever holding the long part: a line of hundreds of megabytes for the
// price of a few bytes of test memory.
type wordsReader struct {
	head, tail []byte
	n, off     int64
}

func (r *wordsReader) Read(p []byte) (int, error) {
	k := 0
	if len(r.head) > 0 {
		k = copy(p, r.head)
		r.head = r.head[k:]
		return k, nil
	}
	if r.n > 0 {
		m := int(min(int64(len(p)), r.n))
		for i := range m {
			p[i] = "x "[(r.off+int64(i))&1]
		}
		r.off += int64(m)
		r.n -= int64(m)
		return m, nil
	}
	if len(r.tail) > 0 {
		k = copy(p, r.tail)
		r.tail = r.tail[k:]
		return k, nil
	}
	return 0, io.EOF
}

// drainGuarded is openAll on stdin with a guard against hangs.
func drainGuarded(t *testing.T, stdin io.Reader, opt Options) collected {
	t.Helper()
	opt.Stdin = stdin
	done := make(chan collected, 1)
	go func() { done <- openAll(t, []string{"-"}, opt) }()
	select {
	case c := <-done:
		return c
	case <-time.After(2 * time.Minute):
		t.Fatal("reading did not finish within 2 minutes")
	}
	return collected{}
}

// TestStreamHugeLineBounded: a line of 10^8 words took gigabytes before
// "too many features" was reported (and ran out of memory under a 6 GB
// address-space limit). Its words are now counted as it comes in and the
// line is skipped as soon as it has more than a line may have, whatever
// its length, plain or compressed; the lines after it are read.
func TestStreamHugeLineBounded(t *testing.T) {
	const huge = 64 << 20 // bytes of "x x x …"
	valid := "\n1 |f a\n"
	for _, tc := range []struct {
		name     string
		head     string
		tail     string
		max      int // hashing MaxFeatures (0: the default, 4 Mi)
		chunk    int
		compress func(testing.TB, []byte) []byte
		examples int
	}{
		{name: "VW words, then a valid line", head: "1 |f ", tail: valid, examples: 1},
		{name: "words alone, unterminated", head: "", tail: "", examples: 0},
		{name: "bare words, then a valid line", head: "", tail: valid, examples: 1},
		{name: "LIBSVM-like, lowered limit", head: "1 1:1 ", tail: "\n1 2:1\n", max: 1000, examples: 1},
		{name: "small chunks, lowered limit", head: "1 |f ", tail: valid, max: 1000, chunk: 1024, examples: 1},
		{name: "gzip bomb", head: "1 |f ", tail: valid, examples: 1,
			compress: func(t testing.TB, b []byte) []byte { return gzipMembers(t, b, 1) }},
		{name: "zstd bomb", head: "1 |f ", tail: valid, examples: 1, compress: zstdBytes},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var in io.Reader = &wordsReader{head: []byte(tc.head), tail: []byte(tc.tail), n: huge}
			if tc.compress != nil {
				raw, _ := io.ReadAll(in) // compressible to a few hundred KB
				in = bytes.NewReader(tc.compress(t, raw))
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			opt := Options{Hash: hashing.Config{MaxFeatures: tc.max}, ChunkBytes: tc.chunk, Workers: 2}
			got := drainGuarded(t, in, opt)
			runtime.ReadMemStats(&after)
			if got.err != nil {
				t.Fatal(got.err)
			}
			maxW := maxWords(&opt)
			want := fmt.Sprintf("more than %d words: a line may have at most %d features", maxW, maxW-4)
			if len(got.errors) != 1 || got.errors[0].Line != 1 || got.errors[0].Msg != want {
				t.Fatalf("errors %v, want line 1: %q", got.errors, want)
			}
			if len(got.examples) != tc.examples {
				t.Fatalf("%d examples, want %d", len(got.examples), tc.examples)
			}
			wantBytes := int64(len(tc.head)) + huge + int64(len(tc.tail))
			if got.stats.Bytes != wantBytes {
				t.Errorf("stats: %d bytes, want %d", got.stats.Bytes, wantBytes)
			}
			// The line's first maxWords words (2 bytes each) are held,
			// and nothing else of it; the decompressed copy of a bomb is
			// not counted (it was made before). Holding the line took
			// three times its size.
			limit := uint64(2*maxW) + 4<<20
			if tc.compress != nil {
				limit += 8 << 20 // the decoder's window and buffers
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > limit {
				t.Errorf("allocated %d MB reading it, want at most %d MB", alloc>>20, limit>>20)
			}
		})
	}
}

// TestStreamTooManyWordsInChunk: the word limit holds as well for a line
// that fits in a chunk (it only shows with a lowered feature limit).
func TestStreamTooManyWordsInChunk(t *testing.T) {
	for _, tc := range []struct {
		name  string
		words int
		bad   bool
	}{
		{"at the limit", 100 + 4 - 1, false}, // with the label: 104
		{"one over", 100 + 4, true},
		{"namespaces do not count", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			line := "1 |f" + strings.Repeat(" x", tc.words)
			if tc.words == 0 {
				line = "1 " + strings.Repeat("|f ", 500) + "x"
			}
			got := drainGuarded(t, strings.NewReader(line+"\n"), Options{Hash: hashing.Config{MaxFeatures: 100, NoConstant: true}})
			if tc.bad {
				if len(got.errors) != 1 || !strings.HasPrefix(got.errors[0].Msg, "more than 104 words") {
					t.Fatalf("errors %v", got.errors)
				}
				return
			}
			// Accepted by the word count; the builder decides on features.
			for _, e := range got.errors {
				if strings.Contains(e.Msg, "words") {
					t.Fatalf("refused for its words: %v", e)
				}
			}
		})
	}
}

// TestStreamSniff: the format of an input is told by its first line that
// tells (a '|', or index:value tokens); blank lines, comments and bare
// labels before it wait for it and are read in that format; a later line
// plainly in the other format is reported as such.
func TestStreamSniff(t *testing.T) {
	mismatch := func(f, as string, line int) string {
		return fmt.Sprintf("looks like %s, but the input was sniffed as %s from line %d; use --format", f, as, line)
	}
	for _, tc := range []struct {
		name     string
		text     string
		chunk    int
		examples int
		errors   map[int64]string // line → message
	}{
		{name: "bare label first", text: "1\n1 |f a\n-1 |f b\n", examples: 2,
			errors: map[int64]string{1: "no '|' in VW line"}},
		{name: "comment first", text: "# comment\n1 |f a\n-1 |f b\n", examples: 2,
			errors: map[int64]string{1: "no '|' in VW line"}},
		{name: "comment before LIBSVM", text: "# comment\n1 1:2\n-1 3:4 # x|y\n", examples: 2},
		{name: "blank lines, then VW", text: "\n  \n\n1 |f a\n", examples: 1},
		{name: "bare labels only", text: "1\n-1\n", examples: 2},
		{name: "LIBSVM, then VW lines", text: "1 1:0.5\n1 |f a\n-1 |g b\n", examples: 1,
			errors: map[int64]string{2: mismatch("VW", "LIBSVM", 1), 3: mismatch("VW", "LIBSVM", 1)}},
		{name: "VW, then a LIBSVM line", text: "# c\n\n1 |f a\n2 1:3\n", examples: 1,
			errors: map[int64]string{1: "no '|' in VW line", 4: mismatch("LIBSVM", "VW", 3)}},
		{name: "index:value before a '|' in a line longer than a chunk", chunk: 16,
			text: "1 2:3 4:5 6:7 8:9 |f a\n1 |f b\n", examples: 1,
			errors: map[int64]string{1: "too many label tokens (5)"}},
		{name: "junk is reported as it is", text: "1 |f a\n1 a b\n", examples: 1,
			errors: map[int64]string{2: "no '|' in VW line"}},
		{name: "undecided across small chunks", chunk: 16,
			text:     "# a comment longer than a chunk\n# another\n1\n1 |f a\n3 1:2\n",
			examples: 1,
			errors: map[int64]string{1: "no '|' in VW line", 2: "no '|' in VW line", 3: "no '|' in VW line",
				5: mismatch("LIBSVM", "VW", 4)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := drainGuarded(t, strings.NewReader(tc.text), Options{ChunkBytes: tc.chunk})
			if got.err != nil {
				t.Fatal(got.err)
			}
			if len(got.examples) != tc.examples {
				t.Errorf("%d examples, want %d", len(got.examples), tc.examples)
			}
			if len(got.errors) != len(tc.errors) {
				t.Errorf("errors %v, want %v", got.errors, tc.errors)
			}
			for _, e := range got.errors {
				if want, ok := tc.errors[e.Line]; !ok || e.Msg != want {
					t.Errorf("line %d: %q, want %q", e.Line, e.Msg, want)
				}
			}
		})
	}
}

// TestStreamSniffPerInput: each input is sniffed on its own, and a run of
// lines that tell nothing (comments, bare labels) longer than sniffHold is
// not held whole: the input is read as LIBSVM, and a VW line after it says
// so.
func TestStreamSniffPerInput(t *testing.T) {
	dir := t.TempDir()
	vw := writeFile(t, dir, "a.vw", []byte("1\n1 |f a\n"))
	svm := writeFile(t, dir, "b.svm", []byte("# c\n1 1:2\n"))
	pairs := sniffHold/1000 + 10 // of a 1000-byte comment and a label
	long := writeFile(t, dir, "c", []byte(strings.Repeat("#"+strings.Repeat(" c", 499)+"\n1\n", pairs)+"1 |f a\n"))
	got := openAll(t, []string{vw, svm, vw, long}, Options{})
	if got.err != nil {
		t.Fatal(got.err)
	}
	if n := 1 + 1 + 1 + pairs; len(got.examples) != n {
		t.Errorf("%d examples, want %d", len(got.examples), n)
	}
	want := []ParseError{
		{vw, 1, "no '|' in VW line"},
		{vw, 1, "no '|' in VW line"},
		{long, int64(2*pairs) + 1, fmt.Sprintf("looks like VW, but the input is read as LIBSVM: nothing in its first %d bytes told its format; use --format", sniffHold)},
	}
	if !reflect.DeepEqual(got.errors, want) {
		t.Errorf("%d errors, first %v; want %v", len(got.errors), got.errors[:min(len(got.errors), 4)], want)
	}
}

func TestLineFormat(t *testing.T) {
	for _, tc := range []struct {
		line string
		want Format
	}{
		{"", Auto},
		{"   ", Auto},
		{"1", Auto},
		{" -1.5 ", Auto},
		{"# 1 |f a", Auto},
		{"1 # x:y", Auto},
		{"1 a b", Auto},
		{"1:2", Auto},
		{"1 |f a", VW},
		{"|f a", VW},
		{"1 'tag|f a:2", VW},
		{"1 1:2", LIBSVM},
		{"1 qid:3 4:0.5", LIBSVM},
		{"1 1:2 # a|b", LIBSVM},
		{"1:2 3:4", LIBSVM},
	} {
		if got := lineFormat([]byte(tc.line)); got != tc.want {
			t.Errorf("lineFormat(%q) = %v, want %v", tc.line, got, tc.want)
		}
	}
}

// FuzzLineFormat: a '|' in the start of a line tells VW for the whole
// line, so that sniffing may decide on it before a long line has fully
// arrived; the sniffer, fed a line in pieces, tells what the whole line
// tells, or nothing.
func FuzzLineFormat(f *testing.F) {
	for _, s := range []string{"1 |f a", "1 1:2 # a|b", "# c", "1", "1 a:", "x x x x", "0 :00000|", "1:0.5 2:1 | a"} {
		f.Add([]byte(s), uint8(3))
	}
	f.Fuzz(func(t *testing.T, line []byte, cut uint8) {
		if i := bytes.IndexByte(line, '\n'); i >= 0 {
			line = line[:i]
		}
		k := min(int(cut), len(line))
		whole := lineFormat(line)
		if p := lineFormat(line[:k]); p == VW && whole != VW {
			t.Fatalf("start %q tells VW, whole %q tells %v", line[:k], line, whole)
		}
		var sn sniffer
		if got, _, ok := sn.scan(line[:k], false); ok && got != whole {
			t.Fatalf("sniffed %v from the start %q of %q, which tells %v", got, line[:k], line, whole)
		}
		if got, _, ok := sn.scan(append(line[:k:k], line[k:]...), true); ok != (whole != Auto) || ok && got != whole {
			t.Fatalf("sniffed %v (%v) from the whole %q, which tells %v", got, ok, line, whole)
		}
	})
}
