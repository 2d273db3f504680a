package reduce

import "github.com/sparseson/sparseson/sparse"

// Binary is VW's --binary: it reports sign(prediction) as ±1 (0 counts as
// −1) and counts the 0/1 loss.
func Binary(o Output) Output { return &binary{o} }

type binary struct{ Output }

func sign(p float64) float64 {
	if p > 0 {
		return 1
	}
	return -1
}

func (b *binary) Predict(ex *sparse.Example) float64 { return sign(b.Output.Predict(ex)) }
func (b *binary) Learn(ex *sparse.Example) float64   { return sign(b.Output.Learn(ex)) }
func (b *binary) Loss(ex *sparse.Example, out float64) float64 {
	if out == ex.Label {
		return 0
	}
	return 1
}
