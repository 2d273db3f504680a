package reduce

import (
	"math"

	"github.com/sparseson/sparseson/sparse"
)

// Link is VW's --link logistic: it reports 1/(1 + e^−p) of the score p
// below it, while the loss is still counted on p itself (as VW's scorer
// applies the link after the loss is taken).
func Link(o Output) Output { return &link{Output: o} }

type link struct {
	Output
	raw float64 // the last score below the link
}

func (l *link) finish(p float64) float64 {
	l.raw = p
	return 1 / (1 + math.Exp(-p))
}

func (l *link) Predict(ex *sparse.Example) float64 { return l.finish(l.Output.Predict(ex)) }
func (l *link) Learn(ex *sparse.Example) float64   { return l.finish(l.Output.Learn(ex)) }
func (l *link) Loss(ex *sparse.Example, _ float64) float64 {
	return l.Output.Loss(ex, l.raw)
}
