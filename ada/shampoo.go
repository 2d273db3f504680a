package ada

import (
	"fmt"
	"io"
	"math"
	"runtime"

	"github.com/sparseson/sparseson/fd"
	"github.com/sparseson/sparseson/internal/linalg"
	"github.com/sparseson/sparseson/model"
	"github.com/sparseson/sparseson/son"
	"github.com/sparseson/sparseson/sparse"
)

// Shampoo is FTSL-Shampoo (Yang et al. (ICML 2025), Alg. 5: S. Yang, Y. Wan, P. Li, Y. Wang,
// X. Zhang, Z. Wei, L. Zhang, "Dimension-Free Adaptive Subgradient Methods
// with Frequent Directions", ICML 2025, §4.3, Alg. 5 with Alg. 4 for both
// factors, update Eq. (3)) for the K×d weight matrix W of multinomial
// logistic regression: scores s = Wx, p = softmax(s), loss −log p_y with
// y ∈ 1…K, gradient the rank-one G_t = (p − e_y)xᵀ. Primal-dual:
//
//	Ḡ_t = Σ_{s≤t} G_s,
//	L_t = L̂_tL̂_tᵀ + (ε + ρL_{1:t})I_K,  R_t = R̂_tR̂_tᵀ + (ε + ρR_{1:t})I_d,
//	W_{t+1} = −η·L_t^{−1/4}·Ḡ_t·R_t^{−1/4}                          (Eq. 3),
//
// where L̂ is Alg. 4 (Frequent Directions in general form, escaped mass
// ρL) on M = G_tG_tᵀ and R̂ on M = G_tᵀG_t. ε > 0 makes L and R invertible
// from the first example. An importance weight h counts as h copies of the
// example. With sketch sizes τ_L ≥ K and τ_R ≥ d this is full-matrix
// Shampoo in its primal-dual form (Alg. 4 with τ ≥ n keeps the exact sum:
// B_tB_tᵀ + ρ_{1:t}I = Σ M_s, the shrink by λ_τ moved whole into ρ, or
// nothing shrunk when τ > n).
//
// Under ShampooConfig.Diag (model option shampoo_diag, the CLI's default
// under --ada_scale auto) R^{−1/4} is completed per coordinate and the
// left factor taken per example with η/√N (shampoo_diag.go): on sparse
// text both factors' global scales starve the rare words.
//
// # Both factors are rank-one updates
//
// G_tG_tᵀ = ‖x‖²·aaᵀ and G_tᵀG_t = ‖a‖²·xxᵀ with a = p − e_y: the left
// factor sees v = √h‖x‖·a (dense, K), the right ĝ = √h‖a‖·x (sparse, the
// example's s features). The right factor is package fd's sparse sketch —
// FD with τ = m rows, shrunk by λ_m, ρ_t = λ_m (SumRho) — on the SON
// core's split table (son.Split), exactly as FTSL's sketch (ada.go);
// R̂R̂ᵀ = VᵀΛV with V = FZ and Z p×d sparse. The left factor is K×K and
// dense (leftFD): Alg. 4 by a rank-one eigen-update, O(K·τ_L²), or kept
// exactly (τ_L = 0, --shampoo_exact_left: equal to Alg. 4 with τ_L > K).
//
// # Sparse form (the derivation)
//
// For any f with f(0) = 0, f(SᵀS) = Zᵀ·Q_f·Z with Q_f the p×p matrix of
// fd.Sketch.MulSpectral (spectral.go). With r_R = ε + ρR_{1:t}:
//
//	R^{−1/4} = r_R^{−1/4}·I + Zᵀ·Q·Z,  Q = Q_f for f(λ) = (λ+r_R)^{−1/4} − r_R^{−1/4},
//
// so for an example x (z = Z·x, O(ps)):
//
//	Ḡ·R^{−1/4}·x = r_R^{−1/4}·Ḡx + Ḡ·Zᵀ·(Q·z) = r_R^{−1/4}·Ḡx + Yᵀ·(Q·z),
//
// with Y = Z·Ḡᵀ (p×K). Ḡx = Σ_{j∈I} x_j·Ḡ_{:,j} reads only the example's K·s
// entries of Ḡ, kept per feature beside the split table (ExampleRows);
// Yᵀ(Qz) is O(pK). Then s = −η·L^{−1/4}·(that K-vector) with
// L^{−1/4} = r_L^{−1/4}I + U·diag(φ)·Uᵀ over the left factor's
// eigenvectors, O(K·τ_L). No step visits a feature outside the example.
//
// Y is Ḡ's product with the right sketch's basis, carried through every
// change of either — docs/algorithms.md §7's dual-averaging trick applied with a
// K-dimensional ḡ (the Split's own y = Z·β̄ is scalar). With u = Ḡ_{t−1}x
// and ĝ = c·x:
//
//	absorb   Z ← Z + δĝᵀ:   Y ← Y + δ·(ĝᵀḠᵀ) = Y + c·δ·uᵀ        O(pK)
//	append   Z ← [Z; ĝᵀ]:   Y ← [Y; c·uᵀ]                           O(K)
//	compact  Z ← T·Z:       Y ← T·Y                                 O(p²K)
//	step     Ḡ ← Ḡ + h·axᵀ: Y ← Y + (Z_t x)·(h·a)ᵀ                  O(pK)
//
// (son.Observed reports the first three as the sketch makes them; the
// core's deferred compactions of Z's columns, son/lazy.go, do not
// touch Ḡ, which no transform of Z changes.) The softmax's gradient has
// 1ᵀa = 0, so every column of Ḡ and every v is orthogonal to the all-ones
// vector: L̂L̂ᵀ has rank ≤ K − 1 and ε alone acts on that direction, which
// no score difference sees.
//
// # Cost
//
// Per example: O(ps + Ks) for z and Ḡx and the step on Ḡ's K·s entries,
// O(pK + p²) for Yᵀ(Qz) and Y's updates, O(K·τ_L²) for the left factor
// (O(K²·K) exact), and the right sketch's own work as in FTSL (O(m²) per
// shrink, O(p·m²) for the absorb, amortized compactions at O(p²K) here plus
// the core's deferred column updates). Memory: K floats of Ḡ per feature
// seen beside FTSL's row of 1 + p_max, Y (p_max·K), the left factor
// K·(τ_L + 1).
type Shampoo struct {
	cfg   ShampooConfig
	k     int
	sk    *fd.Sketch
	sp    *son.Split
	obs   *son.Observed
	gbar  []float64 // Ḡ: column j of Ḡ (K values) at row j of the split table
	left  *leftFD
	track yTracker
	t     float64 // Σ importance of the examples learned
	// bound is an upper bound on every |Ḡ_kj|: Σ_t h_t·max_j|x_tj| (|a_k| ≤ 1).
	bound   float64
	refused int64 // examples not learned because Ḡ or ‖G‖ would overflow
	// Under Diag: R_jj = Σ h‖a‖²x_j² per feature (at the split row, as Ḡ)
	// and nsum = Σ h‖x‖² over the examples learned.
	rjj  []float64
	nsum float64

	// per-example scratch
	rows   []int
	u      []float64 // Ḡ_{t−1}x
	s, p   []float64 // scores, probabilities
	a, v   []float64 // p − e_y, then √h‖x‖(p − e_y)
	tk     []float64 // Ḡ·R^{−1/4}·x
	phi    []float64 // left φ
	wr     []float64 // right weights φ(λ)/λ
	qz, yl []float64 // Q·z, Y·ℓ
	hav    []float64 // h·a
}

// ShampooConfig configures FTSL-Shampoo.
type ShampooConfig struct {
	Bits    uint // hash bits (-b)
	Classes int  // K
	// Tau is the right factor's sketch size τ_R (fd's m: τ − 1 rows after
	// every shrink).
	Tau int
	// LeftTau is the left factor's sketch size τ_L; 0 keeps L exactly
	// (--shampoo_exact_left), as does any τ_L > K.
	LeftTau int
	Eta     float64 // η (-l)
	// Epsilon is ε > 0 of L = L̂L̂ᵀ + (ε + ρL)I and R = R̂R̂ᵀ + (ε + ρR)I.
	Epsilon float64
	// Diag completes R^{−1/4} per coordinate and takes the left factor
	// per example with η/√N (shampoo_diag.go; model option shampoo_diag).
	Diag bool
}

// MaxShampooClasses bounds K: the left factor is K×K.
const MaxShampooClasses = 4096

// Validate checks the configuration.
func (c ShampooConfig) Validate() error {
	switch {
	case c.Bits < 1 || c.Bits > sparse.MaxBits:
		return fmt.Errorf("ShampooConfig.Bits %d out of range 1..%d", c.Bits, sparse.MaxBits)
	case c.Classes < 2 || c.Classes > MaxShampooClasses:
		return fmt.Errorf("FTSL-Shampoo: the number of classes must be in 2..%d, got %d", MaxShampooClasses, c.Classes)
	case c.Tau < 1 || c.Tau > MaxTau:
		return fmt.Errorf("FTSL-Shampoo: sketch size τ (ShampooConfig.Tau) = %d out of range 1..%d", c.Tau, MaxTau)
	case c.LeftTau < 0 || c.LeftTau > MaxTau:
		return fmt.Errorf("FTSL-Shampoo: left sketch size %d out of range 0..%d", c.LeftTau, MaxTau)
	case !(c.Eta > 0) || math.IsInf(c.Eta, 0):
		return fmt.Errorf("learning rate η (ShampooConfig.Eta) must be positive and finite, got %v", c.Eta)
	case !(c.Epsilon > 0) || math.IsInf(c.Epsilon, 0):
		return fmt.Errorf("FTSL-Shampoo needs ε > 0 (ShampooConfig.Epsilon) so that L and R are invertible; got %v", c.Epsilon)
	}
	return nil
}

// sketchConfig is the right factor's sketch: FTSL's (raw ĝ, τ = m rows,
// ρ = λ_m); α only shapes fd's unused SON products.
func (c ShampooConfig) sketchConfig() fd.Config { return fd.Config{M: c.Tau, Alpha: 1} }

// ShampooRowCap is the most rows Z has for the configuration.
func ShampooRowCap(c ShampooConfig) int { return fd.DefaultRowCap(c.Tau, false) }

// NewShampoo returns an untrained FTSL-Shampoo.
func NewShampoo(cfg ShampooConfig) (*Shampoo, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	sk, err := fd.New(cfg.sketchConfig())
	if err != nil {
		return nil, err
	}
	sp, err := son.NewSplit(cfg.Bits, sk)
	if err != nil {
		return nil, err
	}
	return newShampoo(cfg, sk, sp), nil
}

func newShampoo(cfg ShampooConfig, sk *fd.Sketch, sp *son.Split) *Shampoo {
	k, pm := cfg.Classes, sk.MaxRows()
	m := &Shampoo{cfg: cfg, k: k, sk: sk, sp: sp, left: newLeftFD(k, cfg.LeftTau),
		u: make([]float64, k), s: make([]float64, k), p: make([]float64, k),
		a: make([]float64, k), v: make([]float64, k), tk: make([]float64, k),
		hav: make([]float64, k), phi: make([]float64, k),
		wr: make([]float64, cfg.Tau), qz: make([]float64, pm), yl: make([]float64, pm)}
	m.track = yTracker{k: k, y: make([]float64, pm*k), tmp: make([]float64, pm*k), u: m.u}
	m.obs = sp.Observe(&m.track)
	for i := range m.p {
		m.p[i] = 1 / float64(k)
	}
	return m
}

// yTracker keeps Y = Z·Ḡᵀ (row i of Y, K values, at y[i·K:]) through the
// sketch's changes of Z (see the Shampoo comment); u is Ḡ_{t−1}x and c the
// scale of ĝ = c·x while the sketch runs.
type yTracker struct {
	k      int
	rows   int
	y, tmp []float64
	u      []float64
	c      float64
}

// Absorbed implements son.ZObserver: Y += c·δ·uᵀ.
func (t *yTracker) Absorbed(delta []float64) {
	k := t.k
	for i, d := range delta {
		if d != 0 {
			linalg.Axpy(t.c*d, t.u, t.y[i*k:i*k+k])
		}
	}
}

// Appended implements son.ZObserver: Y gains the row c·uᵀ.
func (t *yTracker) Appended() {
	k := t.k
	row := t.y[t.rows*k : t.rows*k+k]
	for j, v := range t.u {
		row[j] = t.c * v
	}
	t.rows++
}

// Transformed implements son.ZObserver: Y ← T·Y.
func (t *yTracker) Transformed(T []float64, rows, p int) {
	k := t.k
	out := t.tmp[:rows*k]
	clear(out)
	for i := 0; i < rows; i++ {
		dst := out[i*k : i*k+k]
		for j := 0; j < p; j++ {
			if w := T[i*p+j]; w != 0 {
				linalg.Axpy(w, t.y[j*k:j*k+k], dst)
			}
		}
	}
	copy(t.y, out)
	clear(t.y[rows*k : max(rows, t.rows)*k])
	t.rows = rows
}

// Classes implements sparse.Multiclass.
func (m *Shampoo) Classes() int { return m.k }

// Config returns the configuration.
func (m *Shampoo) Config() ShampooConfig { return m.cfg }

// Sketch returns the right factor's sketch (tests and diagnostics).
func (m *Shampoo) Sketch() *fd.Sketch { return m.sk }

// Split returns the split table (tests and diagnostics).
func (m *Shampoo) Split() *son.Split { return m.sp }

// Rho returns the escaped masses ρL_{1:t} and ρR_{1:t}.
func (m *Shampoo) Rho() (left, right float64) {
	defer runtime.KeepAlive(m)
	return m.left.rho, m.sk.SumRho()
}

// lookup resolves ex's features (creating rows if create), computes
// u = Ḡx and returns z = Z·x and ‖x‖².
func (m *Shampoo) lookup(ex *sparse.Example, create bool) (z []float64, n float64) {
	_, z, n = m.sp.Begin(ex, create)
	m.rows = m.sp.ExampleRows(m.rows[:0])
	if need := m.sp.Seen() * m.k; len(m.gbar) < need {
		// New features: their columns of Ḡ are zero. Grow geometrically so
		// that the steady state allocates nothing.
		if cap(m.gbar) < need {
			g := make([]float64, need, max(need, 2*cap(m.gbar)))
			copy(g, m.gbar)
			m.gbar = g
		} else {
			m.gbar = m.gbar[:need]
		}
		if m.cfg.Diag {
			m.growDiag()
		}
	}
	k := m.k
	u := m.u
	clear(u)
	for i, r := range m.rows {
		if r >= 0 {
			linalg.Axpy(ex.Val[i], m.gbar[r*k:r*k+k], u)
		}
	}
	return z, n
}

// rightCoefficients factors the right sketch and returns r_R^{−1/4} with the
// weights of MulSpectral for f(λ) = (λ+r_R)^{−1/4} − r_R^{−1/4} in m.wr.
func (m *Shampoo) rightCoefficients() (c float64, w []float64) {
	lam := m.sk.Spectrum()
	w = m.wr[:len(lam)]
	r := m.sk.SumRho() + m.cfg.Epsilon
	b := math.Sqrt(math.Sqrt(r))
	for i, l := range lam {
		w[i] = 0
		if l > 0 {
			w[i] = quarterDiff(l, r, b)
		}
	}
	return 1 / b, w
}

// score fills m.s with the class scores W·x for the example lookup found
// (u = Ḡx, z = Z·x) and m.p with their softmax; it returns the predicted
// class (the first of the highest scores).
func (m *Shampoo) score(x []float64, z []float64) int {
	k := m.k
	// tk = Ḡ·R^{−1/4}·x = r_R^{−1/4}·u + Yᵀ·(Q·z).
	cr, wr := m.rightCoefficients()
	tk := m.tk
	for j, v := range m.u {
		tk[j] = cr * v
	}
	if m.cfg.Diag {
		m.diagScore(tk, x, cr)
	}
	if p := len(z); p > 0 {
		qz := m.qz[:p]
		m.sk.MulSpectral(qz, z, wr)
		y := m.track.y
		for i, q := range qz {
			if q != 0 {
				linalg.Axpy(q, y[i*k:i*k+k], tk)
			}
		}
	}
	// s = −η·L^{−1/4}·tk.
	cl := m.left.coefficients(m.cfg.Epsilon, m.phi)
	m.left.apply(m.s, tk, cl, m.phi)
	top, arg := math.Inf(-1), 0
	eta := m.eta()
	for c := range m.s {
		m.s[c] *= -eta
		if m.s[c] > top {
			top, arg = m.s[c], c
		}
	}
	// Subtracting the largest score keeps every exponent ≤ 0.
	var sum float64
	for c, v := range m.s {
		m.p[c] = math.Exp(v - top)
		sum += m.p[c]
	}
	if !(sum > 0) || math.IsInf(sum, 0) {
		// A NaN or infinite score: report uniform probabilities.
		for c := range m.p {
			m.p[c] = 1 / float64(k)
		}
		return arg + 1
	}
	for c := range m.p {
		m.p[c] /= sum
	}
	return arg + 1
}

// Predict implements sparse.Learner: the predicted class.
func (m *Shampoo) Predict(ex *sparse.Example) float64 {
	defer runtime.KeepAlive(m)
	z, _ := m.lookup(ex, false)
	return float64(m.score(ex.Val, z))
}

// maxGBar bounds |Ḡ_kj| (as the SON core bounds its weights, son/step.go):
// beyond it an example is not learned, so that no input can put Inf or NaN
// into the model.
const maxGBar = 1e140

// maxKappa bounds ‖G‖_F² = h‖x‖²‖p − e_y‖², the mass both factors receive
// (package fd skips larger ones).
const maxKappa = 1e200

// Learn implements sparse.Learner: the class predicted before the update,
// then one round of Alg. 5. An example whose label is not a class in 1…K
// is predicted only.
func (m *Shampoo) Learn(ex *sparse.Example) float64 {
	defer runtime.KeepAlive(m)
	y := int(ex.Label)
	if float64(y) != ex.Label || y < 1 || y > m.k {
		return m.Predict(ex)
	}
	z, n := m.lookup(ex, true)
	pred := m.score(ex.Val, z)
	h := ex.Weight
	if !(h > 0) || math.IsInf(h, 0) {
		return float64(pred)
	}
	for _, v := range m.s {
		if !linalg.IsFinite(v) {
			return float64(pred)
		}
	}
	k := m.k
	a := m.a
	copy(a, m.p)
	a[y-1]--
	var na float64
	for _, v := range a {
		na += v * v
	}
	var xmax float64
	for _, v := range ex.Val[:len(m.rows)] {
		xmax = math.Max(xmax, math.Abs(v))
	}
	kap := h * n * na
	if !(kap <= maxKappa) || !(m.bound+h*xmax <= maxGBar) {
		m.refused++
		return float64(pred)
	}
	m.bound += h * xmax
	m.t += h
	// Left: Alg. 4 with M = vvᵀ, v = √h·‖x‖·a.
	sq := math.Sqrt(h * n)
	for c, v := range a {
		m.v[c] = sq * v
	}
	m.left.add(m.v)
	// Right: ĝ = √h·‖a‖·x into fd's sketch; Y follows Z (yTracker, with
	// u = Ḡ_{t−1}x still in place).
	m.track.c = math.Sqrt(h * na)
	m.track.rows = m.sp.Rows()
	z = m.obs.Sketch(m.track.c)
	// Ḡ += h·a·xᵀ on the example's columns; Y += (Z_t x)(h·a)ᵀ.
	ha := m.hav
	for c, v := range a {
		ha[c] = h * v
	}
	for i, r := range m.rows {
		linalg.Axpy(ex.Val[i], ha, m.gbar[r*k:r*k+k])
	}
	if m.cfg.Diag {
		m.diagLearn(ex.Val, h, n, na)
	}
	yy := m.track.y
	for i, zi := range z {
		if zi != 0 {
			linalg.Axpy(zi, ha, yy[i*k:i*k+k])
		}
	}
	return float64(pred)
}

// Rejected counts the examples not learned because Ḡ or ‖G‖ would
// overflow (the CLI's end-of-run warning reads it).
func (m *Shampoo) Rejected() int { return int(m.refused) }

// Probabilities implements sparse.Multiclass: softmax(s) of the last
// example.
func (m *Shampoo) Probabilities(p []float64) { copy(p, m.p) }

// classRow returns what row k of W = −η·L^{−1/4}·Ḡ·R^{−1/4} needs: with
// ℓ = L^{−1/4}e_k (L^{−1/4} is symmetric),
// W_kj = −η·(r_R^{−1/4}·ℓᵀḠ_{:,j} + (Q·Y·ℓ)ᵀZ_{:,j}); it returns ℓ, Q·Y·ℓ and
// r_R^{−1/4}.
func (m *Shampoo) classRow(k int) (ell, qv []float64, cr float64) {
	K := m.k
	e := make([]float64, K)
	e[k-1] = 1
	ell = make([]float64, K)
	phi := make([]float64, K)
	cl := m.left.coefficients(m.cfg.Epsilon, phi)
	m.left.apply(ell, e, cl, phi)
	cr, wr := m.rightCoefficients()
	p := m.sp.Rows()
	yl := make([]float64, p)
	for i := range yl {
		yl[i] = linalg.Dot(m.track.y[i*K:i*K+K], ell)
	}
	qv = make([]float64, max(p, 1))
	if p > 0 {
		m.sk.MulSpectral(qv, yl, wr)
	}
	return ell, qv[:p], cr
}

// ClassWeights implements sparse.Multiclass: row k of W, O(K² + p²) and then
// O(K + p) per feature seen.
func (m *Shampoo) ClassWeights(k int, fn func(slot uint32, w float64)) {
	defer runtime.KeepAlive(m)
	K := m.k
	ell, qv, cr := m.classRow(k)
	eta := m.eta()
	r := 0
	m.sp.Columns(func(slot uint32, _ float64, z []float64) {
		g := m.gbar[r*K : r*K+K]
		fn(slot, -eta*((cr+m.diagExtra(r, cr))*linalg.Dot(ell, g)+linalg.Dot(qv, z)))
		r++
	})
}

// ClassSlotWeight returns class k's weight at slot (0 if unseen):
// --audit's lookup, without a sweep and without touching the last
// example's scores.
func (m *Shampoo) ClassSlotWeight(k int, slot uint32) float64 {
	defer runtime.KeepAlive(m)
	z := make([]float64, m.sk.MaxRows())
	r := m.sp.Column(slot, z)
	if r < 0 {
		return 0
	}
	K := m.k
	ell, qv, cr := m.classRow(k)
	return -m.eta() * ((cr+m.diagExtra(r, cr))*linalg.Dot(ell, m.gbar[r*K:r*K+K]) + linalg.Dot(qv, z))
}

// Scores writes the K raw scores of the last example into s (VW's
// --raw_predictions of a multiclass model).
func (m *Shampoo) Scores(s []float64) { copy(s, m.s) }

// Weights implements sparse.Learner: every class's weights, class after
// class.
func (m *Shampoo) Weights(fn func(slot uint32, w float64)) {
	defer runtime.KeepAlive(m)
	for c := 1; c <= m.k; c++ {
		m.ClassWeights(c, fn)
	}
}

// Save implements sparse.Learner: Ḡ, Y, the left factor and counters,
// the completion's state, then the split table with the right sketch
// (which must come last).
func (m *Shampoo) Save(w *model.Writer) error {
	defer runtime.KeepAlive(m)
	m.saveHead(w)
	m.saveDiag(w)
	return m.sp.Save(w)
}

// saveHead writes what comes before the completion's state.
func (m *Shampoo) saveHead(w *model.Writer) {
	w.Uint32(uint32(m.k))
	w.Float64(m.t)
	w.Float64(m.bound)
	w.Uint64(uint64(m.refused))
	m.left.save(w)
	p := m.sp.Rows()
	w.Uint32(uint32(p))
	w.Float64s(m.track.y[:p*m.k])
	w.Float64s(m.gbar[:m.sp.Seen()*m.k])
}

// LoadShampoo restores a model saved by Save; cfg must be the saved one's
// (the CLI takes it from the model's options).
func LoadShampoo(r *model.Reader, cfg ShampooConfig) (*Shampoo, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	sk, err := fd.New(cfg.sketchConfig())
	if err != nil {
		return nil, err
	}
	k := int(r.Uint32())
	t, bound, refused := r.Float64(), r.Float64(), int64(r.Uint64())
	if r.Err() == nil && k != cfg.Classes {
		r.Fail("the model holds %d classes, its options say %d", k, cfg.Classes)
	}
	left := newLeftFD(cfg.Classes, cfg.LeftTau)
	if err := left.load(r); err != nil {
		return nil, err
	}
	p := int(r.Uint32())
	y := r.Float64s(nil)
	gbar := r.Float64s(nil)
	nsum, rjj := loadShampooDiag(r, cfg)
	if r.Err() != nil {
		return nil, r.Err()
	}
	sp, err := son.LoadSplit(r, cfg.Bits, sk)
	if err != nil {
		return nil, fmt.Errorf("loading the FTSL-Shampoo state: %w", err)
	}
	if p != sp.Rows() || len(y) != p*k || len(gbar) != sp.Seen()*k {
		return nil, fmt.Errorf("%w: FTSL-Shampoo's Ḡ and Y do not fit its sketch (%d rows, %d features)", model.ErrCorrupt, sp.Rows(), sp.Seen())
	}
	if !linalg.AllFinite(y) || !linalg.AllFinite(gbar) || !(t >= 0) || !(bound >= 0) || bound > maxGBar || refused < 0 ||
		!(sk.SumRho() >= 0) || math.IsInf(sk.SumRho(), 0) {
		return nil, fmt.Errorf("%w: FTSL-Shampoo state out of range", model.ErrCorrupt)
	}
	m := newShampoo(cfg, sk, sp)
	m.left = left
	m.t, m.bound, m.refused = t, bound, refused
	copy(m.track.y, y)
	m.gbar = gbar
	m.nsum, m.rjj = nsum, rjj
	if err := m.checkDiag(sp.Seen()); err != nil {
		return nil, err
	}
	return m, nil
}

// Report implements sparse.Reporter.
func (m *Shampoo) Report(w io.Writer) {
	defer runtime.KeepAlive(m)
	m.sp.Report(w)
	left := fmt.Sprintf("τ_L = %d", m.cfg.LeftTau)
	if m.cfg.LeftTau == 0 || m.cfg.LeftTau > m.k {
		left = "exact"
	}
	fmt.Fprintf(w, "FTSL-Shampoo: K = %d, left factor %s (rank %d, ρL = %.6g, Dsyev fallbacks %d), right τ_R = %d (ρR = %.6g), ε = %g, examples not learned (overflow) = %d\n",
		m.k, left, m.left.r, m.left.rho, m.left.dsyev, m.cfg.Tau, m.sk.SumRho(), m.cfg.Epsilon, m.refused)
	if m.cfg.Diag {
		fmt.Fprintf(w, "FTSL-Shampoo: per-coordinate completion of R^{−1/4} over %d features, %d of them below r_R; left factor per example with η/√N, factor %.6g\n",
			len(m.rjj), m.diagBelow(), m.eta()/m.cfg.Eta)
	}
}

var _ sparse.Multiclass = (*Shampoo)(nil)
