package son

import (
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"

	"github.com/sparseson/sparseson/internal/linalg"
	"github.com/sparseson/sparseson/loss"
	"github.com/sparseson/sparseson/model"
	"github.com/sparseson/sparseson/sparse"
)

// MaxFullSlots is the most slots the full ONS learner keeps: its k×k
// inverse over the k slots kept costs 8k² bytes (128 MiB at 4096) and
// O(k²) time per example. The bound is on the features kept, not on -b:
// a small -b folds features together, VW's constant among them, and no
// pre-scaling can undo a sum of features in different units.
const MaxFullSlots = 4096

// Full is the unsketched learner of Luo et al. (NIPS 2016), §2: the update of Eq. 1 with
// the full matrix of Eq. 2,
//
//	A_t = αI + Σ_{s≤t} ĝ_s ĝ_sᵀ,  u_{t+1} = w_t − A_t⁻¹ g_t,
//	w_t = argmin_{|wᵀx̃_t| ≤ C} ‖w − u_t‖_{A_{t−1}}   (closed form of Lemma 1),
//
// i.e. Alg. 1 with the sketch replaced by all of Σĝĝᵀ. It is the exact
// reference a user can run on small data (--full). Everything else matches
// SON: ĝ = √h·√(σ_t+η_t)·ℓ'·x̃ (importance weight h counts as h copies,
// g = h·ℓ'·x̃), σ_t, η_t and the optional diagonal pre-scaling
// x̃ = D_t^{-1/2}x are those of SONConfig.
//
// A⁻¹ is kept explicitly and updated by Sherman–Morrison, O(k·s + k²) per
// example where k ≤ min(2^Bits, MaxFullSlots) is the number of slots kept
// so far: A and
// A⁻¹ are αI and I/α on slots never seen (ĝ has never touched them), so
// only the leading k×k block, in first-seen order, is stored. With
// y = A_{t−1}⁻¹x̃ and q = x̃ᵀy (both needed by the projection anyway):
//
//	A_t⁻¹ = A_{t−1}⁻¹ − f·yyᵀ,  f = c²/(1 + c²q),  A_t⁻¹x̃ = y/(1 + c²q),
//
// for ĝ = c·x̃. A slot first met when MaxFullSlots slots are kept is
// refused (sparse.SlotCap): in learning and prediction it is a feature
// never seen, so the learner is exactly full ONS on the stream without
// the refused features. The rank-one term is applied as (√f·y_i)(√f·y_j), products
// that are bitwise equal for (i, j) and (j, i), so A⁻¹ stays exactly
// symmetric and never needs re-symmetrising. Numerical guards, each
// counted:
//   - q must lie in [0, ‖x̃‖²/α] (αI ⪯ A); outside it (A⁻¹ numerically
//     indefinite) it is clamped into it (Clamps), which keeps the
//     Sherman–Morrison denominator 1 + c²q ≥ 1;
//   - y must satisfy ‖y‖² ≤ q/α (true for y = A⁻¹x̃ whenever αI ⪯ A),
//     else the whole round is skipped and the clipped uᵀx̃ returned (Skips);
//   - the new diagonal (A⁻¹)_ii − f·y_i² must stay ≥ 0, else the round's
//     A⁻¹ update is skipped (Skips);
//   - a ĝ too large to represent (c²q = +Inf) skips the round's update
//     (Skips).
//
// None fires on well-scaled data (the tests check it); they exist for
// inputs whose scales span ~1e100, where cond A exceeds what float64
// holds, and keep A⁻¹ bounded by I/α and the model finite there.
//
// Accuracy: Sherman–Morrison never corrects its own rounding, and a step
// with c²q ≫ 1 leaves an absolute error ~ε·c²q·‖A⁻¹‖ in A⁻¹. Measured
// (TestFullInverseDrift) ‖A⁻¹A − I‖_max stays ~1e-14 on well-scaled
// streams but reaches 1e-8 on the ill-conditioned squared-loss stream of
// docs/algorithms.md §10 (a fresh inverse: 5e-14); predictions there still agree with the
// O(d³) solve to 4e-9, which is also how far that stream moves under a
// 1e-15 perturbation of its input. A itself is not kept (it would double
// the memory), so A⁻¹ is never rebuilt.
type Full struct {
	cfg   Config
	alpha float64
	loss  loss.Loss
	tab   *sparse.Table // per seen slot: [u_j, D_j − 0.1] (+ 1/u_j with Config.Unit, + Σx_j², n_j with UnitRMS); row = index into A⁻¹
	w     int           // the table's row width
	ainv  []float64     // live k×k block of A⁻¹, row stride cap
	cap   int
	t     float64
	clamp int // q clamped into [0, ‖x̃‖²/α]
	skip  int // rounds or A⁻¹ updates refused by the guards
	limit sparse.SlotCap

	// per-example scratch: the example's kept features (rows, raw values, x̃)
	offs []int
	vals []float64
	xt   []float64
	y, s []float64
}

// NewFull returns an untrained full ONS learner over 2^cfg.Bits slots.
// cfg.FoldRatio is unused (there is no split to guard).
func NewFull(cfg Config, alpha float64, l loss.Loss) (*Full, error) {
	if cfg.Bits < 1 || cfg.Bits > sparse.MaxBits {
		return nil, fmt.Errorf("Config.Bits %d is out of range 1..%d", cfg.Bits, sparse.MaxBits)
	}
	if !(cfg.C > 0) {
		return nil, fmt.Errorf("projection bound C must be positive (or +Inf), got %v", cfg.C)
	}
	if cfg.Sigma < 0 || cfg.Eta0 < 0 || cfg.Scale < 0 || math.IsInf(cfg.Scale, 0) || math.IsInf(cfg.Eta0, 0) || math.IsInf(cfg.Sigma, 0) {
		return nil, errors.New("σ, η₀ and the sketch scale must be finite and ≥ 0")
	}
	if !(alpha > 0) || math.IsInf(alpha, 0) {
		return nil, fmt.Errorf("full ONS needs a positive, finite α, got %v", alpha)
	}
	if cfg.Unit && !cfg.Diag {
		return nil, errors.New("the features' units (Config.Unit) need diagonal pre-scaling (Config.Diag)")
	}
	if cfg.UnitRMS && !cfg.Unit {
		return nil, errors.New("the features' root-mean-square units (Config.UnitRMS) need Config.Unit")
	}
	w := 2
	if cfg.Unit {
		w = 3 // [u_j, (D_j − 0.1)/u_j², 1/u_j] (units.go)
	}
	if cfg.UnitRMS {
		w = 5 // and Σx_j², n_j
	}
	return &Full{cfg: cfg, alpha: alpha, loss: l, tab: sparse.NewTable(cfg.Bits, w), w: w, limit: sparse.NewSlotCap(MaxFullSlots, cfg.Bits)}, nil
}

// unitVal is x' = x/u_j of Config.Unit for row r, raising u_j to |x|
// first where it exceeds it when learning (create; Learner.unitVals). A
// prediction takes x as its own unit where the feature has none (unseen,
// or seen only as zero): its weight is zero there.
func (f *Full) unitVal(r int, x float64, create bool) float64 {
	if f.cfg.UnitRMS {
		return f.rmsUnitVal(r, x)
	}
	iu := 0.0
	if r >= 0 {
		iu = f.tab.Rows[f.w*r+2]
	}
	if a := x * iu; (a > 1 || a < -1 || iu == 0 && x != 0) && unitOf(x) != iu {
		nu := unitOf(x)
		if create {
			row := f.tab.Rows[f.w*r : f.w*r+3]
			if iu != 0 {
				row[1] = rescaled(row[1], iu, nu) // Σg'² in the new units
			}
			row[2] = nu
		}
		if create || iu == 0 {
			iu = nu
		}
	}
	return x * iu
}

// rmsUnitVal is unitVal under Config.UnitRMS: 1/u_j as addSums left it;
// a prediction on a feature without one takes x as its own unit, as
// unitVal's.
func (f *Full) rmsUnitVal(r int, x float64) float64 {
	iu := f.tab.Rows[f.w*r+2]
	if iu == 0 {
		iu = unitOf(x)
	}
	return x * iu
}

// addSums adds a learned example's values (the resolved ones), each in
// turn, to their features' Σx_j² and n_j under Config.UnitRMS and
// refreshes u_j against them, moving Σg'² into the new units: the
// learner's rules (Learner.rmsUnitVals).
func (f *Full) addSums(ex *sparse.Example) {
	if !f.cfg.UnitRMS || !(ex.Weight > 0) {
		return
	}
	for i, r := range f.offs {
		row := f.tab.Rows[f.w*r : f.w*r+5 : f.w*r+5]
		linalg.AddSquare(row[3:], f.vals[i])
		if iu := row[2]; !inBand(iu, row[3], row[4]) {
			nu := rmsUnit(row[3], row[4])
			if iu != 0 {
				row[1] = rescaled(row[1], iu, nu)
			}
			row[2] = nu
		}
	}
}

// Seen is the number of slots with state (k).
func (f *Full) Seen() int { return f.tab.Len() }

// Ignored implements sparse.Capped: the occurrences in training of the
// slots refused beyond MaxFullSlots.
func (f *Full) Ignored() sparse.Ignored { return f.limit.Ignored("full ONS") }

// Report implements sparse.Reporter: the features refused, if any.
func (f *Full) Report(w io.Writer) {
	defer runtime.KeepAlive(f)
	if ig := f.Ignored(); ig.Occurrences > 0 {
		fmt.Fprintln(w, ig.Line("-b"))
	}
}

// Skips is how often the A⁻¹ update of a round was refused (see Full).
func (f *Full) Skips() int { return f.skip }

// Clamps is how often q = x̃ᵀA⁻¹x̃ fell outside [0, ‖x̃‖²/α] and was
// clamped (see Full).
func (f *Full) Clamps() int { return f.clamp }

func (f *Full) scale() float64 {
	if f.cfg.Scale > 0 {
		return f.cfg.Scale
	}
	return math.Sqrt(f.cfg.Sigma + eta(f.cfg.Eta0, f.cfg.EtaPower, f.t))
}

// grow makes room for k rows, copying the live block into a larger stride
// when needed (capacity doubles, so copies cost O(k²) amortised), and
// initialises the rows old..k−1 of A⁻¹ to those of I/α.
func (f *Full) grow(old, k int) {
	if k > f.cap {
		nc := min(max(2*f.cap, k, 16), 1<<f.cfg.Bits, max(k, f.limit.Max))
		na := make([]float64, nc*nc)
		for i := 0; i < old; i++ {
			copy(na[i*nc:i*nc+old], f.ainv[i*f.cap:i*f.cap+old])
		}
		f.ainv, f.cap = na, nc
	}
	for i := old; i < k; i++ {
		f.ainv[i*f.cap+i] = 1 / f.alpha
	}
	if cap(f.y) < f.cap {
		f.y = make([]float64, f.cap)
		f.s = make([]float64, f.cap)
	}
}

// resolve finds the rows of ex's kept slots (creating them, within the
// cap, if asked; unseen ones are left out otherwise: they contribute
// nothing) and computes x̃ and ‖x̃‖².
func (f *Full) resolve(ex *sparse.Example, create bool) float64 {
	old := f.tab.Len()
	f.offs, f.vals = f.offs[:0], f.vals[:0]
	for i, slot := range ex.Idx {
		if r := f.limit.Row(f.tab, slot, create); r >= 0 {
			f.offs = append(f.offs, r)
			f.vals = append(f.vals, ex.Val[i])
		}
	}
	if k := f.tab.Len(); k > old {
		f.grow(old, k)
	}
	if create {
		f.addSums(ex)
	}
	return f.scaleX(create)
}

// scaleX computes x̃ of the resolved features and returns ‖x̃‖².
func (f *Full) scaleX(create bool) (n float64) {
	f.xt = f.xt[:0]
	for i, r := range f.offs {
		x := f.vals[i]
		if f.cfg.Unit {
			x = f.unitVal(r, x, create)
		}
		if f.cfg.Diag {
			x /= math.Sqrt(diag0 + f.tab.Rows[f.w*r+1])
		}
		f.xt = append(f.xt, x)
		n += x * x
	}
	return n
}

// ux returns uᵀx̃ over the example's seen slots.
func (f *Full) ux() (v float64) {
	for k, r := range f.offs {
		v += f.tab.Rows[f.w*r] * f.xt[k]
	}
	return v
}

// Predict implements sparse.Learner: clip(uᵀx̃, ±C) + initial, the prediction
// Learn would make (the projection of Lemma 1 only clips uᵀx̃).
func (f *Full) Predict(ex *sparse.Example) float64 {
	defer runtime.KeepAlive(f)
	f.resolve(ex, false)
	return ex.Initial + clip(f.ux(), f.cfg.C)
}

// Learn implements sparse.Learner: one round of Eq. 1–2.
func (f *Full) Learn(ex *sparse.Example) float64 {
	defer runtime.KeepAlive(f)
	n := f.resolve(ex, true)
	k := f.tab.Len()
	// y = A_{t−1}⁻¹x̃ = Σ_{i∈I} x̃_i·(row i of A⁻¹) (A⁻¹ is symmetric), q = x̃ᵀy.
	y := f.y[:k]
	f.mulAinv(y)
	q := f.xty(y)
	if qmax := n / f.alpha * (1 + 1e-9); !(q >= 0 && q <= qmax) {
		f.clamp++
		if q > qmax {
			q = qmax
		} else {
			q = 0 // NaN included
		}
	}
	u := f.tab.Rows
	wx := f.ux()
	// ‖y‖² = x̃ᵀA⁻²x̃ ≤ q/α since A⁻¹ ⪯ I/α; a y that breaks this is not
	// A⁻¹x̃ for any admissible A, and the round is skipped (see Full).
	if yy := linalg.Dot(y, y); !(yy <= q/f.alpha*(1+1e-6)) {
		f.skip++
		return ex.Initial + clip(wx, f.cfg.C)
	}
	// Lemma 1: w = u − τ_C(uᵀx̃)/(x̃ᵀA⁻¹x̃)·A⁻¹x̃.
	if tau := tauC(wx, f.cfg.C); tau != 0 && q > 0 {
		g := tau / q
		for r, v := range y {
			if w := u[f.w*r] - g*v; linalg.IsFinite(w) {
				u[f.w*r] = w
			}
		}
		wx = f.ux()
	}
	pred := ex.Initial + wx
	h := ex.Weight
	d := f.loss.Deriv(pred, ex.Label)
	if !(h > 0) || math.IsNaN(pred) || math.IsInf(pred, 0) || math.IsNaN(d) || math.IsInf(d, 0) {
		return pred
	}
	f.t++
	if f.cfg.Diag {
		// D_{t+1} = D_t + h·diag(g gᵀ) with the raw gradient, before the
		// update (VW's order, as Learner.rescale); x̃, A⁻¹x̃ and q follow it.
		for i, r := range f.offs {
			x := f.vals[i]
			if f.cfg.Unit {
				x *= u[f.w*r+2] // x' (units.go)
			}
			gx := d * x
			u[f.w*r+1] = sat(u[f.w*r+1] + h*gx*gx) // saved: kept finite
		}
		f.scaleX(true)
		f.mulAinv(y)
		q = f.xty(y)
	}
	c := math.Sqrt(h) * f.scale() * d
	c2 := c * c
	den := 1 + c2*q
	if !(den < math.Inf(1)) {
		f.skip++
		return pred // ĝ too large to represent; skip the round
	}
	// u_{t+1} = w − A_t⁻¹g, g = h·ℓ'·x̃, A_t⁻¹x̃ = y/(1 + c²q).
	gd := h * d / den
	for r, v := range y {
		// A step that would overflow a weight is not taken.
		if w := u[f.w*r] - gd*v; linalg.IsFinite(w) {
			u[f.w*r] = w
		}
	}
	if !f.downdate(y, c2/den) {
		f.skip++
	}
	return pred
}

// xty is x̃ᵀy over the example's features (resolved).
func (f *Full) xty(y []float64) (q float64) {
	for i, r := range f.offs {
		q += f.xt[i] * y[r]
	}
	return q
}

// downdate sets A_t⁻¹ = A_{t−1}⁻¹ − φ·yyᵀ, as (√φ·y)(√φ·y)ᵀ over the
// live k×k block (k = len(y)), unless the new diagonal would leave
// [0, 1/α] somewhere (see Full): it then changes nothing and reports
// false.
func (f *Full) downdate(y []float64, phi float64) bool {
	k, cp := len(y), f.cap
	if sf := math.Sqrt(phi); sf > 0 {
		s := f.s[:k]
		ok := true
		for i, v := range y {
			si := sf * v
			s[i] = si
			if !(si*si <= f.ainv[i*cp+i]) {
				ok = false // NaN included
			}
		}
		if !ok {
			return false
		}
		for i, si := range s {
			if si == 0 {
				continue
			}
			row := f.ainv[i*cp : i*cp+k]
			for j, sj := range s {
				row[j] -= si * sj
			}
		}
	}
	return true
}

// mulAinv sets y = A⁻¹x̃ = Σ_{i∈I} x̃_i·A⁻¹[row_i, :k].
func (f *Full) mulAinv(y []float64) {
	clear(y)
	cp := f.cap
	for i, r := range f.offs {
		x := f.xt[i]
		row := f.ainv[r*cp : r*cp+len(y)]
		for j, v := range row {
			y[j] += x * v
		}
	}
}

// Weights implements sparse.Learner: the raw-space weights D^{-1/2}u, for every
// slot seen in training (first-seen order). u is exactly zero on slots
// never seen — A⁻¹ never couples them to the rest — so these are all the
// slots whose weight can be non-zero; some of the reported ones may be 0.
func (f *Full) Weights(fn func(slot uint32, w float64)) {
	defer runtime.KeepAlive(f)
	rows := f.tab.Rows
	for r, key := range f.tab.Keys {
		w := rows[f.w*r]
		if f.cfg.Diag {
			w /= math.Sqrt(diag0 + rows[f.w*r+1])
		}
		if f.cfg.Unit {
			w *= rows[f.w*r+2]
		}
		fn(key, w)
	}
}

// Ainv returns a copy of the live k×k block of A⁻¹ (row-major, rows in
// first-seen order of the slots) and the slots (tests, diagnostics).
func (f *Full) Ainv() (inv []float64, slots []uint32) {
	defer runtime.KeepAlive(f)
	k, cp := f.tab.Len(), f.cap
	inv = make([]float64, k*k)
	for i := 0; i < k; i++ {
		copy(inv[i*k:i*k+k], f.ainv[i*cp:i*cp+k])
	}
	return inv, append([]uint32(nil), f.tab.Keys...)
}

// Save implements sparse.Learner: t, the seen slots with [u_j, D_j − 0.1], and
// the live block of A⁻¹.
func (f *Full) Save(w *model.Writer) error {
	defer runtime.KeepAlive(f)
	w.Float64(f.t)
	w.Uint64(uint64(f.clamp))
	w.Uint32s(f.tab.Keys)
	w.Float64s(f.tab.Rows)
	k := f.tab.Len()
	w.Float64sLen(k * k)
	for i := range k {
		w.Float64sPart(f.ainv[i*f.cap : i*f.cap+k])
	}
	return nil
}

// LoadFull restores a learner saved by Full.Save; cfg and α must be the
// saved model's (the CLI takes them from the model header).
func LoadFull(r *model.Reader, cfg Config, alpha float64, l loss.Loss) (*Full, error) {
	f, err := NewFull(cfg, alpha, l)
	if err != nil {
		return nil, err
	}
	f.t = r.Float64()
	f.clamp = int(r.Uint64())
	f.tab.Keys = r.Uint32s(nil)
	f.tab.Rows = r.Float64s(nil)
	inv := r.Float64s(nil)
	if err := r.Done(); err != nil {
		return nil, err
	}
	k := len(f.tab.Keys)
	if len(inv) != k*k || !(f.t >= 0) || k > f.limit.Max {
		return nil, fmt.Errorf("%w: full ONS state does not fit %d slots", model.ErrCorrupt, k)
	}
	if err := f.tab.Rebuild(); err != nil {
		return nil, fmt.Errorf("%w: %v", model.ErrCorrupt, err)
	}
	for _, part := range [][]float64{inv, f.tab.Rows} {
		for _, v := range part {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("%w: non-finite value in the full ONS state", model.ErrCorrupt)
			}
		}
	}
	// The saved block is the live block at stride k: kept as it is, so
	// that loading needs no second copy of the model.
	f.ainv, f.cap = inv, k
	f.y, f.s = make([]float64, k), make([]float64, k)
	return f, nil
}
