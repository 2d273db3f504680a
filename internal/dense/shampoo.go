package dense

import (
	"math"
	"math/rand/v2"
	"sort"

	"github.com/sparseson/sparseson/sparse"
	"gonum.org/v1/gonum/mat"
)

// FDGeneral is Yang et al.'s (ICML 2025) Alg. 4, Frequent Directions in general form, on
// an explicit n×n matrix: it keeps C = B_tB_tᵀ (B_t n×τ) and, given a new
// PSD matrix M_t, eigendecomposes C + M_t = UΛUᵀ, keeps B_t =
// U_{:,1:τ}(Λ_{1:τ} − λ_τI)^{1/2} and returns λ_τ (its escaped mass), the
// τ-th largest eigenvalue (0 when τ > n). Tau 0 is no sketch: C is the
// exact sum ΣM_t and nothing escapes. As in package fd (and the other FD
// references here), eigenvalues ≤ FDEigTol·λ₁ count as 0 and so does a
// shrunk λ_i − λ_τ ≤ FDEigTol·λ₁.
type FDGeneral struct {
	N, Tau int
	C      *mat.SymDense
	Rho    float64 // ρ_{1:t} = Σ λ_τ
}

// NewFDGeneral returns an empty sketch of n×n matrices (tau 0: exact).
func NewFDGeneral(n, tau int) *FDGeneral {
	return &FDGeneral{N: n, Tau: tau, C: mat.NewSymDense(n, nil)}
}

// Add is one call of Alg. 4 with M_t = M (Tau 0: C += M).
func (f *FDGeneral) Add(M *mat.SymDense) {
	var sum mat.SymDense
	sum.AddSym(f.C, M)
	if f.Tau == 0 {
		f.C = &sum
		return
	}
	lam, U := eigDesc(&sum)
	top := math.Max(lam[0], 0)
	for i := range lam {
		if lam[i] <= FDEigTol*top {
			lam[i] = 0
		}
	}
	rho := 0.0
	if f.Tau <= f.N {
		rho = lam[f.Tau-1]
	}
	f.Rho += rho
	C := mat.NewSymDense(f.N, nil)
	for i := 0; i < f.Tau-1 && i < f.N; i++ {
		e := lam[i] - rho
		if e <= FDEigTol*top {
			continue
		}
		C.SymRankOne(C, e, U.ColView(i))
	}
	f.C = C
}

// Preconditioner returns (C + (ρ + ε)I)^{−1/4}: Yang et al. (ICML 2025), Alg. 5 lines 7–8
// give L_t (or R_t) = B_tB_tᵀ + (ε + ρ_{1:t})I, and Eq. (3) applies its
// −1/4 power. C's eigenvalues ≤ FDEigTol·λ₁ count as 0, as in package fd.
func (f *FDGeneral) Preconditioner(eps float64) *mat.Dense {
	lam, U := eigDesc(f.C)
	top := math.Max(lam[0], 0)
	r := f.Rho + eps
	P := mat.NewDense(f.N, f.N, nil)
	for i, l := range lam {
		if l <= FDEigTol*top {
			l = 0
		}
		c := math.Pow(l+r, -0.25)
		u := U.ColView(i)
		for a := 0; a < f.N; a++ {
			for b := 0; b < f.N; b++ {
				P.Set(a, b, P.At(a, b)+c*u.AtVec(a)*u.AtVec(b))
			}
		}
	}
	return P
}

// eigDesc eigendecomposes a symmetric matrix, eigenvalues descending.
func eigDesc(A *mat.SymDense) ([]float64, *mat.Dense) {
	var es mat.EigenSym
	if !es.Factorize(A, true) {
		panic("dense: eigendecomposition failed")
	}
	w := es.Values(nil)
	var V mat.Dense
	es.VectorsTo(&V)
	n := len(w)
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return w[idx[a]] > w[idx[b]] })
	lam := make([]float64, n)
	U := mat.NewDense(n, n, nil)
	for j, src := range idx {
		lam[j] = w[src]
		for i := 0; i < n; i++ {
			U.Set(i, j, V.At(i, src))
		}
	}
	return lam, U
}

// ShampooConfig selects full-matrix Shampoo or FTSL-Shampoo for the dense
// reference Shampoo.
type ShampooConfig struct {
	K, D int
	// TauL and TauR are the sketch sizes of the left (K×K) and right (d×d)
	// factors; 0 keeps that factor exactly (full-matrix Shampoo when both
	// are 0).
	TauL, TauR int
	Eta, Eps   float64
	// Diag is the per-coordinate completion with the per-example left
	// factor (ada.ShampooConfig.Diag): X = −η·T^{1/4}/√N·L^{−1/4}·Ḡ·(R^{−1/4} + diag(e)),
	// e_j = (R_jj + ε)^{−1/4} − (ρR + ε)^{−1/4} where R_jj < ρR, R_jj = Σh‖a‖²x_j²
	// exactly, T = Σh, N = Σh‖x‖²/T.
	Diag bool
}

// Shampoo is the dense reference of FTSL-Shampoo (Yang et al. (ICML 2025),
// ICML 2025, Alg. 5 with Alg. 4 for both factors) and, with no sketches,
// of full-matrix Shampoo in the same primal-dual form (Gupta, Koren and
// Singer 2018, with ḠX_t in place of the gradient as in Yang et al. (ICML 2025), Eq. (3)),
// for a K×d multinomial logistic model, written from the pseudo-code:
//
//	play X_t: scores s = X_t·x, p = softmax(s), loss −log p_y;
//	G_t = (p − e_y)xᵀ (h copies for importance h);
//	Ḡ_t = Ḡ_{t−1} + h·G_t;
//	Alg. 4 on L̂ with M = h·G_tG_tᵀ, on R̂ with M = h·G_tᵀG_t;
//	L_t = L̂L̂ᵀ + (ε + ρL_{1:t})I, R_t = R̂R̂ᵀ + (ε + ρR_{1:t})I;
//	X_{t+1} = −η·L_t^{−1/4}·Ḡ_t·R_t^{−1/4}                       (Eq. 3)
//
// with X_1 = 0. Every power comes from a full eigendecomposition.
type Shampoo struct {
	Cfg  ShampooConfig
	GBar *mat.Dense // K×d
	L, R *FDGeneral
	X    *mat.Dense // X_{t+1}
	P    []float64  // the last example's probabilities
	// Under Diag: R_jj, T = Σh and S = Σh‖x‖².
	Rjj  []float64
	T, S float64
}

// NewShampoo returns an untrained reference.
func NewShampoo(cfg ShampooConfig) *Shampoo {
	return &Shampoo{Cfg: cfg, GBar: mat.NewDense(cfg.K, cfg.D, nil),
		L: NewFDGeneral(cfg.K, cfg.TauL), R: NewFDGeneral(cfg.D, cfg.TauR),
		X: mat.NewDense(cfg.K, cfg.D, nil), P: make([]float64, cfg.K), Rjj: make([]float64, cfg.D)}
}

func (s *Shampoo) dense(ex *sparse.Example) []float64 {
	x := make([]float64, s.Cfg.D)
	for i, j := range ex.Idx {
		x[j] += ex.Val[i]
	}
	return x
}

// scores returns X·x and fills P with its softmax.
func (s *Shampoo) scores(x []float64) []float64 {
	out := make([]float64, s.Cfg.K)
	for k := range out {
		out[k] = dotv(s.X.RawRowView(k), x)
	}
	top := math.Inf(-1)
	for _, v := range out {
		top = math.Max(top, v)
	}
	var z float64
	for k, v := range out {
		s.P[k] = math.Exp(v - top)
		z += s.P[k]
	}
	for k := range s.P {
		s.P[k] /= z
	}
	return out
}

// Predict returns the class scores X_{t+1}·x (P holds their softmax).
func (s *Shampoo) Predict(ex *sparse.Example) []float64 { return s.scores(s.dense(ex)) }

// Learn returns the scores before the step, then takes it; ex.Label is
// the class (1…K).
func (s *Shampoo) Learn(ex *sparse.Example) []float64 {
	x := s.dense(ex)
	out := s.scores(x)
	h := ex.Weight
	if !(h > 0) {
		return out
	}
	K, D := s.Cfg.K, s.Cfg.D
	a := append([]float64(nil), s.P...)
	a[int(ex.Label)-1]--
	G := mat.NewDense(K, D, nil)
	for k := 0; k < K; k++ {
		for j := 0; j < D; j++ {
			G.Set(k, j, a[k]*x[j])
		}
	}
	s.GBar.Add(s.GBar, scaled(h, G))
	var GGt, GtG mat.Dense
	GGt.Mul(G, G.T())
	GtG.Mul(G.T(), G)
	s.L.Add(symOf(scaled(h, &GGt)))
	s.R.Add(symOf(scaled(h, &GtG)))
	var na, nx float64
	for _, v := range a {
		na += v * v
	}
	for j, v := range x {
		nx += v * v
		s.Rjj[j] += h * na * v * v
	}
	s.T += h
	s.S += h * nx
	s.X = s.Weights()
	return out
}

// Weights returns X_{t+1} = −η·L_t^{−1/4}·Ḡ_t·R_t^{−1/4}.
func (s *Shampoo) Weights() *mat.Dense {
	var A, X mat.Dense
	A.Mul(s.L.Preconditioner(s.Cfg.Eps), s.GBar)
	X.Mul(&A, s.rightFactor())
	eta := s.Cfg.Eta
	if s.Cfg.Diag && s.T > 0 && s.S > 0 {
		eta *= math.Pow(s.T, 0.25) / math.Sqrt(s.S/s.T)
	}
	X.Scale(-eta, &X)
	return &X
}

// rightFactor is R^{−1/4}, completed under Diag.
func (s *Shampoo) rightFactor() *mat.Dense {
	P := s.R.Preconditioner(s.Cfg.Eps)
	if !s.Cfg.Diag {
		return P
	}
	r := s.R.Rho + s.Cfg.Eps
	for j, g := range s.Rjj {
		if g+s.Cfg.Eps < r {
			P.Set(j, j, P.At(j, j)+math.Pow(g+s.Cfg.Eps, -0.25)-math.Pow(r, -0.25))
		}
	}
	return P
}

// KroneckerWeights returns X_{t+1} through the vector form of Yang et al.'s (ICML 2025)
// proof of Theorem 4.4 (Lemma A.7): x_{t+1} = −η·(L_t^{−1/4} ⊗ R_t^{−1/4})·ḡ_t
// with x = vec(X), ḡ = vec(Ḡ) row-major — an independent evaluation of
// Eq. (3) for tests (Kd×Kd, tiny problems only).
func (s *Shampoo) KroneckerWeights() *mat.Dense {
	K, D := s.Cfg.K, s.Cfg.D
	var H mat.Dense
	H.Kronecker(s.L.Preconditioner(s.Cfg.Eps), s.R.Preconditioner(s.Cfg.Eps))
	if s.Cfg.Diag {
		panic("dense: KroneckerWeights is the paper's form only")
	}
	g := mat.NewVecDense(K*D, append([]float64(nil), s.GBar.RawMatrix().Data...))
	var x mat.VecDense
	x.MulVec(&H, g)
	X := mat.NewDense(K, D, nil)
	for k := 0; k < K; k++ {
		for j := 0; j < D; j++ {
			X.Set(k, j, -s.Cfg.Eta*x.AtVec(k*D+j))
		}
	}
	return X
}

func scaled(h float64, A *mat.Dense) *mat.Dense {
	var out mat.Dense
	out.Scale(h, A)
	return &out
}

// symOf returns the symmetric part of a square matrix.
func symOf(A *mat.Dense) *mat.SymDense {
	n, _ := A.Dims()
	S := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			S.SetSym(i, j, (A.At(i, j)+A.At(j, i))/2)
		}
	}
	return S
}

// ClassStream draws n multiclass examples: s distinct features out of d,
// values N(0,1) times a per-feature scale e^{U(−spread, spread)}, the class
// the argmax of a hidden K×d rule plus N(0,1) noise, importance weights
// U[0.5, 2].
func ClassStream(n, d, s, k int, spread float64, seed uint64) []sparse.Example {
	rng := rand.New(rand.NewPCG(seed, 0x5ba3))
	scale := make([]float64, d)
	for j := range scale {
		scale[j] = math.Exp(spread * (2*rng.Float64() - 1))
	}
	theta := make([][]float64, k)
	for c := range theta {
		theta[c] = make([]float64, d)
		for j := range theta[c] {
			theta[c][j] = rng.NormFloat64() / scale[j]
		}
	}
	out := make([]sparse.Example, n)
	for t := range out {
		ex := &out[t]
		ex.HasLabel, ex.Weight = true, 0.5+1.5*rng.Float64()
		for _, j := range rng.Perm(d)[:s] {
			ex.Idx = append(ex.Idx, uint32(j))
			ex.Val = append(ex.Val, rng.NormFloat64()*scale[j])
		}
		best := math.Inf(-1)
		for c := range theta {
			m := rng.NormFloat64()
			for i, j := range ex.Idx {
				m += theta[c][j] * ex.Val[i]
			}
			if m > best {
				best, ex.Label = m, float64(c+1)
			}
		}
	}
	return out
}
