package reduce

import (
	"fmt"
	"math"

	"github.com/sparseson/sparseson/sparse"
)

// Link is VW's --link logistic: it reports 1/(1 + e^−p) of the score p
// below it, while the loss is still counted on p itself (as VW's scorer
// applies the link after the loss is taken).
func Link(o Output) Output { return &link{Output: o, f: logistic} }

// LinkNamed is VW's --link: identity (o itself), logistic, glf1
// (2/(1 + e^−p) − 1, in (−1, 1)) or poisson (e^p, the mean of a count
// whose log the model predicts).
func LinkNamed(o Output, name string) (Output, error) {
	switch name {
	case "identity":
		return o, nil
	case "logistic":
		return Link(o), nil
	case "glf1":
		return &link{Output: o, f: func(p float64) float64 { return 2/(1+math.Exp(-p)) - 1 }}, nil
	case "poisson":
		return &link{Output: o, f: math.Exp}, nil
	}
	return nil, fmt.Errorf("LinkNamed: link %q: want identity, logistic, glf1 or poisson", name)
}

func logistic(p float64) float64 { return 1 / (1 + math.Exp(-p)) }

type link struct {
	Output
	f   func(float64) float64
	raw float64 // the last score below the link
}

func (l *link) finish(p float64) float64 {
	l.raw = p
	return l.f(p)
}

func (l *link) Predict(ex *sparse.Example) float64 { return l.finish(l.Output.Predict(ex)) }
func (l *link) Learn(ex *sparse.Example) float64   { return l.finish(l.Output.Learn(ex)) }
func (l *link) Loss(ex *sparse.Example, _ float64) float64 {
	return l.Output.Loss(ex, l.raw)
}
