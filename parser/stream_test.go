package parser

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/sparseson/sparseson/hashing"
	"github.com/sparseson/sparseson/sparse"
)

// collected is everything a Source delivered.
type collected struct {
	examples []sparse.Example
	errors   []ParseError
	errorAt  []int // index into examples, overall
	err      error // what ended the stream (nil for io.EOF)
	stats    Stats
}

func drain(t testing.TB, src Source) collected {
	t.Helper()
	var c collected
	for {
		b, err := src.Next()
		if err != nil {
			if err != io.EOF {
				c.err = err
			}
			break
		}
		if len(b.Errors) != len(b.ErrorAt) {
			t.Fatalf("%d errors but %d positions", len(b.Errors), len(b.ErrorAt))
		}
		for i, e := range b.Errors {
			c.errors = append(c.errors, e)
			c.errorAt = append(c.errorAt, len(c.examples)+b.ErrorAt[i])
		}
		for i := range b.Examples {
			var ex sparse.Example
			ex.CopyFrom(&b.Examples[i])
			c.examples = append(c.examples, ex)
		}
		src.Release(b)
	}
	c.stats = src.Stats()
	if err := src.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	return c
}

func openAll(t testing.TB, names []string, opt Options) collected {
	t.Helper()
	src, err := Open(names, opt)
	if err != nil {
		t.Fatal(err)
	}
	return drain(t, src)
}

// reference parses text line by line with the single-line functions.
func reference(t testing.TB, text []byte, f Format, cfg hashing.Config) []sparse.Example {
	t.Helper()
	b, _ := hashing.NewBuilder(cfg)
	var out []sparse.Example
	for _, l := range bytes.Split(bytes.TrimSuffix(text, []byte("\n")), []byte("\n")) {
		var ex sparse.Example
		var err error
		if f == LIBSVM {
			err = ParseLIBSVMLine(l, b, &ex)
		} else {
			err = ParseVWLine(l, b, &ex)
		}
		if err == nil {
			out = append(out, ex)
		}
	}
	return out
}

func sameExamples(t testing.TB, what string, got, want []sparse.Example) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d examples, want %d", what, len(got), len(want))
	}
	for i := range got {
		if !sameExample(&got[i], &want[i]) {
			t.Fatalf("%s: example %d differs:\n got %+v\nwant %+v", what, i, got[i], want[i])
		}
	}
}

func writeFile(t testing.TB, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// gzipMembers compresses data as several concatenated gzip members, as
// `cat a.gz b.gz` or pigz would produce.
func gzipMembers(t testing.TB, data []byte, members int) []byte {
	t.Helper()
	var out bytes.Buffer
	step := len(data)/members + 1
	for i := 0; i < len(data); i += step {
		w := gzip.NewWriter(&out)
		if _, err := w.Write(data[i:min(i+step, len(data))]); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return out.Bytes()
}

func zstdBytes(t testing.TB, data []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	w, err := zstd.NewWriter(&out)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

func TestStreamCompressionAndStdin(t *testing.T) {
	dir := t.TempDir()
	vw, svm := newsLike(3000, 1)
	for _, tc := range []struct {
		name string
		text []byte
		f    Format
	}{{"vw", vw, VW}, {"svm", svm, LIBSVM}} {
		want := reference(t, tc.text, tc.f, hashing.Config{})
		if len(want) != 3000 {
			t.Fatalf("reference has %d examples", len(want))
		}
		inputs := map[string][]byte{
			"plain": tc.text,
			"gzip":  gzipMembers(t, tc.text, 3),
			"zstd":  zstdBytes(t, tc.text),
		}
		for kind, data := range inputs {
			p := writeFile(t, dir, tc.name+"."+kind, data)
			for _, opt := range []Options{{}, {Workers: 3, ChunkBytes: 4096}, {Workers: 1, ChunkBytes: 1000}} {
				got := openAll(t, []string{p}, opt)
				if got.err != nil || len(got.errors) > 0 {
					t.Fatalf("%s %s: %v %v", tc.name, kind, got.err, got.errors)
				}
				sameExamples(t, tc.name+" "+kind, got.examples, want)
				if got.stats.Examples != 3000 || got.stats.Lines != 3000 || got.stats.Bytes != int64(len(tc.text)) {
					t.Fatalf("%s %s: stats %+v", tc.name, kind, got.stats)
				}
			}
			// The same bytes on stdin.
			got := openAll(t, []string{"-"}, Options{Stdin: bytes.NewReader(data), ChunkBytes: 8192})
			if got.err != nil {
				t.Fatalf("stdin %s: %v", kind, got.err)
			}
			sameExamples(t, tc.name+" stdin "+kind, got.examples, want)
		}
	}
}

func TestStreamTruncated(t *testing.T) {
	dir := t.TempDir()
	vw, _ := newsLike(500, 2)
	gz := gzipMembers(t, vw, 1)
	zs := zstdBytes(t, vw)
	cases := map[string][]byte{
		"cut.gz":       gz[:len(gz)/2],
		"notrailer.gz": gz[:len(gz)-4],
		"header.gz":    gz[:5],
		"cut.zst":      zs[:len(zs)/2],
		"end.zst":      zs[:len(zs)-3],
		"header.zst":   zs[:6],
	}
	for name, data := range cases {
		p := writeFile(t, dir, name, data)
		for _, stdin := range []bool{false, true} {
			var got collected
			if stdin {
				got = openAll(t, []string{"-"}, Options{Stdin: bytes.NewReader(data)})
			} else {
				got = openAll(t, []string{p}, Options{})
			}
			if got.err == nil {
				t.Errorf("%s (stdin %v): no error after %d examples", name, stdin, len(got.examples))
				continue
			}
			msg := got.err.Error()
			wantName := p
			if stdin {
				wantName = "stdin"
			}
			if !strings.Contains(msg, wantName) || !strings.Contains(msg, "truncated") {
				t.Errorf("%s: error %q should name %s and say truncated", name, msg, wantName)
			}
		}
	}
	// Damage in the middle of a gzip stream.
	bad := append([]byte(nil), gz...)
	for i := len(bad) / 3; i < len(bad)/3+64; i++ {
		bad[i] ^= 0x55
	}
	p := writeFile(t, dir, "corrupt.gz", bad)
	if got := openAll(t, []string{p}, Options{}); got.err == nil || !strings.Contains(got.err.Error(), p) {
		t.Errorf("corrupt gzip: %v", got.err)
	}
}

func TestStreamRandomBytes(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	data := make([]byte, 1<<20)
	for i := range data {
		// Plenty of separators so that there are many lines and tokens.
		switch r.IntN(20) {
		case 0:
			data[i] = '\n'
		case 1:
			data[i] = ' '
		case 2:
			data[i] = '|'
		case 3:
			data[i] = ':'
		default:
			data[i] = byte(r.Uint32())
		}
	}
	// Avoid magic bytes at the start (that would be a compressed stream).
	data[0] = 'x'
	dir := t.TempDir()
	p := writeFile(t, dir, "random", data)
	for _, f := range []Format{VW, LIBSVM} {
		got := openAll(t, []string{p}, Options{Format: f, ChunkBytes: 10000, Workers: 3})
		if got.err != nil {
			t.Fatal(got.err)
		}
		lines := int64(bytes.Count(data, []byte("\n")))
		if data[len(data)-1] != '\n' {
			lines++
		}
		blank := int64(0)
		for _, l := range bytes.Split(data, []byte("\n")) {
			l = trimCR(l)
			if isBlank(l) || (f == LIBSVM && isBlank(bytes.SplitN(l, []byte("#"), 2)[0])) {
				blank++
			}
		}
		st := got.stats
		if st.Lines != lines || st.Examples+st.Skipped+blank != lines {
			t.Errorf("%v: stats %+v, lines %d, blank %d", f, st, lines, blank)
		}
		for i := range got.examples {
			checkExample(t, &got.examples[i], 18)
		}
	}
}

func TestStreamLineNumbers(t *testing.T) {
	dir := t.TempDir()
	a := writeFile(t, dir, "a.vw", []byte("1 |f a\nbad |f b\n\n1 |f c\n1 f\n"))
	b := writeFile(t, dir, "b.svm", []byte("1 1:1\n\n# comment\n1 x:1\n-1 2:3\n1 2"))
	c := gzipMembers(t, []byte("1 |f a\n1 |f a:q\n"), 2)
	cp := writeFile(t, dir, "c.vw.gz", c)
	for _, opt := range []Options{{}, {ChunkBytes: 8, Workers: 4}} {
		got := openAll(t, []string{a, b, cp}, opt)
		if got.err != nil {
			t.Fatal(got.err)
		}
		want := []ParseError{
			{a, 2, `bad label "bad"`},
			{a, 5, `no '|' in VW line`},
			{b, 4, `bad index "x" in "x:1": not a positive integer`},
			{b, 6, `missing ':' in "2"`},
			{cp, 2, `bad value "q" for feature "a"`},
		}
		if fmt.Sprint(got.errors) != fmt.Sprint(want) {
			t.Fatalf("errors:\n got %v\nwant %v", got.errors, want)
		}
		if fmt.Sprint(got.errorAt) != "[1 2 3 4 5]" {
			t.Fatalf("errorAt %v", got.errorAt)
		}
		if len(got.examples) != 5 || got.stats.Lines != 13 || got.stats.Skipped != 5 {
			t.Fatalf("%d examples, stats %+v", len(got.examples), got.stats)
		}
		if got.errors[0].Error() != "parse "+a+":2: bad label \"bad\"" {
			t.Fatalf("Error() = %q", got.errors[0].Error())
		}
	}
}

func TestStreamBOMAndCRLF(t *testing.T) {
	dir := t.TempDir()
	text := "1 |f a b\r\n-1 |f c\r\n\r\n"
	plain := writeFile(t, dir, "plain.vw", []byte("1 |f a b\n-1 |f c\n"))
	bom := writeFile(t, dir, "bom.vw", append([]byte("\ufeff"), text...))
	bomsvm := writeFile(t, dir, "bom.svm", []byte("\ufeff1 3:1\r\n"))
	want := openAll(t, []string{plain}, Options{})
	got := openAll(t, []string{bom, bom}, Options{})
	if got.err != nil || len(got.errors) != 0 {
		t.Fatal(got.err, got.errors)
	}
	sameExamples(t, "bom", got.examples, append(want.examples, want.examples...))
	got = openAll(t, []string{bomsvm}, Options{})
	if got.err != nil || len(got.errors) != 0 || len(got.examples) != 1 {
		t.Fatal(got.err, got.errors)
	}
	// A BOM in the middle of a file is data, not skipped.
	mid := writeFile(t, dir, "mid.vw", []byte("1 |f a\n\ufeff1 |f a\n"))
	got = openAll(t, []string{mid}, Options{})
	if len(got.errors) != 1 || got.errors[0].Line != 2 {
		t.Fatalf("mid-file BOM: %v", got.errors)
	}
}

func TestStreamLongLines(t *testing.T) {
	dir := t.TempDir()
	long := "1 |f " + strings.Repeat("abcdefgh ", 20000) // ≈180 KB, above 64 KiB
	text := "1 |f a\n" + long + "\n-1 |f b\n"
	p := writeFile(t, dir, "long.vw", []byte(text))
	want := reference(t, []byte(text), VW, hashing.Config{})
	for _, opt := range []Options{{}, {ChunkBytes: 1024}} {
		got := openAll(t, []string{p}, opt)
		if got.err != nil || len(got.errors) > 0 {
			t.Fatal(got.err, got.errors)
		}
		sameExamples(t, "long", got.examples, want)
	}
	// Over MaxLineBytes: reported and skipped, whether the line spans
	// chunks or sits inside one, and also as the last line without newline.
	for _, opt := range []Options{
		{MaxLineBytes: 5000, ChunkBytes: 1024},
		{MaxLineBytes: 5000, ChunkBytes: 1 << 20},
		{MaxLineBytes: 5000, ChunkBytes: 4999},
	} {
		text := "1 |f a\n" + long + "\n-1 |f b\n" + long + "\n" + long
		p := writeFile(t, dir, "toolong.vw", []byte(text))
		got := openAll(t, []string{p}, opt)
		if got.err != nil {
			t.Fatal(got.err)
		}
		if len(got.examples) != 2 || len(got.errors) != 3 {
			t.Fatalf("%+v: %d examples, errors %v", opt, len(got.examples), got.errors)
		}
		for i, line := range []int64{2, 4, 5} {
			e := got.errors[i]
			if e.Line != line || e.Msg != "line longer than 5000 bytes" {
				t.Fatalf("%+v: error %d = %v", opt, i, e)
			}
		}
		if got.stats.Lines != 5 || got.stats.Bytes != int64(len(text)) {
			t.Fatalf("%+v: stats %+v, want 5 lines and %d bytes", opt, got.stats, len(text))
		}
	}
}

func TestStreamAutoFormat(t *testing.T) {
	dir := t.TempDir()
	vwText, svmText := newsLike(50, 3)
	vw := writeFile(t, dir, "x.vw", append([]byte("\n  \n"), vwText...))
	svm := writeFile(t, dir, "x.svm", svmText)
	got := openAll(t, []string{svm, vw, svm}, Options{ChunkBytes: 2000})
	if got.err != nil || len(got.errors) > 0 {
		t.Fatal(got.err, got.errors)
	}
	wantS := reference(t, svmText, LIBSVM, hashing.Config{})
	wantV := reference(t, vwText, VW, hashing.Config{})
	sameExamples(t, "auto", got.examples, append(append(append([]sparse.Example{}, wantS...), wantV...), wantS...))
	// Forcing the wrong format makes every line malformed.
	got = openAll(t, []string{vw}, Options{Format: LIBSVM})
	if len(got.examples) != 0 || len(got.errors) != 50 {
		t.Fatalf("forced libsvm: %d examples %d errors", len(got.examples), len(got.errors))
	}
	got = openAll(t, []string{svm}, Options{Format: VW})
	if len(got.examples) != 0 || len(got.errors) != 50 {
		t.Fatalf("forced vw: %d examples %d errors", len(got.examples), len(got.errors))
	}
}

func TestStreamEmptyAndMissing(t *testing.T) {
	dir := t.TempDir()
	empty := writeFile(t, dir, "empty", nil)
	blank := writeFile(t, dir, "blank", []byte("\n\n  \n"))
	got := openAll(t, []string{empty, blank, "-"}, Options{Stdin: strings.NewReader("")})
	if got.err != nil || len(got.examples) != 0 || got.stats.Lines != 3 {
		t.Fatalf("%v %d %+v", got.err, len(got.examples), got.stats)
	}
	if _, err := Open([]string{filepath.Join(dir, "nope")}, Options{}); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}
	// A file that disappears after Open is a fatal error from Next.
	gone := writeFile(t, dir, "gone", []byte("1 |f a\n"))
	src, err := Open([]string{empty, gone}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(gone)
	if got := drain(t, src); got.err == nil {
		// The reader may have opened it before the removal; then it is
		// read normally.
		if len(got.examples) != 1 {
			t.Fatalf("vanished file: %+v", got)
		}
	}
	if _, err := Open(nil, Options{Hash: hashing.Config{Bits: 40}}); err == nil {
		t.Fatal("bad hash config accepted")
	}
}

func TestStreamOrder(t *testing.T) {
	// Each line's label is its line number; with many small chunks and
	// workers racing, labels must still come out in order.
	var sb strings.Builder
	for i := 1; i <= 20000; i++ {
		fmt.Fprintf(&sb, "%d |f a%d b c:%d\n", i, i%7, i%5+1)
	}
	for _, w := range []int{1, 2, 4, 8} {
		got := openAll(t, []string{"-"}, Options{Stdin: strings.NewReader(sb.String()), Workers: w, ChunkBytes: 512})
		if got.err != nil || len(got.examples) != 20000 {
			t.Fatalf("workers %d: %v, %d examples", w, got.err, len(got.examples))
		}
		for i, ex := range got.examples {
			if ex.Label != float64(i+1) {
				t.Fatalf("workers %d: example %d has label %v", w, i, ex.Label)
			}
		}
	}
}

// endless is an input that never ends: the same text over and over.
type endless struct {
	text []byte
	off  int
}

func (e *endless) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		c := copy(p[n:], e.text[e.off:])
		n += c
		e.off = (e.off + c) % len(e.text)
	}
	return n, nil
}

func TestStreamCloseEarly(t *testing.T) {
	dir := t.TempDir()
	vw, _ := newsLike(2000, 4)
	p := writeFile(t, dir, "x.vw", vw)
	gz := writeFile(t, dir, "x.vw.gz", gzipMembers(t, vw, 1))
	zs := writeFile(t, dir, "x.vw.zst", zstdBytes(t, vw))
	before := runtime.NumGoroutine()
	for i := 0; i < 20; i++ {
		src, err := Open([]string{p, gz, zs, p}, Options{Workers: 3, ChunkBytes: 4096})
		if err != nil {
			t.Fatal(err)
		}
		for j := 0; j < i; j++ { // take a few batches, keep some unreleased
			if _, err := src.Next(); err != nil {
				t.Fatal(err)
			}
		}
		if err := src.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := src.Next(); err == nil {
			t.Fatal("Next after Close succeeded")
		}
		src.Close() // twice is fine
	}
	// An endless stdin too.
	src, _ := Open([]string{"-"}, Options{Stdin: &endless{text: vw}})
	src.Next()
	src.Close()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<16)
		t.Fatalf("%d goroutines before, %d after:\n%s", before, n, buf[:runtime.Stack(buf, true)])
	}
}

func TestStreamNoAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are meaningless under the race detector")
	}
	vw, svm := newsLike(500, 5)
	for _, tc := range []struct {
		name string
		text []byte
		opt  Options
	}{
		{"vw", vw, Options{}},
		{"libsvm", svm, Options{}},
		{"vw q", vw, Options{Hash: hashing.Config{Interactions: []string{"ff"}}, ChunkBytes: 64 << 10}},
	} {
		tc.opt.Stdin = &endless{text: tc.text}
		src, err := Open([]string{"-"}, tc.opt)
		if err != nil {
			t.Fatal(err)
		}
		step := func() {
			b, err := src.Next()
			if err != nil {
				t.Fatal(err)
			}
			src.Release(b)
		}
		for i := 0; i < 100; i++ { // warm up: fill pools, grow reused examples
			step()
		}
		if n := testing.AllocsPerRun(50, step); n != 0 {
			t.Errorf("%s: %v allocations per batch", tc.name, n)
		}
		src.Close()
	}
}

func TestStreamLiveStdin(t *testing.T) {
	// Lines written to a pipe come out before the pipe is closed or the
	// chunk buffer fills.
	pr, pw := io.Pipe()
	src, err := Open([]string{"-"}, Options{Stdin: pr})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		pw.Close()
		src.Close()
	}()
	for i := 1; i <= 3; i++ {
		done := make(chan struct{})
		go func() {
			fmt.Fprintf(pw, "%d |f a b\n", i)
			close(done)
		}()
		b, err := src.Next()
		if err != nil {
			t.Fatal(err)
		}
		if len(b.Examples) != 1 || b.Examples[0].Label != float64(i) {
			t.Fatalf("batch %d: %+v", i, b.Examples)
		}
		src.Release(b)
		<-done
	}
}

func TestAuditNames(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.vw")
	if err := os.WriteFile(path, []byte("1 |a x y\nbad line\n-1 | z\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := Open([]string{path}, Options{Audit: true, Hash: hashing.Config{Bits: 18}})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	var got []string
	for {
		b, err := src.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(b.Names) != len(b.Examples) {
			t.Fatalf("%d names for %d examples", len(b.Names), len(b.Examples))
		}
		for _, ns := range b.Names {
			var line []string
			for _, f := range ns {
				line = append(line, f.Name)
			}
			got = append(got, strings.Join(line, " "))
		}
		src.Release(b)
	}
	if want := "a^x a^y Constant|z Constant"; strings.Join(got, "|") != want {
		t.Errorf("names %q, want %q", strings.Join(got, "|"), want)
	}
}
