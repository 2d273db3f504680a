package reduce

import (
	"math"

	"github.com/sparseson/sparseson/loss"
	"github.com/sparseson/sparseson/sparse"
)

// Output is the top of a stack, what the driver runs: Predict and Learn
// return the prediction as it is reported (a clamped score, a sign, a
// probability, a class), and Loss the loss the progress table counts for
// it. Save and Weights are the wrapped learner's.
type Output interface {
	sparse.Learner
	// Loss returns the unweighted loss of out, the value Predict or Learn
	// has just returned for ex, against ex's label (ex must be labeled).
	Loss(ex *sparse.Example, out float64) float64
	// Raw returns the learner's raw score of the last Predict or Learn,
	// before clamping, link or sign (VW's --raw_predictions); NaN for a
	// multiclass stage.
	Raw() float64
}

// Scalar is the output stage of a scalar learner: it reports the raw
// score clamped as the loss clamps it (VW's finalize_prediction; NaN
// becomes 0), and counts the loss itself.
func Scalar(base sparse.Learner, l loss.Loss) Output { return &scalar{Learner: base, l: l} }

type scalar struct {
	sparse.Learner
	l   loss.Loss
	raw float64
}

func (s *scalar) Raw() float64 { return s.raw }

func (s *scalar) finish(p float64) float64 {
	s.raw = p
	if math.IsNaN(p) {
		p = 0
	}
	return s.l.Clamp(p)
}

func (s *scalar) Predict(ex *sparse.Example) float64 { return s.finish(s.Learner.Predict(ex)) }
func (s *scalar) Learn(ex *sparse.Example) float64   { return s.finish(s.Learner.Learn(ex)) }
func (s *scalar) Loss(ex *sparse.Example, out float64) float64 {
	return s.l.Value(out, ex.Label)
}
