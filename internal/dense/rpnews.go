package dense

import (
	"math"
	"math/rand/v2"
	"sort"

	"github.com/sparseson/sparseson/sparse"
)

// NewsLike draws a text-classification-like stream for benchmarks, shaped
// after news20.binary: each example holds nnz distinct words drawn from a
// Zipf law (exponent 1.1) over `vocab` words, valued log(2 + rank) (rarer
// words weigh more, like idf) and normalised to ‖x‖ = 1, hashed into 2^bits
// slots (colliding words add up, as the parser merges them). Labels are
// ±1 from a hidden linear rule with 10% of them flipped.
func NewsLike(n, vocab, nnz int, bits uint, seed uint64) []sparse.Example {
	rng := rand.New(rand.NewPCG(seed, 0x6e657773))
	zipf := rand.NewZipf(rng, 1.1, 1, uint64(vocab-1))
	theta := make([]float64, vocab)
	for i := range theta {
		theta[i] = rng.NormFloat64()
	}
	mask := uint32(1)<<bits - 1
	out := make([]sparse.Example, n)
	seen := map[uint64]bool{}
	slots := map[uint32]float64{}
	for t := range out {
		clear(seen)
		clear(slots)
		var margin, norm float64
		for len(seen) < nnz {
			w := zipf.Uint64()
			if seen[w] {
				continue
			}
			seen[w] = true
			v := math.Log(2 + float64(w))
			norm += v * v
			margin += theta[w] * v
			slots[uint32(mix(w))&mask] += v
		}
		ex := &out[t]
		ex.Weight, ex.HasLabel = 1, true
		ex.Label = 1
		if margin < 0 {
			ex.Label = -1
		}
		if rng.Float64() < 0.1 {
			ex.Label = -ex.Label
		}
		for s := range slots {
			ex.Idx = append(ex.Idx, s)
		}
		sort.Slice(ex.Idx, func(i, j int) bool { return ex.Idx[i] < ex.Idx[j] })
		inv := 1 / math.Sqrt(norm)
		for _, s := range ex.Idx {
			ex.Val = append(ex.Val, slots[s]*inv)
		}
	}
	return out
}

// mix is the splitmix64 finaliser, a stand-in for the feature hash.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}
