package ada

import (
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"sort"

	"github.com/sparseson/sparseson/fd"
	"github.com/sparseson/sparseson/internal/linalg"
	"github.com/sparseson/sparseson/loss"
	"github.com/sparseson/sparseson/model"
	"github.com/sparseson/sparseson/son"
	"github.com/sparseson/sparseson/sparse"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// MaxFullSlots is the most slots ADA-FULL keeps: its U is k×r, r ≤ k, for
// the k slots kept (128 MiB at 4096), and an example costs O(k·r²). As
// for full ONS (son.MaxFullSlots), the bound is on the features kept, not
// on -b, whose collisions no pre-scaling can undo.
const MaxFullSlots = son.MaxFullSlots

// Full is ADA-FULL (Duchi, Hazan and Singer 2011; Wan & Zhang (TPAMI 2022), Eq. 1 and 2):
// the preconditioner H_t = δI + G_t^{1/2} with the exact G_t = Σ_{s≤t} g_sg_sᵀ
// over the slots seen, under dual averaging (β_{t+1} = −η·H_t⁻¹ḡ_t) or
// mirror descent (β_{t+1} = β_t − η·H_t⁻¹g_t); δ = 0 takes the
// pseudo-inverse G_t^{†1/2}. It is the dense reference a user can run on
// small data (--ada_full), as --full is for ONS. A slot first met when
// MaxFullSlots slots are kept is refused (sparse.SlotCap) and treated as
// never seen: ADA-FULL on the stream without the refused features.
//
// G_t is kept as its eigendecomposition UΛUᵀ on its range (U k×r with
// orthonormal columns, Λ > 0): adding gg ᵀ is the Gram matrix of
// [Λ^{1/2}Uᵀ; gᵀ], the arrowhead [[Λ, Λ^{1/2}∘Uᵀg], [·, ‖g‖²]] of FD's
// shrink, decomposed by fd's O(r²) secular solver (Dsyev if it cannot
// vouch for its result) as WMWᵀ; then U ← [UΛ^{1/2}, g]·W·M^{−1/2}, one
// k×r×r product. Eigenvalues ≤ fd.EigTol·λ₁ count as 0 (rounding), as in
// the sketched learners.
type Full struct {
	cfg     Config
	loss    loss.Loss
	tab     *sparse.Table // per slot: β_j (mirror) or ḡ_j (dual); row i is row i of U
	lam     []float64     // the r positive eigenvalues of G_t, descending
	u       []float64     // U, k rows of stride, r live columns
	stride  int
	arrow   *linalg.Arrowhead
	t       float64
	dsyev   int // arrowheads the secular solver did not vouch for
	refused int // mirror-descent steps refused (out of range)
	limit   sparse.SlotCap

	// per-example scratch: the example's kept features (rows, values)
	rows          []int
	vals          []float64
	gs            []float64 // √h·ℓ′·x on the example's rows
	a, y, phi     []float64
	step          []float64 // mirror descent's change of β
	mu, w, tm, bv []float64
	unew          []float64
}

// NewFull returns an untrained ADA-FULL; cfg's Tau, Buffer and Epsilon are
// unused, its Precond must be Delta, and δ may be 0 (pseudo-inverse).
func NewFull(cfg Config, l loss.Loss) (*Full, error) {
	if err := cfg.validateFull(); err != nil {
		return nil, err
	}
	return &Full{cfg: cfg, loss: l, tab: sparse.NewTable(cfg.Bits, 1), arrow: linalg.NewArrowhead(16), limit: sparse.NewSlotCap(MaxFullSlots, cfg.Bits)}, nil
}

func (c Config) validateFull() error {
	if c.Bits < 1 || c.Bits > sparse.MaxBits {
		return fmt.Errorf("Config.Bits %d out of range 1..%d", c.Bits, sparse.MaxBits)
	}
	if c.Precond != Delta || c.Update != Mirror && c.Update != Dual {
		return errors.New("ada: ADA-FULL has the δ preconditioner and a mirror or dual update")
	}
	if !(c.Eta > 0) || math.IsInf(c.Eta, 0) {
		return fmt.Errorf("learning rate η (Config.Eta) must be positive and finite, got %v", c.Eta)
	}
	if !(c.Delta >= 0) || math.IsInf(c.Delta, 0) {
		return fmt.Errorf("Config.Delta must be finite and ≥ 0 (0: pseudo-inverse), got %v", c.Delta)
	}
	return nil
}

// rank is r.
func (f *Full) rank() int { return len(f.lam) }

// coefficients returns c and φ_i of H⁻¹ = c·I + U·diag(φ)·Uᵀ.
func (f *Full) coefficients() (c float64, phi []float64) {
	f.phi = grow(f.phi, f.rank())
	phi = f.phi
	d := f.cfg.Delta
	if d > 0 {
		c = 1 / d
	}
	for i, l := range f.lam {
		s := math.Sqrt(l)
		if d > 0 {
			phi[i] = -s / (d * (d + s))
		} else {
			phi[i] = 1 / s
		}
	}
	return c, phi
}

func grow(v []float64, n int) []float64 {
	if cap(v) < n {
		return make([]float64, n, 2*n)
	}
	return v[:n]
}

// look resolves ex's kept rows and their values (creating rows, within
// the cap, if create; unseen slots are left out otherwise: they
// contribute nothing).
func (f *Full) look(ex *sparse.Example, create bool) {
	f.rows, f.vals = f.rows[:0], f.vals[:0]
	for i, slot := range ex.Idx {
		if r := f.limit.Row(f.tab, slot, create); r >= 0 {
			f.rows = append(f.rows, r)
			f.vals = append(f.vals, ex.Val[i])
		}
	}
	if need := f.tab.Len() * f.stride; len(f.u) < need {
		// New slots are zero rows of U: G has no mass there yet.
		f.u = append(f.u, make([]float64, need-len(f.u))...)
	}
}

// score is βᵀx for the looked-up example.
func (f *Full) score() float64 {
	rows := f.tab.Rows
	var s float64
	for k, r := range f.rows {
		s += rows[r] * f.vals[k]
	}
	if f.cfg.Update == Mirror {
		return s
	}
	c, phi := f.coefficients()
	var q float64
	for k, r := range f.rows {
		ur := f.u[r*f.stride : r*f.stride+f.rank()]
		var v float64
		for i, x := range ur {
			v += x * phi[i] * f.y[i]
		}
		q += v * f.vals[k]
	}
	return -f.cfg.Eta * (c*s + q)
}

// Predict implements sparse.Learner.
func (f *Full) Predict(ex *sparse.Example) float64 {
	defer runtime.KeepAlive(f)
	f.look(ex, false)
	return ex.Initial + f.score()
}

// Learn implements sparse.Learner.
func (f *Full) Learn(ex *sparse.Example) float64 {
	defer runtime.KeepAlive(f)
	f.look(ex, true)
	pred := ex.Initial + f.score()
	h := ex.Weight
	d := f.loss.Deriv(pred, ex.Label)
	if !(h > 0) || !linalg.IsFinite(pred) || !linalg.IsFinite(d) {
		return pred
	}
	g := h * d
	rows := f.tab.Rows
	if f.cfg.Update == Dual {
		// ḡ_j stays within ±maxWeight, as the split learners' (the core's
		// Step): beyond it the example is refused and counted, before
		// anything changes.
		for k, r := range f.rows {
			if !(math.Abs(rows[r]+g*f.vals[k]) <= maxWeight) {
				f.refused++
				return pred
			}
		}
	}
	f.t++
	f.gs = grow(f.gs, len(f.rows))
	for k, x := range f.vals {
		f.gs[k] = math.Sqrt(h) * d * x
	}
	f.addOuter()
	if f.cfg.Update == Dual {
		for k, r := range f.rows {
			rows[r] += g * f.vals[k]
		}
		f.updateY()
		return pred
	}
	// β −= η(c·g + U·diag(φ)·Uᵀg), over every row of U.
	c, phi := f.coefficients()
	r := f.rank()
	a := grow(f.a, r)
	f.a = a
	clear(a)
	for k, row := range f.rows {
		linalg.Axpy(g*f.vals[k], f.u[row*f.stride:row*f.stride+r], a)
	}
	for i := range a {
		a[i] *= phi[i]
	}
	// The step is taken only if every weight stays within ±maxWeight
	// (as the split learners' core does, son/step.go): with absurd
	// rates or scales a step could otherwise write Inf into the model.
	eta := f.cfg.Eta
	f.step = grow(f.step, f.tab.Len())
	step := f.step
	for j := range step {
		step[j] = eta * linalg.Dot(f.u[j*f.stride:j*f.stride+r], a)
	}
	for k, row := range f.rows {
		step[row] += eta * c * g * f.vals[k]
	}
	for j, v := range step {
		if !(math.Abs(rows[j]-v) <= maxWeight) {
			f.refused++
			return pred
		}
	}
	for j, v := range step {
		rows[j] -= v
	}
	return pred
}

// Rejected counts the steps refused as numerically out of range (the
// CLI's end-of-run warning reads it).
func (f *Full) Rejected() int { return f.refused }

// maxWeight bounds |β_j| (son/step.go's bound).
const maxWeight = 1e140

// updateY recomputes y = Uᵀḡ (dual averaging), O(k·r).
func (f *Full) updateY() {
	r := f.rank()
	f.y = grow(f.y, r)
	clear(f.y)
	rows := f.tab.Rows
	for j := 0; j < f.tab.Len(); j++ {
		if gj := rows[j]; gj != 0 {
			linalg.Axpy(gj, f.u[j*f.stride:j*f.stride+r], f.y)
		}
	}
}

// addOuter adds gg ᵀ (g = f.gs on f.rows) to G = UΛUᵀ.
func (f *Full) addOuter() {
	r := f.rank()
	var kap float64
	for _, v := range f.gs[:len(f.rows)] {
		kap += v * v
	}
	if !(kap > 0) || math.IsInf(kap, 0) {
		return
	}
	// z = Λ^{1/2}∘Uᵀg.
	a := grow(f.a, r)
	f.a = a
	clear(a)
	for k, row := range f.rows {
		linalg.Axpy(f.gs[k], f.u[row*f.stride:row*f.stride+r], a)
	}
	for i := range a {
		a[i] *= math.Sqrt(f.lam[i])
	}
	n := r + 1
	f.mu = grow(f.mu, n)
	f.w = grow(f.w, n*n)
	if f.arrow.Cap() < r {
		f.arrow = linalg.NewArrowhead(max(2*f.arrow.Cap(), r))
	}
	if !f.arrow.Solve(f.lam, a, kap, f.mu, f.w) {
		f.dsyev++
		denseArrow(f.lam, a, kap, f.mu, f.w)
	}
	top := f.mu[0]
	if !(top > 0) {
		return
	}
	r2 := 0
	for r2 < n && f.mu[r2] > fd.EigTol*top {
		r2++
	}
	r2 = min(r2, f.tab.Len())
	// T (r×r2) = Λ^{1/2}·W_top·M^{−1/2}; bv (r2) = W_bottom·M^{−1/2}.
	f.tm = grow(f.tm, max(1, r*r2))
	f.bv = grow(f.bv, r2)
	for j := 0; j < r2; j++ {
		inv := 1 / math.Sqrt(f.mu[j])
		for i := 0; i < r; i++ {
			f.tm[i*r2+j] = math.Sqrt(f.lam[i]) * f.w[i*n+j] * inv
		}
		f.bv[j] = f.w[r*n+j] * inv
	}
	k := f.tab.Len()
	stride := max(f.stride, r2)
	if r2 > f.stride {
		// r2 ≤ k never exceeds the cap: a wider stride would only be
		// unused memory.
		stride = max(r2, min(max(2*f.stride, 8), f.limit.Max))
	}
	f.unew = grow(f.unew, k*stride)
	if r > 0 {
		A := blas64.General{Rows: k, Cols: r, Stride: f.stride, Data: f.u}
		B := blas64.General{Rows: r, Cols: r2, Stride: r2, Data: f.tm}
		C := blas64.General{Rows: k, Cols: r2, Stride: stride, Data: f.unew}
		blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, A, B, 0, C)
	} else {
		clear(f.unew)
	}
	for kk, row := range f.rows {
		linalg.Axpy(f.gs[kk], f.bv, f.unew[row*stride:row*stride+r2])
	}
	f.u, f.unew = f.unew, f.u
	f.stride = stride
	f.lam = append(f.lam[:0], f.mu[:r2]...)
}

// denseArrow decomposes the arrowhead with LAPACK (the fallback).
func denseArrow(d, z []float64, kap float64, lam, u []float64) {
	n := len(d) + 1
	S := mat.NewSymDense(n, nil)
	for i, v := range d {
		S.SetSym(i, i, v)
		S.SetSym(i, n-1, z[i])
	}
	S.SetSym(n-1, n-1, kap)
	var es mat.EigenSym
	if !es.Factorize(S, true) {
		clear(lam[:n])
		return
	}
	w := es.Values(nil)
	var V mat.Dense
	es.VectorsTo(&V)
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return w[idx[a]] > w[idx[b]] })
	for j, src := range idx {
		lam[j] = w[src]
		for i := 0; i < n; i++ {
			u[i*n+j] = V.At(i, src)
		}
	}
}

// Weights implements sparse.Learner.
func (f *Full) Weights(fn func(slot uint32, w float64)) {
	defer runtime.KeepAlive(f)
	rows := f.tab.Rows
	if f.cfg.Update == Mirror {
		for j, key := range f.tab.Keys {
			fn(key, rows[j])
		}
		return
	}
	c, phi := f.coefficients()
	r := f.rank()
	v := make([]float64, r)
	for i := range v {
		v[i] = phi[i] * f.y[i]
	}
	for j, key := range f.tab.Keys {
		fn(key, -f.cfg.Eta*(c*rows[j]+linalg.Dot(f.u[j*f.stride:j*f.stride+r], v)))
	}
}

// Save implements sparse.Learner.
func (f *Full) Save(w *model.Writer) error {
	defer runtime.KeepAlive(f)
	k, r := f.tab.Len(), f.rank()
	w.Float64(f.t)
	w.Uint64(uint64(f.dsyev))
	w.Float64s(f.lam)
	w.Float64sLen(k * r)
	for j := range k {
		w.Float64sPart(f.u[j*f.stride : j*f.stride+r])
	}
	w.Uint32s(f.tab.Keys)
	w.Float64s(f.tab.Rows)
	return nil
}

// LoadFull restores an ADA-FULL saved by Save; cfg must be the model's.
func LoadFull(r *model.Reader, cfg Config, l loss.Loss) (*Full, error) {
	f, err := NewFull(cfg, l)
	if err != nil {
		return nil, err
	}
	f.t = r.Float64()
	f.dsyev = int(r.Uint64())
	lam := r.Float64s(nil)
	u := r.Float64s(nil)
	f.tab.Keys = r.Uint32s(nil)
	f.tab.Rows = r.Float64s(nil)
	if err := r.Done(); err != nil {
		return nil, err
	}
	k, rk := len(f.tab.Keys), len(lam)
	if rk > k || len(u) != k*rk || !(f.t >= 0) || f.dsyev < 0 || k > f.limit.Max {
		return nil, fmt.Errorf("%w: ADA-FULL state of rank %d over %d slots", model.ErrCorrupt, rk, k)
	}
	if err := f.tab.Rebuild(); err != nil {
		return nil, fmt.Errorf("%w: %v", model.ErrCorrupt, err)
	}
	for _, part := range [][]float64{lam, u, f.tab.Rows} {
		for _, v := range part {
			if !linalg.IsFinite(v) {
				return nil, fmt.Errorf("%w: non-finite ADA-FULL state", model.ErrCorrupt)
			}
		}
	}
	for i, v := range lam {
		if !(v > 0) || i > 0 && v > lam[i-1] {
			return nil, fmt.Errorf("%w: ADA-FULL eigenvalues not positive and descending", model.ErrCorrupt)
		}
	}
	f.lam, f.u, f.stride = lam, u, rk
	if cfg.Update == Dual {
		f.updateY()
	}
	return f, nil
}

// Ignored implements sparse.Capped: the occurrences in training of the
// slots refused beyond MaxFullSlots.
func (f *Full) Ignored() sparse.Ignored { return f.limit.Ignored("ADA-FULL") }

// Report implements sparse.Reporter.
func (f *Full) Report(w io.Writer) {
	defer runtime.KeepAlive(f)
	sparse.ReportSpectrum(w, "eigenvalues of G_t", f.lam[:min(len(f.lam), 20)], 0)
	fmt.Fprintf(w, "ADA-FULL: rank %d over %d slots, arrowheads decomposed by Dsyev = %d, steps refused = %d\n", f.rank(), f.tab.Len(), f.dsyev, f.refused)
	if ig := f.Ignored(); ig.Occurrences > 0 {
		fmt.Fprintln(w, ig.Line("-b"))
	}
}
