package dense

import (
	"math"

	"github.com/sparseson/sparseson/sparse"
)

// Softmax is multinomial logistic regression trained by the binary
// learner's per-weight steps (gd.Softmax's documented update), written
// densely on a small K×d problem: W is a full K×d matrix, the gradient the
// full rank-one matrix (p − e_y)xᵀ, the feature scales and AdaGrad sums
// full arrays, and --l2 shrinks W itself after every step (no global
// scale). It is the reference for gd.Softmax's sparse rows.
//
// For an example (x, y, importance h), with s = Wx, p = softmax(s),
// D_k = p_k − [k = y] and t ← t + h:
//
//	N_j ← max(N_j, |x_j|), rescaling W_kj by (N_j/|x_j|)^(1 or 2) when it grows
//	G_kj ← G_kj + h·D_k²·x_j²                       (Adaptive)
//	S ← S + h·Σ_j x_j²/N_j², H ← H + h             (Normalized)
//	mult = (H/S)^(½ with Adaptive, else 1)          (Normalized, else 1)
//	η = Eta·h·(t^−PowerT unless Adaptive)
//	W_kj ← W_kj − η·mult·D_k·x_j·r_kj,  r_kj = G_kj^−PowerT (Adaptive; 0 if G_kj = 0)
//	                                        / N_j (Adaptive) or / N_j² (Normalized)
//	W ← (1 − L2·η)·W
type Softmax struct {
	K, D                 int
	Adaptive, Normalized bool
	Eta, PowerT, L2      float64

	W, G     [][]float64 // K×d
	N        []float64
	T        float64
	S, H     float64
	P        []float64 // the last example's probabilities
	Features []bool    // features seen (the sparse learner's rows)
}

// NewSoftmax returns an untrained reference model.
func NewSoftmax(k, d int, adaptive, normalized bool, eta, powerT, initialT, l2 float64) *Softmax {
	m := &Softmax{K: k, D: d, Adaptive: adaptive, Normalized: normalized, Eta: eta, PowerT: powerT, L2: l2, T: initialT,
		N: make([]float64, d), P: make([]float64, k), Features: make([]bool, d)}
	m.W, m.G = make([][]float64, k), make([][]float64, k)
	for c := range m.W {
		m.W[c], m.G[c] = make([]float64, d), make([]float64, d)
	}
	return m
}

// scores returns s = Wx and fills P with softmax(s).
func (m *Softmax) scores(x []float64) []float64 {
	s := make([]float64, m.K)
	for c := range s {
		s[c] = dotv(m.W[c], x)
	}
	top := math.Inf(-1)
	for _, v := range s {
		top = math.Max(top, v)
	}
	var z float64
	for c, v := range s {
		m.P[c] = math.Exp(v - top)
		z += m.P[c]
	}
	for c := range m.P {
		m.P[c] /= z
	}
	return s
}

func (m *Softmax) dense(ex *sparse.Example) []float64 {
	x := make([]float64, m.D)
	for i, j := range ex.Idx {
		x[j] = ex.Val[i]
	}
	return x
}

// Predict returns the class scores s = Wx (P holds softmax(s)).
func (m *Softmax) Predict(ex *sparse.Example) []float64 { return m.scores(m.dense(ex)) }

// Learn returns the scores before the step, then takes it; ex.Label is the
// class (1…K).
func (m *Softmax) Learn(ex *sparse.Example) []float64 {
	x := m.dense(ex)
	s := m.scores(x)
	h := ex.Weight
	m.T += h
	D := make([]float64, m.K)
	copy(D, m.P)
	D[int(ex.Label)-1]--
	var normX float64
	for j, v := range x {
		if v == 0 {
			continue
		}
		m.Features[j] = true
		if m.Normalized {
			if a := math.Abs(v); a > m.N[j] {
				if m.N[j] > 0 {
					f := m.N[j] / a
					if !m.Adaptive {
						f *= f
					}
					for c := range m.W {
						m.W[c][j] *= f
					}
				}
				m.N[j] = a
			}
			normX += v * v / (m.N[j] * m.N[j])
		}
		if m.Adaptive {
			for c := range m.G {
				m.G[c][j] += h * D[c] * D[c] * v * v
			}
		}
	}
	mult := 1.0
	if m.Normalized {
		m.S += h * normX
		m.H += h
		if m.S > 0 {
			mult = m.H / m.S
			if m.Adaptive {
				mult = math.Sqrt(mult)
			}
		}
	}
	eta := m.Eta * h
	if !m.Adaptive {
		eta *= math.Pow(m.T, -m.PowerT)
	}
	for j, v := range x {
		if v == 0 {
			continue
		}
		for c := range m.W {
			r := 1.0
			if m.Adaptive {
				if !(m.G[c][j] > 0) {
					continue
				}
				r = math.Pow(m.G[c][j], -m.PowerT)
			}
			if m.Normalized {
				if m.Adaptive {
					r /= m.N[j]
				} else {
					r /= m.N[j] * m.N[j]
				}
			}
			m.W[c][j] -= eta * mult * D[c] * v * r
		}
	}
	if m.L2 > 0 {
		for c := range m.W {
			for j := range m.W[c] {
				m.W[c][j] *= 1 - m.L2*eta
			}
		}
	}
	return s
}
