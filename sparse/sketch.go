package sparse

import (
	"fmt"
	"io"

	"github.com/sparseson/sparseson/model"
)

// Sketch is the second-order part of SON (Alg. 1, lines 2 and 8): a sketch
// S of the to-sketch vectors ĝ, kept in factored form S = E^{1/2}·F·Z
// (docs/algorithms.md §2) where Z (p×d) lives in the SON core's feature table and
// only changes sparsely, and every other piece (F, E, K = ZZᵀ, α) is p×p.
// A sketch never touches per-feature storage itself: it tells its Host what
// to do with Z. It is called once per example, never per feature.
//
// SᵀHS, with H = (αI + SSᵀ)⁻¹, is represented by the p×p matrix M with
// SᵀHS = ZᵀMZ; for Oja and FD, M = Fᵀdiag(E/(α+E))F, for RP, M = H.
type Sketch interface {
	// Name is the flag that selects the sketch (oja, fd, rfd, rp, …).
	Name() string
	// MaxRows is the most rows Z can ever have (the table's Z stride).
	MaxRows() int
	// Rows is the current number of rows p of Z.
	Rows() int
	// Alpha is the current α_t; 0 selects the pseudo-inverse branch.
	Alpha() float64
	// SetAlpha sets α's base (the SON core's scaled-space form sets it
	// every round, in the sketch's units: those of Σĝĝᵀ); a robust sketch
	// keeps adding its own growth on top.
	SetAlpha(a float64)
	// Captured is the energy of Σĝĝᵀ the sketch holds (the sum of its
	// eigenvalue estimates; for RP, Σ_t ĝ_tᵀ(S_{t−1}ᵀH_{t−1}S_{t−1})ĝ_t).
	Captured() float64
	// Rank is the number of directions the sketch holds (Oja's rows, FD's
	// live and buffered rows, RP's m once S ≠ 0): Captured's energy lies in
	// a space of that dimension.
	Rank() int
	// MulM sets dst = M·z (valid when Alpha() > 0).
	MulM(dst, z []float64)
	// MulPinv sets dst = F_LᵀE⁻¹F_L·z, so that A† = Zᵀ(F_LᵀE⁻¹F_L)Z on the
	// live rows (Alpha() = 0 only).
	MulPinv(dst, z []float64)
	// MulProj sets dst = F_LᵀF_L·z: the projector onto the live rows is
	// P = Zᵀ(F_LᵀF_L)Z (Alpha() = 0 only).
	MulProj(dst, z []float64)
	// ZNorm2 is an upper bound on ‖Z‖₂² (e.g. ‖ZZᵀ‖_F); the core uses it to
	// bound ‖Zᵀb‖ when deciding to fold.
	ZNorm2() float64
	// Update adds ĝ = st.C·x̃ to the sketch. st.Z holds Z_{t−1}x̃ on entry;
	// the Host calls keep it equal to Z·x̃ as Z changes.
	Update(st *Step, h Host)
	// Save and Load carry the sketch's whole state.
	Save(w *model.Writer)
	Load(r *model.Reader) error
	// Report prints the eigenvalue estimates and the share of Σ‖ĝ‖² they
	// capture (sumG2 is that sum).
	Report(w io.Writer, sumG2 float64)
}

// AlphaSaver is implemented by sketches whose saved state includes the α
// last given to SetAlpha and everything derived from it. The core sets α
// again when it loads a model only for the others: for RP a repeated
// SetAlpha is not a no-op — when the shift failed in the round the model
// was saved in (N not numerically positive definite), trying it again on
// the N after that round's update could succeed, and the loaded model
// would then differ from the one saved.
type AlphaSaver interface {
	SavesAlpha()
}

// Step is the example being sketched.
type Step struct {
	C float64   // ĝ = C·x̃
	N float64   // ‖x̃‖²
	Z []float64 // Z·x̃, len Rows()
	// W is the scale of the sketch's units: W_t in the scaled-space form
	// (Σĝĝᵀ ≈ W·C_t, scaled.go), 0 in the paper's. A robust sketch divides
	// what it adds to α by it, so that its growth stays in C's units.
	W float64
	// Seen is the number of distinct features the core has seen: what a
	// compaction of Z costs grows with it (package fd's gate switches on
	// by it).
	Seen int
}

// Host is what a sketch may do to Z; the SON core implements it and keeps
// the weights w = w̄ + Zᵀb unchanged through every operation (§2, P3).
type Host interface {
	// Absorb applies Z ← Z + δĝᵀ on the example's columns (rank one, sparse).
	Absorb(delta []float64)
	// Append adds ĝᵀ as a new last row of Z.
	Append()
	// Fold moves Zᵀb into w̄ over the seen features and zeroes b. It must
	// precede Transform.
	Fold()
	// Transform replaces Z by T·Z over the seen features (T is rows×p,
	// row-major, rows ≤ MaxRows), and, if gram is not nil, writes the new
	// ZZᵀ (rows×rows, row-major) into it.
	Transform(T []float64, rows int, gram []float64)
}

// GramSketch is implemented by sketches that keep K = ZZᵀ (p×p, row stride
// returned). The SON core then defers folds and transforms of Z
// (lazy.go): it needs K to keep ‖w̄‖² and the new Gram matrix of a
// transform without visiting the rows.
type GramSketch interface {
	Gram() (k []float64, stride int)
}

// ReportSpectrum writes "label = v₁ v₂ …" (the sketch's eigenvalue
// estimates, as its Report prints them) and returns Σv / sumG2, the share
// of the to-sketch energy they hold (0 before any).
func ReportSpectrum(w io.Writer, label string, vals []float64, sumG2 float64) (share float64) {
	fmt.Fprintf(w, "%s =", label)
	var sum float64
	for _, v := range vals {
		fmt.Fprintf(w, " %.4g", v)
		sum += v
	}
	fmt.Fprintln(w)
	if sumG2 > 0 {
		share = sum / sumG2
	}
	return share
}

// SketchMerger is implemented by sketches that son.Learner.Merge can merge.
type SketchMerger interface {
	Sketch
	// Basis returns the sketch's rows in the coordinates of Z: S = C·Z,
	// with C q×p (row-major, stride p = Rows()). Oja: C = (tΛ)^{1/2}F; FD:
	// its C (E^{1/2}F after a shrink); RP: I.
	Basis() (C []float64, q int)
	// Merge sets the receiver — a new sketch configured as the parts' — to
	// the merge of the parts' sketches described by m, and calls m.Apply
	// exactly once with the map from the stacked rows to its Z.
	Merge(m *SketchMerge) error
}

// SketchMerge is what son.Learner.Merge hands its sketch: the parts' sketch rows
// S_i = C_i·Z_i stacked into one matrix of N rows over the merged
// features, after son.Learner.Merge's change of coordinates (each part's rows
// rescaled into the merged model's pre-scaled space and units; see
// son.Learner.Merge), as their Gram matrix.
type SketchMerge struct {
	Parts []Sketch // the parts' sketches
	Base  Sketch   // the base's sketch, nil without a base
	// Rows: part i's Basis rows are the stacked rows Rows[i] … Rows[i+1]−1.
	Rows []int
	// Gram is the N×N Gram matrix of the stacked rows (row-major).
	Gram []float64
	N    int
	// W is the merged model's Step.W (the sum units of the scaled-space
	// form; 0 in the paper's form).
	W float64
	// Apply sets Z = T·(the stacked rows), T r×N (row-major, r ≤
	// MaxRows), over every merged feature, and returns ZZᵀ (r×r,
	// row-major), computed from the Z it wrote.
	Apply func(T []float64, r int) []float64
}

// BasisSketch is implemented by sketches whose rows are orthonormal
// combinations of Z's: V = F·Z with V·Vᵀ = I (Oja's rows always, FD's
// right singular vectors in its diagonal state). OrthoBasis returns F (rows×p,
// row-major with the given stride), or ok = false when the sketch is not
// in such a state. (SketchMerger's Basis is the weighted sketch
// itself, not an orthonormal one.) For diagnostics (the SON learner's Diagnose, the soak): nothing on the
// learning path calls it.
type BasisSketch interface {
	OrthoBasis() (F []float64, rows, stride int, ok bool)
}
