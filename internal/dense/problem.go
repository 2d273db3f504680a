package dense

import (
	"math"
	"math/rand/v2"

	"github.com/sparseson/sparseson/sparse"
)

// Problem describes a random sparse test stream (docs/algorithms.md §9 A).
type Problem struct {
	D, S, T int
	Loss    string  // "squared" or "logistic"
	Spread  float64 // column scales e^{U(−Spread, Spread)}; 0 = unit scale
	Seed    uint64
}

// Examples draws the stream: s distinct features per example with N(0,1)
// values times the column scale; labels from a hidden linear rule, ±1 for
// logistic, θᵀx clipped to [−1, 1] plus noise for squared.
func (p Problem) Examples() []sparse.Example {
	rng := rand.New(rand.NewPCG(p.Seed, 0x5eed))
	scale := make([]float64, p.D)
	theta := make([]float64, p.D)
	for j := range scale {
		scale[j] = math.Exp(p.Spread * (2*rng.Float64() - 1))
		theta[j] = rng.NormFloat64() / scale[j]
	}
	out := make([]sparse.Example, p.T)
	for t := range out {
		ex := &out[t]
		ex.Weight, ex.HasLabel = 1, true
		perm := rng.Perm(p.D)[:p.S]
		var m float64
		for _, j := range perm {
			v := rng.NormFloat64() * scale[j]
			ex.Idx = append(ex.Idx, uint32(j))
			ex.Val = append(ex.Val, v)
			m += theta[j] * v
		}
		if p.Loss == "logistic" {
			ex.Label = 1
			if m+0.3*rng.NormFloat64() < 0 {
				ex.Label = -1
			}
		} else {
			ex.Label = math.Max(-1, math.Min(1, m/math.Sqrt(float64(p.S)))) + 0.1*rng.NormFloat64()
		}
	}
	return out
}

// FirstSlots is data as a learner that keeps only the first n distinct
// slots it meets (sparse.SlotCap) learns it: every example without the
// later slots (the oracle's stream), and how many occurrences of how many
// distinct slots were dropped.
func FirstSlots(data []sparse.Example, n int) (kept []sparse.Example, occurrences, slots int) {
	keep := map[uint32]bool{}
	drop := map[uint32]bool{}
	kept = make([]sparse.Example, len(data))
	for i, ex := range data {
		k := ex
		k.Idx, k.Val = nil, nil
		for j, s := range ex.Idx {
			if !keep[s] && len(keep) < n {
				keep[s] = true
			}
			if !keep[s] {
				occurrences++
				drop[s] = true
				continue
			}
			k.Idx = append(k.Idx, s)
			k.Val = append(k.Val, ex.Val[j])
		}
		kept[i] = k
	}
	return kept, occurrences, len(drop)
}
