package son

import (
	"math"

	"gonum.org/v1/gonum/floats"

	"github.com/sparseson/sparseson/internal/linalg"
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
func (s *Learner) trial(f, fb float64, v []float64) bool {
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

// trialBound is trial with a shortcut: wsq ≥ 0 is Σ_{j∈I} w̄_j² as w̄_I
// stands and n = ‖x̃‖², so that |w̄_j − f·x̃_j| ≤ √wsq + |f|·√n for every j;
// when that bound is below maxWeight/2 (room for the rounding of the bound
// and of the step) no row need be read. Otherwise, or with wsq < 0
// (unknown), or a NaN anywhere, it is trial. The answer is trial's.
func (s *Learner) trialBound(f, fb float64, v []float64, wsq, n float64) bool {
	if !(wsq >= 0 && math.Sqrt(wsq)+math.Abs(f)*math.Sqrt(n) <= maxWeight/2) {
		return s.trial(f, fb, v)
	}
	b := s.b[:len(v)]
	for i, vi := range v {
		if !(math.Abs(b[i]+fb*vi) <= maxWeight) {
			return false
		}
	}
	return true
}

// deferStep is apply with the write of w̄_I −= f·x̃_I deferred: y and b
// change now, w̄_I when the rows are next written (Absorb, or settle).
// Only the SON round uses it, between its step and the sketch's update:
// an absorb then writes both changes of w̄_j in one pass over the rows, in
// apply's order of operations (the same bits).
func (s *Learner) deferStep(f float64, z []float64, fb float64, v []float64) {
	if s.lz.on && f != 0 {
		linalg.AxpyVec(-f, z, s.y[:len(z)])
	}
	floats.AddScaled(s.b[:len(v)], fb, v)
	s.sqOK = false
	s.pend, s.pendF = true, f
}

// settle writes a deferred step (deferStep) into w̄_I.
func (s *Learner) settle() {
	if !s.pend {
		return
	}
	s.pend = false
	rows := s.tab.Rows
	xt := s.xt[:len(s.offs)]
	f := s.pendF
	var sq float64
	for k, o := range s.offs {
		w := rows[o] - f*xt[k]
		rows[o] = w
		sq += w * w
	}
	s.sqI, s.sqOK = sq, true
}

// apply performs the step and returns Σ_{j∈I} w̄_j² after it.
func (s *Learner) apply(f float64, z []float64, fb float64, v []float64) (sq float64) {
	s.sqOK = false
	rows := s.tab.Rows
	xt := s.xt[:len(s.offs)]
	for k, o := range s.offs {
		w := rows[o] - f*xt[k]
		rows[o] = w
		sq += w * w
	}
	if s.lz.on && f != 0 {
		linalg.AxpyVec(-f, z, s.y[:len(z)])
	}
	floats.AddScaled(s.b[:len(v)], fb, v)
	return sq
}
