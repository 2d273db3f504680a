package dense

import (
	"math"

	"github.com/sparseson/sparseson/loss"
	"github.com/sparseson/sparseson/sparse"
	"gonum.org/v1/gonum/mat"
)

// FullSketch is the "sketch" that forgets nothing: SᵀS = Σ_t ĝ_tĝ_tᵀ
// exactly, so dense SON with it is full ONS (Luo et al. (NIPS 2016), Eq. 1–2), and so is
// FD with m > d. S stacks the ĝ rows up to an orthogonal rotation: it is
// kept as the upper-trapezoidal factor R of the QR decomposition of the
// stacked rows G = [ĝ_1ᵀ; ĝ_2ᵀ; …] (updated by Givens rotations, O(d²) per
// step), so S = R = QᵀG has at most d rows and dense SON's Woodbury system
// stays at most d×d however long the stream (stacking G literally would
// make it t×t).
type FullSketch struct {
	D int
	A float64
	R [][]float64 // rows; row k is zero before column k
	T int
}

// NewFullSketch returns an empty full sketch (S has no rows) with α.
func NewFullSketch(d int, alpha float64) *FullSketch { return &FullSketch{D: d, A: alpha} }

// Alpha implements Sketch.
func (f *FullSketch) Alpha() float64 { return f.A }

// SetAlpha implements Sketch.
func (f *FullSketch) SetAlpha(a float64) { f.A = a }

// Captured implements Sketch: everything, ‖R‖_F² = Σ‖ĝ‖².
func (f *FullSketch) Captured() (v float64) {
	for _, r := range f.R {
		v += dotv(r, r)
	}
	return v
}

// Rank implements Sketch: the non-zero rows of R.
func (f *FullSketch) Rank() (k int) {
	for _, r := range f.R {
		if dotv(r, r) > 0 {
			k++
		}
	}
	return k
}

// S implements Sketch (a zero row while empty).
func (f *FullSketch) S() *mat.Dense { return rowsMatrix(f.R, f.D) }

// rowsMatrix stacks rows (each of length d) into a matrix, or returns one
// zero row when there are none (gonum has no 0×d matrix).
func rowsMatrix(rows [][]float64, d int) *mat.Dense {
	if len(rows) == 0 {
		return mat.NewDense(1, d, nil)
	}
	S := mat.NewDense(len(rows), d, nil)
	for i, r := range rows {
		S.SetRow(i, r)
	}
	return S
}

// Update implements Sketch: rotates ĝ into R, so that RᵀR gains ĝĝᵀ.
func (f *FullSketch) Update(g []float64) {
	f.T++
	v := append([]float64(nil), g...)
	for k, row := range f.R {
		a, b := row[k], v[k]
		if b == 0 {
			continue
		}
		r := math.Hypot(a, b)
		c, s := a/r, b/r
		for j := k; j < f.D; j++ {
			rj, vj := row[j], v[j]
			row[j] = c*rj + s*vj
			v[j] = c*vj - s*rj
		}
		v[k] = 0
	}
	if len(f.R) < f.D {
		for _, x := range v {
			if x != 0 {
				f.R = append(f.R, v)
				break
			}
		}
	}
}

// FullONS is full ONS (Luo et al. (NIPS 2016), Eq. 1–2 with Lemma 1's projection) solved
// from scratch: A_t = αI + Σĝĝᵀ is kept explicitly and factorised by
// Cholesky (gonum) for every solve, O(d³) per step. It follows the same
// conventions as SON (ĝ = √h·√(σ_t+η_t)·ℓ'·x̃, g = h·ℓ'·x̃, optional
// diagonal pre-scaling updated before the sketch and weight step).
type FullONS struct {
	D                  int
	Alpha, C           float64
	Sigma, Eta0, Scale float64
	EtaPower           float64 // η_t = Eta0·t^(−EtaPower); 0 means ½
	Diag               bool
	Loss               loss.Loss
	Unit, UnitRMS      bool // as SON's

	un   units
	A    *mat.SymDense
	u    []float64
	dsum []float64
	t    float64
}

// NewFullONS returns the O(d³) reference.
func NewFullONS(d int, alpha, C, sigma, eta0, scale float64, diag bool, l loss.Loss) *FullONS {
	A := mat.NewSymDense(d, nil)
	for i := 0; i < d; i++ {
		A.SetSym(i, i, alpha)
	}
	return &FullONS{D: d, Alpha: alpha, C: C, Sigma: sigma, Eta0: eta0, Scale: scale, Diag: diag, Loss: l,
		A: A, u: make([]float64, d), dsum: make([]float64, d)}
}

// Dense returns x̃ of a sparse example.
func (f *FullONS) Dense(ex *sparse.Example) []float64 {
	x := make([]float64, f.D)
	for i, j := range ex.Idx {
		x[j] += ex.Val[i]
	}
	if f.Diag {
		for j := range x {
			x[j] /= math.Sqrt(f.diag1(j) + f.dsum[j])
		}
	}
	return x
}

// solve returns A⁻¹v from a fresh Cholesky factorisation of A.
func (f *FullONS) solve(v []float64) []float64 {
	var ch mat.Cholesky
	if !ch.Factorize(f.A) {
		panic("dense: full ONS matrix is not positive definite")
	}
	var out mat.VecDense
	if err := ch.SolveVecTo(&out, mat.NewVecDense(len(v), append([]float64(nil), v...))); err != nil {
		panic(err)
	}
	return out.RawVector().Data
}

// Predict returns clip(uᵀx̃, ±C) + initial.
func (f *FullONS) Predict(ex *sparse.Example) float64 {
	return ex.Initial + math.Max(-f.C, math.Min(f.C, dotv(f.u, f.Dense(ex))))
}

// Learn runs one round and returns the prediction.
func (f *FullONS) Learn(ex *sparse.Example) float64 {
	f.un.add(f.Unit, f.UnitRMS, f.D, ex)
	x := f.Dense(ex)
	if tau := tauC(dotv(f.u, x), f.C); tau != 0 && dotv(x, x) > 0 {
		ax := f.solve(x)
		q := dotv(x, ax)
		for i := range f.u {
			f.u[i] -= tau / q * ax[i]
		}
	}
	pred := ex.Initial + dotv(f.u, x)
	h := ex.Weight
	d := f.Loss.Deriv(pred, ex.Label)
	if !(h > 0) {
		return pred
	}
	f.t++
	if f.Diag {
		// D before the sketch and weight step (VW's order, as son.Learner).
		for i, j := range ex.Idx {
			gx := d * ex.Val[i]
			f.dsum[j] += h * gx * gx
		}
		x = f.Dense(ex)
	}
	scale := f.Scale
	if scale == 0 {
		scale = math.Sqrt(f.Sigma + etaT(f.Eta0, f.EtaPower, f.t))
	}
	c := math.Sqrt(h) * scale * d
	for i := 0; i < f.D; i++ {
		if x[i] == 0 {
			continue
		}
		for j := i; j < f.D; j++ {
			f.A.SetSym(i, j, f.A.At(i, j)+(c*x[i])*(c*x[j]))
		}
	}
	g := make([]float64, f.D)
	for i := range g {
		g[i] = h * d * x[i]
	}
	ag := f.solve(g)
	for i := range f.u {
		f.u[i] -= ag[i]
	}
	return pred
}

// Weights returns the raw-space weights D^{-1/2}u.
func (f *FullONS) Weights() []float64 {
	out := append([]float64(nil), f.u...)
	if f.Diag {
		for j := range out {
			out[j] /= math.Sqrt(f.diag1(j) + f.dsum[j])
		}
	}
	return out
}

// Inverse returns A⁻¹ (tests).
func (f *FullONS) Inverse() *mat.Dense {
	var inv mat.Dense
	if err := inv.Inverse(f.A); err != nil {
		panic(err)
	}
	return &inv
}

// diag1 is D₁'s part of D_j, as SON.diag1.
func (f *FullONS) diag1(j int) float64 { return f.un.diag1(f.Unit, j) }
