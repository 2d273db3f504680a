package parser

import (
	"fmt"

	"github.com/sparseson/sparseson/sparse"
)

// CheckClass reports whether a labeled example's label is a class of a
// K-class problem (Options.Classes): VW's multiclass label, an integer in
// 1…K, with an optional importance weight and no initial prediction. An
// unlabeled example passes.
func CheckClass(ex *sparse.Example, k int) error {
	if !ex.HasLabel {
		return nil
	}
	if c := int64(ex.Label); float64(c) != ex.Label || c < 1 || c > int64(k) {
		return fmt.Errorf("class label %v is not in 1..%d", ex.Label, k)
	}
	if ex.Initial != 0 {
		return fmt.Errorf("a class label takes no initial prediction (got %v)", ex.Initial)
	}
	return nil
}
