// Package rp is the sparse Gaussian random-projection sketch of Haipeng
// Luo, Alekh Agarwal, Nicolò Cesa-Bianchi and John Langford, "Efficient
// Second Order Online Learning by Sketching", NIPS 2016 (§3, "Random
// Projection"), written for the split-weight SON core of package son
// (docs/algorithms.md §2 and §5).
//
// The sketch is S_t = S_{t−1} + r_t ĝ_tᵀ (m×d), r_t ~ N(0, I_m/m) i.i.d.,
// so that E[S_tᵀS_t] = Σ_s ĝ_sĝ_sᵀ = G_tᵀG_t. The paper writes the entries'
// distribution as "N(0, 1/√m)", which reads either as variance 1/√m or as
// standard deviation 1/√m; only standard deviation 1/√m (variance 1/m)
// makes SᵀS an unbiased estimate of GᵀG, so that is what is drawn
// (docs/algorithms.md §5 reads it the same way).
//
// Factored form (docs/algorithms.md §2): S = Z with F = I and E absent, so the
// matrix M of SᵀHS = ZᵀMZ is H = (αI + SSᵀ)⁻¹ itself. Each update is one
// rank-one absorb Z ← Z + r ĝᵀ (Host.Absorb with δ = r, O(ms)), and
// N = H⁻¹ = αI + SSᵀ changes by two rank-one terms,
//
//	N ← N + q rᵀ + r qᵀ,  q = c·z + (κ/2)·r,
//
// with z = Z_{t−1}x̃ (so c·z = S_{t−1}ĝ) and κ = ‖ĝ‖². H follows by the
// Woodbury identity in O(m²) — docs/algorithms.md §5 writes the rank-two term
// with U = [q r], C = [[0,1],[1,0]]; the same matrix is used here in the
// basis U = [c·z, r], which avoids a cancellation (see woodbury, and
// TestWoodburyForms for the measurement) — or, with Config.Cholesky, by
// H = N⁻¹ through a Cholesky factorisation, O(m³) (docs/algorithms.md §10 found
// it more accurate in the ill-conditioned regime; TestHardRegime agrees,
// mildly). The Woodbury path also re-derives H from N by Cholesky every
// Config.Refresh updates, which bounds the drift ‖HN − I‖. Per example the
// sketch costs O(ms) for the absorb plus O(m²) (Woodbury) or O(m³).
//
// When the SON core sets α every round (Config.HostAlpha, its scaled-space
// form, docs/algorithms.md §13), N moves by a shift (α' − α)I as well,
// which is not low-rank: an explicit H had to be re-inverted every round
// (about m³/2 multiply-adds), and the Woodbury update in between was
// overwritten unused. That form keeps N's Cholesky factor instead
// (factor.go): one factorisation per shift (m³/6), H·z by two triangular
// solves (m²), and the update's check that N stays positive definite as
// Woodbury's 2×2 determinant computed from the factor (m²); the refresh has
// nothing to bound there, as H is never accumulated. The same H to
// rounding: on news20 (one pass, -m 10) the test loss and error are those
// of the explicit form to six digits. The paper form (fixed α) keeps the
// explicit H, and its models their bits. Captured's zᵀ(K + εI)⁻¹z needs a
// factorisation of the same N under another shift; the factored form's
// SetAlpha makes both in one pass (cholesky2).
//
// The paper allows α = 0 (a pseudo-inverse, its Appendix D) for exact
// invariance; that variant is untested (docs/algorithms.md §10), so α > 0 is
// required.
//
// Randomness: r_t comes from a PCG generator (math/rand/v2) seeded by
// Config.Seed (--random_seed): the t-th update (Alg. 1 line 8 runs once
// per example with a positive importance weight) draws the t-th vector,
// whatever ĝ is — ĝ = 0 included — so the stream r_1, r_2, … depends on
// the seed alone, never on feature values or labels. The generator's state
// is saved with the model, so a resumed run draws the r's an uninterrupted
// one would.
//
// Z starts as the zero matrix; the SON core only learns its row count from
// the sketch, so the sketch reports 0 rows until the first non-zero ĝ_t,
// which it adds as a row (Host.Append) and spreads into m rows by the
// m×1 transform r_t (Host.Transform): Z = r_tĝ_tᵀ = S_t.
//
// Numerical guards (counted, reported): an update whose N would hold
// entries beyond 1e250, or whose N is not numerically positive definite on
// the Cholesky path, is skipped (S unchanged, r_t consumed); a Woodbury
// step whose 2×2 system is not sane (det ≥ 0, non-finite) falls back to
// Cholesky. None fires on well-scaled data. In the factored form a shift
// that leaves N not numerically positive definite is not made (α stays),
// and should N's factor still fail, MulM returns 0 (the round's step
// ignores the sketch) rather than garbage.
package rp

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"sort"

	"github.com/sparseson/sparseson/internal/linalg"
	"github.com/sparseson/sparseson/model"
	"github.com/sparseson/sparseson/sparse"
	"gonum.org/v1/gonum/mat"
)

// Config tunes the sketch.
type Config struct {
	M     int     // sketch size m (rows of S)
	Alpha float64 // α of A_t = αI + SᵀS; must be > 0
	Seed  uint64  // seeds the r_t stream (--random_seed)
	// Cholesky recomputes H = N⁻¹ by a Cholesky factorisation on every
	// update (O(m³)) instead of the O(m²) Woodbury update; with HostAlpha,
	// it factors the updated N instead of checking it by Woodbury's
	// determinant.
	Cholesky bool
	// HostAlpha: the SON core sets α every round (SetAlpha; the scaled-
	// space form), so a saved α need not equal Alpha, and H is kept as
	// N's Cholesky factor (factor.go).
	HostAlpha bool
	// Refresh: on the Woodbury path, every Refresh-th update computes H by
	// Cholesky instead, which resets the accumulated drift of H from N⁻¹.
	// 0 means DefaultRefresh; a negative value never refreshes. The
	// factored form (HostAlpha) accumulates nothing and ignores it.
	Refresh int
}

// MaxM is the largest supported sketch size.
const MaxM = 256

// DefaultRefresh is the Woodbury refresh period. Measured without refresh
// (TestWoodburyDrift, m = 10, 20 000 updates): ‖HN − I‖_max stayed below
// 4e-14, ill-conditioned stream included (max N_ij ≈ 6e4 with α = 0.1), so
// the refresh is a cheap safeguard (O(m³)/1000 per update) rather than a
// necessity.
const DefaultRefresh = 1000

// Stream is the second PCG seed word: r_t is drawn from
// rand.New(rand.NewPCG(Seed, Stream)) as NormFloat64()·(1/√m), entry by
// entry, one vector per update.
const Stream = 0x72705f736b657463 // "rp_sketc"

// maxEntry bounds |N_ij| after an update; beyond it the update is skipped
// (the sketch would be meaningless long before float64 overflows).
const maxEntry = 1e250

// Sketch is the sparse RP sketch. N and H are m×m, row-major, symmetric.
type Sketch struct {
	cfg Config
	m   int
	p   int     // rows of Z: 0 until the first non-zero ĝ, then m
	t   float64 // updates (= r vectors drawn)
	sd  float64 // 1/√m
	src *rand.PCG
	rng *rand.Rand

	N, H   []float64 // H: N⁻¹ unless factored (then only the initial, loaded or merged one)
	L      []float64 // factored: N's Cholesky factor (lower triangle) when lok
	dinv   []float64 // factored: 1/L_ii
	lok    bool
	L2     []float64 // factored: K + εI's factor (inRowSpace) when l2ok
	l2ok   bool
	alpha  float64 // α (Config.Alpha unless the SON core sets it)
	capt   float64 // Σ_t ĝ_tᵀS_{t−1}ᵀH_{t−1}S_{t−1}ĝ_t (Captured)
	k2     float64 // ‖N − αI‖_F ≥ ‖Z‖₂²
	since  int     // Woodbury updates since H was last computed by Cholesky
	chols  int     // H computed by Cholesky (refreshes and fallbacks included)
	skips  int     // updates refused as non-finite or not positive definite
	fallbk int     // Woodbury steps that fell back to Cholesky

	r, q, a, ha, hr, e, f []float64 // length m
	nmax                  float64   // max |N_ij|
	w1, w2, w3            []float64 // m×m scratch
	qform                 bool      // tests only: Woodbury in the [q r] basis
}

// New returns an empty sketch (S = 0, H = I/α).
func New(cfg Config) (*Sketch, error) {
	if cfg.M < 1 || cfg.M > MaxM {
		return nil, fmt.Errorf("rp: sketch size m = %d out of range 1..%d", cfg.M, MaxM)
	}
	if cfg.Alpha == 0 {
		return nil, errors.New("rp: α = 0 (the pseudo-inverse variant) is not supported; use α > 0")
	}
	if !(cfg.Alpha > 0) || math.IsInf(cfg.Alpha, 0) {
		return nil, fmt.Errorf("rp: α must be positive and finite, got %v", cfg.Alpha)
	}
	if cfg.Refresh == 0 {
		cfg.Refresh = DefaultRefresh
	}
	m := cfg.M
	vec := func() []float64 { return make([]float64, m) }
	s := &Sketch{
		cfg: cfg, m: m, sd: 1 / math.Sqrt(float64(m)), alpha: cfg.Alpha,
		N: make([]float64, m*m), H: make([]float64, m*m), L: make([]float64, m*m), L2: make([]float64, m*m),
		r: vec(), q: vec(), a: vec(), ha: vec(), hr: vec(), e: vec(), f: vec(), dinv: vec(),
		w1: make([]float64, m*m), w2: make([]float64, m*m), w3: make([]float64, m*m),
	}
	s.src = rand.NewPCG(cfg.Seed, Stream)
	s.rng = rand.New(s.src)
	for i := 0; i < m; i++ {
		s.N[i*m+i] = cfg.Alpha
		s.H[i*m+i] = 1 / cfg.Alpha
	}
	return s, nil
}

func (s *Sketch) Name() string   { return "rp" }
func (s *Sketch) MaxRows() int   { return s.m }
func (s *Sketch) Rows() int      { return s.p }
func (s *Sketch) Alpha() float64 { return s.alpha }
func (s *Sketch) Config() Config { return s.cfg }

// SetAlpha implements sparse.Sketch: N ← N + (a − α)I and H = N⁻¹ by
// Cholesky, O(m³) (a shift is not low-rank, so Woodbury cannot follow it).
// If the shifted N is not numerically positive definite α is left as it
// was. That is not counted as a skipped update: the change is tried again
// with the next round's α, and by the core when a saved model is loaded
// (with the same result), and a count that loading changed would make a
// model saved again after loading differ from the file it came from.
func (s *Sketch) SetAlpha(a float64) {
	if a == s.alpha || !(a > 0) || math.IsInf(a, 0) {
		return
	}
	if s.factored() {
		s.shiftFactored(a)
		return
	}
	m := s.m
	copy(s.w1, s.N)
	for i := 0; i < m; i++ {
		s.w1[i*m+i] += a - s.alpha
	}
	if !cholInverse(s.w3, s.w1, s.w2, m) {
		return
	}
	copy(s.N, s.w1)
	copy(s.H, s.w3)
	s.alpha = a
	s.since = 0
	s.k2, s.nmax = s.norms()
}

// Captured implements sparse.Sketch. RP's SᵀS spreads every ĝ over m random
// mixtures, so tr SSᵀ ≈ Σ‖ĝ‖² says nothing about which directions it
// holds; what it holds of each ĝ_t is the part in S_{t−1}'s row space when
// it arrives (inRowSpace), summed over t. (Weighting by H instead makes
// the sum depend on α, which the SON core derives from Captured: a large α
// counted less as held, which raised α further — on pima α₀ ran away and
// RP-SON predicted the majority class.)
func (s *Sketch) Captured() float64 { return s.capt }

// captureEps is ε of inRowSpace, relative to tr(K)/m: a direction of K
// weaker than a tenth of the mean counts as held only in proportion
// λ/(λ + ε). RP's row space is a random mixture, its weak directions badly
// estimated; counting them as held (ε = 1e-9·tr/m) took RP-SON on
// heart_scale from 90.74% to 85.19% (one pass, logistic; ε = 1e-3, 1e-2:
// 87.04%), and 0.1 left the mean over the shared sets at 87.61% against
// 87.88% (README, "Pre-scaling and the sketch").
const captureEps = 1e-1

// inRowSpace returns zᵀ(K + εI)⁻¹z with z = Z_{t−1}x̃ and K = ZZᵀ = N − αI,
// ε = captureEps·tr(K)/m: ‖P x̃‖² with P the projector on Z's row space,
// softened for K's weak directions. O(m³/3) by Cholesky; 0 if K + εI is
// not numerically positive definite.
//
// In the factored form SetAlpha factors K + εI in the same pass as N
// (cholesky2): its factor is then L2, the bits this would compute.
func (s *Sketch) inRowSpace(z []float64) float64 {
	m := s.m
	L := s.L2
	if !s.l2ok {
		shift, ok := s.captureShift(0, s.alpha)
		if !ok || !cholesky(s.w1, s.N, m, shift) {
			return 0
		}
		L = s.w1
	}
	// zᵀ(LLᵀ)⁻¹z = ‖L⁻¹z‖².
	y := s.e
	forward(y, L, z, m)
	return linalg.Dot(y, y)
}

// captureShift returns inRowSpace's ε − α' for N' = N + dI and α' = a,
// the shift that makes N' into K + εI, and whether ε > 0.
func (s *Sketch) captureShift(d, a float64) (float64, bool) {
	m := s.m
	var tr float64
	for i := 0; i < m; i++ {
		tr += (s.N[i*m+i] + d) - a
	}
	eps := captureEps * tr / float64(m)
	return eps - a, eps > 0
}

// Rank implements sparse.Sketch: m once S ≠ 0.
func (s *Sketch) Rank() int       { return s.p }
func (s *Sketch) T() float64      { return s.t }
func (s *Sketch) Cholesky() int   { return s.chols }
func (s *Sketch) Skipped() int    { return s.skips }
func (s *Sketch) Fallbacks() int  { return s.fallbk }
func (s *Sketch) ZNorm2() float64 { return s.k2 }

// LastR returns the r_t drawn by the latest update (diagnostics, tests).
func (s *Sketch) LastR() []float64 { return append([]float64(nil), s.r...) }

// MulM implements sparse.Sketch: dst = H·z (nothing while Z has no rows).
func (s *Sketch) MulM(dst, z []float64) {
	switch {
	case s.p == 0:
	case s.factored():
		s.mulFactored(dst, z)
	default:
		s.mulH(dst, z)
	}
}

// mulH sets dst = H·z over all m rows.
func (s *Sketch) mulH(dst, z []float64) {
	m := s.m
	z = z[:m]
	for i := range dst[:m] {
		dst[i] = linalg.Dot(s.H[i*m:i*m+m], z)
	}
}

// MulPinv and MulProj belong to the α = 0 branch of the SON core, which
// this sketch (α > 0) never enters. They are defined anyway, from
// K = N − αI = ZZᵀ: the projector onto Z's rows is Zᵀ K⁺ Z and
// (ZᵀZ)† = Zᵀ (K⁺)² Z.
func (s *Sketch) MulPinv(dst, z []float64) { s.mulKPinv(dst, z, 2) }
func (s *Sketch) MulProj(dst, z []float64) { s.mulKPinv(dst, z, 1) }

func (s *Sketch) mulKPinv(dst, z []float64, pow int) {
	p := s.p
	if p == 0 {
		return
	}
	vals, vecs := s.eigK()
	tol := 1e-12 * math.Max(vals[0], 0)
	clear(dst[:p])
	for k, lam := range vals {
		if !(lam > tol) {
			continue
		}
		var c float64
		for i := 0; i < p; i++ {
			c += vecs.At(i, k) * z[i]
		}
		c /= math.Pow(lam, float64(pow))
		for i := 0; i < p; i++ {
			dst[i] += c * vecs.At(i, k)
		}
	}
}

// eigK returns the eigenvalues (descending) and eigenvectors of N − αI.
func (s *Sketch) eigK() ([]float64, *mat.Dense) {
	m := s.m
	K := mat.NewSymDense(m, nil)
	for i := 0; i < m; i++ {
		for j := i; j < m; j++ {
			v := s.N[i*m+j]
			if i == j {
				v -= s.alpha
			}
			K.SetSym(i, j, v)
		}
	}
	var es mat.EigenSym
	if !es.Factorize(K, true) {
		panic("rp: eigen-decomposition of SSᵀ failed")
	}
	vals := es.Values(nil) // ascending
	var vecs mat.Dense
	es.VectorsTo(&vecs)
	// reverse to descending
	n := len(vals)
	out := mat.NewDense(m, n, nil)
	rv := make([]float64, n)
	for k := 0; k < n; k++ {
		rv[k] = vals[n-1-k]
		for i := 0; i < m; i++ {
			out.Set(i, k, vecs.At(i, n-1-k))
		}
	}
	return rv, out
}

// Update implements sparse.Sketch: S ← S + r ĝᵀ for ĝ = st.C·x̃.
func (s *Sketch) Update(st *sparse.Step, h sparse.Host) {
	m := s.m
	s.t++
	r := s.r
	for i := range r {
		r[i] = s.rng.NormFloat64() * s.sd
	}
	c, n := st.C, st.N
	kap := c * c * n
	if c == 0 || !(n > 0) || !linalg.IsFinite(kap) {
		return // ĝ = 0 leaves S unchanged (r_t is still consumed)
	}
	if s.p > 0 {
		if v := c * c * s.inRowSpace(st.Z[:m]); v > 0 && linalg.IsFinite(v) {
			// Saturated: it is saved with the model (as the core's Σ‖ĝ‖²).
			s.capt = min(s.capt+v, math.MaxFloat64)
		}
	}
	s.l2ok = false // N changes below, or the next Update is for a new round
	// q = c·z + (κ/2)·r with z = Z_{t−1}x̃ (zero before the first row).
	q := s.q
	half := kap / 2
	var qmax, rmax float64
	for i := range q {
		zi := 0.0
		if s.p > 0 {
			zi = st.Z[i]
		}
		q[i] = c*zi + half*r[i]
		if a := math.Abs(q[i]); !(a <= qmax) {
			qmax = a
			if math.IsNaN(a) {
				qmax = math.Inf(1) // NaN: never under the limit
			}
		}
		if a := math.Abs(r[i]); a > rmax {
			rmax = a
		}
	}
	if !(qmax*rmax < maxEntry) || !(s.nmax < maxEntry) {
		s.skips++
		return
	}
	// H by Woodbury unless Cholesky is configured, a refresh is due, or the
	// 2×2 system is not sane; on the Cholesky path N' and H' are formed in
	// scratch and committed together only if N' is positive definite.
	useW := !s.cfg.Cholesky && (s.cfg.Refresh < 0 || s.since+1 < s.cfg.Refresh)
	if s.factored() {
		if !s.updateFactored(c, st.Z, kap) {
			return
		}
	} else if useW && s.woodbury(c, st.Z, kap) {
		s.since++
		addQRTo(s.N, q, r, m)
	} else {
		if useW {
			s.fallbk++
		}
		copy(s.w1, s.N)
		addQRTo(s.w1, q, r, m)
		if !cholInverse(s.w3, s.w1, s.w2, m) {
			s.skips++
			return
		}
		copy(s.N, s.w1)
		copy(s.H, s.w3)
		s.since = 0
		s.chols++
	}
	s.k2, s.nmax = s.norms()
	// Z ← Z + r ĝᵀ (the Host keeps w = w̄ + Zᵀb and st.Z current).
	if s.p == 0 {
		h.Append() // Z = [ĝᵀ]
		h.Transform(r, m, nil)
		s.p = m
	} else {
		h.Absorb(r)
	}
}

// woodbury sets H ← (N + qrᵀ + rqᵀ)⁻¹ by the Woodbury identity in O(m²) and
// reports whether it did. The rank-two term is written in the basis
// U = [a r], a = c·z = S_{t−1}ĝ, as U C Uᵀ with C = [[0,1],[1,κ]]
// (C⁻¹ = [[−κ,1],[1,0]]), which is the same matrix as docs/algorithms.md §5's
// U = [q r], C = [[0,1],[1,0]]. Then
//
//	H' = H − HU K⁻¹ UᵀH,  K = C⁻¹ + UᵀHU = [[aᵀHa − κ, 1 + aᵀHr], [1 + aᵀHr, rᵀHr]].
//
// K₁₁ = aᵀHa − κ = −α·ĝᵀA_{t−1}⁻¹ĝ < 0 and K₂₂ > 0, so det K = K₁₁K₂₂ − K₁₂²
// is a sum of two negative terms, free of further cancellation (K₁₁ itself
// is the same difference the projection's q = ‖x̃‖² − zᵀHz computes,
// scaled by c²). In the [q r]
// basis the same determinant is a difference of nearly equal positive
// numbers whenever q is nearly parallel to r (always at t = 1, where
// a = 0): measured on the hard-regime squared-loss stream of
// TestWoodburyForms, the [q r] form let ‖HN − I‖_max reach 1.2e-9 and the
// predictions drift 9e-8 from the dense reference, against 7e-13 and 5e-11
// for this form (Cholesky: 9e-14 and 7e-11).
func (s *Sketch) woodbury(c float64, z []float64, kap float64) bool {
	m := s.m
	r, a, ha, hr := s.r, s.a, s.ha, s.hr
	shift := s.rank2Basis(c, z, kap)
	// Ha and Hr in one pass over H, and the three quadratic forms.
	var aha, rhr, ahr float64
	for i := 0; i < m; i++ {
		row := s.H[i*m : i*m+m]
		row = row[:len(a)]
		var x, y float64
		for j, h := range row {
			x += h * a[j]
			y += h * r[j]
		}
		ha[i], hr[i] = x, y
		aha += a[i] * x
		rhr += r[i] * y
		ahr += a[i] * y
	}
	k11 := aha - shift
	k22 := rhr
	k12 := 1 + ahr
	det := k11*k22 - k12*k12
	if !(det < 0) || !linalg.IsFinite(det) || !linalg.IsFinite(k11) || !linalg.IsFinite(k22) || !linalg.IsFinite(k12) {
		return false
	}
	// [e f] = [Ha Hr]·K⁻¹, K⁻¹ = [[k22, −k12], [−k12, k11]]/det;
	// H'_ij = H_ij − (e_i (Ha)_j + f_i (Hr)_j).
	e, f := s.e, s.f
	var emax, amax float64
	for i := range e {
		e[i] = (k22*ha[i] - k12*hr[i]) / det
		f[i] = (k11*hr[i] - k12*ha[i]) / det
		emax = max(emax, math.Abs(e[i]), math.Abs(f[i]))
		amax = max(amax, math.Abs(ha[i]), math.Abs(hr[i]))
	}
	if !(emax*amax < maxEntry) {
		return false
	}
	H := s.H
	for i := 0; i < m; i++ {
		ei, fi := e[i], f[i]
		row := H[i*m : i*m+m]
		for j := i; j < m; j++ {
			row[j] -= ei*ha[j] + fi*hr[j]
		}
	}
	linalg.MirrorUpper(H, m)
	return true
}

// rank2Basis sets s.a to the first column of woodbury's U = [a r] and
// returns the κ that C⁻¹ subtracts from K₁₁ (0 in the test-only [q r]
// basis).
func (s *Sketch) rank2Basis(c float64, z []float64, kap float64) float64 {
	a := s.a
	for i := range a {
		if s.p > 0 {
			a[i] = c * z[i]
		} else {
			a[i] = 0
		}
	}
	if s.qform { // test-only: docs/algorithms.md's U = [q r], C = [[0,1],[1,0]]
		copy(a, s.q)
		return 0
	}
	return kap
}

// addQRTo applies N ← N + qrᵀ + rqᵀ (exactly symmetric: both triangles
// get the same two products).
func addQRTo(N, q, r []float64, m int) {
	for i := 0; i < m; i++ {
		qi, ri := q[i], r[i]
		row := N[i*m : i*m+m]
		for j := range row {
			row[j] += qi*r[j] + ri*q[j]
		}
	}
}

// norms returns tr(N − αI) = ‖Z‖_F², an upper bound on ‖Z‖₂², and
// max_i N_ii, which bounds every |N_ij| of the positive definite N. Both
// cost O(m), where ‖N − αI‖_F and max |N_ij| would cost O(m²) per update.
func (s *Sketch) norms() (k2, nmax float64) {
	m := s.m
	for i := 0; i < m; i++ {
		d := s.N[i*m+i]
		k2 += d - s.alpha
		nmax = max(nmax, d)
	}
	return max(k2, 0), nmax
}

// cholesky sets the lower triangle of L (m×m, row-major) to the Cholesky
// factor of A + shift·I and reports whether that matrix is numerically
// positive definite (L then holds garbage). The upper triangle of L is not
// touched; A and L must not overlap. Each entry is the left-looking
// formula, (A_ij − Σ_{k<j} L_ik L_jk)/L_jj, with the sum in k order: at
// m = 10 a third faster than the right-looking (outer-product) order,
// whose inner loops are independent axpys but cost more in Go's slice
// handling. cholInverse and the factored form share it.
func cholesky(L, A []float64, m int, shift float64) bool {
	L, A = L[:m*m], A[:m*m]
	for j := 0; j < m; j++ {
		lj := L[j*m : j*m+j]
		d := A[j*m+j] + shift - linalg.Dot(lj, lj)
		if !(d > 0) || !linalg.IsFinite(d) {
			return false
		}
		ljj := math.Sqrt(d)
		L[j*m+j] = ljj
		for i := j + 1; i < m; i++ {
			li := L[i*m : i*m+j]
			L[i*m+j] = (A[i*m+j] - linalg.Dot(li, lj)) / ljj
		}
	}
	return true
}

// forward sets y = L⁻¹b for the lower-triangular L (m×m, row-major):
// y_i = (b_i − Σ_{k<i} L_ik y_k)/L_ii. y and b may be the same slice.
func forward(y, L, b []float64, m int) {
	y, b = y[:m], b[:m]
	for i := range y {
		y[i] = (b[i] - linalg.Dot(L[i*m:i*m+i], y[:i])) / L[i*m+i]
	}
}

// cholInverse sets H = A⁻¹ for a symmetric positive definite A (m×m,
// row-major) via A = LLᵀ, X = L⁻¹, H = XᵀX, using w (m×m) as scratch. It
// reports false if A is not numerically positive definite (H may then hold
// garbage; callers pass a scratch H and commit on success).
func cholInverse(H, A, w []float64, m int) bool {
	L := w
	if !cholesky(L, A, m, 0) {
		return false
	}
	// X = L⁻¹ (lower triangular) into H, column by column by forward
	// substitution: X_jj = 1/L_jj, X_ij = −(Σ_{j≤k<i} L_ik X_kj)/L_ii.
	X := H
	clear(X)
	for j := 0; j < m; j++ {
		X[j*m+j] = 1 / L[j*m+j]
		for i := j + 1; i < m; i++ {
			var sum float64
			for k := j; k < i; k++ {
				sum += L[i*m+k] * X[k*m+j]
			}
			X[i*m+j] = -sum / L[i*m+i]
		}
	}
	// H = XᵀX: H_ij = Σ_{k ≥ max(i,j)} X_ki X_kj; upper triangle into w
	// (L is no longer needed), then mirrored into H.
	for i := 0; i < m; i++ {
		for j := i; j < m; j++ {
			var sum float64
			for k := j; k < m; k++ {
				sum += X[k*m+i] * X[k*m+j]
			}
			w[i*m+j] = sum
		}
	}
	for i := 0; i < m; i++ {
		for j := i; j < m; j++ {
			v := w[i*m+j]
			if !linalg.IsFinite(v) {
				return false
			}
			H[i*m+j], H[j*m+i] = v, v
		}
	}
	return true
}

// Residual returns ‖HN − I‖_max, the drift of H from N⁻¹ (O(m³);
// diagnostics and tests).
// In the factored form H is what MulM applies, the two triangular solves;
// +Inf if N is not numerically positive definite.
func (s *Sketch) Residual() float64 {
	m := s.m
	var worst float64
	hn := make([]float64, m)
	for j := 0; j < m; j++ {
		c := col(s.N, j, m)
		if s.factored() {
			if !s.factor() {
				return math.Inf(1)
			}
			cholSolve(hn, s.L, s.dinv, c, m)
		} else {
			s.mulH(hn, c)
		}
		for i, v := range hn {
			if i == j {
				v--
			}
			worst = math.Max(worst, math.Abs(v))
		}
	}
	return worst
}

func col(A []float64, j, m int) []float64 {
	c := make([]float64, m)
	for i := range c {
		c[i] = A[i*m+j]
	}
	return c
}

// NH returns copies of N and H (m×m, row-major); in the factored form H is
// N⁻¹ by Cholesky (savedH).
func (s *Sketch) NH() (N, H []float64) {
	return append([]float64(nil), s.N...), append([]float64(nil), s.savedH()...)
}

// savedH is the H a model file holds: in the factored form N⁻¹ by
// Cholesky, or the last explicit H if N is not numerically positive
// definite (the file's layout predates the factored form).
func (s *Sketch) savedH() []float64 {
	if s.factored() {
		if h := s.factoredH(); h != nil {
			return h
		}
	}
	return s.H
}

// Save implements sparse.Sketch: counters, N, H and the generator state.
func (s *Sketch) Save(w *model.Writer) {
	w.Uint32(uint32(s.m))
	w.Uint32(uint32(s.p))
	w.Float64(s.t)
	w.Uint64(uint64(s.since))
	w.Uint64(uint64(s.chols))
	w.Uint64(uint64(s.skips))
	w.Uint64(uint64(s.fallbk))
	w.Float64s(s.N)
	w.Float64s(s.savedH())
	w.Float64(s.alpha)
	w.Float64(s.capt)
	st, err := s.src.MarshalBinary()
	if err != nil {
		panic(err) // PCG's MarshalBinary cannot fail
	}
	w.String(string(st))
}

// SavesAlpha implements sparse.AlphaSaver: α and N = αI + SSᵀ, H = N⁻¹
// are saved as they are.
func (s *Sketch) SavesAlpha() {}

// Load implements sparse.Sketch; the Config must be the saved model's (the
// seed is superseded by the saved generator state).
func (s *Sketch) Load(r *model.Reader) error {
	m := int(r.Uint32())
	p := int(r.Uint32())
	t := r.Float64()
	since, chols, skips, fallbk := r.Uint64(), r.Uint64(), r.Uint64(), r.Uint64()
	N := r.Float64s(nil)
	H := r.Float64s(nil)
	alpha, capt := r.Float64(), r.Float64()
	st := r.String()
	if r.Err() != nil {
		return r.Err()
	}
	if m != s.m || (p != 0 && p != m) || len(N) != m*m || len(H) != m*m || !(t >= 0) || since > uint64(math.MaxInt32) {
		return fmt.Errorf("%w: RP sketch state does not fit m = %d", model.ErrCorrupt, s.m)
	}
	if !(alpha > 0) || !(capt >= 0) || (!s.cfg.HostAlpha && alpha != s.cfg.Alpha) {
		return fmt.Errorf("%w: RP sketch saved with α = %v, Σ captured %v (configured α = %v)", model.ErrCorrupt, alpha, capt, s.cfg.Alpha)
	}
	for _, v := range append(append([]float64{t, alpha, capt}, N...), H...) {
		if !linalg.IsFinite(v) {
			return fmt.Errorf("%w: non-finite RP sketch state", model.ErrCorrupt)
		}
	}
	if err := s.src.UnmarshalBinary([]byte(st)); err != nil {
		return fmt.Errorf("%w: RP generator state: %v", model.ErrCorrupt, err)
	}
	s.p, s.t = p, t
	s.since, s.chols, s.skips, s.fallbk = int(since), int(chols), int(skips), int(fallbk)
	copy(s.N, N)
	copy(s.H, H)
	s.lok, s.l2ok = false, false
	s.alpha, s.capt = alpha, capt
	s.k2, s.nmax = s.norms()
	return nil
}

// Report implements sparse.Sketch: the eigenvalues of SSᵀ (from N − αI)
// and the share of Σ‖ĝ‖² they hold (tr SSᵀ = ‖S‖_F², whose expectation
// is Σ‖ĝ‖²).
func (s *Sketch) Report(w io.Writer, sumG2 float64) {
	fmt.Fprintf(w, "sketch = rp, m = %d, α = %g, updates = %.0f, H by Cholesky = %d, Woodbury fallbacks = %d, skipped = %d\n",
		s.m, s.alpha, s.t, s.chols, s.fallbk, s.skips)
	if s.p == 0 {
		fmt.Fprintln(w, "eigenvalues of SSᵀ = (empty sketch)")
		return
	}
	vals, _ := s.eigK()
	sort.Sort(sort.Reverse(sort.Float64Slice(vals)))
	share := sparse.ReportSpectrum(w, "eigenvalues of SSᵀ", vals, sumG2)
	fmt.Fprintf(w, "share of Σ‖ĝ‖² in the sketch (tr SSᵀ / Σ‖ĝ‖²) = %.4f (Σ‖ĝ‖² = %.6g), ‖HN − I‖_max = %.2g\n", share, sumG2, s.Residual())
}
