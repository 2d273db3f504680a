package parser

import (
	"bytes"
	"io"
	"path/filepath"
	"sync"
	"testing"

	"github.com/sparseson/sparseson/hashing"
	"github.com/sparseson/sparseson/sparse"
)

// Benchmark input: news20-like text, generated once.
var (
	benchOnce        sync.Once
	benchVW, benchSV []byte
)

const benchLines = 20000

func benchText() (vw, svm []byte) {
	benchOnce.Do(func() { benchVW, benchSV = newsLike(benchLines, 2024) })
	return benchVW, benchSV
}

// benchSource measures the whole pipeline (read, split, parse, hash,
// deliver in order) with a consumer that only touches each example. One op
// is one example; the input is the generated text repeated forever through
// the stdin path, so setup stays outside the timed loop.
func benchSource(b *testing.B, text []byte, textBytes int, opt Options) {
	opt.Stdin = &endless{text: text}
	src, err := Open([]string{"-"}, opt)
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	benchConsume(b, src, nil, float64(textBytes)/benchLines)
}

// benchConsume pulls b.N examples from src; at the end of a finite source
// it calls reopen for a fresh one (its setup cost is amortized over a whole
// pass).
func benchConsume(b *testing.B, src Source, reopen func() Source, bytesPerExample float64) {
	var sink int
	next := func() *Batch {
		batch, err := src.Next()
		if err == io.EOF && reopen != nil {
			src.Close()
			src = reopen()
			batch, err = src.Next()
		}
		if err != nil {
			b.Fatal(err)
		}
		return batch
	}
	defer func() { src.Close() }()
	// Warm up until pools and reused examples have reached their sizes.
	for i := 0; i < 100; i++ {
		src.Release(next())
	}
	b.SetBytes(int64(bytesPerExample + 0.5))
	b.ReportAllocs()
	b.ResetTimer()
	for n := 0; n < b.N; {
		batch := next()
		for i := range batch.Examples {
			sink += len(batch.Examples[i].Idx)
		}
		n += len(batch.Examples)
		src.Release(batch)
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "examples/s")
	_ = sink
}

func BenchmarkParseVW(b *testing.B) {
	vw, _ := benchText()
	benchSource(b, vw, len(vw), Options{})
}

func BenchmarkParseLIBSVM(b *testing.B) {
	_, svm := benchText()
	benchSource(b, svm, len(svm), Options{})
}

// BenchmarkParseVWQuadratic adds -q ff: ≈9k features per example.
func BenchmarkParseVWQuadratic(b *testing.B) {
	vw, _ := benchText()
	benchSource(b, vw, len(vw), Options{Hash: hashing.Config{Interactions: []string{"ff"}}, ChunkBytes: 64 << 10})
}

// BenchmarkParseVWGzip reads gzip-compressed text (the repeated input is
// a multi-member gzip stream).
func BenchmarkParseVWGzip(b *testing.B) {
	vw, _ := benchText()
	gz := gzipMembers(b, vw, 1)
	benchSource(b, gz, len(vw), Options{}) // bytes of text, not of gzip
}

// BenchmarkCacheRead measures reading examples back from a cache.
func BenchmarkCacheRead(b *testing.B) {
	vw, _ := benchText()
	path := filepath.Join(b.TempDir(), "cache")
	exs := reference(b, vw, VW, hashing.Config{})
	w, err := CreateCache(path, "fp")
	if err != nil {
		b.Fatal(err)
	}
	for k := 0; k < 10; k++ {
		for i := range exs {
			w.Add(&exs[i])
		}
	}
	if err := w.Commit(); err != nil {
		b.Fatal(err)
	}
	open := func() Source {
		src, err := OpenCache(path, "fp", Options{})
		if err != nil {
			b.Fatal(err)
		}
		return src
	}
	benchConsume(b, open(), open, float64(len(vw))/benchLines)
}

func benchLinesOf(text []byte) [][]byte {
	return bytes.Split(bytes.TrimSuffix(text, []byte("\n")), []byte("\n"))
}

func benchLine(b *testing.B, text []byte, parse func([]byte, *hashing.Builder, *sparse.Example) error) {
	lines := benchLinesOf(text)
	hb, _ := hashing.NewBuilder(hashing.Config{})
	var ex sparse.Example
	b.SetBytes(int64(float64(len(text))/float64(len(lines)) + 0.5))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := parse(lines[i%len(lines)], hb, &ex); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "examples/s")
}

// BenchmarkParseVWLine is the single-line parser on one goroutine.
func BenchmarkParseVWLine(b *testing.B) {
	vw, _ := benchText()
	benchLine(b, vw, ParseVWLine)
}

func BenchmarkParseLIBSVMLine(b *testing.B) {
	_, svm := benchText()
	benchLine(b, svm, ParseLIBSVMLine)
}
