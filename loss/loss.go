// Package loss holds the scalar loss functions of sparseson with the
// gradients Vowpal Wabbit uses (VW's loss_functions): squared, classic,
// logistic, hinge, quantile, expectile and poisson (vw.go holds the last
// three). A learner sees a loss only through Deriv, once per example; the
// CLI uses Value for the progress table and Clamp to finalize predictions.
package loss

import (
	"fmt"
	"math"
)

// Loss is a convex scalar loss ℓ(p, y) of a prediction p and a label y.
type Loss interface {
	// Name is the --loss_function name.
	Name() string
	// Value returns ℓ(p, y).
	Value(p, y float64) float64
	// Deriv returns ∂ℓ/∂p at (p, y).
	Deriv(p, y float64) float64
	// Clamp maps a raw score to the reported prediction range.
	Clamp(p float64) float64
	// Observe records a training label; squared, hinge and quantile losses
	// clamp predictions to the label range seen so far, as VW does.
	Observe(y float64)
	// Param is the loss's parameter (quantile τ), 0 if it has none.
	Param() float64
}

// New returns the loss named by --loss_function. tau is the quantile τ
// (quantile loss) or the expectile q (expectile loss).
func New(name string, tau float64) (Loss, error) {
	switch name {
	case "classic":
		return &Classic{}, nil
	case "expectile":
		if !(tau > 0 && tau <= 0.5) {
			return nil, fmt.Errorf("--expectile_q must be in (0, 0.5], got %v", tau)
		}
		return &Expectile{Q: tau}, nil
	case "poisson":
		return &Poisson{Range: LabelRange{Min: -50, Max: 50}}, nil
	case "squared", "":
		return &Squared{}, nil
	case "logistic":
		return Logistic{}, nil
	case "hinge":
		return &Hinge{}, nil
	case "quantile", "pinball", "absolute":
		if !(tau > 0 && tau < 1) {
			return nil, fmt.Errorf("--quantile_tau must be in (0, 1), got %v", tau)
		}
		return &Quantile{Tau: tau}, nil
	}
	return nil, fmt.Errorf("unknown --loss_function %q (want squared, classic, logistic, hinge, quantile, expectile or poisson)", name)
}

// LabelRange is the range of training labels seen so far. Predictions of
// range-clamped losses are clipped to it, as VW's finalize_prediction does;
// it starts as [0, 0] like VW's shared_data. A side fixed by
// --min_prediction or --max_prediction no longer moves.
type LabelRange struct {
	Min, Max           float64
	FixedMin, FixedMax bool
}

// Observe widens the range to include y.
func (r *LabelRange) Observe(y float64) {
	if y < r.Min && !r.FixedMin {
		r.Min = y
	}
	if y > r.Max && !r.FixedMax {
		r.Max = y
	}
}

// Clamp clips p to the range.
func (r *LabelRange) Clamp(p float64) float64 {
	if p < r.Min {
		return r.Min
	}
	if p > r.Max {
		return r.Max
	}
	return p
}

// Squared is ℓ = (p − y)². Its derivative is taken at the prediction
// clipped to the label range (VW), which keeps early updates sane when the
// labels are far from 0.
type Squared struct{ Range LabelRange }

func (*Squared) Name() string        { return "squared" }
func (*Squared) Param() float64      { return 0 }
func (s *Squared) Observe(y float64) { s.Range.Observe(y) }
func (s *Squared) Clamp(p float64) float64 {
	return s.Range.Clamp(p)
}

// Value follows VW: outside the label range the loss continues linearly
// from the range edge, so that clipping never hides an error.
func (s *Squared) Value(p, y float64) float64 {
	lo, hi := s.Range.Min, s.Range.Max
	switch {
	case p >= lo && p <= hi:
		return (p - y) * (p - y)
	case p < lo:
		if y == lo {
			return 0
		}
		return (y-lo)*(y-lo) + 2*(y-lo)*(lo-p)
	default:
		if y == hi {
			return 0
		}
		return (hi-y)*(hi-y) + 2*(hi-y)*(p-hi)
	}
}

func (s *Squared) Deriv(p, y float64) float64 { return 2 * (s.Range.Clamp(p) - y) }

// Logistic is ℓ = log(1 + exp(−y·p)) for labels ±1. Predictions are kept in
// [−50, 50] as in VW.
type Logistic struct{}

func (Logistic) Name() string    { return "logistic" }
func (Logistic) Param() float64  { return 0 }
func (Logistic) Observe(float64) {}
func (Logistic) Clamp(p float64) float64 {
	return math.Max(-50, math.Min(50, p))
}

// Value is log1p(exp(−yp)) computed without overflow for large margins.
func (Logistic) Value(p, y float64) float64 {
	m := -y * p
	if m > 35 {
		return m
	}
	return math.Log1p(math.Exp(m))
}

func (Logistic) Deriv(p, y float64) float64 { return -y / (1 + math.Exp(y*p)) }

// Hinge is ℓ = max(0, 1 − y·p) for labels ±1.
type Hinge struct{ Range LabelRange }

func (*Hinge) Name() string              { return "hinge" }
func (*Hinge) Param() float64            { return 0 }
func (h *Hinge) Observe(y float64)       { h.Range.Observe(y) }
func (h *Hinge) Clamp(p float64) float64 { return h.Range.Clamp(p) }
func (*Hinge) Value(p, y float64) float64 {
	return math.Max(0, 1-y*p)
}
func (*Hinge) Deriv(p, y float64) float64 {
	if y*p >= 1 {
		return 0
	}
	return -y
}

// Quantile (pinball) loss: τ(y − p) above the prediction, (1 − τ)(p − y) below.
type Quantile struct {
	Tau   float64
	Range LabelRange
}

func (*Quantile) Name() string              { return "quantile" }
func (q *Quantile) Param() float64          { return q.Tau }
func (q *Quantile) Observe(y float64)       { q.Range.Observe(y) }
func (q *Quantile) Clamp(p float64) float64 { return q.Range.Clamp(p) }
func (q *Quantile) Value(p, y float64) float64 {
	if e := y - p; e > 0 {
		return q.Tau * e
	} else {
		return -(1 - q.Tau) * e
	}
}
func (q *Quantile) Deriv(p, y float64) float64 {
	switch e := y - p; {
	case e > 0:
		return -q.Tau
	case e < 0:
		return 1 - q.Tau
	}
	return 0
}
