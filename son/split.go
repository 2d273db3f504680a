package son

import (
	"io"
	"math"
	"runtime"

	"github.com/sparseson/sparseson/internal/linalg"
	"github.com/sparseson/sparseson/loss"
	"github.com/sparseson/sparseson/model"
	"github.com/sparseson/sparseson/sparse"
)

// Split is the SON core's split weight vector, β = β̄ + Zᵀb over the basis Z
// of a Sketch (docs/algorithms.md §2), for learners that drive a sketch with their
// own step instead of SON's (package ada: the FD-adaptive learners of Wan & Zhang
// (TPAMI 2022), Alg. 1, and Yang et al. (ICML 2025), Alg. 2;
// docs/algorithms.md §7). It is the SON core itself — its feature
// table [β̄_j, Z_j], its Host (absorb, append, fold, transform, each keeping
// β unchanged) and its deferred folds and transforms (lazy.go) — with the
// projection, the loss and the step left to the caller:
//
//	bx, z, n := sp.Begin(ex, true)   // β̄·x, Z·x, ‖x‖²
//	z = sp.Sketch(c)                 // ĝ = c·x into the sketch, z = Z_t·x
//	sp.Step(f, fb, v)                // β̄_I −= f·x_I, b += fb·v
//	sp.Finish()                      // SON's fold guard
//
// With a sketch that keeps K = ZZᵀ (GramSketch) the core keeps y = Z·β̄
// exactly through every change of Z and β̄ (ZBar): dual averaging stores
// ḡ = Σg in β̄, leaves b = 0, and reads Z·ḡ there in O(p).
// An example costs O(ps + p²) plus the sketch's own update, as in SON.
type Split struct {
	s     *Learner
	oldsq float64 // Σ_I β̄_j² at Begin, for the fold guard
	n     float64 // ‖x‖² of the current example
}

// NewSplit returns an empty split weight vector over 2^bits slots around
// a fresh sketch. x is used as it comes (no pre-scaling, no projection).
func NewSplit(bits uint, sk sparse.Sketch) (*Split, error) {
	s, err := New(splitConfig(bits), loss.Logistic{}, sk)
	if err != nil {
		return nil, err
	}
	return &Split{s: s}, nil
}

// LoadSplit restores a Split saved by Save; the (empty) sketch must be
// configured as the saved one was. The reader must end with the Split's
// state.
func LoadSplit(r *model.Reader, bits uint, sk sparse.Sketch) (*Split, error) {
	s, err := Load(r, splitConfig(bits), loss.Logistic{}, sk)
	if err != nil {
		return nil, err
	}
	return &Split{s: s}, nil
}

// splitConfig is SON without projection or pre-scaling; its loss (given
// to NewSON) is never called. Scale 1 only satisfies NewSON's check: the
// caller picks ĝ's scale.
func splitConfig(bits uint) Config {
	return Config{Bits: bits, C: math.Inf(1), Scale: 1}
}

// Save writes the whole state (table, b, deferred steps and the sketch's).
func (p *Split) Save(w *model.Writer) error { return p.s.Save(w) }

// Begin looks up ex's features (creating rows for unseen ones if create;
// otherwise they count as zero) and returns β̄·x, z = Z·x (len Rows(), valid
// until the next call) and ‖x‖².
func (p *Split) Begin(ex *sparse.Example, create bool) (bx float64, z []float64, n float64) {
	defer runtime.KeepAlive(p)
	s := p.s
	k := len(s.st.Z)
	if create {
		// Learn's lookup, with the rows' misses overlapped (ADA-FD on
		// news20×10: 4.48 → 4.09 CPU-s).
		n, bx, p.oldsq = s.resolveZ(ex, k)
		// Σ_I β̄_j² as the rows stand (the sum wbarSq forms, in its
		// order): Step's range check and the fold guard read it instead
		// of passing over the rows again.
		s.sqI, s.sqOK = p.oldsq, true
	} else {
		n = s.resolve(ex)
		bx, p.oldsq = s.zx(k)
	}
	s.folded = false
	p.n = n
	return bx, s.z[:k], n
}

// Sketch adds ĝ = c·x (x from Begin) to the sketch and returns
// z = Z_t·x for the new Z; β is unchanged. A non-finite c is ignored.
func (p *Split) Sketch(c float64) []float64 {
	defer runtime.KeepAlive(p)
	s := p.s
	if !linalg.IsFinite(c) {
		return s.z[:len(s.st.Z)]
	}
	s.t++
	s.c = c
	s.st.C, s.st.N, s.st.Z, s.st.Seen = c, p.n, s.z[:len(s.st.Z)], s.tab.Len()
	s.sk.Update(&s.st, s)
	s.sumG2 = sat(s.sumG2 + c*c*p.n) // saved with the model: kept finite
	return s.st.Z
}

// Step sets β̄_I −= f·x_I and b += fb·v (len(v) ≤ Rows(); v may be nil
// when fb = 0), keeping Z·β̄. It refuses (and reports false for) a step
// that would take a weight beyond ±1e140 or make one NaN (step.go).
//
// The range check reads no row while Σ_I β̄_j² (kept from Begin, or from
// the sketch's absorb) bounds every changed weight well inside the range
// (trialBound), and the step leaves the new Σ_I β̄_j² for Finish's guard:
// two of the four passes over the example's rows that a mirror-descent
// step made (S-ADA on news20's training set, one text pass: 0.995e9 →
// 0.956e9 instructions with trial's and wbarSq's passes gone).
func (p *Split) Step(f, fb float64, v []float64) bool {
	defer runtime.KeepAlive(p)
	s := p.s
	z := s.z[:len(s.st.Z)]
	wsq := -1.0 // unknown: trialBound reads the rows
	if s.sqOK {
		wsq = s.sqI
	}
	if !s.trialBound(f, fb, v, wsq, p.n) {
		s.rejected++
		return false
	}
	s.sqI = s.apply(f, z, fb, v)
	s.sqOK = true
	return true
}

// Finish runs SON's fold guard after an example whose steps changed b
// (see Learner.guard): it folds Zᵀb into β̄ when either has grown far past ‖β‖.
// A learner that keeps b = 0 (dual averaging) does not call it.
func (p *Split) Finish() {
	defer runtime.KeepAlive(p)
	p.s.guard(p.oldsq, -1)
}

// B is b (len Rows()); the caller may read it, and changes it only
// through Step.
func (p *Split) B() []float64 { return p.s.b[:len(p.s.st.Z)] }

// ZBar is y = Z·β̄ (len Rows()), kept exactly through every change when the
// sketch is a GramSketch (deferred steps on); nil otherwise.
func (p *Split) ZBar() []float64 {
	if !p.s.lz.on {
		return nil
	}
	return p.s.y[:len(p.s.st.Z)]
}

// Rows is the current number of rows of Z.
func (p *Split) Rows() int { return len(p.s.st.Z) }

// Columns calls fn for every feature slot with state, in first-seen order,
// with β̄_j and Z's column j (first Rows() entries; valid during the call).
func (p *Split) Columns(fn func(slot uint32, bbar float64, z []float64)) {
	defer runtime.KeepAlive(p)
	s := p.s
	k := len(s.st.Z)
	wz := make([]float64, 1+s.pmax)
	for r, key := range s.tab.Keys {
		s.refreshed(r, wz)
		fn(key, wz[0], wz[1:1+k])
	}
}

// Seen is the number of feature slots with state.
func (p *Split) Seen() int { return p.s.tab.Len() }

// Refused counts the steps Step refused.
func (p *Split) Refused() int { return p.s.rejected }

// Report writes the sketch's report and the core's counts (folds, features,
// refused steps, deferred steps).
func (p *Split) Report(w io.Writer) { p.s.Report(w) }
