package reduce

import (
	"math"

	"github.com/sparseson/sparseson/sparse"
)

// Classes is the output stage of a multiclass learner (OAA, gd.Softmax):
// it reports the predicted class and counts the 0/1 loss, the error rate
// VW's multiclass progress table shows.
func Classes(m sparse.Multiclass) Output { return classes{m} }

type classes struct{ sparse.Multiclass }

func (classes) Loss(ex *sparse.Example, out float64) float64 {
	if out == ex.Label {
		return 0
	}
	return 1
}

// Raw implements Output: a multiclass stage has no scalar score.
func (classes) Raw() float64 { return math.NaN() }
