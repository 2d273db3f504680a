package son

import "math"

// Why D₁ has units (Config.Unit): the pre-scaling D = 0.1·I + diag(Σ g gᵀ)
// of Luo et al. (NIPS 2016), §5.2 adds a constant to a sum in the units of
// g², that is of x_j². Features ×1/255 shrink Σg² by 255² while 0.1 stays,
// so x̃ = D^{-1/2}x stays far below its unit-free value for thousands of
// examples (full ONS on splice: 89.3 % test accuracy at ×1, 79.6 % at
// ×1/255). With Config.Unit the learner runs the paper's pre-scaling on
// x'_j = x_j/u_j, u_j = |x_j| at feature j's first nonzero value: that is
// D₁ = 0.1·u_j² per feature, so x̃, and everything computed from it (the
// data-derived α₀, the sketch, the step), is the same at any scale of any
// feature. On binary features u_j = 1 and x' = x bit for bit: the model
// learns exactly as the paper's form. One scale for the whole example (the
// mean x_j² of the first example) was measured first and is not enough:
// VW's constant feature keeps the value 1 at every scale of the others
// (full ONS on splice: 89.5 / 89.3 / 90.9 % at ×1 / ×255 / ×1/255).
//
// 1/u_j is kept in one more column of the feature's row (uOff), 0 until
// the feature's first nonzero value; a zero value then gives x' = 0, as it
// gives x̃ = 0 anyway.

// unitOf is 1/u for a feature's first nonzero value x: 1/|x|, or 1 (the
// paper's unit) where that is not a positive finite number (x infinite,
// NaN or subnormal), so that x' stays what x is.
func unitOf(x float64) float64 {
	iu := 1 / math.Abs(x)
	if !(iu > 0 && iu <= math.MaxFloat64) {
		return 1
	}
	return iu
}

// unitVals sets x'_k = x_k/u_j for the example's rows (offs, all
// created), fixing 1/u_j at the first nonzero value, and returns x'.
func (s *Learner) unitVals(val []float64) []float64 {
	rows, u := s.tab.Rows, s.uOff
	xu := s.xu[:0]
	for k, o := range s.offs {
		x := val[k]
		iu := rows[o+u]
		if iu == 0 && x != 0 {
			iu = unitOf(x)
			rows[o+u] = iu
		}
		xu = append(xu, x*iu)
	}
	s.xu = xu
	return xu
}
