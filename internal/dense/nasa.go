package dense

import (
	"math"

	"github.com/sparseson/sparseson/loss"
	"github.com/sparseson/sparseson/sparse"
)

// NASA is Ouyang & Gray's (KDD 2012) online gradient descent with its scalar step sizes
// (Ouyang and Gray, KDD 2012), written densely from the paper on a small d:
// every quantity of Eq. 3–4 is a d-vector and every norm a full sum, so it
// is the reference for gd's O(s) computation (gd/nasa.go). The prox is
// Euclidean (α = Q = 1). Rule is one of
//
//	"nasa"           Eq. 10: η_t = C/√(Σ_{i≤t}‖δ̄_i‖²)
//	"nasa_strong"    Eq. 27: η_t = 1/H while Σ‖δ̄_i‖² < 1, else Δ_t²/(H·Σ‖δ̄_i‖²)
//	"nasa_accel"     Alg. 1 with Eq. 38 (δ̄_t for δ_t, M = 0)
//	"scalar_adagrad" Eq. 25: η_t = Eta/√(Σ‖g_i‖²)
//	"sadagrad"       Eq. 34: η_t = G_t²/(H·Σ‖g_i‖²)
//
// with δ̄_t = g_t − ḡ_{1:t} (Eq. 4), the first step's ‖δ̄_1‖² taken as
// ‖g_1‖² (gd's documented guard), and --l2's ridge term λ/2·‖x‖² applied as
// VW does, x ← (1 − importance·λ·η_t)·x after the gradient step (for
// "nasa_accel", as part of the smooth loss: its gradient λ·x^md_t joins
// g_t in line 4 of Alg. 1).
type NASA struct {
	Rule         string
	C, H, L, Eta float64
	L2           float64
	Loss         loss.Loss

	X, Ag []float64 // x_t and, for nasa_accel, x^ag_t
	Sum   []float64 // Σ_{i≤t} g_i
	T     int
	// Σ‖δ̄_i‖², max‖δ̄_i‖², Σ‖g_i‖², max‖g_i‖², and the latest ‖δ̄_t‖².
	VarSum, VarMax, GradSum, GradMax, LastVar float64
}

// NewNASA returns an untrained reference learner on d features.
func NewNASA(d int, rule string, l loss.Loss) *NASA {
	return &NASA{Rule: rule, Loss: l, X: make([]float64, d), Ag: make([]float64, d), Sum: make([]float64, d)}
}

func (n *NASA) dense(ex *sparse.Example) []float64 {
	s := make([]float64, len(n.X))
	for i, j := range ex.Idx {
		s[j] = ex.Val[i]
	}
	return s
}

// Predict returns x_t·s (x^ag_t·s for nasa_accel) plus the example's
// initial prediction.
func (n *NASA) Predict(ex *sparse.Example) float64 {
	if n.Rule == "nasa_accel" {
		return ex.Initial + dotv(n.Ag, n.dense(ex))
	}
	return ex.Initial + dotv(n.X, n.dense(ex))
}

// Learn returns the prediction, then takes one step.
func (n *NASA) Learn(ex *sparse.Example) float64 {
	s := n.dense(ex)
	p := n.Predict(ex)
	t := float64(n.T + 1)
	beta := (t + 1) / 2
	md := n.X
	if n.Rule == "nasa_accel" {
		// Alg. 1 line 3.
		md = make([]float64, len(n.X))
		for j := range md {
			md[j] = n.X[j]/beta + (1-1/beta)*n.Ag[j]
		}
	}
	d := n.Loss.Deriv(ex.Initial+dotv(md, s), ex.Label)
	g := make([]float64, len(s))
	for j := range g {
		g[j] = ex.Weight * d * s[j]
	}
	n.T++
	// Eq. 3–4: ḡ_{1:t} includes g_t; δ̄_t = g_t − ḡ_{1:t}.
	var v float64
	for j := range g {
		n.Sum[j] += g[j]
		dj := g[j] - n.Sum[j]/t
		v += dj * dj
	}
	ng := dotv(g, g)
	if n.T == 1 {
		v = ng
	}
	n.LastVar = v
	n.VarSum += v
	n.VarMax = math.Max(n.VarMax, v)
	n.GradSum += ng
	n.GradMax = math.Max(n.GradMax, ng)
	var eta float64
	switch n.Rule {
	case "nasa":
		if n.VarSum > 0 {
			eta = n.C / math.Sqrt(n.VarSum)
		}
	case "nasa_strong":
		if n.VarSum < 1 {
			eta = 1 / n.H
		} else {
			eta = n.VarMax / (n.H * n.VarSum)
		}
	case "nasa_accel":
		lambda := n.C
		if n.VarSum >= 1 {
			lambda = n.C / math.Sqrt(n.VarSum)
		}
		eta = (t + 1) / 2 * math.Min(1/(2*n.L), lambda/(t+1))
	case "scalar_adagrad":
		if n.GradSum > 0 {
			eta = n.Eta / math.Sqrt(n.GradSum)
		}
	case "sadagrad":
		if n.GradSum > 0 {
			eta = n.GradMax / (n.H * n.GradSum)
		}
	}
	if n.Rule == "nasa_accel" {
		// Alg. 1 lines 4 and 5 (z_t is x_t).
		for j := range n.X {
			n.X[j] -= eta * (g[j] + ex.Weight*n.L2*md[j])
			n.Ag[j] = n.X[j]/beta + (1-1/beta)*n.Ag[j]
		}
		return p
	}
	for j := range n.X {
		n.X[j] -= eta * g[j]
		n.X[j] *= 1 - ex.Weight*n.L2*eta
	}
	return p
}

// NASADiag is per-feature NASA (gd/nasa.go) written densely: AdaGrad's
// update — with VW's normalization if Normalized — where feature j's
// Σ_i g_{i,j}² is replaced by V_j = Σ_{i≤t} δ̄_{i,j}², δ̄_{i,j} = g_{i,j} − S_{i,j}/i,
// and -l by C. Every coordinate's V_j is updated at every step, absent
// features (g_{i,j} = 0) included; a feature's first nonzero gradient is
// measured against a zero mean (V_j := g_j²). A step with ℓ' = 0 moves the
// means but not the weights (and skips --l2, as gd does).
type NASADiag struct {
	C, L2      float64
	Normalized bool
	Loss       loss.Loss

	W, V, S, N           []float64 // weights, V_j, running sums, max |x_j|
	T                    int
	NormSum, TotalWeight float64
}

// NewNASADiag returns an untrained reference learner on d features.
func NewNASADiag(d int, c float64, normalized bool, l loss.Loss) *NASADiag {
	return &NASADiag{C: c, Normalized: normalized, Loss: l, W: make([]float64, d), V: make([]float64, d), S: make([]float64, d), N: make([]float64, d)}
}

// Predict returns w·s plus the example's initial prediction.
func (n *NASADiag) Predict(ex *sparse.Example) float64 {
	p := ex.Initial
	for i, j := range ex.Idx {
		p += n.W[j] * ex.Val[i]
	}
	return p
}

// Learn returns the prediction, then takes one step.
func (n *NASADiag) Learn(ex *sparse.Example) float64 {
	p := n.Predict(ex)
	wt := ex.Weight
	d := n.Loss.Deriv(p, ex.Label)
	s := make([]float64, len(n.W))
	for i, j := range ex.Idx {
		s[j] = ex.Val[i]
	}
	n.T++
	t := float64(n.T)
	for j := range n.V {
		g := wt * d * s[j]
		n.S[j] += g
		if n.V[j] == 0 && g != 0 {
			n.V[j] = g * g
			continue
		}
		dj := g - n.S[j]/t
		n.V[j] += dj * dj
	}
	if d == 0 {
		return p
	}
	rate := make([]float64, len(n.W))
	var normX float64
	for j, x := range s {
		if x == 0 {
			continue
		}
		r := 1 / math.Sqrt(n.V[j])
		if n.Normalized {
			if ax := math.Abs(x); ax > n.N[j] {
				if n.N[j] > 0 {
					n.W[j] *= n.N[j] / ax
				}
				n.N[j] = ax
			}
			normX += x * x / (n.N[j] * n.N[j])
			r /= n.N[j]
		}
		rate[j] = r
	}
	mult := 1.0
	if n.Normalized {
		n.NormSum += wt * normX
		n.TotalWeight += wt
		mult = math.Sqrt(n.TotalWeight / n.NormSum)
	}
	eta := n.C * wt
	for j, x := range s {
		n.W[j] -= d * eta * mult * x * rate[j]
		n.W[j] *= 1 - n.L2*eta
	}
	return p
}
