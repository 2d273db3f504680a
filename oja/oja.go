// Package oja is the sparse Oja sketch of Haipeng Luo, Alekh Agarwal,
// Nicolò Cesa-Bianchi and John Langford, "Efficient Second Order Online
// Learning by Sketching", NIPS 2016: Oja's streaming eigenvector update (Eq. 4, Alg. 3) kept in the
// factored form V = F·Z of Alg. 5, so that each example costs O(ms + m²)
// (the Decompose step in the O(m²) semiseparable-Cholesky form of
// docs/algorithms.md §3) and only the rare re-basing touches every seen feature.
//
// Initialisation. Alg. 3 starts from any V with orthonormal rows. A dense
// random V over all 2^b slots costs O(m·2^b) time and memory — the reason
// VW's OjaNewton slows down with -b — and a fixed coordinate basis e₁…e_m
// never moves when those features are absent. We start with no rows and
// append, while fewer than m rows exist, the component of each to-sketch
// vector ĝ_t orthogonal to the rows so far (normalised; only when it holds
// at least 10⁻⁴ of ‖ĝ_t‖²). The rows span the first gradients — exactly
// where the top eigenvectors of Σĝĝᵀ are sought — every Z column of a
// feature never seen stays zero, nothing sweeps the hash space, and the
// result is deterministic (no randomness at all, whatever --random_seed).
// Rows not yet appended carry Λ = 0, so S = (tΛ)^{1/2}V has the same
// meaning as in Alg. 3 throughout.
package oja

import (
	"fmt"
	"io"
	"math"
	"sort"

	"github.com/sparseson/sparseson/internal/linalg"
	"github.com/sparseson/sparseson/model"
	"github.com/sparseson/sparseson/sparse"
	"gonum.org/v1/gonum/mat"
)

// Config tunes the sketch.
type Config struct {
	M     int     // sketch size m
	Alpha float64 // α of A_t = αI + SᵀS
	// Rate scales the step Γ_t = min(Rate/t, 1)·I; the paper's 1/t is Rate 1.
	Rate float64
	// StepCap bounds the rotation an example can cause: V's step is
	// γ_t = min(Γ_t, StepCap/‖ĝ_t‖²) (Λ keeps Γ_t, so E = tΛ stays the
	// accumulated energy). 0 means DefaultStepCap; +Inf disables it.
	StepCap float64
	// Theta bounds the condition estimate ‖K‖_F·‖F‖_F² before re-basing
	// (docs/algorithms.md §3; 1e4 was verified).
	Theta float64
	// Cholesky selects the O(m³) Decompose (Cholesky of FKFᵀ) instead of
	// the O(m²) semiseparable one; they agree, the flag exists for tests.
	Cholesky bool
}

// DefaultTheta is the re-basing threshold verified in docs/algorithms.md §10.
const DefaultTheta = 1e4

// Bounds on κ = ‖ĝ‖² of an update (fd's): outside them ĝ counts as zero.
const (
	minKappa = 1e-200
	maxKappa = 1e200
)

// DefaultStepCap bounds γ_t‖ĝ_t‖², Oja's effective step. Oja's rule is a
// stable rotation only while γ‖ĝ‖² stays well below 1; with Γ_t = 1/t and
// large gradients (ill-conditioned data, early rounds) a single example
// otherwise replaces the leading row by itself, and the subspace thrashes
// until 1/t has decayed enough — longer the larger the data's scale. On
// the Luo et al. (NIPS 2016), §5.1 benchmark (m = 10) the cap took the spread of the
// progressive error over κ = 10…200 from 1.3 to about 0.5 pp (0.15–0.25
// were equally good; 0.05 was too slow). Since ‖ĝ_t‖ is bounded, the cap
// stops binding once 1/t is small, so Γ stays Θ(1/t) as Alg. 3 asks.
const DefaultStepCap = 0.25

// appendFrac is the share of ‖ĝ‖² that must lie outside the current rows
// for a warm-up row to be appended.
const appendFrac = 1e-4

// Sketch is the sparse Oja sketch. F is p×p lower triangular with positive
// diagonal and FKFᵀ = I, so V = FZ is the Gram–Schmidt of Z's rows.
type Sketch struct {
	cfg     Config
	p       int
	t       float64
	F, K    []float64 // m×m row-major; only the leading p×p block is live
	lam     []float64 // Λ
	rebases int
	knorm   float64 // ‖K‖_F at the last condition check
	alpha   float64 // α (Config.Alpha unless the SON core sets it)

	v, u, y, delta, acc, az []float64 // scratch

	// F·z as MulM last formed it, for that z (fzz): in the scaled form the
	// core's step multiplies z by F in MulM and the update then does again
	// (line 1), with F unchanged between them, since only Update, Load and
	// Merge change F, and each drops the memo.
	fzv, fzz []float64
	fzP      int
	fzOK     bool
}

// New returns an empty sketch.
func New(cfg Config) (*Sketch, error) {
	if cfg.M < 1 || cfg.M > 64 {
		return nil, fmt.Errorf("oja: sketch size m = %d out of range 1..64", cfg.M)
	}
	if !(cfg.Alpha > 0) || math.IsInf(cfg.Alpha, 0) {
		return nil, fmt.Errorf("oja: α must be positive and finite, got %v", cfg.Alpha)
	}
	if !(cfg.Rate > 0) || math.IsInf(cfg.Rate, 0) {
		return nil, fmt.Errorf("oja: oja.Config.Rate must be positive, got %v", cfg.Rate)
	}
	if cfg.Theta == 0 {
		cfg.Theta = DefaultTheta
	}
	if cfg.StepCap == 0 {
		cfg.StepCap = DefaultStepCap
	}
	if !(cfg.StepCap > 0) {
		return nil, fmt.Errorf("oja: step cap must be positive, got %v", cfg.StepCap)
	}
	m := cfg.M
	return &Sketch{
		cfg: cfg, alpha: cfg.Alpha, F: make([]float64, m*m), K: make([]float64, m*m), lam: make([]float64, m),
		v: make([]float64, m), u: make([]float64, m), y: make([]float64, m),
		delta: make([]float64, m), acc: make([]float64, m), az: make([]float64, m),
		fzv: make([]float64, m), fzz: make([]float64, m),
	}, nil
}

func (o *Sketch) Name() string      { return "oja" }
func (o *Sketch) MaxRows() int      { return o.cfg.M }
func (o *Sketch) Rows() int         { return o.p }
func (o *Sketch) Alpha() float64    { return o.alpha }
func (o *Sketch) Rebases() int      { return o.rebases }
func (o *Sketch) Config() Config    { return o.cfg }
func (o *Sketch) T() float64        { return o.t }
func (o *Sketch) Lambda() []float64 { return o.lam[:o.p] }

// fz sets dst = F·z (lower triangular, p×p).
func (o *Sketch) fz(dst, z []float64) {
	m := o.cfg.M
	for i := range dst {
		dst[i] = linalg.Dot(o.F[i*m:i*m+i+1], z[:i+1])
	}
}

// ftz sets dst = Fᵀ·y.
func (o *Sketch) ftz(dst, y []float64) {
	m := o.cfg.M
	clear(dst)
	for i, yi := range y {
		if yi == 0 {
			continue
		}
		row := o.F[i*m : i*m+i+1]
		for j, f := range row {
			dst[j] += f * yi
		}
	}
}

// SetAlpha implements sparse.Sketch; α only enters H, so this is O(1).
func (o *Sketch) SetAlpha(a float64) { o.alpha = a }

// Captured implements sparse.Sketch: Σ tΛ_i.
func (o *Sketch) Captured() (v float64) {
	for _, l := range o.lam[:o.p] {
		v += o.t * l
	}
	return v
}

// Rank implements sparse.Sketch: the rows so far.
func (o *Sketch) Rank() int { return o.p }

// MulM sets dst = Fᵀ·diag(E/(α+E))·F·z with E = tΛ.
func (o *Sketch) MulM(dst, z []float64) {
	p := o.p
	y := o.y[:p]
	o.fz(y, z)
	copy(o.fzv[:p], y)
	copy(o.fzz[:p], z[:p])
	o.fzP, o.fzOK = p, true
	for i := range y {
		e := o.t * o.lam[i]
		y[i] *= e / (o.alpha + e)
	}
	o.ftz(dst[:p], y)
}

// MulPinv and MulProj belong to the α = 0 regime, which Oja (α > 0) never
// enters; they are defined on the live rows for completeness.
func (o *Sketch) MulPinv(dst, z []float64) { o.mulLive(dst, z, true) }
func (o *Sketch) MulProj(dst, z []float64) { o.mulLive(dst, z, false) }

func (o *Sketch) mulLive(dst, z []float64, inv bool) {
	p := o.p
	y := o.y[:p]
	o.fz(y, z)
	for i := range y {
		e := o.t * o.lam[i]
		switch {
		case !(e > 0):
			y[i] = 0
		case inv:
			y[i] /= e
		}
	}
	o.ftz(dst[:p], y)
}

// Update is Alg. 5's SketchUpdate for ĝ = c·x̃ with scalar steps: Γ_t for
// Λ and the capped γ_t (see DefaultStepCap) for V.
func (o *Sketch) Update(st *sparse.Step, h sparse.Host) {
	memo := o.fzOK
	o.fzOK = false
	o.t++
	lgam := math.Min(o.cfg.Rate/o.t, 1)
	c, n := st.C, st.N
	// ĝ with ‖ĝ‖² outside [minKappa, maxKappa] counts as zero, as in FD:
	// a denormal gradient would append a row scaled by 1/‖ĝ‖ = Inf, a huge
	// one overflow K.
	if kap := c * c * n; c == 0 || !(n > 0) || !(kap >= minKappa && kap <= maxKappa) {
		for i := range o.lam[:o.p] {
			o.lam[i] *= 1 - lgam
		}
		return
	}
	gam := lgam
	if e := c * c * n; gam*e > o.cfg.StepCap {
		gam = o.cfg.StepCap / e
	}
	m := o.cfg.M
	if o.p < m {
		o.maybeAppend(st, h)
	}
	p := o.p
	z := st.Z[:p]
	// Line 1: v = V ĝ = c·F z, Λ ← (1−Γ)Λ + Γ v∘v.
	v := o.v[:p]
	if memo && o.fzP == p && sameBits(o.fzz[:p], z) {
		copy(v, o.fzv[:p])
	} else {
		o.fz(v, z)
	}
	for i := range v {
		v[i] *= c
		o.lam[i] = (1-lgam)*o.lam[i] + lgam*v[i]*v[i]
	}
	// Line 2 (scalar Γ): δ = F⁻¹Γ V ĝ = γ c z; a = Zĝ = c z; κ = ‖ĝ‖².
	delta := o.delta[:p]
	kap := c * c * n
	a := o.az[:p] // a = c·z, formed once rather than once per entry of K
	for i := range delta {
		delta[i] = gam * c * z[i]
		a[i] = c * z[i]
	}
	for i := 0; i < p; i++ {
		ai, di, kdi := a[i], delta[i], kap*delta[i]
		row := o.K[i*m : i*m+p]
		for j, aj := range a {
			row[j] += di*aj + ai*delta[j] + kdi*delta[j]
		}
	}
	// Line 3: Z ← Z + δĝᵀ (the Host keeps w fixed and z current).
	h.Absorb(delta)
	// Line 4: Decompose. FKFᵀ = I + βvvᵀ with β = 2γ + γ²κ.
	beta := 2*gam + gam*gam*kap
	if o.cfg.Cholesky {
		o.decomposeCholesky(h)
	} else {
		u := o.u[:p]
		sb := math.Sqrt(beta)
		for i := range u {
			u[i] = sb * v[i]
		}
		o.decomposeRankOne(u)
	}
	// condition sums the squares of K and F, so it is not finite when
	// they are not; Λ is checked apart (O(p)).
	if c := o.condition(); !(c <= o.cfg.Theta) || !linalg.AllFinite(o.lam[:o.p]) {
		if !o.finite() {
			// Overflowed (a loaded state at the edge of the float64
			// range): nothing of it can be rebased.
			h.Fold()
			o.reset(h)
		} else {
			o.rebase(h)
		}
		o.condition()
	}
}

// sameBits reports whether a and b (of one length) hold the same bits.
func sameBits(a, b []float64) bool {
	for i, x := range a {
		if math.Float64bits(x) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

// maybeAppend adds the part of ĝ outside the current rows as a new row
// while the sketch has fewer than m rows (see the package comment).
func (o *Sketch) maybeAppend(st *sparse.Step, h sparse.Host) {
	p, m := o.p, o.cfg.M
	c, n := st.C, st.N
	z := st.Z[:p]
	w := o.v[:p]
	o.fz(w, z) // V x̃
	resid := n - linalg.Dot(w, w)
	if !(resid > appendFrac*n) {
		return
	}
	// New row of V: (ĝ − VᵀVĝ)/ρ, ρ² = c²·resid, i.e. F_p = [−(FᵀFa)ᵀ, 1]/ρ
	// with a = Zĝ = c z.
	rho := math.Abs(c) * math.Sqrt(resid)
	y := o.y[:p]
	o.ftz(y, w) // FᵀF z
	row := o.F[p*m : p*m+m]
	clear(row)
	for j := range y {
		row[j] = -c * y[j] / rho
	}
	row[p] = 1 / rho
	for j := 0; j < p; j++ {
		o.K[p*m+j] = c * z[j]
		o.K[j*m+p] = c * z[j]
	}
	o.K[p*m+p] = c * c * n
	o.lam[p] = 0
	h.Append()
	o.p++
}

// decomposeRankOne sets F ← L⁻¹F where LLᵀ = I + uuᵀ, in O(p²) using the
// semiseparable structure of L (docs/algorithms.md §3): L_kk = c_k, L_ik = u_i·q_k.
func (o *Sketch) decomposeRankOne(u []float64) {
	m, p := o.cfg.M, o.p
	acc := o.acc[:p] // Σ_{j<k} q_j F′_j
	clear(acc)
	pi := 1.0
	for k := 0; k < p; k++ {
		ck := math.Sqrt(1 + pi*u[k]*u[k])
		qk := pi * u[k] / ck
		pi /= ck * ck
		row := o.F[k*m : k*m+k+1]
		for j := range row {
			row[j] = (row[j] - u[k]*acc[j]) / ck
		}
		for j, f := range row {
			acc[j] += qk * f
		}
	}
}

// decomposeCholesky sets F ← chol(FKFᵀ)⁻¹F directly, O(p³).
func (o *Sketch) decomposeCholesky(h sparse.Host) {
	p := o.p
	G := mat.NewSymDense(p, nil)
	Fm := o.fMat()
	var t mat.Dense
	t.Mul(Fm, o.kMat())
	var g mat.Dense
	g.Mul(&t, Fm.T())
	for i := 0; i < p; i++ {
		for j := i; j < p; j++ {
			G.SetSym(i, j, (g.At(i, j)+g.At(j, i))/2)
		}
	}
	Li, ok := invChol(G)
	if !ok {
		o.rebase(h) // (which resets the sketch if that fails too)
		return
	}
	var nf mat.Dense
	nf.Mul(Li, Fm)
	o.setF(&nf)
}

// ZNorm2 implements sparse.Sketch: ‖K‖_F ≥ ‖Z‖₂², as computed by the
// last condition check.
func (o *Sketch) ZNorm2() float64 { return o.knorm }

// condition is κ̂ = ‖K‖_F·‖F‖_F², an O(p²) upper bound on cond(K).
func (o *Sketch) condition() float64 {
	m, p := o.cfg.M, o.p
	var k2, f2 float64
	for i := 0; i < p; i++ {
		for _, v := range o.K[i*m : i*m+p] {
			k2 += v * v
		}
		for _, v := range o.F[i*m : i*m+i+1] {
			f2 += v * v
		}
	}
	o.knorm = math.Sqrt(k2)
	return o.knorm * f2
}

// rebase keeps V = FZ and w fixed while resetting the growth of Z:
// fold b into w̄, Z ← FZ, K ← ZZᵀ recomputed, F ← chol(K)⁻¹ (§3).
func (o *Sketch) rebase(h sparse.Host) {
	p, m := o.p, o.cfg.M
	o.rebases++
	h.Fold()
	T := make([]float64, p*p)
	for i := 0; i < p; i++ {
		copy(T[i*p:i*p+p], o.F[i*m:i*m+p])
	}
	gram := make([]float64, p*p)
	h.Transform(T, p, gram)
	for i := 0; i < p; i++ {
		copy(o.K[i*m:i*m+p], gram[i*p:i*p+p])
	}
	G := mat.NewSymDense(p, nil)
	for i := 0; i < p; i++ {
		for j := i; j < p; j++ {
			G.SetSym(i, j, gram[i*p+j])
		}
	}
	Li, ok := invChol(G)
	if !ok {
		o.reset(h)
		return
	}
	o.setF(Li)
}

// reset empties a numerically broken sketch: Z's rows were orthonormal
// combinations of the old ones, so a Gram matrix that is no longer
// positive definite (or no longer finite: gradients near the float64
// range without pre-scaling) means they have lost all meaning. b is
// already folded into w̄, so the weights are kept; the sketch restarts
// from no rows, as at the first example.
func (o *Sketch) reset(h sparse.Host) {
	h.Transform(nil, 0, nil)
	o.p = 0
	clear(o.F)
	clear(o.K)
	clear(o.lam)
}

// OrthoBasis implements sparse.BasisSketch: V = F·Z has orthonormal rows.
func (o *Sketch) OrthoBasis() ([]float64, int, int, bool) {
	return o.F, o.p, o.cfg.M, true
}

// finite reports whether the live state is finite.
func (o *Sketch) finite() bool {
	m, p := o.cfg.M, o.p
	for i := 0; i < p; i++ {
		for _, v := range o.F[i*m : i*m+p] {
			if v-v != 0 {
				return false
			}
		}
		for _, v := range o.K[i*m : i*m+p] {
			if v-v != 0 {
				return false
			}
		}
		if v := o.lam[i]; v-v != 0 {
			return false
		}
	}
	return true
}

// invChol returns L⁻¹ for the Cholesky factor L of G, or false if G is not
// numerically positive definite.
func invChol(G *mat.SymDense) (*mat.TriDense, bool) {
	var ch mat.Cholesky
	if !ch.Factorize(G) {
		return nil, false
	}
	var L, Li mat.TriDense
	ch.LTo(&L)
	if err := Li.InverseTri(&L); err != nil {
		return nil, false
	}
	for _, v := range Li.RawTriangular().Data {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, false
		}
	}
	return &Li, true
}

func (o *Sketch) fMat() *mat.Dense {
	p, m := o.p, o.cfg.M
	F := mat.NewDense(p, p, nil)
	for i := 0; i < p; i++ {
		for j := 0; j <= i; j++ {
			F.Set(i, j, o.F[i*m+j])
		}
	}
	return F
}

func (o *Sketch) kMat() *mat.Dense {
	p, m := o.p, o.cfg.M
	K := mat.NewDense(p, p, nil)
	for i := 0; i < p; i++ {
		for j := 0; j < p; j++ {
			K.Set(i, j, o.K[i*m+j])
		}
	}
	return K
}

func (o *Sketch) setF(F mat.Matrix) {
	p, m := o.p, o.cfg.M
	for i := 0; i < p; i++ {
		for j := 0; j < m; j++ {
			v := 0.0
			if j <= i {
				v = F.At(i, j)
			}
			o.F[i*m+j] = v
		}
	}
}

// Save implements sparse.Sketch.
func (o *Sketch) Save(w *model.Writer) {
	w.Uint32(uint32(o.p))
	w.Uint64(uint64(o.rebases))
	w.Float64(o.t)
	w.Float64s(o.F)
	w.Float64s(o.K)
	w.Float64s(o.lam)
}

// Load implements sparse.Sketch; the Config must be the saved model's.
func (o *Sketch) Load(r *model.Reader) error {
	o.fzOK = false
	m := o.cfg.M
	p := int(r.Uint32())
	o.rebases = int(r.Uint64())
	o.t = r.Float64()
	o.F = r.Float64s(o.F)
	o.K = r.Float64s(o.K)
	o.lam = r.Float64s(o.lam)
	if r.Err() != nil {
		return r.Err()
	}
	if p > m || len(o.F) != m*m || len(o.K) != m*m || len(o.lam) != m || !(o.t >= 0) {
		return fmt.Errorf("%w: Oja sketch state does not fit m = %d", model.ErrCorrupt, m)
	}
	for _, s := range [][]float64{o.F, o.K, o.lam} {
		for _, v := range s {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("%w: non-finite Oja sketch state", model.ErrCorrupt)
			}
		}
	}
	o.p = p
	o.condition()
	return nil
}

// Report implements sparse.Sketch.
func (o *Sketch) Report(w io.Writer, sumG2 float64) {
	e := make([]float64, o.p)
	for i := range e {
		e[i] = o.t * o.lam[i]
	}
	sort.Sort(sort.Reverse(sort.Float64Slice(e)))
	fmt.Fprintf(w, "sketch = oja, m = %d, rows = %d, updates = %.0f, re-basings = %d\n", o.cfg.M, o.p, o.t, o.rebases)
	share := sparse.ReportSpectrum(w, "top eigenvalue estimates (tΛ)", e, sumG2)
	fmt.Fprintf(w, "share of Σ‖ĝ‖² captured = %.4f (Σ‖ĝ‖² = %.6g)\n", share, sumG2)
}

// FK returns copies of the live p×p blocks of F and K (row-major).
func (o *Sketch) FK() (F, K []float64, p int) {
	p, m := o.p, o.cfg.M
	F, K = make([]float64, p*p), make([]float64, p*p)
	for i := 0; i < p; i++ {
		copy(F[i*p:i*p+p], o.F[i*m:i*m+p])
		copy(K[i*p:i*p+p], o.K[i*m:i*m+p])
	}
	return F, K, p
}
