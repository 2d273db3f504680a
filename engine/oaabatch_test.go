package engine

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"testing"

	"github.com/sparseson/sparseson/learners"
	"github.com/sparseson/sparseson/sparse"
)

// TestOAABatchIsLearn: a run whose OAA model learns each parser batch in
// one LearnBatch writes the model of the same examples learned one at a
// time through Process (20 classes of news20, at GOMAXPROCS as it is,
// so that OAA's class threads are on).
func TestOAABatchIsLearn(t *testing.T) {
	path := filepath.Join("..", "testdata", "news20mc.train.vw.gz")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var lines [][]byte
	sc := bufio.NewScanner(zr)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		lines = append(lines, bytes.Clone(sc.Bytes()))
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	o := learners.DefaultOptions(16)
	o["oaa"] = "20"
	dir := t.TempDir()
	c := Defaults()
	c.Options, c.Quiet, c.Stderr = o, true, nil
	c.Data, c.Final = []string{path}, filepath.Join(dir, "batch")
	c.ChunkBytes = 4 << 10 // many batches, of a few examples each
	e, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	if e.oaaBatch() == nil {
		t.Fatal("an OAA training run does not learn batches")
	}
	if err := e.Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	c.Data, c.Final = nil, filepath.Join(dir, "one")
	one, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	var ex sparse.Example
	for _, line := range lines {
		if err := one.ParseLine(line, &ex); err != nil {
			t.Fatal(err)
		}
		one.Process(&ex)
	}
	if err := one.Save(c.Final); err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(filepath.Join(dir, "batch"))
	b, _ := os.ReadFile(c.Final)
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Errorf("the batched run's model (%d bytes) differs from Learn's (%d bytes)", len(a), len(b))
	}
}
