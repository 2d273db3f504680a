package parser

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sparseson/sparseson/hashing"
)

// TestReadAll: every example, in order, each owning its buffers (small
// chunks and batches are reused while ReadAll runs), malformed lines
// skipped.
func TestReadAll(t *testing.T) {
	var b strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&b, "%d |f w%d:%d w%d\n", 2*(i%2)-1, i%97, 1+i%5, i%13)
		if i%500 == 7 {
			b.WriteString("bad |\n")
		}
	}
	text := []byte(b.String())
	path := writeFile(t, t.TempDir(), "d.vw", text)
	cfg := hashing.Config{Bits: 18}
	src, err := Open([]string{path}, Options{Hash: cfg, Workers: 3, ChunkBytes: 4096})
	if err != nil {
		t.Fatal(err)
	}
	got, err := ReadAll(src)
	if err != nil {
		t.Fatal(err)
	}
	sameExamples(t, "ReadAll", got, reference(t, text, VW, cfg))
}
