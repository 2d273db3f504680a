package gd

import (
	"fmt"
	"math"
	"runtime"

	"github.com/sparseson/sparseson/loss"
	"github.com/sparseson/sparseson/model"
	"github.com/sparseson/sparseson/sparse"
)

// Config selects and tunes a first-order learner.
type Config struct {
	Bits       uint    // hash bits (-b)
	Adaptive   bool    // per-feature AdaGrad rates
	Normalized bool    // per-feature scale invariance (VW --normalized)
	Eta        float64 // -l
	PowerT     float64 // --power_t
	InitialT   float64 // --initial_t
	L2         float64 // --l2
	// L1 is VW's --l1, lazy truncated gradient (l1.go); L1State says the
	// saved state carries its gravity (models written before --l1 do not).
	L1      float64
	L1State bool
	// Delta ≥ 0 is AdaGrad's δ: the per-feature rate is 1/(δ + G_j^power_t)
	// (G_j = Σ importance·ℓ′²·x_j²). With --adaptive alone (no
	// normalization, power_t ½) the step is ADA-DIAG of Duchi, Hazan and
	// Singer 2011 as Wan & Zhang (TPAMI 2022) writes it (Eq. 2 with H = δI + diag(G)^{1/2}).
	Delta float64
	// Dual selects dual averaging for --adaptive alone (ADA-DIAG's
	// primal-dual form, dual.go).
	Dual bool

	// Step replaces the rate schedule above by one of Ouyang & Gray's (KDD 2012) step
	// sizes (nasa.go). StepNASA with Adaptive is NASA per feature, in
	// AdaGrad's place (NasaC in -l's); every other step is a scalar step
	// of plain gradient descent (neither Adaptive nor Normalized).
	Step  Step
	NasaC float64 // c = √α·D of Eq. 10 and Λ of Eq. 38
	NasaH float64 // H, the strong-convexity estimate of Eq. 27 and 34
	NasaL float64 // L, the smoothness constant of Eq. 38

	// RMS runs the learner on x̃_j = x_j/s_j, s_j the root mean square of
	// feature j's training values so far, with Σx_j² and n_j kept in two
	// more columns of the feature's row (rms.go): what package ada's
	// Prescaled wrapper does around the learner without it, the same
	// bits, without the wrapper's table. The saved rows leave the columns
	// out; the caller saves the scales (Scales) and gives them back to a
	// loaded learner (SetScales).
	RMS bool
}

// Row layout of the feature table of the schedule-driven learners; the
// scalar steps of nasa.go lay out their rows differently (rowStride).
const (
	colW = iota // stored weight; the model's weight is scale·w
	colG        // Σ importance·ℓ'²·x² (AdaGrad)
	colN        // max |x| seen (normalized)
	stride
)

// GD is the first-order learner. The model's weight vector is
// scale·Rows[colW]: --l2 shrinks every weight after every update, which a
// global scale does in O(1) instead of O(d) (VW's "contraction").
type GD struct {
	cfg   Config
	loss  loss.Loss
	tab   *sparse.Table
	scale float64
	t     float64 // initial_t + Σ importance of training examples
	// normalized state: Σ importance·Σ_j x_j²/N_j² and Σ importance
	normSum, totalWeight float64

	rows   []int     // per-example scratch: row offsets into tab.Rows
	rate   []float64 // per-example scratch: per-feature rates
	sorted []int     // per-example scratch: sorted row offsets (nasa.go)
	// The NASA steps learn an example with repeated slots merged
	// (repeat.go): the stamps that find the repeats, the set that merges
	// them, and the merged example.
	stamps repeatStamps
	rep    repeatSet
	mx     sparse.Example

	stride int         // values per table row: stride, or rowStride(cfg)
	ns     scalarState // state of an Ouyang & Gray (KDD 2012) step (nasa.go)
	// gravity is the L1 truncation accumulated since the last sync (l1.go):
	// the model's weight of a row is scale·trunc(w, gravity).
	gravity float64
	// rejected counts the updates refused as numerically out of range
	// (gradInRange).
	rejected int
	// adaNorm selects learnAdaNorm (fast.go), the default learner's
	// update without the per-feature tests of the general loop.
	adaNorm bool

	// Config.RMS (rms.go): rOff is the column of Σx_j² (n_j follows),
	// the width of the row without the two (0 without RMS); rmsOrder the
	// rows with a scale, in the order they got their first value; xt and
	// sx the example on x̃; first the example's offsets that got their
	// first value (linalg.RMSAdd).
	rOff     int
	rmsOrder []uint32
	first    []int
	xt       []float64
	sx       sparse.Example
}

// New returns an untrained learner.
func New(cfg Config, l loss.Loss) (*GD, error) {
	if cfg.Bits < 1 || cfg.Bits > sparse.MaxBits {
		return nil, fmt.Errorf("Config.Bits %d out of range 1..%d", cfg.Bits, sparse.MaxBits)
	}
	if !(cfg.Eta > 0) || math.IsInf(cfg.Eta, 0) {
		return nil, fmt.Errorf("Config.Eta, the learning rate, must be positive and finite, got %v", cfg.Eta)
	}
	if cfg.PowerT < 0 || cfg.InitialT < 0 || cfg.L2 < 0 {
		return nil, fmt.Errorf("Config.PowerT, Config.InitialT and Config.L2 must be ≥ 0")
	}
	if !(cfg.Delta >= 0) || math.IsInf(cfg.Delta, 0) {
		return nil, fmt.Errorf("AdaGrad's δ (Config.Delta) must be finite and ≥ 0, got %v", cfg.Delta)
	}
	if err := cfg.checkStep(); err != nil {
		return nil, err
	}
	if err := cfg.checkL1(); err != nil {
		return nil, err
	}
	if err := cfg.checkDual(); err != nil {
		return nil, err
	}
	st := stride
	if cfg.Step != StepSchedule {
		st = rowStride(cfg)
	}
	rOff := 0
	if cfg.RMS {
		rOff, st = st, st+2
	}
	g := &GD{cfg: cfg, loss: l, tab: sparse.NewTable(cfg.Bits, st), scale: 1, t: cfg.InitialT, stride: st, ns: newScalarState(), rOff: rOff, stamps: newRepeatStamps(st)}
	g.adaNorm = cfg.Step == StepSchedule && cfg.Adaptive && cfg.Normalized && cfg.PowerT == 0.5 && cfg.L1 == 0 && !cfg.Dual && !cfg.RMS
	return g, nil
}

// RowFloats is the number of float64s the learner keeps per feature seen
// (the memory estimate of the CLI).
func RowFloats(cfg Config) int {
	n := stride
	if cfg.Step != StepSchedule {
		n = rowStride(cfg)
	}
	if cfg.RMS {
		n += 2
	}
	return n
}

// Predict implements sparse.Learner.
func (g *GD) Predict(ex *sparse.Example) float64 {
	defer runtime.KeepAlive(g)
	if g.rOff != 0 {
		return g.predictRMS(ex)
	}
	if g.cfg.Dual {
		return g.predictDual(ex)
	}
	if g.cfg.Step == StepNASAAccel {
		return g.predictAccel(ex)
	}
	if g.cfg.L1 > 0 || g.gravity > 0 {
		return ex.Initial + g.scale*g.truncDot(ex, -1)
	}
	rows := g.tab.Rows
	var dot float64
	for i, slot := range ex.Idx {
		if r := g.tab.Find(slot); r >= 0 {
			dot += rows[r*g.stride+colW] * ex.Val[i]
		}
	}
	return ex.Initial + g.scale*dot
}

// Learn implements sparse.Learner.
func (g *GD) Learn(ex *sparse.Example) float64 {
	defer runtime.KeepAlive(g)
	if g.rOff != 0 {
		return g.learnRMS(ex)
	}
	if g.cfg.Dual {
		return g.learnDual(ex, false)
	}
	diag := g.cfg.Step == StepNASA && g.cfg.Adaptive
	if g.cfg.Step != StepSchedule && !diag {
		return g.learnScalar(ex, false)
	}
	if g.adaNorm && g.gravity == 0 {
		return g.learnAdaNorm(ex)
	}
	st := g.stride
	g.rows = g.rows[:0]
	for _, slot := range ex.Idx {
		g.rows = append(g.rows, g.tab.Row(slot)*st)
	}
	if diag {
		ex = g.mergeRepeats(ex)
	}
	return g.learnRows(ex)
}

// learnRMS is Learn with Config.RMS: the rows looked up once, by
// rmsLearn, and the update on x̃.
func (g *GD) learnRMS(ex *sparse.Example) float64 {
	ex = g.rmsLearn(ex)
	if g.cfg.Dual {
		return g.learnDual(ex, true)
	}
	diag := g.cfg.Step == StepNASA && g.cfg.Adaptive
	if g.cfg.Step != StepSchedule && !diag {
		return g.learnScalar(ex, true)
	}
	if diag {
		ex = g.mergeRepeats(ex)
	}
	return g.learnRows(ex)
}

// learnRows is Learn's general loop (the schedule's steps and per-feature
// NASA) on ex, whose rows are g.rows.
func (g *GD) learnRows(ex *sparse.Example) float64 {
	diag := g.cfg.Step == StepNASA && g.cfg.Adaptive
	n := len(ex.Idx)
	rows := g.tab.Rows
	var dot float64
	if g.cfg.L1 > 0 || g.gravity > 0 {
		dot = g.truncDot(ex, 0)
	} else {
		for i, o := range g.rows {
			dot += rows[o+colW] * ex.Val[i]
		}
	}
	p := ex.Initial + g.scale*dot
	wt := ex.Weight
	d := g.loss.Deriv(p, ex.Label)
	if !(wt > 0) || math.IsNaN(p) || math.IsInf(p, 0) || math.IsNaN(d) {
		return p
	}
	if !gradInRange(wt*d, ex) {
		g.rejected++
		return p
	}
	var rPrev, rNow, invT float64
	if diag {
		// A zero gradient is a step too: it moves every feature's mean.
		g.ns.steps++
		rPrev, rNow, invT = tailInvSq(g.ns.steps-1), tailInvSq(g.ns.steps), 1/g.ns.steps
	}
	if d == 0 {
		return p
	}
	g.t += wt
	if cap(g.rate) < n {
		g.rate = make([]float64, n)
	}
	rate := g.rate[:n]
	grad2 := wt * d * d
	var normX, sens float64
	for i, o := range g.rows {
		x := ex.Val[i]
		x2 := x * x
		r := 1.0
		if g.cfg.Adaptive {
			var G float64
			if diag {
				G = diagVariation(rows[o:o+colDiagSum+1], wt*d*x, rPrev, rNow, invT)
			} else {
				// Saturated, not infinite (a huge gradient or value):
				// the state stays finite and the rate all but zero.
				G = min(rows[o+colG]+grad2*x2, math.MaxFloat64)
				rows[o+colG] = G
			}
			if !(G > 0) {
				rate[i] = 0
				continue
			}
			switch {
			case g.cfg.Delta > 0 && g.cfg.PowerT == 0.5:
				r = 1 / (g.cfg.Delta + math.Sqrt(G))
			case g.cfg.Delta > 0:
				r = 1 / (g.cfg.Delta + math.Pow(G, g.cfg.PowerT))
			case g.cfg.PowerT == 0.5:
				r = 1 / math.Sqrt(G)
			default:
				r = math.Pow(G, -g.cfg.PowerT)
			}
		}
		if g.cfg.Normalized {
			ax := math.Abs(x)
			if N := rows[o+colN]; ax > N {
				// A larger scale for this feature: rescale its weight as
				// if the new scale had been known all along.
				if N > 0 {
					f := N / ax
					if !g.cfg.Adaptive {
						f *= f
					}
					rows[o+colW] *= f
				}
				rows[o+colN] = ax
			}
			N := rows[o+colN]
			nn := N * N
			if g.cfg.Adaptive {
				r /= N
			} else {
				r /= nn
			}
			if nn < 0x1p-1022 || math.IsInf(r, 0) {
				// A feature so small (|x| < 1.5e-154) that its scale
				// squared underflows: the normalized step would divide by
				// zero (a NaN in normSum, an infinite rate). Its part of
				// any prediction is negligible; it is not updated.
				rate[i] = 0
				continue
			}
			normX += x2 / nn
		}
		rate[i] = r
		sens += x2 * r
	}
	mult := 1.0
	if g.cfg.Normalized {
		g.normSum += wt * normX
		g.totalWeight += wt
		if g.normSum > 0 {
			mult = g.totalWeight / g.normSum
			if g.cfg.Adaptive {
				mult = math.Sqrt(mult)
			}
		}
	}
	eta := g.cfg.Eta * wt
	if diag {
		eta = g.cfg.NasaC * wt
	}
	if !g.cfg.Adaptive {
		eta *= math.Pow(g.t, -g.cfg.PowerT)
	}
	u := -d * eta * mult / g.scale
	if math.IsNaN(u*sens) || math.IsInf(u*sens, 0) {
		return p
	}
	for i, o := range g.rows {
		// A step that would overflow a weight is not taken (huge values
		// and importance weights): the model stays finite.
		if w := rows[o+colW] + u*ex.Val[i]*rate[i]; w-w == 0 {
			rows[o+colW] = w
		}
	}
	if g.cfg.L2 > 0 {
		g.scale *= 1 - g.cfg.L2*eta
		if g.scale < 1e-9 || !(g.scale > 0) {
			g.syncScale()
		}
	}
	if g.cfg.L1 > 0 {
		g.addGravity(eta)
	}
	return p
}

// Rejected counts the updates refused because a feature's gradient was
// beyond 1e150 (numerically out of range); the CLI warns about them.
func (g *GD) Rejected() int { return g.rejected }

// syncScale folds the global scale and the L1 gravity (l1.go) into the
// stored weights, as VW's sync_weights does. It touches only features
// seen.
func (g *GD) syncScale() {
	if !(g.scale > 0) {
		// --l2·η ≥ 1 shrinks every weight to zero in one step.
		g.scale = 0
	}
	rows := g.tab.Rows
	for o := colW; o < len(rows); o += g.stride {
		rows[o] = trunc(rows[o], g.gravity) * g.scale
	}
	g.scale, g.gravity = 1, 0
}

// Weights implements sparse.Learner.
func (g *GD) Weights(fn func(slot uint32, w float64)) {
	defer runtime.KeepAlive(g)
	if g.cfg.Dual {
		for r, k := range g.tab.Keys {
			fn(k, g.dualWeight(r*g.stride))
		}
		return
	}
	if g.cfg.Step == StepNASAAccel {
		g.weightsAccel(fn)
		return
	}
	for r, k := range g.tab.Keys {
		fn(k, g.scale*trunc(g.tab.Rows[r*g.stride+colW], g.gravity))
	}
}

// Save implements sparse.Learner.
func (g *GD) Save(w *model.Writer) error {
	defer runtime.KeepAlive(g)
	for _, v := range []float64{g.scale, g.t, g.normSum, g.totalWeight} {
		w.Float64(v)
	}
	if g.cfg.Step != StepSchedule {
		g.ns.save(w)
	}
	if g.cfg.L1State {
		w.Float64(g.gravity)
	}
	w.Uint32s(g.tab.Keys)
	w.Float64s(g.savedRows())
	return nil
}

// Load restores a learner saved by Save; cfg and l must be the ones the
// model was trained with (the CLI takes them from the model header).
func Load(r *model.Reader, cfg Config, l loss.Loss) (*GD, error) {
	g, err := New(cfg, l)
	if err != nil {
		return nil, err
	}
	g.scale, g.t, g.normSum, g.totalWeight = r.Float64(), r.Float64(), r.Float64(), r.Float64()
	if cfg.Step != StepSchedule {
		g.ns.load(r)
	}
	if cfg.L1State {
		g.gravity = r.Float64()
	}
	g.tab.Keys = r.Uint32s(nil)
	g.tab.Rows = r.Float64s(nil)
	if err := r.Done(); err != nil {
		return nil, err
	}
	g.widenRows()
	if err := g.tab.Rebuild(); err != nil {
		return nil, fmt.Errorf("%w: %v", model.ErrCorrupt, err)
	}
	if !(g.gravity >= 0) || math.IsInf(g.gravity, 0) {
		return nil, fmt.Errorf("%w: L1 gravity %v", model.ErrCorrupt, g.gravity)
	}
	for _, part := range [][]float64{{g.scale, g.t, g.normSum, g.totalWeight}, g.tab.Rows} {
		for _, v := range part {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("%w: non-finite value in the model", model.ErrCorrupt)
			}
		}
	}
	if cfg.Step != StepSchedule {
		if err := g.checkScalarState(); err != nil {
			return nil, fmt.Errorf("%w: %v", model.ErrCorrupt, err)
		}
	}
	return g, nil
}
