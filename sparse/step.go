package sparse

import (
	"math"

	"gonum.org/v1/gonum/floats"
)

// Every change SON makes to w = w̄ + Zᵀb outside the sketch's own update —
// the weight step of Alg. 1 and the projection of Lemma 1, in both the
// α > 0 and the pseudo-inverse form — has one shape:
//
//	w̄_I −= f·x̃_I,  y −= f·z,  b += fb·v.
//
// trial evaluates such a step without writing anything and apply writes
// it. The split lets the core refuse a step that would take the model out
// of range, so that no input and no legal flag value (α = 1e-300, features
// spanning 1e±18 without pre-scaling) can put Inf or NaN into the weights,
// the fold guard's ‖w̄‖², or a saved model file.

// maxWeight bounds |w̄_j| and |b_i|. At 1e140 the sum of squares over any
// 2^30-slot table stays below 1e290, so ‖w̄‖² and every fold stay finite;
// a model that needs larger weights has already diverged numerically.
const maxWeight = 1e140

// trial reports whether the step keeps every changed |w̄_j| and |b_i|
// within maxWeight (NaN fails).
func (s *SON) trial(f, fb float64, v []float64) bool {
	rows := s.tab.Rows
	xt := s.xt[:len(s.offs)]
	for k, o := range s.offs {
		if !(math.Abs(rows[o]-f*xt[k]) <= maxWeight) {
			return false
		}
	}
	b := s.b[:len(v)]
	for i, vi := range v {
		if !(math.Abs(b[i]+fb*vi) <= maxWeight) {
			return false
		}
	}
	return true
}

// apply performs the step and returns Σ_{j∈I} w̄_j² after it.
func (s *SON) apply(f float64, z []float64, fb float64, v []float64) (sq float64) {
	rows := s.tab.Rows
	xt := s.xt[:len(s.offs)]
	for k, o := range s.offs {
		w := rows[o] - f*xt[k]
		rows[o] = w
		sq += w * w
	}
	if s.lz.on && f != 0 {
		axpy(-f, z, s.y[:len(z)])
	}
	floats.AddScaled(s.b[:len(v)], fb, v)
	return sq
}
