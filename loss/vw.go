package loss

import (
	"errors"
	"math"
)

// Classic is VW's "classic" squared loss ℓ = (p − y)²: its derivative
// 2(p − y) is taken at the score given, not at the score clipped to the
// label range as Squared's is; predictions are still clipped to the label
// range (VW's finalize_prediction does so for every loss).
type Classic struct{ Range LabelRange }

func (*Classic) Name() string                { return "classic" }
func (*Classic) Param() float64              { return 0 }
func (c *Classic) Observe(y float64)         { c.Range.Observe(y) }
func (c *Classic) Clamp(p float64) float64   { return c.Range.Clamp(p) }
func (*Classic) Value(p, y float64) float64  { return (p - y) * (p - y) }
func (*Classic) Deriv(p, y float64) float64  { return 2 * (p - y) }
func (c *Classic) labelRange() *LabelRange   { return &c.Range }
func (s *Squared) labelRange() *LabelRange   { return &s.Range }
func (h *Hinge) labelRange() *LabelRange     { return &h.Range }
func (q *Quantile) labelRange() *LabelRange  { return &q.Range }
func (e *Expectile) labelRange() *LabelRange { return &e.Range }
func (p *Poisson) labelRange() *LabelRange   { return &p.Range }
func (l *Logistic) labelRange() *LabelRange  { return nil }
func (q *Expectile) weight(p, y float64) float64 {
	// VW weighs by q where the prediction is above the label (y − p < 0).
	if y-p < 0 {
		return q.Q
	}
	return 1 - q.Q
}

// Expectile is VW's expectile loss: the squared loss (Squared, with its
// clipping to the label range) weighted by q where the prediction lies
// above the label and by 1 − q where it lies below; q in (0, ½]
// (--expectile_q).
type Expectile struct {
	Q     float64
	Range LabelRange
}

func (*Expectile) Name() string              { return "expectile" }
func (e *Expectile) Param() float64          { return e.Q }
func (e *Expectile) Observe(y float64)       { e.Range.Observe(y) }
func (e *Expectile) Clamp(p float64) float64 { return e.Range.Clamp(p) }
func (e *Expectile) Value(p, y float64) float64 {
	s := Squared{Range: e.Range}
	return s.Value(p, y) * e.weight(p, y)
}
func (e *Expectile) Deriv(p, y float64) float64 {
	return 2 * (e.Range.Clamp(p) - y) * e.weight(p, y)
}

// poissonMaxArg bounds the score inside exp, as VW does (its bound, 44, keeps
// exp(p)² finite in single precision).
const poissonMaxArg = 44

// Poisson is VW's Poisson loss for counts y ≥ 0 with the log link: the
// score p is log λ; the loss is the deviance 2(y(log(y + 10⁻⁶) − p) −
// (y − e^p)) — twice the negative log-likelihood, as VW reports it — and
// the derivative that of the log-likelihood, e^p − y, with p clipped to ±44 inside
// exp. Predictions are clipped to the label range, which (as VW's) starts
// at [−50, 50]; --link poisson reports e^p.
type Poisson struct{ Range LabelRange }

func (*Poisson) Name() string              { return "poisson" }
func (*Poisson) Param() float64            { return 0 }
func (p *Poisson) Observe(y float64)       { p.Range.Observe(y) }
func (p *Poisson) Clamp(s float64) float64 { return p.Range.Clamp(s) }
func (*Poisson) Value(s, y float64) float64 {
	c := math.Max(-poissonMaxArg, math.Min(poissonMaxArg, s))
	return 2 * (y*(math.Log(y+1e-6)-c) - (y - math.Exp(c)))
}
func (*Poisson) Deriv(s, y float64) float64 {
	return math.Exp(math.Max(-poissonMaxArg, math.Min(poissonMaxArg, s))) - y
}

// ErrNoRange is returned by Fix for a loss whose predictions have no label
// range to fix.
var ErrNoRange = errors.New("this loss has no label range")

// Fix sets the sides of l's label range that lo and hi give (a NaN leaves
// a side as it is) and stops labels from moving them: VW's
// --min_prediction and --max_prediction. It fails for logistic loss, whose
// range is fixed at [−50, 50].
func Fix(l Loss, lo, hi float64) error {
	r, ok := l.(interface{ labelRange() *LabelRange })
	if !ok || r.labelRange() == nil {
		return ErrNoRange
	}
	lr := r.labelRange()
	if !math.IsNaN(lo) {
		lr.Min, lr.FixedMin = lo, true
	}
	if !math.IsNaN(hi) {
		lr.Max, lr.FixedMax = hi, true
	}
	return nil
}
