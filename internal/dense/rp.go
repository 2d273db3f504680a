package dense

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// RP is the Gaussian random-projection sketch of Luo et al. (NIPS 2016), §3 with an
// explicit m×d matrix: S_t = S_{t−1} + r_t ĝ_tᵀ, r_t ~ N(0, I/m).
//
// The r stream is the one package rp documents: a PCG generator
// rand.NewPCG(seed, stream), one vector of m draws NormFloat64()·(1/√m)
// per Update whatever ĝ is. It is written out here independently (this
// package must not import rp), so the closed-loop test also checks that
// the sparse sketch draws what its documentation says.
type RP struct {
	M, D int
	A    float64
	Sm   *mat.Dense
	rng  *rand.Rand
	sd   float64
	T    int
	capt float64
	nz   bool
}

// NewRP returns the dense RP sketch; stream must be rp.Stream.
func NewRP(m, d int, alpha float64, seed, stream uint64) *RP {
	return &RP{M: m, D: d, A: alpha, Sm: mat.NewDense(m, d, nil),
		rng: rand.New(rand.NewPCG(seed, stream)), sd: 1 / math.Sqrt(float64(m))}
}

func (s *RP) Alpha() float64     { return s.A }
func (s *RP) SetAlpha(a float64) { s.A = a }
func (s *RP) S() *mat.Dense      { return s.Sm }

// Captured is Σ_t ĝ_tᵀS_{t−1}ᵀ(S_{t−1}S_{t−1}ᵀ + εI)⁻¹S_{t−1}ĝ_t, the part of
// each ĝ_t in S_{t−1}'s row space, ε = 0.1·tr(SSᵀ)/m, as package rp
// defines it (counted once S is non-zero).
func (s *RP) Captured() float64 { return s.capt }

// Rank is m once S ≠ 0 (package rp's row count).
func (s *RP) Rank() int {
	if s.nz {
		return s.M
	}
	return 0
}

// Update adds r ĝᵀ to S with a fresh r.
func (s *RP) Update(g []float64) {
	if s.T > 0 && dotv(g, g) > 0 {
		sg := make([]float64, s.M)
		for i := range sg {
			sg[i] = dotv(s.Sm.RawRowView(i), g)
		}
		N := mat.NewDense(s.M, s.M, nil)
		N.Mul(s.Sm, s.Sm.T())
		eps := 0.1 * mat.Trace(N) / float64(s.M)
		for i := 0; i < s.M; i++ {
			N.Set(i, i, N.At(i, i)+eps)
		}
		var hsg mat.VecDense
		if err := hsg.SolveVec(N, mat.NewVecDense(s.M, sg)); err == nil {
			if v := dotv(sg, hsg.RawVector().Data); v > 0 {
				s.capt += v
			}
		}
	}
	s.T++
	if dotv(g, g) > 0 {
		s.nz = true
	}
	r := make([]float64, s.M)
	for i := range r {
		r[i] = s.rng.NormFloat64() * s.sd
	}
	for i, ri := range r {
		row := s.Sm.RawRowView(i)
		for j, gj := range g {
			row[j] += ri * gj
		}
	}
}
