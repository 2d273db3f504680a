// Package dense holds the dense reference implementations that the sparse
// learners are tested against: SON exactly as Luo et al. (NIPS 2016)
// write Alg. 1 (O(md) per step and worse, explicit d-dimensional vectors and matrices), dense
// sketches (Oja with an explicit orthonormal V, Alg. 3 / Eq. 4), diagonal
// pre-scaling (§5.2), and full ONS with an O(d³) solve. It is test
// infrastructure: nothing here is used by the binary.
//
// The papers, cited in the comments by their short form:
//
//   - Luo et al. (NIPS 2016): Haipeng Luo, Alekh Agarwal, Nicolò
//     Cesa-Bianchi, John Langford, "Efficient Second Order Online Learning
//     by Sketching", NIPS 2016 (SON, Oja, FD, RP);
//   - Luo et al. (JMLR 2019): Luo Luo, Cheng Chen, Zhihua Zhang, Wu-Jun Li,
//     Tong Zhang, "Robust Frequent Directions with Application in Online
//     Learning", JMLR 20, 2019 (RFD, the doubled buffer);
//   - Wan & Zhang (TPAMI 2022): Yuanyu Wan, Lijun Zhang, "Efficient
//     Adaptive Online Learning via Frequent Directions", IEEE TPAMI 2022
//     (ADA-FD, ADA-FFD, ADA-FULL);
//   - Yang et al. (ICML 2025): Sifan Yang, Yuanyu Wan, Peijia Li, Yibo
//     Wang, Xiao Zhang, Zhewei Wei, Lijun Zhang, "Dimension-Free Adaptive
//     Subgradient Methods with Frequent Directions", ICML 2025 (FTSL,
//     FTSL-Shampoo);
//   - Ouyang & Gray (KDD 2012): Hua Ouyang, Alexander Gray, "NASA:
//     Achieving Lower Regrets and Faster Rates via Adaptive Stepsizes",
//     KDD 2012 (NASA).
package dense

import (
	"math"

	"github.com/sparseson/sparseson/loss"
	"github.com/sparseson/sparseson/sparse"
	"gonum.org/v1/gonum/mat"
)

// Sketch is a dense sketch: S (rows×d) and α.
type Sketch interface {
	// Update adds the to-sketch vector ĝ.
	Update(g []float64)
	// S returns the current sketch matrix (may have zero rows).
	S() *mat.Dense
	// Alpha returns α_t.
	Alpha() float64
	// SetAlpha sets α's base (RFD adds ½Σλ_m), as sparse.Sketch.SetAlpha.
	SetAlpha(a float64)
	// Captured is the energy of Σĝĝᵀ the sketch holds (sparse.Sketch).
	Captured() float64
	// Rank is the number of directions it holds (sparse.Sketch).
	Rank() int
}

// SON is Alg. 1 of Luo et al. (NIPS 2016) with dense vectors.
type SON struct {
	D                  int
	C                  float64
	Sigma, Eta0, Scale float64
	EtaPower           float64 // η_t = Eta0·t^(−EtaPower); 0 means ½
	Diag               bool
	Loss               loss.Loss
	Sk                 Sketch
	// Scaled selects the scaled-space form of package son (scaled.go),
	// written here from its definition: ĝ = √(hW)·ℓ'x̃, α = W·α₀ with α₀
	// fixed (Alpha0 > 0) or ρ + Prior·(d/W)², and the step
	// u ← w − Rate·W·A_{t−1}⁻¹g/(1 + ĝᵀA_{t−1}⁻¹ĝ) before the sketch update.
	Scaled bool
	Alpha0 float64
	Rate   float64
	Prior  float64 // son.Prior
	// Unit (with Diag) pre-scales by D_j = 0.1·M_j + Σg_j², M_j the largest
	// x_j² that Learn has seen (1 before the first nonzero value), instead
	// of 0.1 + Σg_j² (son.Config.Unit); with UnitRMS, M_j is the mean of
	// the squares of feature j's nonzero values that Learn has seen in
	// examples of positive weight, the current one included, as of its
	// last refresh: M_j follows the mean when it leaves [1 − 1/32,
	// 1 + 1/32]·M_j (son.Config.UnitRMS, son/units.go's unitBand).
	Unit, UnitRMS bool
	un            units

	u     []float64 // u_t
	dsum  []float64 // Σ g² (diag)
	t     float64
	w     float64 // Σ h (scaled)
	sumG2 float64 // Σ‖ĝ‖² (scaled)
	seen  []bool
	nseen int
}

// NewSON returns the dense reference learner.
func NewSON(d int, C, sigma, eta0, scale float64, diag bool, l loss.Loss, sk Sketch) *SON {
	return &SON{D: d, C: C, Sigma: sigma, Eta0: eta0, Scale: scale, Diag: diag, Loss: l, Sk: sk,
		u: make([]float64, d), dsum: make([]float64, d)}
}

// Dense returns x̃ of a sparse example (with the current diagonal scaling).
func (s *SON) Dense(ex *sparse.Example) []float64 {
	x := make([]float64, s.D)
	for i, j := range ex.Idx {
		x[j] += ex.Val[i]
	}
	if s.Diag {
		for j := range x {
			x[j] /= math.Sqrt(s.diag1(j) + s.dsum[j])
		}
	}
	return x
}

// ainv returns A⁻¹v for A = αI + SᵀS (or A†v when α = 0), by Woodbury
// with H = (αI + SSᵀ)⁻¹ formed explicitly (or the pseudo-inverse).
func (s *SON) ainv(v []float64) []float64 {
	S := s.Sk.S()
	alpha := s.Sk.Alpha()
	r, _ := S.Dims()
	vv := mat.NewVecDense(len(v), append([]float64(nil), v...))
	if alpha == 0 {
		// A† = (SᵀS)† via the eigen-decomposition of SᵀS restricted to its
		// range: SᵀS = Vᵀ E V on the rows of V with E > 0.
		return pinvApply(S, v)
	}
	if r == 0 {
		out := make([]float64, len(v))
		for i := range v {
			out[i] = v[i] / alpha
		}
		return out
	}
	N := mat.NewDense(r, r, nil)
	N.Mul(S, S.T())
	for i := 0; i < r; i++ {
		N.Set(i, i, N.At(i, i)+alpha)
	}
	var H mat.Dense
	if err := H.Inverse(N); err != nil {
		panic(err)
	}
	var sv, hsv mat.VecDense
	sv.MulVec(S, vv)
	hsv.MulVec(&H, &sv)
	var sthsv mat.VecDense
	sthsv.MulVec(S.T(), &hsv)
	out := make([]float64, len(v))
	for i := range v {
		out[i] = (v[i] - sthsv.AtVec(i)) / alpha
	}
	return out
}

// pinvApply returns (SᵀS)†v.
func pinvApply(S *mat.Dense, v []float64) []float64 { return rowSpace(S, v, true) }

// projector returns Pv, P the orthogonal projector onto the row space of S.
func projector(S *mat.Dense, v []float64) []float64 { return rowSpace(S, v, false) }

// rowSpace applies Σ_k v_k v_kᵀ (inv: divided by σ_k²) over the right
// singular vectors of S with σ_k above 1e-12·σ₁.
func rowSpace(S *mat.Dense, v []float64, inv bool) []float64 {
	r, d := S.Dims()
	out := make([]float64, d)
	if r == 0 {
		return out
	}
	var svd mat.SVD
	if !svd.Factorize(S, mat.SVDThin) {
		panic("dense: SVD failed")
	}
	var V mat.Dense
	svd.VTo(&V) // d×k
	sv := svd.Values(nil)
	tol := 1e-12 * sv[0]
	for k, sig := range sv {
		if sig <= tol {
			continue
		}
		var c float64
		for j := 0; j < d; j++ {
			c += V.At(j, k) * v[j]
		}
		if inv {
			c /= sig * sig
		}
		for j := 0; j < d; j++ {
			out[j] += c * V.At(j, k)
		}
	}
	return out
}

func dotv(a, b []float64) (s float64) {
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

func tauC(y, C float64) float64 {
	switch {
	case y > C:
		return y - C
	case y < -C:
		return y + C
	}
	return 0
}

// Predict returns clip(uᵀx̃, ±C) + initial.
func (s *SON) Predict(ex *sparse.Example) float64 {
	x := s.Dense(ex)
	return ex.Initial + math.Max(-s.C, math.Min(s.C, dotv(s.u, x)))
}

// Learn runs one round of Alg. 1 and returns the prediction.
func (s *SON) Learn(ex *sparse.Example) float64 {
	s.un.add(s.Unit, s.UnitRMS, s.D, ex)
	if s.seen == nil {
		s.seen = make([]bool, s.D)
	}
	for _, j := range ex.Idx {
		if !s.seen[j] {
			s.seen[j] = true
			s.nseen++
		}
	}
	x := s.Dense(ex)
	n := dotv(x, x)
	w := append([]float64(nil), s.u...)
	// Line 5: projection (Lemma 1).
	if tau := tauC(dotv(s.u, x), s.C); tau != 0 && n > 0 {
		if s.Sk.Alpha() > 0 {
			ax := s.ainv(x)
			q := dotv(x, ax)
			for i := range w {
				w[i] -= tau / q * ax[i]
			}
		} else {
			// α = 0 (docs/algorithms.md §1).
			px := projector(s.Sk.S(), x)
			r2 := n - dotv(x, px)
			if r2 > 1e-9*n {
				for i := range w {
					w[i] -= tau * (x[i] - px[i]) / r2
				}
			} else {
				ax := s.ainv(x)
				q := dotv(x, ax)
				for i := range w {
					w[i] -= tau / q * ax[i]
				}
			}
		}
	}
	pred := ex.Initial + dotv(w, x)
	h := ex.Weight
	d := s.Loss.Deriv(pred, ex.Label)
	s.u = w
	if !(h > 0) {
		return pred
	}
	s.t++
	if s.Diag {
		// D is updated before the sketch and weight step (VW's order; see
		// son.Learner.rescale), so the rest of the round uses D_{t+1}.
		for i, j := range ex.Idx {
			gx := d * ex.Val[i]
			s.dsum[j] += h * gx * gx
		}
		x = s.Dense(ex)
	}
	if s.Scaled {
		s.learnScaled(x, h, d)
		return pred
	}
	scale := s.Scale
	if scale == 0 {
		scale = math.Sqrt(s.Sigma + etaT(s.Eta0, s.EtaPower, s.t))
	}
	c := math.Sqrt(h) * scale * d
	gh := make([]float64, s.D)
	for i := range gh {
		gh[i] = c * x[i]
	}
	s.Sk.Update(gh)
	g := make([]float64, s.D)
	for i := range g {
		g[i] = h * d * x[i]
	}
	ag := s.ainv(g)
	for i := range s.u {
		s.u[i] -= ag[i]
	}
	return pred
}

// learnScaled is the scaled-space round after the update of D.
func (s *SON) learnScaled(x []float64, h, d float64) {
	wPrev := s.w
	s.w += h
	c := math.Sqrt(h*s.w) * d
	a0 := s.Alpha0
	if a0 == 0 {
		var rho float64
		if free := float64(s.nseen - s.Sk.Rank()); wPrev > 0 && free > 0 {
			rho = math.Max(0, (s.sumG2-s.Sk.Captured())/(wPrev*free))
		}
		dw := float64(s.nseen) / s.w
		a0 = rho + s.Prior*dw*dw
	}
	s.Sk.SetAlpha(s.w * a0)
	if s.Sk.Alpha() > 0 {
		ax := s.ainv(x)
		q := math.Max(0, c*c*dotv(x, ax))
		f := s.Rate * s.w * h * d / (1 + q)
		for i := range s.u {
			s.u[i] -= f * ax[i]
		}
	}
	gh := make([]float64, s.D)
	for i := range gh {
		gh[i] = c * x[i]
	}
	if sw, ok := s.Sk.(interface{ SetWeight(float64) }); ok {
		sw.SetWeight(s.w)
	}
	s.Sk.Update(gh)
	s.sumG2 += c * c * dotv(x, x)
}

// Weights returns the raw-space weights D^{-1/2}u.
func (s *SON) Weights() []float64 {
	out := append([]float64(nil), s.u...)
	if s.Diag {
		for j := range out {
			out[j] /= math.Sqrt(s.diag1(j) + s.dsum[j])
		}
	}
	return out
}

// diag1 is D₁'s part of D_j: 0.1, or 0.1·M_j under Unit.
func (s *SON) diag1(j int) float64 { return s.un.diag1(s.Unit, j) }

// units holds M_j of SON.Unit: the largest x_j², or under UnitRMS the
// sums Σx_j² and n_j and iu_j = 1/√M_j as of its last refresh.
type units struct {
	mx, sq, n, iu []float64
}

// diag1 is 0.1·M_j under unit where feature j has a nonzero value, 0.1
// otherwise.
func (u *units) diag1(unit bool, j int) float64 {
	switch {
	case !unit || u.mx == nil:
		return 0.1
	case u.iu != nil:
		if u.iu[j] == 0 {
			return 0.1
		}
		return 0.1 / (u.iu[j] * u.iu[j])
	case u.mx[j] == 0:
		return 0.1
	}
	return 0.1 * u.mx[j]
}

// add raises M_j to ex's x_j² under unit. Under rms it takes ex's values
// in turn (when ex's weight is positive): each goes into its feature's
// sums (unless its square is not a positive finite number or would take
// the sum beyond it), and then iu_j is refreshed to 1/√(Σx_j²/n_j) where
// Σx_j²·iu_j² is not within n_j·(1 ± 1/32) (at the first value too, iu_j
// = 0), in son/units.go's arithmetic (1 where the root mean square is not
// a positive finite number).
func (u *units) add(unit, rms bool, d int, ex *sparse.Example) {
	if !unit {
		return
	}
	if u.mx == nil {
		u.mx = make([]float64, d)
		if rms {
			u.sq, u.n, u.iu = make([]float64, d), make([]float64, d), make([]float64, d)
		}
	}
	for i, j := range ex.Idx {
		x2 := ex.Val[i] * ex.Val[i]
		valid := x2 > 0 && x2 <= math.MaxFloat64
		if !rms {
			if valid {
				u.mx[j] = math.Max(u.mx[j], x2)
			}
			continue
		}
		if !(ex.Weight > 0) {
			continue
		}
		if valid && u.sq[j]+x2 <= math.MaxFloat64 {
			u.sq[j] += x2
			u.n[j]++
		}
		sq, n, iu := u.sq[j], u.n[j], u.iu[j]
		if p := sq * iu * iu; !(p >= n*(1-1.0/32) && p <= n*(1+1.0/32)) {
			v := 0.0
			if n > 0 {
				v = 1 / math.Abs(math.Sqrt(sq/n))
				if !(v > 0 && v <= math.MaxFloat64) {
					v = 1
				}
			}
			u.iu[j] = v
		}
	}
}
