package parser

import (
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// news20Text is the news20 training set as VW text from the shared data
// (../shared/data, or SPARSESON_DATA_DIR); the benchmark is skipped
// without it. Its word lengths and counts, not a generator's, decide how
// the tokenizer's and the hash's branches go.
func news20Text(b *testing.B) []byte {
	dir := "../../shared/data"
	if d := os.Getenv("SPARSESON_DATA_DIR"); d != "" {
		dir = d
	}
	f, err := os.Open(filepath.Join(dir, "news20.train.vw.gz"))
	if err != nil {
		b.Skipf("no news20 in the shared data: %v", err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		b.Fatal(err)
	}
	text, err := io.ReadAll(zr)
	if err != nil {
		b.Fatal(err)
	}
	return text
}

// BenchmarkParseVWLineNews20 is the single-line parser and hasher on
// news20's lines, on one goroutine: the cost every learner pays per
// example before it sees one.
func BenchmarkParseVWLineNews20(b *testing.B) {
	text := news20Text(b)
	benchLine(b, text, ParseVWLine)
}
