package dense

import (
	"math"

	"github.com/sparseson/sparseson/loss"
	"github.com/sparseson/sparseson/sparse"
	"gonum.org/v1/gonum/mat"
)

// ADAConfig selects one of the FD-adaptive learners of Wan & Zhang (TPAMI 2022) and Yang et al. (ICML 2025)
// for the dense reference ADA.
type ADAConfig struct {
	D int
	// Tau is the sketch size τ; 0 is ADA-FULL (the exact G_t = Σ g gᵀ).
	Tau int
	// Fast selects the doubled buffer (Wan & Zhang (TPAMI 2022), Alg. 3/4; Yang et al.'s (ICML 2025) fast
	// FD for FTFSL and Fast S-ADA).
	Fast bool
	// Escaped selects Yang et al.'s (ICML 2025) preconditioner G̃^{1/2} =
	// (ρ_{1:t}I + SᵀS)^{1/2} (FTSL, FTFSL, S-ADA, Fast S-ADA); otherwise
	// Wan & Zhang's (TPAMI 2022) H = δI + (SᵀS)^{1/2} (ADA-FD, ADA-FFD, ADA-FULL).
	Escaped bool
	// Dual selects dual averaging, β_{t+1} = −η·P_t·ḡ_t (Wan & Zhang (TPAMI 2022), Eq. 1/7,
	// Alg. 1/3; FTSL/FTFSL); otherwise composite mirror descent,
	// β_{t+1} = β_t − η·P_t·g_t (Eq. 2/8, Alg. 2/4; S-ADA).
	Dual bool
	// Eta is η, Delta δ (H form), Eps an optional ε added to ρ_{1:t}
	// (escaped form; with ρ + ε = 0 the pseudo-inverse is taken).
	Eta, Delta, Eps float64
	// Grow makes the δ form's δ grow with the escaped mass: H_t =
	// (δ + √r_t)I + (S_tᵀS_t)^{1/2}, r_t = Rho (package ada's
	// Config.Grow); with GatedADA, Rho counts the skips' and drops'
	// mass at 1/τ as in the escaped form.
	Grow bool
}

// ADA is the dense reference of the FD-adaptive learners, written from the
// papers' pseudo-code with an explicit d-dimensional sketch:
//
//   - ADA-FD (Wan & Zhang (TPAMI 2022), Alg. 1 dual averaging,
//     Alg. 2 mirror descent): S is τ×d, S₀ = 0; g_t goes into the last row
//     of S_{t−1}, S_{t−1} = UΣVᵀ, σ_t = Σ²_ττ, S_t = (Σ² − σ_tI)^{1/2}Vᵀ;
//     β_{t+1} = −(η/δ)(ḡ_t − V(δI + Σ′)⁻¹Σ′Vᵀḡ_t) (Alg. 1 line 7), i.e.
//     −η·H_t⁻¹ḡ_t with H_t = δI + (S_tᵀS_t)^{1/2}, or
//     β_{t+1} = β_t − η·H_t⁻¹g_t (Alg. 2 line 7);
//   - ADA-FFD (Alg. 3/4): S_tᵀS_t = V_tM_tV_tᵀ with V_t d×2τ (r_t
//     orthonormal columns), M_t 2τ×2τ: g′ = V Vᵀg; if g′ ≠ g a new column
//     (g − g′)/‖g − g′‖; M ← M + (Vᵀg)(Vᵀg)ᵀ; M = UΣUᵀ; the step with
//     (S_tᵀS_t)^{1/2} = V UΣ^{1/2}UᵀVᵀ; then, if r = 2τ, σ_t = Σ_ττ,
//     M ← max(Σ − σ_tI, 0), V ← VU, r ← τ − 1 (columns beyond zeroed);
//   - ADA-FULL (Wan & Zhang (TPAMI 2022), Eq. 1/2; Duchi, Hazan, Singer 2011): G_t itself
//     in place of SᵀS, with δ > 0, or δ = 0 and the pseudo-inverse;
//   - FTSL (Yang et al. (ICML 2025), Alg. 2):
//     the FD sketch above with its escaped mass ρ_{1:t} = Σ_{s≤t} σ_s
//     added back, β_{t+1} = −η·G̃_t^{−1/2}ḡ_t with G̃_t = ρ_{1:t}I + S_tᵀS_t
//     (the pseudo-inverse while ρ_{1:t} = 0); FTFSL is the same on the
//     doubled buffer (ρ adds σ_t at each of its shrinks);
//   - S-ADA (Feinberg, Chen, Sun, Anil, Hazan, "Sketchy: memory-efficient
//     adaptive regularization with frequent directions", NeurIPS 2023, as
//     Yang et al. (ICML 2025) state it — they give no algorithm box):
//     x_{t+1} = x_t − η(ρ_{1:t}I + B_tB_tᵀ)^{−1/2}g_t, with B_tB_tᵀ the FD
//     sketch SᵀS of g_1..g_t and ρ_{1:t} its escaped mass; Fast S-ADA is the
//     same on the doubled buffer.
//
// P_t is formed from an eigendecomposition of the d×d SᵀS (or G_t);
// eigenvalues ≤ FDEigTol·λ₁ count as 0, as in package fd. The importance
// weight h counts as h copies: the sketch takes √h·ℓ′·x and the step
// h·ℓ′·x (as SON does).
type ADA struct {
	Cfg  ADAConfig
	Loss loss.Loss
	Beta []float64 // β_{t+1}
	GBar []float64 // ḡ_t
	Rho  float64   // ρ_{1:t}
	Rhos []float64 // σ_t of every shrink (bound tests)
	G    *mat.SymDense
	S    [][]float64 // per-step sketch rows (τ of them, last zero)
	V    [][]float64 // doubled buffer: 2τ columns of length d, r live
	M    *mat.SymDense
	R    int
	// Shrinks counts the doubled buffer's shrinks.
	Shrinks int
	// step, if set, replaces the sketch's update (GatedADA's gated FD or
	// skips) and reports that the doubled buffer is full; the rest of a
	// round is ADA's.
	step func(g []float64) (full bool)
	// deferShrink keeps a full doubled buffer until the next gradient
	// that joins it (package fd's order, rank.go), so that a skipped
	// gradient's step sees the buffer as the sparse learner has it;
	// shrinkDue marks the buffer full.
	deferShrink, shrinkDue bool
}

// NewADA returns an untrained dense reference.
func NewADA(cfg ADAConfig, l loss.Loss) *ADA {
	a := &ADA{Cfg: cfg, Loss: l, Beta: make([]float64, cfg.D), GBar: make([]float64, cfg.D)}
	switch {
	case cfg.Tau == 0:
		a.G = mat.NewSymDense(cfg.D, nil)
	case cfg.Fast:
		a.V = make([][]float64, 2*cfg.Tau)
		for i := range a.V {
			a.V[i] = make([]float64, cfg.D)
		}
		a.M = mat.NewSymDense(2*cfg.Tau, nil)
	default:
		a.S = make([][]float64, cfg.Tau)
		for i := range a.S {
			a.S[i] = make([]float64, cfg.D)
		}
	}
	return a
}

func (a *ADA) dense(ex *sparse.Example) []float64 {
	x := make([]float64, a.Cfg.D)
	for i, j := range ex.Idx {
		x[j] += ex.Val[i]
	}
	return x
}

// Predict returns ex.Initial + β_tᵀx.
func (a *ADA) Predict(ex *sparse.Example) float64 {
	return ex.Initial + dotv(a.Weights(), a.dense(ex))
}

// Learn predicts ex, then takes one round with its gradient.
func (a *ADA) Learn(ex *sparse.Example) float64 { return a.round(ex, roundHooks{}) }

// roundHooks are what a wrapper of ADA (DiagADA) changes in a round; nil
// is ADA's own.
type roundHooks struct {
	// observe sees the example (importance h, dense x) and its sketched
	// gradient before the sketch takes it.
	observe func(h float64, x, gs []float64)
	// precondition replaces ADA.precondition, eta the step size η.
	precondition func(v []float64) []float64
	eta          func() float64
}

// round is Learn with the wrapper's hooks.
func (a *ADA) round(ex *sparse.Example, hk roundHooks) float64 {
	x := a.dense(ex)
	pred := ex.Initial + dotv(a.Weights(), x)
	d := a.Loss.Deriv(pred, ex.Label)
	h := ex.Weight
	if !(h > 0) || math.IsNaN(d) || math.IsInf(d, 0) {
		return pred
	}
	gs := make([]float64, len(x)) // sketched: √h·ℓ′·x
	g := make([]float64, len(x))  // stepped: h·ℓ′·x
	for j, v := range x {
		gs[j] = math.Sqrt(h) * d * v
		g[j] = h * d * v
	}
	if hk.observe != nil {
		hk.observe(h, x, gs)
	}
	var fill bool
	if a.step != nil {
		fill = a.step(gs)
	} else {
		fill = a.sketch(gs)
	}
	precondition, eta := a.precondition, a.Cfg.Eta
	if hk.precondition != nil {
		precondition = hk.precondition
	}
	if hk.eta != nil {
		eta = hk.eta()
	}
	if a.Cfg.Dual {
		for j := range g {
			a.GBar[j] += g[j]
		}
		// β_{t+1} is computed before the doubled buffer's shrink (Alg. 3
		// line 11 before line 12), so it is kept, not recomputed.
		pg := precondition(a.GBar)
		for j := range pg {
			a.Beta[j] = -eta * pg[j]
		}
	} else {
		pg := precondition(g)
		for j := range a.Beta {
			a.Beta[j] -= eta * pg[j]
		}
	}
	switch {
	case fill && a.deferShrink:
		a.shrinkDue = true
	case fill:
		a.shrinkFast()
	}
	return pred
}

// Weights returns β_{t+1}.
func (a *ADA) Weights() []float64 { return a.Beta }

// sketch adds g to G_t or to the sketch; it reports that the doubled
// buffer is full (Alg. 3/4 line 12: shrink after the step).
func (a *ADA) sketch(g []float64) (full bool) {
	d := a.Cfg.D
	switch {
	case a.G != nil:
		for i := 0; i < d; i++ {
			for j := i; j < d; j++ {
				a.G.SetSym(i, j, a.G.At(i, j)+g[i]*g[j])
			}
		}
	case a.S != nil:
		tau := a.Cfg.Tau
		a.S[tau-1] = append([]float64(nil), g...)
		lam, V := svdRows(a.S, d)
		rho := 0.0
		if tau-1 < len(lam) {
			rho = lam[tau-1]
		}
		a.Rho += rho
		a.Rhos = append(a.Rhos, rho)
		top := 0.0
		if len(lam) > 0 {
			top = lam[0]
		}
		for i := range a.S {
			a.S[i] = make([]float64, d)
			if i >= tau-1 || i >= len(lam) {
				continue
			}
			e := lam[i] - rho
			if e <= FDEigTol*top {
				continue
			}
			se := math.Sqrt(e)
			for j := range a.S[i] {
				a.S[i][j] = se * V.At(j, i)
			}
		}
	default:
		// Alg. 3/4 lines 4–9.
		gn := dotv(g, g)
		if gn == 0 {
			return false
		}
		res := append([]float64(nil), g...)
		for pass := 0; pass < 2; pass++ {
			for k := 0; k < a.R; k++ {
				c := dotv(a.V[k], res)
				for j := range res {
					res[j] -= c * a.V[k][j]
				}
			}
		}
		if rn := dotv(res, res); rn > spanTolDense*gn {
			rn = math.Sqrt(rn)
			for j := range res {
				a.V[a.R][j] = res[j] / rn
			}
			a.R++
		}
		n := 2 * a.Cfg.Tau
		vg := make([]float64, n)
		for k := 0; k < a.R; k++ {
			vg[k] = dotv(a.V[k], g)
		}
		for i := 0; i < n; i++ {
			for j := i; j < n; j++ {
				a.M.SetSym(i, j, a.M.At(i, j)+vg[i]*vg[j])
			}
		}
		return a.R == n
	}
	return false
}

// spanTolDense is fd's spanTol: a squared residual below it relative to
// ‖g‖² means g′ = g in Alg. 3/4 line 5.
const spanTolDense = 1e-9

// shrinkFast is Alg. 3/4 lines 12–14.
func (a *ADA) shrinkFast() {
	n := 2 * a.Cfg.Tau
	var es mat.EigenSym
	if !es.Factorize(a.M, true) {
		panic("dense: ADA-FFD eigendecomposition failed")
	}
	w := es.Values(nil) // ascending
	var U mat.Dense
	es.VectorsTo(&U)
	lam := make([]float64, n)
	cols := make([]int, n)
	for i := range lam {
		lam[i] = w[n-1-i]
		cols[i] = n - 1 - i
	}
	top := math.Max(lam[0], 0)
	for i := range lam {
		if lam[i] <= FDEigTol*top {
			lam[i] = 0
		}
	}
	sigma := lam[a.Cfg.Tau-1]
	a.Rho += sigma
	a.Rhos = append(a.Rhos, sigma)
	a.Shrinks++
	// V ← V·U (sorted descending), M ← max(Σ − σI, 0).
	nv := make([][]float64, n)
	for i := range nv {
		nv[i] = make([]float64, a.Cfg.D)
		if i >= a.Cfg.Tau-1 {
			continue
		}
		for k := 0; k < n; k++ {
			if u := U.At(k, cols[i]); u != 0 {
				for j := range nv[i] {
					nv[i][j] += u * a.V[k][j]
				}
			}
		}
	}
	a.V = nv
	a.M = mat.NewSymDense(n, nil)
	for i := 0; i < a.Cfg.Tau-1; i++ {
		if e := lam[i] - sigma; e > FDEigTol*top {
			a.M.SetSym(i, i, e)
		}
	}
	a.R = a.Cfg.Tau - 1
}

// SketchMatrix returns the d×d matrix the preconditioner is built on:
// G_t (ADA-FULL), S_tᵀS_t, or V_tM_tV_tᵀ.
func (a *ADA) SketchMatrix() *mat.SymDense {
	d := a.Cfg.D
	switch {
	case a.G != nil:
		return mat.NewSymDense(d, append([]float64(nil), a.G.RawSymmetric().Data...))
	case a.S != nil:
		A := mat.NewSymDense(d, nil)
		for _, r := range a.S {
			A.SymRankOne(A, 1, mat.NewVecDense(d, append([]float64(nil), r...)))
		}
		return A
	}
	n := 2 * a.Cfg.Tau
	Vm := mat.NewDense(d, n, nil)
	for k := 0; k < n; k++ {
		for j := 0; j < d; j++ {
			Vm.Set(j, k, a.V[k][j])
		}
	}
	var VM mat.Dense
	VM.Mul(Vm, a.M)
	var A mat.Dense
	A.Mul(&VM, Vm.T())
	S := mat.NewSymDense(d, nil)
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			S.SetSym(i, j, (A.At(i, j)+A.At(j, i))/2)
		}
	}
	return S
}

// precondition returns P_t·v: (δI + A^{1/2})⁻¹v, or (ρ + ε + A)^{−1/2}v (the
// pseudo-inverse A^{†1/2} when ρ + ε = 0), for A = SketchMatrix().
func (a *ADA) precondition(v []float64) []float64 {
	d := a.Cfg.D
	A := a.SketchMatrix()
	var es mat.EigenSym
	if !es.Factorize(A, true) {
		panic("dense: ADA eigendecomposition failed")
	}
	lam := es.Values(nil)
	var U mat.Dense
	es.VectorsTo(&U)
	top := 0.0
	for _, l := range lam {
		top = math.Max(top, l)
	}
	r := a.Rho + a.Cfg.Eps
	f := func(l float64) float64 {
		if l <= FDEigTol*top {
			l = 0
		}
		switch {
		case !a.Cfg.Escaped:
			return 1 / (a.DeltaNow() + math.Sqrt(l))
		case r > 0:
			return 1 / math.Sqrt(r+l)
		case l > 0:
			return 1 / math.Sqrt(l)
		}
		return 0
	}
	out := make([]float64, d)
	for k := 0; k < d; k++ {
		var c float64
		for j := 0; j < d; j++ {
			c += U.At(j, k) * v[j]
		}
		c *= f(lam[k])
		for j := 0; j < d; j++ {
			out[j] += c * U.At(j, k)
		}
	}
	return out
}

// DeltaNow is the δ form's δ_t: δ, or δ + √ρ_{1:t} with Grow.
func (a *ADA) DeltaNow() float64 {
	if a.Cfg.Grow {
		return a.Cfg.Delta + math.Sqrt(math.Max(a.Rho, 0))
	}
	return a.Cfg.Delta
}

// svdRows returns the squared singular values (descending) and the right
// singular vectors (d×k) of the matrix with the given rows.
func svdRows(rows [][]float64, d int) ([]float64, *mat.Dense) {
	S := rowsMatrix(rows, d)
	var svd mat.SVD
	if !svd.Factorize(S, mat.SVDThin) {
		panic("dense: ADA-FD SVD failed")
	}
	var V mat.Dense
	svd.VTo(&V)
	sv := svd.Values(nil)
	lam := make([]float64, len(sv))
	top := 0.0
	for i, s := range sv {
		lam[i] = s * s
		top = math.Max(top, lam[i])
	}
	for i := range lam {
		if lam[i] <= FDEigTol*top {
			lam[i] = 0
		}
	}
	return lam, &V
}
