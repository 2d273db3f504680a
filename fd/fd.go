// Package fd is the Frequent Directions family of sketches for Sketched
// Online Newton, in the sparse factored form of docs/algorithms.md §4:
//
//   - FD-SON: Haipeng Luo, Alekh Agarwal, Nicolò Cesa-Bianchi, John
//     Langford, "Efficient Second Order Online Learning by Sketching",
//     NIPS 2016: the FD sketch of Alg. 2 inside Alg. 1 (regret: Theorem 3);
//   - RFD-SON: Luo Luo, Cheng Chen, Zhihua Zhang, Wu-Jun Li, Tong Zhang,
//     "Robust Frequent Directions with Application in Online Learning",
//     JMLR 20, 2019: Robust Frequent Directions (Alg. 2) inside the online
//     Newton step (Alg. 3):
//     α grows by half of every eigenvalue a shrink discards (Alg. 2 line 6),
//     and RFD₀ (α₀ = 0) takes the pseudo-inverse step while α = 0;
//   - fast FD/RFD: the doubled buffer of Luo et al. (JMLR 2019), App. A
//     (Alg. 4/5, and Alg. 6 for RFD-SON), which shrinks only when 2m rows are buffered;
//   - for the FD-adaptive learners of package ada (Yuanyu Wan, Lijun
//     Zhang, "Efficient Adaptive Online Learning via Frequent Directions",
//     IEEE TPAMI 2022; Sifan Yang, Yuanyu Wan, Peijia Li, Yibo Wang, Xiao
//     Zhang, Zhewei Wei, Lijun Zhang, "Dimension-Free Adaptive Subgradient
//     Methods with Frequent Directions", ICML 2025): Wan & Zhang's doubled
//     buffer (ADA-FFD, Alg. 3/4; Config.RankBuffer, rank.go), which counts
//     directions, and the spectral products f(SᵀS) = Zᵀ(·)Z of
//     spectral.go.
//
// # Representation
//
// The sketch has q rows S = C·Z. Z (p×d, p ≤ RowCap) lives in the SON
// core's feature table and changes only sparsely (sparse.Host); C (q×p) and
// K = ZZᵀ (p×p, kept exactly) are small and dense. Right after a shrink the
// sketch is in the diagonal state of docs/algorithms.md §4: C = E^{1/2}F with
// FKFᵀ = I on the q ≤ m−1 live rows, SSᵀ = diag(E), H = (αI + SSᵀ)⁻¹ =
// diag(1/(α+E)) and SᵀHS = ZᵀMZ with M = Fᵀdiag(E/(α+E))F. Between shrinks
// (the warm-up, and every step of the fast variant) raw ĝ rows are
// buffered and SSᵀ is a general matrix; H then comes from a Cholesky factor
// of N = αI + SSᵀ, bordered by one row per buffered ĝ (docs/algorithms.md §4,
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
//     SSᵀ = CKCᵀ. G = UΛUᵀ: the arrowhead by the O(m²) secular-equation
//     solver of internal/linalg (Golub 1973; Bunch–Nielsen–Sorensen 1978;
//     Gu–Eisenstat 1995), which falls back to LAPACK's Dsyev when it cannot
//     certify its result; the buffered state's general G (the first shrink
//     after the warm-up, and every shrink of the doubled buffer) by Dsyev,
//     O(m³).
//  2. λ_m is the m-th largest eigenvalue of Ŝ (0 if it has fewer rows). The
//     new sketch keeps E′ = λ_{1:m−1} − λ_m (Luo et al. (NIPS 2016), Alg. 2 line 2;
//     Luo et al. (JMLR 2019), Alg. 2 line 5), RFD sets α ← α + λ_m/2, and the new right singular
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
// with no free row compacts first. κ̂ is docs/algorithms.md's ‖K‖_F·‖F‖_F² after
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
// candidate, O(m²) for the arrowhead eigensolver on every shrink of the
// per-step sketch, plus O(p·m²) to form F_ext and the absorb's LQ, and the
// compactions, one per RowCap − q appends. The doubled buffer pays O(m³)
// for Dsyev every m examples (its 2m×2m G is not an arrowhead). On sparse data the append rate is high: with SON's
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
// (son/lazy.go): each is an O(ring·p³) generation step, and a feature's
// row pays O(p·q) when an example next touches it; a full flush every
// ring steps (ring ≈ √d_seen) bounds the bookkeeping. The package tests
// record the rates (TestRealDataRates) and check deferred against eager
// (TestDeferredEqualsEager).
//
// With the gate acting (gate.go) appends are rare and most shrinks add ĝ
// and drop one direction, so the per-example work is the shrink's own:
// the arrowhead (O(m²), with a division per term of every secular
// evaluation), F_a = Λ^{−1/2}Uᵀ·C (O(q²p)) and the absorb's least-norm
// solve (O(q²p)), against O(p²) for K′ and the checks. Two things keep the
// checks at that: where the shrink keeps every direction of [S; ĝᵀ] the
// absorb is infeasible and F_a is formed only after the gate's drop
// (formFa), one row fewer; and the absorb candidate forms K′ only where
// its κ̂ decides (absorbCandidate) — the row band needs K′'s diagonal, and
// ‖D′⁻¹K′D′⁻¹‖_F ≤ p (its entries are cosines) lets p·‖F_aD′‖_F² vouch
// for κ̂ ≤ θ, so the committed absorb forms K′ once, in place, with
// kBound in the same pass. Both leave every bit of the models as it was
// (TestAbsorbBound, TestGateLeanAbsorb). After the lean case's drop the
// absorb's δ comes from a rank-two solve instead of the LQ (lean.go,
// TestGateLeanSolve). At the default ε = 2 (SONGate) what remains beside
// Oja-SON's cost is mostly the arrowhead and F_a with the solve; the
// core's refreshes of stale rows after the compactions (son/lazy.go) and
// the wider Z·x̃ (up to m + 2 rows) are a smaller part. With the gate's
// skips (Config.Skip; gate.go, "Small gradients") most examples pay no
// shrink at all — 84 % of news20's in one pass, 93 % over three — and
// the gated FD-SON costs about what Oja-SON does (one text pass of
// news20: 1.19e9 instructions against 1.28e9).
//
// # RFD₀ and the pseudo-inverse
//
// With α = 0 (RFD with Alpha 0, until the first shrink that discards a
// positive λ_m) the core takes the pseudo-inverse branch of docs/algorithms.md §1:
// MulPinv applies Cᵀ(SSᵀ)^{†2}C and MulProj Cᵀ(SSᵀ)^†C, so that Zᵀ(·)Z is
// A† = (SᵀS)† and the projector P onto the row space of S; in the diagonal
// state these are F_LᵀE⁻¹F_L and F_LᵀF_L on the live rows. SSᵀ = UΛUᵀ is
// refactored after every update while α = 0, eigenvalues ≤ EigTol·λ₁
// dropped. (Luo et al. (JMLR 2019), App. A writes the α = 0 projection with I − A†; the
// null-space projector I − P is what is needed — docs/algorithms.md §12.6.)
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

	"github.com/sparseson/sparseson/internal/linalg"
	"github.com/sparseson/sparseson/sparse"
)

// Config selects and tunes the sketch.
type Config struct {
	// M is the sketch size m: m−1 live rows after every shrink; the fast
	// variant buffers up to 2m rows.
	M int
	// Alpha is α of A_t = αI + SᵀS for FD (must be > 0), or α₀ for RFD
	// (≥ 0; 0 is RFD₀, the hyperparameter-free variant of Luo et al. (JMLR 2019)).
	Alpha float64
	// Robust selects Robust Frequent Directions (Luo et al. (JMLR 2019), Alg. 2/3).
	Robust bool
	// HostAlpha: the SON core sets α's base every round (SetAlpha; the
	// scaled-space form), so a saved α need not equal Alpha.
	HostAlpha bool
	// Fast selects the doubled buffer (Luo et al. (JMLR 2019), Alg. 4/5/6).
	Fast bool
	// RankBuffer, with Fast, makes it Wan & Zhang's (TPAMI 2022) doubled buffer (ADA-FFD,
	// Alg. 3/4; rank.go): it starts empty, counts directions rather than
	// rows, and shrinks a full buffer after the round that filled it.
	RankBuffer bool
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
	// Dsyev makes every shrink use LAPACK's O(m³) Dsyev instead of the
	// O(m²) arrowhead solver (linalg.Arrowhead) — for tests and comparisons.
	Dsyev bool
	// Gate is ε of the gated FD (gate.go; per-step sketch only): when the
	// shrink's result cannot be absorbed into Z's rows, the kept direction
	// that leans most on ĝ among those with E′ < ε·α is dropped and the
	// absorb tried again. 0 is exact FD.
	Gate float64
	// GateFrom is the number of features seen (sparse.Step.Seen) from
	// which the gate acts: 0 selects GateRows·2m, a negative value
	// makes it act from the start.
	GateFrom int
	// Skip is κ of the gate's skips (gate.go, "Small gradients"; Gate >
	// 0, and a host that leaves the limit ε·α to the sketch): while the
	// gate acts, a ĝ with ‖ĝ‖² < κ·ε·α stays out of the sketch — no
	// shrink — and its ‖ĝ‖²/α is summed beside Σ E′/α. 0 sketches every
	// ĝ (the models before it).
	Skip float64
	// Project is γ of the projected steps (project.go; Gate > 0, per-step
	// sketch, a host that sets its own limit L with SetGateLimit): while
	// the gate acts, a ĝ whose part outside the sketch's row space, of
	// squared norm b², is below L, and whose cross term with its part p
	// in the row space is small, b·‖p‖ < γ·L, adds only p to the sketch
	// and counts b² as a dropped direction's E′. 0 is off (the models
	// before it); it is saved with the sketch's state.
	Project float64
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
const MaxM = 512

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
// core (son/lazy.go) a larger cap no longer pays: it saves compactions
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
	// Shrinks whose arrowhead the O(m²) solver could not vouch for, so
	// that Dsyev decomposed it.
	EigFallbacks int64
	// Why a shrink could not absorb ĝ (counted before any compaction): the
	// kept directions contain ĝ (or F_a is singular); the absorb would
	// leave κ̂ > θ; it would push a row norm of Z out of the band.
	AbsorbInfeasible, AbsorbIllCond, AbsorbBand int64
	// Directions the gate dropped (gate.go); saved only by a gated sketch,
	// so that an exact sketch's model is what it was before the gate.
	Drops int64
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
	// The gate (gate.go): whether it acts in this update, from how many
	// features seen, the drops of the shrink in progress (committed with
	// it), Σ E′/α of the committed drops and Σ m·ρ/α of every shrink with
	// α > 0 (the latter saved only by a gated sketch), and how often the
	// gate was consulted in the current update (gateLog, a test hook,
	// receives it after each update).
	gateOn              bool
	gateFrom            int
	pendDrops           int64
	pendDropA, sumDropA float64
	skips               int64   // ĝ the gate kept out (Config.Skip)
	sumSkipA            float64 // Σ ‖ĝ‖²/α_t over them
	sumRhoA             float64
	gateTries           int
	gateRho             float64 // ρ of the shrink in progress
	leanOff             bool    // tests: the general absorb candidate always
	leanSolveOff        bool    // tests: no lean candidate after the lean case's drop (lean.go)
	leanTry             bool    // choose: this candidate follows one drop from the lean case
	leanSolves          int64   // tests: absorbs of the lean candidate
	kabExact            bool    // tests: κ̂ always from the whole K′ (condEst)
	kabBounded          int64   // tests: absorbs the cosines' bound vouched for
	// F_ext's rows are formed lazily (formFa): the kept eigenvectors'
	// columns of U and their 1/√λ, whether fa holds them yet, and whether
	// the shrink in progress has a zero ĝ.
	cols          []int
	finv          []float64
	faRows        linalg.FDRows // formFa's scratch
	faDone, zeroG bool
	pcap          int // rows of Z before a shrink compacts (gatedCap)
	gateLog       func(tries int)
	gateLimit     func() float64 // SetGateLimit's bound on E′ (nil: ε·α)
	proj          projState      // the projected steps (project.go)

	// scratch
	g, u, lam, work  []float64
	ck, fa, fext, k2 []float64
	qa, tau, ys, dlt []float64
	tmat, gram, vq   []float64
	dsc, dinv        []float64
	y1, y2, eNew     []float64
	kq, kl, klam     []float64
	kfl              []float64
	ndg, dsc2        []float64
	arrow            *linalg.Arrowhead
	// gw caches W = C·K·Cᵀ = SSᵀ (q×q, stride q) for the buffered state,
	// where the scaled-space form's SetAlpha (every round), Captured and
	// the α = 0 factorization all read it: computed once by gramInto
	// after C or K changes, not once per caller. Every function that
	// changes C, K, p or q clears gwOK (invalidate), and a loaded sketch
	// starts without it, so the cached value is always gramInto's.
	gw   []float64
	gwOK bool
	spec spectral // Spectrum's factor (spectral.go)
}

// validate fills cfg's zero θ and row band with the defaults and checks
// the scalar settings (the row cap needs the buffer's size: New).
func (cfg *Config) validate() error {
	if cfg.M < 1 || cfg.M > MaxM {
		return fmt.Errorf("fd: sketch size m = %d out of range 1..%d", cfg.M, MaxM)
	}
	if math.IsNaN(cfg.Alpha) || math.IsInf(cfg.Alpha, 0) || cfg.Alpha < 0 {
		return fmt.Errorf("fd: α must be finite and ≥ 0, got %v", cfg.Alpha)
	}
	if !cfg.Robust && cfg.Alpha == 0 {
		return errors.New("fd: plain FD needs α > 0 (α = 0 is only meaningful for RFD, whose α grows)")
	}
	if cfg.Theta == 0 {
		cfg.Theta = DefaultTheta
	}
	if math.IsNaN(cfg.Theta) || cfg.Theta <= 1 {
		return fmt.Errorf("fd: θ must exceed 1, got %v", cfg.Theta)
	}
	if cfg.RowBand == 0 {
		cfg.RowBand = DefaultRowBand
	}
	if math.IsNaN(cfg.RowBand) || cfg.RowBand <= 1 {
		return fmt.Errorf("fd: row band must exceed 1, got %v", cfg.RowBand)
	}
	if !(cfg.Gate >= 0) || math.IsInf(cfg.Gate, 0) {
		return fmt.Errorf("fd: Gate ε must be finite and ≥ 0, got %v", cfg.Gate)
	}
	if !(cfg.Skip >= 0) || math.IsInf(cfg.Skip, 0) || cfg.Skip > 0 && cfg.Gate == 0 {
		return fmt.Errorf("fd: Skip κ must be finite, ≥ 0, and 0 without the gate (Gate), got %v", cfg.Skip)
	}
	if !(cfg.Project >= 0) || math.IsInf(cfg.Project, 0) || cfg.Project > 0 && (cfg.Gate == 0 || cfg.Fast || cfg.RankBuffer) {
		return fmt.Errorf("fd: Project γ must be finite, ≥ 0, and 0 without the per-step sketch's gate (Gate), got %v", cfg.Project)
	}
	if cfg.Gate > 0 && cfg.Fast {
		return errors.New("fd: Gate applies to the per-step sketch, not the doubled buffer (Fast)")
	}
	return nil
}

// New returns an empty sketch.
func New(cfg Config) (*Sketch, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	m := cfg.M
	lb := m
	if cfg.Fast {
		lb = 2 * m
	}
	minCap := max(m, lb-1)
	if cfg.RankBuffer {
		if !cfg.Fast {
			return nil, errors.New("fd: the rank-counted buffer is a doubled buffer (needs Fast)")
		}
		minCap = lb // it holds 2m rows before its deferred shrink
	}
	if cfg.RowCap == 0 {
		cfg.RowCap = DefaultRowCap(m, cfg.Fast)
	}
	if cfg.RowCap < minCap || cfg.RowCap > 16*MaxM {
		return nil, fmt.Errorf("fd: row cap %d out of range %d..%d", cfg.RowCap, minCap, 16*MaxM)
	}
	pm := cfg.RowCap
	s := &Sketch{cfg: cfg, m: m, lb: lb, pmax: pm, theta: cfg.Theta, band: cfg.RowBand, alpha: cfg.Alpha, diag: true}
	s.gateFrom = cfg.GateFrom
	if s.gateFrom == 0 {
		s.gateFrom = GateRows * DefaultRowCap(m, false)
	}
	s.pcap = pm
	if cfg.Fast && !cfg.RankBuffer {
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
	s.work = make([]float64, lb+linalg.EigWork(lb))
	s.ck = make([]float64, lb*pm)
	s.fa = make([]float64, lb*(pm+1))
	s.fext = make([]float64, lb)
	s.cols = make([]int, lb)
	s.finv = make([]float64, lb)
	s.ndg = make([]float64, pm+1)
	s.dsc2 = make([]float64, pm+1)
	s.k2 = make([]float64, pm*pm)
	s.qa = make([]float64, pm*lb)
	s.tau = make([]float64, lb)
	s.ys = make([]float64, lb)
	s.dlt = make([]float64, pm+1)
	s.tmat = make([]float64, lb*pm)
	s.gram = make([]float64, lb*lb)
	s.vq = make([]float64, pm)
	s.dsc = make([]float64, pm+1)
	s.dinv = make([]float64, pm+1)
	s.y1 = make([]float64, lb)
	s.y2 = make([]float64, lb)
	s.eNew = make([]float64, lb)
	s.kq = make([]float64, lb*lb)
	s.kl = make([]float64, lb*lb)
	s.klam = make([]float64, lb)
	s.kfl = make([]float64, lb*lb)
	s.gw = make([]float64, lb*lb)
	s.arrow = linalg.NewArrowhead(lb)
	s.projAlloc()
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
		y[i] = linalg.DotVec(s.C[i*pm:i*pm+p], z[:p])
	}
}

// ctz sets dst = Cᵀ·y.
func (s *Sketch) ctz(dst, y []float64) {
	p, pm := s.p, s.pmax
	dst = dst[:p]
	clear(dst)
	for i, yi := range y {
		if yi != 0 {
			linalg.Axpy(yi, s.C[i*pm:i*pm+p], dst)
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
		if !linalg.IsFinite(x) {
			clear(v)
			return
		}
	}
}

// Update implements sparse.Sketch: one row of Frequent Directions.
func (s *Sketch) Update(st *sparse.Step, h sparse.Host) {
	s.cnt.Updates++
	s.proj.still = false
	s.wcur = max(1, st.W)
	s.gateTries = 0
	c, n := st.C, st.N
	kap := c * c * n
	zero := !(kap >= minKappa && kap <= maxKappa)
	if !(kap <= maxKappa) {
		s.cnt.Skipped++
	}
	if s.skip(st, kap) || s.projStep(st, c, kap, zero) {
		return
	}
	s.projFold()
	if s.cfg.RankBuffer {
		s.rankUpdate(st, h, c, kap, zero)
	} else if s.nb++; s.nb < s.lb {
		if !zero {
			s.bufferAppend(st, h, c, kap)
		}
	} else {
		s.shrink(st, h, c, kap, zero)
	}
	if s.alpha == 0 {
		s.refreshPinv()
	}
	if s.gateLog != nil {
		s.gateLog(s.gateTries)
	}
}
