// Package fd is the Frequent Directions family of sketches for Sketched
// Online Newton, in the sparse factored form of sketches.md §4:
//
//   - FD-SON: seed 004 (Luo, Agarwal, Cesa-Bianchi, Langford, "Efficient
//     Second Order Online Learning by Sketching", NIPS 2016), the FD sketch
//     of Alg. 2 inside Alg. 1 (regret: Theorem 3);
//   - RFD-SON: seed 002 (L. Luo, C. Chen, Z. Zhang, W.-J. Li, T. Zhang,
//     "Robust Frequent Directions with Application in Online Learning"),
//     Robust Frequent Directions (Alg. 2) inside the online Newton step
//     (Alg. 3):
//     α grows by half of every eigenvalue a shrink discards (Alg. 2 line 6),
//     and RFD₀ (α₀ = 0) takes the pseudo-inverse step while α = 0;
//   - fast FD/RFD: the doubled buffer of seed 002 App. A (Alg. 4/5, and
//     Alg. 6 for RFD-SON), which shrinks only when 2m rows are buffered.
//
// # Representation
//
// The sketch has q rows S = C·Z. Z (p×d, p ≤ RowCap) lives in the SON
// core's feature table and changes only sparsely (sparse.Host); C (q×p) and
// K = ZZᵀ (p×p, kept exactly) are small and dense. Right after a shrink the
// sketch is in the diagonal state of sketches.md §4: C = E^{1/2}F with
// FKFᵀ = I on the q ≤ m−1 live rows, SSᵀ = diag(E), H = (αI + SSᵀ)⁻¹ =
// diag(1/(α+E)) and SᵀHS = ZᵀMZ with M = Fᵀdiag(E/(α+E))F. Between shrinks
// (the warm-up, and every step of the fast variant) raw ĝ rows are
// buffered and SSᵀ is a general matrix; H then comes from a Cholesky factor
// of N = αI + SSᵀ, bordered by one row per buffered ĝ (sketches.md §4,
// "Fast FD").
//
// # Update (ĝ = c·x̃, z = Z·x̃ known)
//
// Every update counts one row into the FD buffer — a zero ĝ too, as a zero
// row occupies a slot in Alg. 2/4. While the buffer holds fewer than L rows
// (L = m per step, 2m fast) ĝ is appended: Z gains the row ĝᵀ, C a unit
// row, and N and K are bordered, O(ms + m² + mp). When the L-th row arrives
// the buffer is shrunk:
//
//  1. The Gram matrix of Ŝ = [S; ĝᵀ] is G = [[SSᵀ, c·Cz], [c·zᵀCᵀ, κ]],
//     κ = ‖ĝ‖². In the diagonal state SSᵀ = diag(E) and G is the arrowhead
//     matrix of §4 (we take SSᵀ = diag(E) as maintained: forming C·K·Cᵀ from
//     the stored K would add rounding of order ε·κ̂·λ₁, and measured
//     larger errors than the arrowhead's drift); in the buffered state
//     SSᵀ = CKCᵀ. G = UΛUᵀ by LAPACK's symmetric eigensolver, O(m³).
//  2. λ_m is the m-th largest eigenvalue of Ŝ (0 if it has fewer rows). The
//     new sketch keeps E′ = λ_{1:m−1} − λ_m (seed 004 Alg. 2 line 2; seed
//     002 Alg. 2 line 5), RFD sets α ← α + λ_m/2, and the new right singular
//     vectors are V′ = F_ext·[Z; ĝᵀ] with
//     F_ext = Λ^{−1/2}U_{:,1:m−1}ᵀ·[[C, 0], [0, 1]] = [F_a | f].
//     Eigenvalues ≤ EigTol·λ₁ count as 0; rows with E′ = 0 are dropped.
//  3. Absorb (§4 step 3): solve F_aδ = f, then Z ← Z + δĝᵀ, F ← F_a: p is
//     unchanged and only the example's columns move. δ is the least-norm
//     solution in the row-equilibrated basis (Householder QR of (F_aD)ᵀ,
//     D = diag(K)^{1/2}), i.e. the smallest relative change of the rows of Z.
//     Absorb is impossible exactly when the kept directions contain ĝ while
//     Z's rows do not (warm-up, a dead row, or ĝ ⟂ the sketch and kept).
//  4. Append (§4 step 4): Z ← [Z; ĝᵀ], F ← F_ext, then one more absorb on
//     the new row alone scales it to unit norm. Exact, O(ms + m² + p).
//  5. Compact (§4 step 5): fold w̄ += Zᵀb, Z ← F·Z over the seen features
//     (one Host.Transform, which also returns K = ZZᵀ), F ← K^{−1/2}
//     (Löwdin), p ← q; in the buffered state the new Z is instead the right
//     singular vectors Λ^{−1/2}UᵀC·Z of S and C ← UΛ^{1/2}, so that S is
//     kept. The shrink is then recomputed on the clean basis.
//
// The choice: absorb if it is possible, keeps every row norm of Z within
// [RowBand^{−1/2}, RowBand^{1/2}] and leaves κ̂ ≤ θ; else append while Z has
// a free row and the appended basis has κ̂ ≤ θ; else compact and retry,
// taking the better-conditioned of absorb and append. A buffered append
// with no free row compacts first. κ̂ is sketches.md's ‖K‖_F·‖F‖_F² after
// equilibrating the rows of Z (condEst), raised to the square of the
// absorb's own loss factor: adding δ_jĝ to row j swamps it by 1 +
// |δ_j|‖ĝ‖/‖Z_j‖ (which also bounds the cancellation between w̄ and Zᵀb in
// Host.Absorb) or cancels it by (‖Z_j‖ + |δ_j|‖ĝ‖)/‖Z_j + δ_jĝ‖.
//
// The row band is what binds in practice. On sparse data ĝ is nearly
// orthogonal to Z's rows, so every absorb makes rows longer (Pythagoras);
// unchecked, row norms grow without bound — 1e11…1e23 within 3000 random
// steps — the raw κ̂ and the core's fold guard (‖b‖²·ZNorm2 against ‖w‖²)
// then see huge spreads, and a fold (O(p·d_seen)) follows almost every
// example. With the band the rows stay within √RowBand of unit length, and
// the rows that would leave it are appended instead.
//
// # Cost
//
// Per example: O(ps + p²) for the core's products and the absorb
// candidate, plus O(m³) for the eigensolver on every shrink (every example
// per step; every m+1 examples fast) and the compactions, one per
// RowCap − q appends. On sparse data the append rate is high: with SON's
// bounded predictions (C = 1, logistic loss, m = 10) FD appends on 46% of
// the news20 examples and RFD₀ on 68% (w8a: 87% and 89%). The paper's
// O(m² + ms) holds only where absorbs nearly always succeed, e.g. when
// most gradients vanish (C = 10⁹: 7% appends on news20, 4% on w8a for FD).
// The fast variant appends on every example and compacts every
// RowCap − 2m examples or so — there is no O(m² + ms) form of the doubled
// buffer (§4).
//
// A compaction done eagerly is O(p·q·d_seen) over the features seen so
// far, the order of a dense update. The sketch implements
// sparse.GramSketch, so the SON core defers compactions and folds
// (sparse/lazy.go): each is an O(ring·p³) generation step, and a feature's
// row pays O(p·q) when an example next touches it; a full flush every
// ring steps (ring ≈ √d_seen) bounds the bookkeeping. The package tests
// record the rates (TestRealDataRates) and check deferred against eager
// (TestDeferredEqualsEager).
//
// # RFD₀ and the pseudo-inverse
//
// With α = 0 (RFD with Alpha 0, until the first shrink that discards a
// positive λ_m) the core takes the pseudo-inverse branch of sketches.md §1:
// MulPinv applies Cᵀ(SSᵀ)^{†2}C and MulProj Cᵀ(SSᵀ)^†C, so that Zᵀ(·)Z is
// A† = (SᵀS)† and the projector P onto the row space of S; in the diagonal
// state these are F_LᵀE⁻¹F_L and F_LᵀF_L on the live rows. SSᵀ = UΛUᵀ is
// refactored after every update while α = 0, eigenvalues ≤ EigTol·λ₁
// dropped. (Seed 002 App. A writes the α = 0 projection with I − A†; the
// null-space projector I − P is what is needed — sketches.md §12.6.)
//
// The doubled buffer starts as Alg. 6's B⁽⁰⁾ = 0_{m×d} (m zero rows), so
// its first shrink — and RFD₀'s first chance to leave α = 0 — comes with
// the m-th example, as for the per-step sketch. Alg. 4/5 start from the
// first m−1 rows instead and would stay in the pseudo-inverse phase for 2m
// examples; on news20 that phase met a gradient whose new direction had
// eigenvalue 4e-11·λ₁, and the pseudo-inverse step along it wrecked the
// model (online error 47%).
package fd

import (
	"errors"
	"fmt"
	"math"

	"github.com/sparseson/sparseson/sparse"
)

// Config selects and tunes the sketch.
type Config struct {
	// M is the sketch size m: m−1 live rows after every shrink; the fast
	// variant buffers up to 2m rows.
	M int
	// Alpha is α of A_t = αI + SᵀS for FD (must be > 0), or α₀ for RFD
	// (≥ 0; 0 is RFD₀, the hyperparameter-free variant of seed 002).
	Alpha float64
	// Robust selects Robust Frequent Directions (seed 002 Alg. 2/3).
	Robust bool
	// HostAlpha: the SON core sets α's base every round (SetAlpha; the
	// scaled-space form), so a saved α need not equal Alpha.
	HostAlpha bool
	// Fast selects the doubled buffer (seed 002 Alg. 4/5/6).
	Fast bool
	// RowCap is the most rows Z may have (the core's per-feature Z stride).
	// It must be at least m (per step) or 2m−1 (fast); 0 selects
	// DefaultRowCap.
	RowCap int
	// Theta bounds the condition estimate κ̂ of the factored basis Z, F;
	// 0 selects DefaultTheta.
	Theta float64
	// RowBand bounds the row norms of Z to [RowBand^{−1/2}, RowBand^{1/2}]
	// (rows start at norm 1); must exceed 1; 0 selects DefaultRowBand.
	RowBand float64
}

// EigTol is the relative eigenvalue floor: after an eigendecomposition of
// the sketch's Gram matrix an eigenvalue λ_i ≤ EigTol·λ₁ counts as 0, and a
// shrunk value λ_i − λ_m ≤ EigTol·λ₁ makes the row dead (dropped). Rounding
// in the Gram matrix is of order m·ε·λ₁ and more, so values below this are
// noise; the threshold also decides when RFD₀ leaves α = 0. The dense
// references use the same value (dense.FDEigTol).
const EigTol = 1e-12

// DefaultTheta is the default bound on κ̂. With the row band in place it
// rarely binds (see the package tests' measurements); accuracy in the
// open-loop test is 1e-13 for θ from 1e2 to 1e8.
const DefaultTheta = 1e6

// DefaultRowBand is the default row-norm band (see Config.RowBand and the
// package comment).
const DefaultRowBand = 10

// MaxM bounds the sketch size.
const MaxM = 128

// pivotFloor is the relative floor of a Cholesky pivot of N = αI + SSᵀ
// (see bufferAppend).
const pivotFloor = 1e-13

// Guards on κ = ‖ĝ‖²: outside [minKappa, maxKappa] an update cannot be
// represented without underflow or overflow in the Gram matrix; it is not
// sketched (counted as skipped when κ overflowed or was NaN) but still
// occupies its buffer slot, like a zero row.
const (
	minKappa = 1e-200
	maxKappa = 1e200
)

// DefaultRowCap returns the default Z row cap for sketch size m: 2m for the
// per-step sketch, 3m for the fast one. With compactions deferred by the
// core (sparse/lazy.go) a larger cap no longer pays: it saves compactions
// but every stale row's refresh and every example's Z·x̃ cost O(cap). On
// news20 (m = 10, two passes) caps of 1.2m, 1.5m, 2m, 3m, 4m took
// 0.81, 0.72, 0.76, 0.91, 1.05 s for FD and 2.35, 1.74, 1.51, 1.63, 1.72 s
// for RFD₀; the fast variant took 1.46, 1.55, 1.80, 1.92 s at 3m, 4m, 6m,
// 8m.
func DefaultRowCap(m int, fast bool) int {
	if fast {
		return 3 * m
	}
	return 2 * m
}

// Counts are the sketch's event counters.
type Counts struct {
	Updates     int64 // calls to Update
	Shrinks     int64 // eigendecompositions of a full buffer
	Absorbs     int64 // Z ← Z + δĝᵀ
	Appends     int64 // Z gains a row (buffered or at a shrink)
	Compactions int64 // fold + Transform over the seen features
	CondCompact int64 // … of which with a free row (κ̂ > θ both ways)
	Skipped     int64 // ĝ with non-finite or overflowing ‖ĝ‖² (see minKappa)
	// Why a shrink could not absorb ĝ (counted before any compaction): the
	// kept directions contain ĝ (or F_a is singular); the absorb would
	// leave κ̂ > θ; it would push a row norm of Z out of the band.
	AbsorbInfeasible, AbsorbIllCond, AbsorbBand int64
}

// Sketch is the sparse FD/RFD sketch; it implements sparse.Sketch.
type Sketch struct {
	cfg         Config
	m, lb       int // sketch size, buffer length (m per step, 2m fast)
	pmax        int
	theta, band float64

	p, q  int  // rows of Z, rows of S
	nb    int  // buffer rows, zero rows included
	diag  bool // C = E^{1/2}F with FKFᵀ = I (after a shrink)
	alpha float64
	C     []float64 // q×p, stride pmax
	K     []float64 // p×p, stride pmax
	E     []float64 // the last shrink's E (diagonal state)
	L     []float64 // Cholesky factor of N = αI + SSᵀ, q×q, stride lb (α > 0)
	knorm float64   // kBound(K) ≥ ‖Z‖₂²
	// α = 0: SSᵀ = UΛUᵀ with Λ cut at EigTol; pinv = 1/λ or 0.
	pu   []float64 // q×q, stride lb
	pinv []float64
	// Σλ_m over all shrinks.
	sumRho float64
	// RFD's own part of α, ½Σλ_m/W_s (W_s = Step.W, 1 in the paper's
	// form, where it is ½Σλ_m): α = the base α₀ (SetAlpha) + grow.
	grow float64
	wcur float64 // Step.W of the current update (≥ 1)
	cnt  Counts

	// scratch
	g, u, lam, work  []float64
	ck, fa, fext, k2 []float64
	qa, tau, ys, dlt []float64
	tmat, gram, vq   []float64
	dsc              []float64
	y1, y2, eNew     []float64
	kq, kl, klam     []float64
	kfl              []float64
}

// New returns an empty sketch.
func New(cfg Config) (*Sketch, error) {
	if cfg.M < 1 || cfg.M > MaxM {
		return nil, fmt.Errorf("fd: sketch size m = %d out of range 1..%d", cfg.M, MaxM)
	}
	if math.IsNaN(cfg.Alpha) || math.IsInf(cfg.Alpha, 0) || cfg.Alpha < 0 {
		return nil, fmt.Errorf("fd: α must be finite and ≥ 0, got %v", cfg.Alpha)
	}
	if !cfg.Robust && cfg.Alpha == 0 {
		return nil, errors.New("fd: plain FD needs α > 0 (α = 0 is only meaningful for RFD, whose α grows)")
	}
	if cfg.Theta == 0 {
		cfg.Theta = DefaultTheta
	}
	if math.IsNaN(cfg.Theta) || cfg.Theta <= 1 {
		return nil, fmt.Errorf("fd: θ must exceed 1, got %v", cfg.Theta)
	}
	if cfg.RowBand == 0 {
		cfg.RowBand = DefaultRowBand
	}
	if math.IsNaN(cfg.RowBand) || cfg.RowBand <= 1 {
		return nil, fmt.Errorf("fd: row band must exceed 1, got %v", cfg.RowBand)
	}
	m := cfg.M
	lb := m
	if cfg.Fast {
		lb = 2 * m
	}
	minCap := max(m, lb-1)
	if cfg.RowCap == 0 {
		cfg.RowCap = DefaultRowCap(m, cfg.Fast)
	}
	if cfg.RowCap < minCap || cfg.RowCap > 16*MaxM {
		return nil, fmt.Errorf("fd: row cap %d out of range %d..%d", cfg.RowCap, minCap, 16*MaxM)
	}
	pm := cfg.RowCap
	s := &Sketch{cfg: cfg, m: m, lb: lb, pmax: pm, theta: cfg.Theta, band: cfg.RowBand, alpha: cfg.Alpha, diag: true}
	if cfg.Fast {
		s.nb = m // Alg. 6: B⁽⁰⁾ = 0_{m×d}
	}
	s.C = make([]float64, lb*pm)
	s.K = make([]float64, pm*pm)
	s.E = make([]float64, lb)
	s.L = make([]float64, lb*lb)
	s.pu = make([]float64, lb*lb)
	s.pinv = make([]float64, lb)
	s.g = make([]float64, lb*lb)
	s.u = make([]float64, lb*lb)
	s.lam = make([]float64, lb)
	s.work = make([]float64, lb+eigWork(lb))
	s.ck = make([]float64, lb*pm)
	s.fa = make([]float64, lb*(pm+1))
	s.fext = make([]float64, lb)
	s.k2 = make([]float64, pm*pm)
	s.qa = make([]float64, pm*lb)
	s.tau = make([]float64, lb)
	s.ys = make([]float64, lb)
	s.dlt = make([]float64, pm+1)
	s.tmat = make([]float64, lb*pm)
	s.gram = make([]float64, lb*lb)
	s.vq = make([]float64, pm)
	s.dsc = make([]float64, pm+1)
	s.y1 = make([]float64, lb)
	s.y2 = make([]float64, lb)
	s.eNew = make([]float64, lb)
	s.kq = make([]float64, lb*lb)
	s.kl = make([]float64, lb*lb)
	s.klam = make([]float64, lb)
	s.kfl = make([]float64, lb*lb)
	return s, nil
}

// Name implements sparse.Sketch: fd, rfd, fd_fast or rfd_fast.
func (s *Sketch) Name() string {
	n := "fd"
	if s.cfg.Robust {
		n = "rfd"
	}
	if s.cfg.Fast {
		n += "_fast"
	}
	return n
}

func (s *Sketch) MaxRows() int    { return s.pmax }
func (s *Sketch) Rows() int       { return s.p }
func (s *Sketch) Alpha() float64  { return s.alpha }
func (s *Sketch) ZNorm2() float64 { return s.knorm }

// Gram implements sparse.GramSketch: K = ZZᵀ (p×p, row stride RowCap), so
// the core can defer folds and compactions instead of visiting every seen
// feature's row at each.
func (s *Sketch) Gram() ([]float64, int) { return s.K, s.pmax }

// Config returns the configuration (defaults filled in).
func (s *Sketch) Config() Config { return s.cfg }

// Counts returns the event counters.
func (s *Sketch) Counts() Counts { return s.cnt }

// SumRho is Σλ_m over all shrinks (for RFD, α = α₀ + SumRho/2).
func (s *Sketch) SumRho() float64 { return s.sumRho }

// State is a copy of the sketch's small matrices, for tests and
// diagnostics: S = C·Z with C q×p; K = ZZᵀ (p×p); in the diagonal state
// E holds the q eigenvalues and F = E^{−1/2}C.
type State struct {
	P, Q  int
	Diag  bool
	Alpha float64
	C, K  []float64 // row-major, q×p and p×p
	E     []float64
}

// State returns a copy of the current state.
func (s *Sketch) State() State {
	p, q, pm := s.p, s.q, s.pmax
	st := State{P: p, Q: q, Diag: s.diag, Alpha: s.alpha,
		C: make([]float64, q*p), K: make([]float64, p*p), E: append([]float64(nil), s.E[:q]...)}
	for i := 0; i < q; i++ {
		copy(st.C[i*p:i*p+p], s.C[i*pm:i*pm+p])
	}
	for i := 0; i < p; i++ {
		copy(st.K[i*p:i*p+p], s.K[i*pm:i*pm+p])
	}
	return st
}

// cz sets y = C·z (q rows).
func (s *Sketch) cz(y, z []float64) {
	p, pm := s.p, s.pmax
	for i := range y {
		y[i] = dot(s.C[i*pm:i*pm+p], z[:p])
	}
}

// ctz sets dst = Cᵀ·y.
func (s *Sketch) ctz(dst, y []float64) {
	p, pm := s.p, s.pmax
	dst = dst[:p]
	clear(dst)
	for i, yi := range y {
		if yi != 0 {
			axpy(yi, s.C[i*pm:i*pm+p], dst)
		}
	}
}

// MulM implements sparse.Sketch: dst = CᵀN⁻¹C·z, N = αI + SSᵀ (in the
// diagonal state M = Fᵀdiag(E/(α+E))F).
func (s *Sketch) MulM(dst, z []float64) {
	q := s.q
	y := s.y1[:q]
	s.cz(y, z)
	if s.diag {
		for i := range y {
			y[i] /= s.alpha + s.E[i]
		}
	} else {
		s.cholSolve(y)
	}
	s.ctz(dst, y)
	finiteOrZero(dst[:s.p])
}

// finiteOrZero zeroes v if any entry is not finite. In exact arithmetic the
// products are finite (N ⪰ αI, and SSᵀ's pseudo-inverse is cut at EigTol),
// so this only triggers when the core feeds magnitudes (E/α beyond ~1e100,
// see TestExtremeInputs) that no float64 SON can resolve; a zero product
// then drops the sketch's correction for this step instead of spreading
// NaN through the weights.
func finiteOrZero(v []float64) {
	for _, x := range v {
		if !isFinite(x) {
			clear(v)
			return
		}
	}
}

// MulPinv implements sparse.Sketch: dst = Cᵀ(SSᵀ)^{†2}C·z, so that
// Zᵀ(·)Z = (SᵀS)†.
func (s *Sketch) MulPinv(dst, z []float64) { s.mulPinv(dst, z, true) }

// MulProj implements sparse.Sketch: dst = Cᵀ(SSᵀ)^†C·z, so that Zᵀ(·)Z is
// the projector onto the row space of S.
func (s *Sketch) MulProj(dst, z []float64) { s.mulPinv(dst, z, false) }

func (s *Sketch) mulPinv(dst, z []float64, sq bool) {
	q, lb := s.q, s.lb
	y := s.y1[:q]
	s.cz(y, z)
	t := s.y2[:q]
	for k := 0; k < q; k++ {
		var v float64
		for i := 0; i < q; i++ {
			v += s.pu[i*lb+k] * y[i]
		}
		w := s.pinv[k]
		if sq {
			w *= w
		}
		t[k] = v * w
	}
	for i := 0; i < q; i++ {
		var v float64
		for k := 0; k < q; k++ {
			v += s.pu[i*lb+k] * t[k]
		}
		y[i] = v
	}
	s.ctz(dst, y)
	finiteOrZero(dst[:s.p])
}

// cholSolve solves LLᵀx = y in place.
func (s *Sketch) cholSolve(y []float64) {
	lb := s.lb
	n := len(y)
	for i := 0; i < n; i++ {
		v := y[i]
		for k := 0; k < i; k++ {
			v -= s.L[i*lb+k] * y[k]
		}
		y[i] = v / s.L[i*lb+i]
	}
	for i := n - 1; i >= 0; i-- {
		v := y[i]
		for k := i + 1; k < n; k++ {
			v -= s.L[k*lb+i] * y[k]
		}
		y[i] = v / s.L[i*lb+i]
	}
}

// Update implements sparse.Sketch: one row of Frequent Directions.
func (s *Sketch) Update(st *sparse.Step, h sparse.Host) {
	s.cnt.Updates++
	s.wcur = max(1, st.W)
	c, n := st.C, st.N
	kap := c * c * n
	zero := !(kap >= minKappa && kap <= maxKappa)
	if !(kap <= maxKappa) {
		s.cnt.Skipped++
	}
	s.nb++
	if s.nb < s.lb {
		if !zero {
			s.bufferAppend(st, h, c, kap)
		}
	} else {
		s.shrink(st, h, c, kap, zero)
	}
	if s.alpha == 0 {
		s.refreshPinv()
	}
}

// bufferAppend appends ĝ as a new row of Z and of S (C gains a unit row).
func (s *Sketch) bufferAppend(st *sparse.Step, h sparse.Host, c, kap float64) {
	if s.p == s.pmax {
		s.compact(h, false)
	}
	p, q, pm, lb := s.p, s.q, s.pmax, s.lb
	z := st.Z[:p]
	// N bordering: the new row of SSᵀ is C·a (a = Zĝ = c·z), its diagonal
	// α + κ.
	if s.alpha > 0 {
		v := s.y1[:q]
		s.cz(v, z)
		for i := 0; i < q; i++ {
			x := c * v[i]
			for k := 0; k < i; k++ {
				x -= s.L[i*lb+k] * s.L[q*lb+k]
			}
			s.L[q*lb+i] = x / s.L[i*lb+i]
		}
		var l2 float64
		for k := 0; k < q; k++ {
			l2 += s.L[q*lb+k] * s.L[q*lb+k]
		}
		// In exact arithmetic d = α + κ − ‖l‖² = α + ‖ĝ − (its projection on
		// S's rows)‖² ≥ α. It is computed to about ε·(α + κ); a pivot below
		// that is rounding noise and is floored there, and a row with
		// ‖l‖² beyond α + κ (impossible for a positive definite N) is
		// scaled back, so that the factor stays bounded by N's diagonal.
		floor := math.Max(s.alpha, pivotFloor*(s.alpha+kap))
		d := s.alpha + kap - l2
		if d < floor {
			if l2 > s.alpha+kap-floor && l2 > 0 {
				f := math.Sqrt(math.Max(s.alpha+kap-floor, 0) / l2)
				for k := 0; k < q; k++ {
					s.L[q*lb+k] *= f
				}
			}
			d = floor
		}
		s.L[q*lb+q] = math.Sqrt(d)
		for k := q + 1; k < lb; k++ {
			s.L[q*lb+k] = 0
		}
	}
	for i := 0; i < q; i++ {
		s.C[i*pm+p] = 0
	}
	scale := s.appendRow(h, c, kap, z)
	row := s.C[q*pm : q*pm+p+1]
	clear(row)
	row[p] = scale
	s.q++
	s.diag = false
}

// appendRow makes ĝᵀ the new row p of Z (Host.Append), rescales it to unit
// norm by a one-row absorb — Z_p ← Z_p + (1/‖ĝ‖ − 1)ĝᵀ, touching only the
// example's columns, with b_p = 0 so that w̄ is unchanged — and borders K.
// It returns ‖ĝ‖, the factor for column p of C or F that keeps S. Rows of
// unit norm keep the row band meaningful and the core's fold bound
// ‖b‖²·ZNorm2 from counting mere differences of scale between rows.
func (s *Sketch) appendRow(h sparse.Host, c, kap float64, z []float64) float64 {
	p, pm := s.p, s.pmax
	nrm := math.Sqrt(kap)
	sc := 1 / nrm
	for i, zi := range z {
		s.K[i*pm+p] = c * zi * sc
		s.K[p*pm+i] = c * zi * sc
	}
	s.K[p*pm+p] = 1
	h.Append()
	d := s.dlt[:p+1]
	clear(d[:p])
	d[p] = sc - 1
	h.Absorb(d)
	s.p++
	s.cnt.Appends++
	s.knorm = kBound(s.K, s.p, pm)
	return nrm
}

// gramInto writes W = C·K·Cᵀ (q×q) into dst with stride ld.
func (s *Sketch) gramInto(dst []float64, ld int) {
	p, q, pm := s.p, s.q, s.pmax
	for i := 0; i < q; i++ {
		ci := s.C[i*pm : i*pm+p]
		row := s.ck[i*pm : i*pm+p]
		clear(row)
		for j, v := range ci {
			if v != 0 {
				axpy(v, s.K[j*pm:j*pm+p], row)
			}
		}
	}
	for i := 0; i < q; i++ {
		for j := i; j < q; j++ {
			v := dot(s.ck[i*pm:i*pm+p], s.C[j*pm:j*pm+p])
			dst[i*ld+j] = v
			dst[j*ld+i] = v
		}
	}
}

// shrink is one step of FD/RFD on the full buffer [S; ĝᵀ].
func (s *Sketch) shrink(st *sparse.Step, h sparse.Host, c, kap float64, zero bool) {
	s.cnt.Shrinks++
	compacted := false
retry:
	p, q, pm := s.p, s.q, s.pmax
	z := st.Z[:p]
	g := q
	if !zero {
		g = q + 1
	}
	if g == 0 {
		s.nb = s.m - 1
		return
	}
	G := s.g[:g*g]
	if s.diag {
		clear(G)
		for i := 0; i < q; i++ {
			G[i*g+i] = s.E[i]
		}
	} else {
		s.gramInto(G, g)
	}
	if !zero {
		v := s.y1[:q]
		s.cz(v, z)
		for i := 0; i < q; i++ {
			G[i*g+q] = c * v[i]
			G[q*g+i] = c * v[i]
		}
		G[q*g+q] = kap
	}
	lam, U := s.lam[:g], s.u[:g*g]
	if !eigSym(g, G, lam, U, s.work) {
		// Only non-finite input gets here: drop ĝ, keep the buffer full.
		s.cnt.Skipped++
		s.nb = s.lb - 1
		return
	}
	s.nb = s.m - 1
	top := lam[0]
	if !(top > 0) {
		// Nothing left: every row is dead.
		s.setDiag(0)
		return
	}
	for i := range lam {
		if lam[i] <= EigTol*top {
			lam[i] = 0
		}
	}
	rho := 0.0
	if g >= s.m {
		rho = lam[s.m-1]
	}
	keep := 0
	for keep < min(s.m-1, g) && lam[keep]-rho > EigTol*top {
		s.eNew[keep] = lam[keep] - rho
		keep++
	}
	// F_ext = Λ^{−1/2}U_{:,1:keep}ᵀ·[[C, 0], [0, 1]] = [F_a | f], stride pm+1.
	fs := pm + 1
	for i := 0; i < keep; i++ {
		inv := 1 / math.Sqrt(lam[i])
		row := s.fa[i*fs : i*fs+p]
		clear(row)
		for j := 0; j < q; j++ {
			if w := U[j*g+i]; w != 0 {
				axpy(w*inv, s.C[j*pm:j*pm+p], row)
			}
		}
		if !zero {
			s.fext[i] = U[q*g+i] * inv
		}
	}
	if zero || keep == 0 {
		s.commit(keep, rho, false)
		return
	}
	for i := 0; i < keep; i++ {
		s.fa[i*fs+p] = s.fext[i]
	}
	// Absorb candidate: F_a δ = f, K′ = K + δaᵀ + aδᵀ + κδδᵀ, a = c·z.
	kab := math.Inf(1)
	okAb := false
	band := false // the absorb exists but breaks the row band
	if keep <= p {
		// Solve in the row-equilibrated basis Ẑ = D⁻¹Z (D = diag(K)^{1/2}):
		// (F_aD)δ̂ = f with least ‖δ̂‖, δ = Dδ̂. This minimizes the relative
		// change Σ(δ_j‖ĝ‖/‖Z_j‖)² of the rows of Z, and the solve's backward
		// error is then relative to each column of F_aD, not to the largest
		// column of F_a.
		dd := s.dsc[:p]
		for j := 0; j < p; j++ {
			dd[j] = math.Sqrt(math.Max(s.K[j*pm+j], 0))
			if !(dd[j] > 0) || !isFinite(dd[j]) {
				dd[j] = 1
			}
		}
		A := s.qa[:p*keep]
		for i := 0; i < keep; i++ {
			for j := 0; j < p; j++ {
				A[j*keep+i] = s.fa[i*fs+j] * dd[j]
			}
		}
		if minNormSolve(A, p, keep, s.fext[:keep], s.dlt, s.tau, s.ys) {
			d := s.dlt[:p]
			// The absorb adds δ_jĝ to row j of Z: when that swamps the row,
			// its old content (and w̄ through Host.Absorb's compensation)
			// keeps only ε·|δ̂_j|‖ĝ‖ relative accuracy, and the residual of
			// the solve enters V′ as (F_aδ − f)ĝᵀ. Count that amplification
			// along with the conditioning of the new basis.
			gn := math.Sqrt(kap)
			for j := range d {
				d[j] *= dd[j]
			}
			for i := 0; i < p; i++ {
				ai := c * z[i]
				for j := 0; j < p; j++ {
					s.k2[i*pm+j] = s.K[i*pm+j] + d[i]*c*z[j] + ai*d[j] + kap*d[i]*d[j]
				}
			}
			// Row j becomes Z_j + δ_jĝ, computed to ε·(‖Z_j‖ + |δ_j|‖ĝ‖):
			// relative to the new row that loses a factor (‖Z_j‖ +
			// |δ_j|‖ĝ‖)/‖Z_j + δ_jĝ‖ (cancellation), and relative to the old
			// one a factor 1 + |δ_j|‖ĝ‖/‖Z_j‖ (swamping) — which is also the
			// factor by which Host.Absorb's exactly cancelling changes
			// w̄ −= ĝ(δ·b), Zᵀb += ĝ(δ·b) can exceed the weights they
			// carry (b_j‖Z_j‖ is bounded by the core's fold guard). Count the
			// larger of the two along with the conditioning of the new
			// basis, and keep the row norms within the band (Config.RowBand).
			var sw, dmin, dmax float64
			dmin = math.Inf(1)
			for j := range d {
				nj := math.Sqrt(math.Max(s.k2[j*pm+j], 0))
				if d[j] != 0 {
					sw = math.Max(sw, (s.dsc[j]+math.Abs(d[j])*gn)/math.Min(nj, s.dsc[j]))
				}
				dmin, dmax = math.Min(dmin, nj), math.Max(dmax, nj)
			}
			kab = s.condEst(s.k2, p, keep, nil, 0)
			kab = math.Max(kab, sw*sw)
			okAb = isFinite(kab) && dmax*dmax <= s.band && dmin*dmin*s.band >= 1
			band = isFinite(kab) && !okAb

		}
	}
	// Append candidate: K_ext = [[K, a], [aᵀ, κ]], F_ext = [F_a | f].
	kap2 := math.Inf(1)
	if p < s.pmax {
		a := s.vq[:p]
		for i, v := range z {
			a[i] = c * v
		}
		kap2 = s.condEst(s.K, p, keep, a, kap)
		if !isFinite(kap2) {
			kap2 = math.Inf(1)
		}
	}
	if !compacted {
		switch {
		case band:
			s.cnt.AbsorbBand++
		case !okAb:
			s.cnt.AbsorbInfeasible++
		case kab > s.theta:
			s.cnt.AbsorbIllCond++
		}
	}
	switch {
	case okAb && kab <= s.theta:
		s.doAbsorb(h, keep, rho, c, kap, z)
	case p < s.pmax && kap2 <= s.theta:
		s.doAppend(h, keep, rho, c, kap, z)
	case !compacted:
		s.compact(h, p < s.pmax)
		compacted = true
		goto retry
	case okAb && (p == s.pmax || kab <= kap2):
		s.doAbsorb(h, keep, rho, c, kap, z)
	default:
		s.doAppend(h, keep, rho, c, kap, z)
	}
}

// condEst is the condition estimate κ̂ of a candidate basis: K (p×p,
// stride pmax; bordered by a and κ when a is not nil) and F = fa (keep rows,
// p or p+1 columns). With D = diag(K)^{1/2} (the row norms of Z) it is
// ‖D⁻¹KD⁻¹‖_F·‖FD‖_F² — sketches.md's ‖K‖_F·‖F‖_F² after equilibrating the
// rows of Z. Rounding in z = Zx is relative to each row's norm, and V = FZ
// magnifies it by at most ‖FD‖₂·‖(D⁻¹KD⁻¹)^{1/2}‖₂ ≤ κ̂^{1/2}; the
// unequilibrated bound also counts mere differences of scale between rows
// (an appended ĝ next to unit rows), which cost no accuracy.
func (s *Sketch) condEst(K []float64, p, keep int, a []float64, kap float64) float64 {
	pm, fs := s.pmax, s.pmax+1
	dd := s.dsc[:p+1]
	for j := 0; j < p; j++ {
		dd[j] = math.Sqrt(math.Max(K[j*pm+j], 0))
	}
	n := p
	if a != nil {
		dd[p] = math.Sqrt(kap)
		n++
	}
	var s1 float64
	for i := 0; i < p; i++ {
		if !(dd[i] > 0) {
			continue
		}
		for j := 0; j < p; j++ {
			if dd[j] > 0 {
				x := K[i*pm+j] / (dd[i] * dd[j])
				s1 += x * x
			}
		}
		if a != nil {
			x := a[i] / (dd[i] * dd[p])
			s1 += 2 * x * x
		}
	}
	if a != nil {
		s1++
	}
	var s2 float64
	for i := 0; i < keep; i++ {
		row := s.fa[i*fs : i*fs+n]
		for j, v := range row {
			x := v * dd[j]
			s2 += x * x
		}
	}
	return math.Sqrt(s1) * s2
}

// doAbsorb commits the absorb candidate (δ in dlt, K′ in k2).
func (s *Sketch) doAbsorb(h sparse.Host, keep int, rho, c, kap float64, z []float64) {
	p, pm := s.p, s.pmax
	for i := 0; i < p; i++ {
		copy(s.K[i*pm:i*pm+p], s.k2[i*pm:i*pm+p])
	}
	h.Absorb(s.dlt[:p])
	s.cnt.Absorbs++
	s.commit(keep, rho, true)
}

// doAppend commits the append candidate.
func (s *Sketch) doAppend(h sparse.Host, keep int, rho, c, kap float64, z []float64) {
	p, fs := s.p, s.pmax+1
	scale := s.appendRow(h, c, kap, z)
	for i := 0; i < keep; i++ {
		s.fa[i*fs+p] *= scale
	}
	s.commit(keep, rho, false)
}

// commit installs the shrunk sketch: C = E′^{1/2}·F_a (F_a in fa, p columns
// after any append), the diagonal state, and RFD's α.
func (s *Sketch) commit(keep int, rho float64, knormStale bool) {
	p, pm, fs := s.p, s.pmax, s.pmax+1
	for i := 0; i < keep; i++ {
		se := math.Sqrt(s.eNew[i])
		dst := s.C[i*pm : i*pm+p]
		src := s.fa[i*fs : i*fs+p]
		for j := range dst {
			dst[j] = se * src[j]
		}
	}
	s.sumRho += rho
	if s.cfg.Robust {
		s.alpha += rho / 2 / s.wcur
		s.grow += rho / 2 / s.wcur
	}
	s.setDiag(keep)
	if knormStale {
		s.knorm = kBound(s.K, s.p, pm)
	}
}

// setDiag enters the diagonal state with q = keep rows and E = eNew.
func (s *Sketch) setDiag(keep int) {
	lb := s.lb
	s.q = keep
	s.diag = true
	copy(s.E[:keep], s.eNew[:keep])
	for i := keep; i < lb; i++ {
		s.E[i] = 0
	}
	clear(s.L)
	for i := 0; i < keep; i++ {
		s.L[i*lb+i] = math.Sqrt(s.alpha + s.E[i])
	}
}

// compact folds b into w̄ and replaces Z by a well-conditioned basis of the
// sketch's row space over the seen features (sketches.md §4 step 5).
func (s *Sketch) compact(h sparse.Host, cond bool) {
	s.cnt.Compactions++
	if cond {
		s.cnt.CondCompact++
	}
	// Transform folds Zᵀb into w̄ first (deferred by the core, see
	// sparse/lazy.go).
	p, q, pm, lb := s.p, s.q, s.pmax, s.lb
	if q == 0 {
		h.Transform(s.tmat[:0], 0, nil)
		s.p = 0
		s.knorm = 0
		return
	}
	if s.diag {
		// T = F = E^{−1/2}C, so the new Z is V; then F ← K^{−1/2} (Löwdin).
		T := s.tmat[:q*p]
		for i := 0; i < q; i++ {
			inv := 1 / math.Sqrt(s.E[i])
			for j := 0; j < p; j++ {
				T[i*p+j] = s.C[i*pm+j] * inv
			}
		}
		gram := s.gram[:q*q]
		h.Transform(T, q, gram)
		s.setK(gram, q)
		s.lowdin(q)
		// C = E^{1/2}·K^{−1/2}.
		for i := 0; i < q; i++ {
			se := math.Sqrt(s.E[i])
			for j := 0; j < q; j++ {
				s.C[i*pm+j] = se * s.kfl[i*lb+j]
			}
		}
		return
	}
	// General state: SSᵀ = UΛUᵀ; new Z = Λ^{−1/2}UᵀC·Z (the right singular
	// vectors of S), C ← UΛ^{1/2}, which keeps S (up to rows below EigTol).
	G := s.g[:q*q]
	s.gramInto(G, q)
	lam, U := s.lam[:q], s.u[:q*q]
	if !eigSym(q, G, lam, U, s.work) || !(lam[0] > 0) {
		// Only a non-finite (or vanished) sketch gets here: drop it.
		s.cnt.Skipped++
		h.Transform(s.tmat[:0], 0, nil)
		s.p = 0
		s.knorm = 0
		s.setDiag(0)
		return
	}
	r := 0
	for r < q && lam[r] > EigTol*lam[0] {
		r++
	}
	T := s.tmat[:r*p]
	for k := 0; k < r; k++ {
		inv := 1 / math.Sqrt(lam[k])
		row := T[k*p : k*p+p]
		clear(row)
		for i := 0; i < q; i++ {
			if w := U[i*q+k]; w != 0 {
				axpy(w*inv, s.C[i*pm:i*pm+p], row)
			}
		}
	}
	gram := s.gram[:r*r]
	h.Transform(T, r, gram)
	s.setK(gram, r)
	for i := 0; i < q; i++ {
		for k := 0; k < r; k++ {
			s.C[i*pm+k] = U[i*q+k] * math.Sqrt(lam[k])
		}
	}
	if s.alpha > 0 {
		s.refactor()
	}
}

// setK installs K = gram (r×r) and p = r.
func (s *Sketch) setK(gram []float64, r int) {
	pm := s.pmax
	for i := 0; i < r; i++ {
		copy(s.K[i*pm:i*pm+r], gram[i*r:i*r+r])
	}
	s.p = r
	s.knorm = kBound(s.K, r, pm)
}

// lowdin sets kfl (stride lb) to K^{−1/2} for the r×r K.
func (s *Sketch) lowdin(r int) {
	lb, pm := s.lb, s.pmax
	a := s.kq[:r*r]
	for i := 0; i < r; i++ {
		copy(a[i*r:i*r+r], s.K[i*pm:i*pm+r])
	}
	th, Q := s.klam[:r], s.kl[:r*r]
	if !eigSym(r, a, th, Q, s.work) || !(th[0] > 0) {
		for i := 0; i < r; i++ {
			for j := 0; j < r; j++ {
				s.kfl[i*lb+j] = 0
			}
			s.kfl[i*lb+i] = 1
		}
		return
	}
	for k := range th {
		th[k] = 1 / math.Sqrt(math.Max(th[k], 1e-300))
	}
	for i := 0; i < r; i++ {
		for j := i; j < r; j++ {
			var v float64
			for k := 0; k < r; k++ {
				v += Q[i*r+k] * th[k] * Q[j*r+k]
			}
			s.kfl[i*lb+j] = v
			s.kfl[j*lb+i] = v
		}
	}
}

// refactor recomputes the Cholesky factor of N = αI + CKCᵀ.
func (s *Sketch) refactor() {
	q, lb := s.q, s.lb
	W := s.gram[:q*q]
	s.gramInto(W, q)
	clear(s.L)
	for i := 0; i < q; i++ {
		for j := 0; j <= i; j++ {
			v := W[i*q+j]
			if i == j {
				v += s.alpha
			}
			for k := 0; k < j; k++ {
				v -= s.L[i*lb+k] * s.L[j*lb+k]
			}
			if i == j {
				s.L[i*lb+i] = math.Sqrt(math.Max(v, math.Max(s.alpha, pivotFloor*(s.alpha+W[i*q+i]))))
			} else {
				s.L[i*lb+j] = v / s.L[j*lb+j]
			}
		}
	}
}

// refreshPinv factors SSᵀ = UΛUᵀ for the α = 0 branch.
func (s *Sketch) refreshPinv() {
	q, lb := s.q, s.lb
	clear(s.pinv)
	if q == 0 {
		return
	}
	G := s.g[:q*q]
	s.gramInto(G, q)
	lam, U := s.lam[:q], s.u[:q*q]
	if !eigSym(q, G, lam, U, s.work) || !(lam[0] > 0) {
		return
	}
	for k := 0; k < q; k++ {
		if lam[k] > EigTol*lam[0] {
			s.pinv[k] = 1 / lam[k]
		}
		for i := 0; i < q; i++ {
			s.pu[i*lb+k] = U[i*q+k]
		}
	}
}
