package reduce

import (
	"math"
	"runtime"

	"github.com/sparseson/sparseson/sparse"
)

// SlotWeigher is the optional ability to report the weight a learner
// applies at one slot without sweeping the model (gd.GD does it in O(1)).
// --audit looks it up by type assertion.
type SlotWeigher interface {
	SlotWeight(slot uint32) float64
}

// ClassSlotWeigher is SlotWeigher for a multiclass learner: class k's
// (1..K) weight at slot.
type ClassSlotWeigher interface {
	ClassSlotWeight(k int, slot uint32) float64
}

// SlotWeight returns the weight l applies at slot: through SlotWeigher
// when l has it, else as the score of the unit example e_slot — for any
// learner whose score is linear in x, the learner's own effective weight
// (for SON, (w̄_j + Z_jᵀb)/√D_j, computed in O(m) by its Predict). A
// learner that clips its score (SON's projection bound C) is probed with
// a tiny value instead: every scaling by a power of two is exact, so the
// probe is exact too, until the clipped range is left.
func SlotWeight(l sparse.Learner, slot uint32) float64 {
	if w, ok := l.(SlotWeigher); ok {
		return w.SlotWeight(slot)
	}
	ex := sparse.Example{Idx: []uint32{slot}, Val: []float64{1}, Weight: 1}
	at := func(v float64) float64 { ex.Val[0] = v; return l.Predict(&ex) }
	p := at(1)
	if at(0.5)*2 == p {
		return p // linear where halving the input halves the score
	}
	for k := 64; k <= 960; k += 64 {
		if q := at(math.Ldexp(1, -k)); at(math.Ldexp(1, -k-1))*2 == q {
			return math.Ldexp(q, k)
		}
	}
	return p
}

// ClassSlotWeight implements ClassSlotWeigher: class k's base at OAA's
// number for slot.
func (o *OAA) ClassSlotWeight(k int, slot uint32) float64 {
	defer runtime.KeepAlive(o)
	id := o.ids.Find(slot)
	if id < 0 {
		return 0
	}
	return SlotWeight(o.bases[k-1], uint32(id))
}

// Scores writes the bases' raw scores of the last example into s (len K):
// VW's --raw_predictions of --oaa.
func (o *OAA) Scores(s []float64) { copy(s, o.scores) }
