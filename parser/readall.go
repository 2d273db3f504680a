package parser

import (
	"errors"
	"io"

	"github.com/sparseson/sparseson/sparse"
)

// ReadAll drains src into examples that own their buffers (a batch's
// examples are reused once it is released), in input order, and closes
// it: a data set held in memory, for several passes or for learners fed
// without the engine (package mix, measurements). Malformed lines are
// skipped as the batches report them.
func ReadAll(src Source) ([]sparse.Example, error) {
	var exs []sparse.Example
	for {
		b, err := src.Next()
		if errors.Is(err, io.EOF) {
			return exs, src.Close()
		}
		if err != nil {
			src.Close()
			return nil, err
		}
		for i := range b.Examples {
			var e sparse.Example
			e.CopyFrom(&b.Examples[i])
			exs = append(exs, e)
		}
		src.Release(b)
	}
}
