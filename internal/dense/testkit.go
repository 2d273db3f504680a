package dense

import (
	"math"
	"math/rand/v2"
	"sort"
	"sync"

	"github.com/sparseson/sparseson/loss"
	"github.com/sparseson/sparseson/son"
	"github.com/sparseson/sparseson/sparse"
)

// Loss returns the loss the oracle tests use by name: logistic, or squared
// without clipping to a label range.
func Loss(name string) loss.Loss {
	if name == "logistic" {
		return loss.Logistic{}
	}
	return &loss.Squared{Range: loss.LabelRange{Min: -1e9, Max: 1e9}}
}

// Sigma returns σ of docs/algorithms.md §10's settings, σ + η_t = 1/(8C²) + 1/√t
// for squared loss and 1/√t for logistic loss (η₀ = 1).
func Sigma(lossName string, C float64) float64 {
	if lossName == "squared" {
		return 1 / (8 * C * C)
	}
	return 0
}

// etaT returns η_t = η₀·t^(−p), p = 0 meaning ½ (as son.Config).
func etaT(eta0, p, t float64) float64 {
	switch p {
	case 0, 0.5:
		return eta0 / math.Sqrt(t)
	case 1:
		return eta0 / t
	}
	return eta0 * math.Pow(t, -p)
}

// Rel is the relative difference of docs/algorithms.md §9, |a − b|/(1 + |b|).
func Rel(a, b float64) float64 { return math.Abs(a-b) / (1 + math.Abs(b)) }

// Perturb returns a copy of data with every value multiplied by
// 1 + 1e-15·N(0,1): comparing a learner on both measures how much the
// stream itself amplifies rounding (docs/algorithms.md §9, sensitivity note).
func Perturb(data []sparse.Example, seed uint64) []sparse.Example {
	rng := rand.New(rand.NewPCG(seed, 99))
	out := make([]sparse.Example, len(data))
	for i := range data {
		out[i].CopyFrom(&data[i])
		for k := range out[i].Val {
			out[i].Val[k] *= 1 + 1e-15*rng.NormFloat64()
		}
	}
	return out
}

// Sensitivity trains two fresh learners from mk, one on data and one on its
// Perturb'ed copy, and returns the largest Rel difference of their
// predictions: no float64 implementation can be expected to match a
// reference on this stream more closely.
func Sensitivity(mk func() interface{ Learn(*sparse.Example) float64 }, data []sparse.Example, seed uint64) float64 {
	a, b := mk(), mk()
	pd := Perturb(data, seed)
	var worst float64
	for i := range data {
		worst = max(worst, Rel(a.Learn(&data[i]), b.Learn(&pd[i])))
	}
	return worst
}

var (
	newsMu    sync.Mutex
	newsCache = map[uint][]sparse.Example{}
)

// News returns the benchmark stream of every package, built once per hash
// size: 4096 news20-like examples (≈130 distinct words each from a
// 100k-word Zipf vocabulary, word counts as values).
func News(bits uint) []sparse.Example {
	newsMu.Lock()
	defer newsMu.Unlock()
	if d, ok := newsCache[bits]; ok {
		return d
	}
	d := NewsLike(4096, 100000, 130, bits, 1)
	newsCache[bits] = d
	return d
}

// NewsLike draws a news20-like stream: each example holds about nnz distinct
// words from a Zipf law (exponent 1.05) over vocab words, the values being
// the word counts (draws with repetition until nnz distinct words), the
// slot a fixed hash of the word masked to bits; ±1 labels from a hidden
// linear rule on the counts, with 10% flipped.
func NewsLike(n, vocab, nnz int, bits uint, seed uint64) []sparse.Example {
	rng := rand.New(rand.NewPCG(seed, 0x6e6577))
	zipf := rand.NewZipf(rng, 1.05, 1, uint64(vocab-1))
	theta := make([]float64, vocab)
	for i := range theta {
		theta[i] = rng.NormFloat64()
	}
	mask := uint32(1)<<bits - 1
	out := make([]sparse.Example, n)
	counts := map[uint64]float64{}
	slots := map[uint32]float64{}
	for t := range out {
		clear(counts)
		clear(slots)
		for len(counts) < nnz {
			counts[zipf.Uint64()]++
		}
		var margin float64
		for w, c := range counts {
			margin += theta[w] * c / math.Sqrt(float64(nnz))
			slots[uint32(splitmix(w))&mask] += c
		}
		ex := &out[t]
		ex.Weight, ex.HasLabel, ex.Label = 1, true, 1
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
		for _, s := range ex.Idx {
			ex.Val = append(ex.Val, slots[s])
		}
	}
	return out
}

func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// ZMatrix rebuilds Z (p×d) from a SON's feature table, for checks that need
// the factor itself (orthonormality of FZ, ZZᵀ against K, SᵀS).
func ZMatrix(sp *son.Learner, p, d int) [][]float64 {
	Z := make([][]float64, p)
	for i := range Z {
		Z[i] = make([]float64, d)
	}
	for j := 0; j < d; j++ {
		if col := sp.ZColumn(uint32(j)); col != nil {
			for i := 0; i < p; i++ {
				Z[i][j] = col[i]
			}
		}
	}
	return Z
}
