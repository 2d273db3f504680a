package dense

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// FDEigTol is the relative eigenvalue floor of the Frequent Directions
// references: after each eigendecomposition an eigenvalue λ_i ≤ FDEigTol·λ₁
// counts as 0, and so does a shrunk value λ_i − λ_m ≤ FDEigTol·λ₁ (the row is
// dead). Package fd uses the same rule and value (its tests check that), so
// that the decision "α stays 0" of RFD₀ and the set of live rows agree.
const FDEigTol = 1e-12

// FD is the Frequent Directions sketch with an explicit sketch matrix:
//
//   - per-step (Fast false): Luo et al. (NIPS 2016), Alg. 2 as written — S is m×d with its
//     last row zero; ĝ goes into the last row, S ← (Σ − Σ_mm I)^{1/2}V from
//     the SVD of S, so m−1 rows are live;
//   - doubled buffer (Fast true): Luo et al. (JMLR 2019), Alg. 6 (fast RFD-SON; Alg. 4/5
//     for the sketch alone) — rows are appended until the buffer holds 2m
//     of them (zero rows count), then the SVD shrinks it to m−1 rows by the
//     m-th squared singular value. The buffer starts as Alg. 6's
//     B⁽⁰⁾ = 0_{m×d}, so the first shrink comes with the m-th row (Alg. 4/5
//     start from the first m−1 rows and first shrink at the 2m-th);
//   - Robust: Luo et al. (JMLR 2019), Alg. 2/5, α ← α + λ_m/2 at every shrink (RFD), with
//     α₀ = 0 allowed (RFD₀, the pseudo-inverse branch of dense SON).
//
// λ_m is the m-th largest eigenvalue of ŜᵀŜ for the Ŝ being shrunk (0 when
// Ŝ has rank < m). Eigenvalues below FDEigTol·λ₁ are taken as 0.
type FD struct {
	M, D   int
	A      float64 // α_t
	Robust bool
	Fast   bool
	Rows   [][]float64 // current rows (zero rows included)
	SumRho float64     // Σ λ_m over all shrinks
	// Grow is RFD's part of α, ½Σλ_m/W_s with W_s the scale set by
	// SetWeight before each Update (1 unless set: ½Σλ_m).
	Grow float64
	W    float64
	// Rhos lists λ_m of every shrink (zero ones included), for bound tests.
	Rhos []float64
	// Gate is ε of the gated FD (package fd's Config.Gate; per-step only).
	// Whether the gate is consulted depends on the factored form (an
	// absorb it refused), so Tries, called once per Update, says how often
	// it was; each time the kept direction v_i with E′_i < ε·α that leans
	// most on ĝ — the largest (ĝ·v_i)²/λ_i², ĝ's coefficient in
	// v_i = Ŝᵀu_i/√λ_i squared — is dropped, until none is left.
	Gate  float64
	Tries func() int
	// Drops lists E′ of every dropped direction, DropA Σ E′/α over them.
	Drops []float64
	DropA float64
	// Skip is κ of the gate's skips (package fd's Config.Skip; per-step,
	// Gate > 0): a ĝ with ‖ĝ‖² < κ·Gate·α is left out, no shrink. Skips
	// counts them, SkipA is Σ‖ĝ‖²/α over them.
	Skip  float64
	Skips int
	SkipA float64
}

// NewFD returns an empty dense FD/RFD sketch; alpha is α (FD) or α₀ (RFD).
func NewFD(m, d int, alpha float64, robust, fast bool) *FD {
	f := &FD{M: m, D: d, A: alpha, Robust: robust, Fast: fast}
	for range m {
		f.Rows = append(f.Rows, make([]float64, d))
	}
	return f
}

// Alpha implements Sketch.
func (f *FD) Alpha() float64 { return f.A }

// SetAlpha implements Sketch: α = a (+ Grow for RFD).
func (f *FD) SetAlpha(a float64) {
	if f.Robust {
		a += f.Grow
	}
	f.A = a
}

// SetWeight sets W_s, the scale of the next Update's units (package sparse's
// Step.W).
func (f *FD) SetWeight(w float64) { f.W = w }

// Rank implements Sketch: the non-zero rows, at most m−1 (package fd).
func (f *FD) Rank() (k int) {
	for _, r := range f.Rows {
		if dotv(r, r) > 0 {
			k++
		}
	}
	return min(k, f.M-1)
}

// Captured implements Sketch: ‖S‖_F² = tr(SSᵀ).
func (f *FD) Captured() (v float64) {
	for _, r := range f.Rows {
		v += dotv(r, r)
	}
	return v
}

// S implements Sketch.
func (f *FD) S() *mat.Dense { return rowsMatrix(f.Rows, f.D) }

// Update implements Sketch.
func (f *FD) Update(g []float64) {
	g = append([]float64(nil), g...)
	if n := dotv(g, g); !f.Fast && f.Gate > 0 && f.Skip > 0 && n < f.Skip*f.Gate*f.A {
		f.Skips++
		f.SkipA += n / f.A
		return
	}
	if !f.Fast {
		f.Rows[f.M-1] = g // the last row is always zero before the insert
		f.shrink()
		return
	}
	f.Rows = append(f.Rows, g)
	if len(f.Rows) == 2*f.M {
		f.shrink()
	}
}

// shrink replaces Rows by m−1 rows (Σ²_{1:m−1} − λ_m)^{1/2}V_{1:m−1}ᵀ,
// plus a zero m-th row in the per-step form.
func (f *FD) shrink() {
	S := f.S()
	var svd mat.SVD
	if !svd.Factorize(S, mat.SVDThin) {
		panic("dense: FD SVD failed")
	}
	var V mat.Dense
	svd.VTo(&V) // d×min(k,d)
	sv := svd.Values(nil)
	lam := make([]float64, len(sv))
	for i, s := range sv {
		lam[i] = s * s
	}
	top := 0.0
	if len(lam) > 0 {
		top = lam[0]
	}
	for i := range lam {
		if lam[i] <= FDEigTol*top {
			lam[i] = 0
		}
	}
	rho := 0.0
	if f.M-1 < len(lam) {
		rho = lam[f.M-1]
	}
	f.SumRho += rho
	f.Rhos = append(f.Rhos, rho)
	if f.Robust {
		w := max(1, f.W)
		f.A += rho / 2 / w
		f.Grow += rho / 2 / w
	}
	dropped := f.gate(S, &V, lam, rho, top)
	nrows := f.M - 1
	if !f.Fast {
		nrows = f.M
	}
	rows := make([][]float64, nrows)
	for i := range rows {
		rows[i] = make([]float64, f.D)
		if i >= f.M-1 || i >= len(lam) {
			continue
		}
		e := lam[i] - rho
		if e <= FDEigTol*top || dropped[i] {
			continue
		}
		se := math.Sqrt(e)
		for j := range rows[i] {
			rows[i][j] = se * V.At(j, i)
		}
	}
	f.Rows = rows
}

// gate applies the gated FD's drops to the shrink of S (rows: the old
// sketch, ĝ last) and returns which of the kept directions it dropped.
func (f *FD) gate(S *mat.Dense, V *mat.Dense, lam []float64, rho, top float64) []bool {
	dropped := make([]bool, len(lam))
	if f.Gate == 0 || f.Tries == nil {
		return dropped
	}
	tries := f.Tries()
	if f.Fast || tries == 0 {
		return dropped
	}
	g := S.RawRowView(f.M - 1)
	lim := f.Gate * f.A
	for range tries {
		bi, best := -1, 0.0
		for i := 0; i < f.M-1 && i < len(lam); i++ {
			e := lam[i] - rho
			if e <= FDEigTol*top || dropped[i] || !(e < lim) {
				continue
			}
			var gv float64
			for j, x := range g {
				gv += x * V.At(j, i)
			}
			// Package fd's gateLean: U_{q,i}² = (ĝ·v_i)²/λ_i must exceed
			// 1e-12 (a direction without ĝ has it at rounding level).
			if sc := gv * gv / (lam[i] * lam[i]); sc > best && gv*gv/lam[i] > 1e-12 {
				bi, best = i, sc
			}
		}
		if bi < 0 {
			break
		}
		dropped[bi] = true
		e := lam[bi] - rho
		f.Drops = append(f.Drops, e)
		f.DropA += e / f.A
	}
	return dropped
}
