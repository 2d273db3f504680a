package sparse

import (
	"fmt"
	"io"

	"github.com/sparseson/sparseson/model"
)

// Sketch is the second-order part of SON (Alg. 1, lines 2 and 8): a sketch
// S of the to-sketch vectors ĝ, kept in factored form S = E^{1/2}·F·Z
// (sketches.md §2) where Z (p×d) lives in the SON core's feature table and
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
