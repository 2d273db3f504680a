package gd

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/sparseson/sparseson/internal/linalg"
	"github.com/sparseson/sparseson/model"
	"github.com/sparseson/sparseson/sparse"
)

// Step selects a step-size rule.
//
// The rules of Ouyang & Gray (KDD 2012) ("NASA: Achieving Lower Regrets and
// Faster Rates via Adaptive Stepsizes", KDD 2012) are scalar steps of
// online mirror descent (Eq. 9) with the Euclidean prox-function
// ψ(z, x) = ½‖z − x‖², so the paper's α (the strong convexity of ω) and Q
// (the quadratic growth of ψ) are both 1, and the update is plain online
// gradient descent x_{t+1} = x_t − η_t·g_t with the step η_t below. g_t is
// the loss gradient importance·ℓ'(x_t·s_t, y_t)·s_t. StepNASA with
// Config.Adaptive is the exception: Eq. 10 per feature, in AdaGrad's
// place (see diagVariation).
//
// The paper's symbols α, γ_t and Γ_t name other things in SON; here
// "variation" is ‖δ̄_t‖² (Eq. 4), and the constants are c, H and L.
type Step uint8

const (
	// StepSchedule is VW's: -l·t^−power_t for --sgd, AdaGrad's
	// per-feature rates for --adaptive.
	StepSchedule Step = iota
	// StepNASA is Eq. 10: η_t = c / √(Σ_{i≤t}‖δ̄_i‖²), where
	// δ̄_i = g_i − ḡ_{1:i} is the gradient's deviation from the running
	// mean of the gradients up to and including g_i.
	StepNASA
	// StepNASAStrong is Eq. 27, for H-strongly convex losses:
	// η_t = 1/H while Σ_{i≤t}‖δ̄_i‖² < 1 (t < r₁ of Eq. 28), then
	// Δ_t²/(H·Σ_{i≤t}‖δ̄_i‖²) with Δ_t² = max_{i≤t}‖δ̄_i‖².
	StepNASAStrong
	// StepNASAAccel is Alg. 1 (AC-SA) with the steps of Eq. 38:
	// β_t = (t+1)/2, η_t = min((t+1)/(4L), Λ_t/2) with Λ_t = c while
	// Σ_{i≤t}‖δ̄_i‖² < 1 (t < s₁ of Eq. 39), else c/√(Σ_{i≤t}‖δ̄_i‖²).
	// The gradient is taken at x^md_t and the model predicts with x^ag_t.
	// Eq. 39 has ‖δ_t‖ = ‖g_t − ∇Φ(x^md_t)‖, the noise about the true
	// gradient, which no online learner knows: δ̄_t stands in for it. The
	// composite split f = p + q is taken as p ≡ 0 (M = 0): the whole
	// loss is the smooth part q, with the user's L (it cannot be
	// estimated online). With --l2 the ridge term is part of q too, its
	// gradient taken at x^md_t.
	StepNASAAccel
	// StepScalarAdaGrad is the paper's scalar AdaGrad baseline, Eq. 25:
	// η_t = c / √(Σ_{i≤t}‖g_i‖²), c from -l.
	StepScalarAdaGrad
	// StepSAdaGrad is the paper's strongly convex AdaGrad analogue,
	// Eq. 34: η_t = G_t²/(H·Σ_{i≤t}‖g_i‖²), G_t² = max_{i≤t}‖g_i‖².
	StepSAdaGrad
)

// String is the name the CLI stores in a model's options.
func (s Step) String() string {
	switch s {
	case StepSchedule:
		return "schedule"
	case StepNASA:
		return "nasa"
	case StepNASAStrong:
		return "nasa_strong"
	case StepNASAAccel:
		return "nasa_accel"
	case StepScalarAdaGrad:
		return "scalar_adagrad"
	case StepSAdaGrad:
		return "sadagrad"
	}
	return fmt.Sprintf("Step(%d)", uint8(s))
}

// ParseStep is the inverse of Step.String.
func ParseStep(name string) (Step, error) {
	for s := StepSchedule; s <= StepSAdaGrad; s++ {
		if s.String() == name {
			return s, nil
		}
	}
	return 0, fmt.Errorf("unknown step size %q", name)
}

// tracksVariation reports whether the step needs ‖δ̄_t‖², and with it the
// running gradient sum G in the table.
func (s Step) tracksVariation() bool {
	return s == StepNASA || s == StepNASAStrong || s == StepNASAAccel
}

// Row layout of the scalar steps' table: the weight (colW), then the
// running gradient sum G_j = Σ_{i≤t} g_{i,j} of docs/algorithms.md §8, then for
// the accelerated variant the second vector U of its split form.
const (
	colSum = 1
	colU   = 2
)

// Row layout of per-feature NASA: AdaGrad's (colW, colG, colN), colG
// holding the potential U_j of V_j (below) in place of Σ g_{i,j}², then
// the feature's running gradient sum S_j.
const colDiagSum = stride

func rowStride(cfg Config) int {
	switch {
	case cfg.Step == StepNASA && cfg.Adaptive:
		return stride + 1
	case cfg.Step == StepNASAAccel:
		return 3
	case cfg.Step.tracksVariation():
		return 2
	}
	return 1
}

// checkStep validates the step's constants.
func (cfg *Config) checkStep() error {
	pos := func(v float64) bool { return v > 0 && !math.IsInf(v, 0) }
	switch cfg.Step {
	case StepSchedule:
		return nil
	case StepNASA:
		if !pos(cfg.NasaC) {
			return fmt.Errorf("Config.NasaC must be positive and finite, got %v", cfg.NasaC)
		}
	case StepNASAStrong, StepSAdaGrad:
		if !pos(cfg.NasaH) {
			return fmt.Errorf("the strong-convexity constant H must be positive and finite, got %v", cfg.NasaH)
		}
	case StepNASAAccel:
		if !pos(cfg.NasaC) {
			return fmt.Errorf("Config.NasaC must be positive and finite, got %v", cfg.NasaC)
		}
		if !pos(cfg.NasaL) {
			return fmt.Errorf("the accelerated NASA step needs the smoothness constant Config.NasaL > 0 (it cannot be estimated online), got %v", cfg.NasaL)
		}
	case StepScalarAdaGrad:
	default:
		return fmt.Errorf("unknown step size %d", cfg.Step)
	}
	if cfg.Step == StepNASA && cfg.Adaptive {
		return nil // per feature, with or without Normalized
	}
	if cfg.Adaptive || cfg.Normalized {
		return fmt.Errorf("the %s step is a scalar step of plain gradient descent: it excludes Config.Adaptive and Config.Normalized", cfg.Step)
	}
	return nil
}

// Per-feature NASA (StepNASA with Adaptive). Diagonal AdaGrad is the
// scalar AdaGrad of Eq. 25 applied to each coordinate as its own online
// problem; NASA composes with it the same way: feature j's step is
// c/√V_j, V_j = Σ_{i≤t} δ̄_{i,j}², δ̄_{i,j} = g_{i,j} − S_{i,j}/i, S_{i,j} the
// sum of its gradients up to step i — AdaGrad's update, normalization and
// --l2 unchanged, with V_j in place of Σ g_{i,j}² and --nasa_c in place of
// -l. The first-step guard is per feature: a feature's first nonzero
// gradient is measured against a zero mean, V_j := g_j².
//
// A feature absent from step i has g_{i,j} = 0 and δ̄_{i,j} = −S_j/i, so
// between two visits, at steps a and t, V_j grows by S_j²·(R(a) − R(t−1))
// with R(n) = Σ_{i>n} 1/i². The table keeps the potential
// U_j = V_j(a) + S_j²·R(a) instead of V_j, so that V_j(t−1) = U_j − S_j²·R(t−1)
// whenever the feature is next seen: O(1) per feature, nothing for the
// others, R computed once per example. The subtraction costs V_j a
// relative error of about ε·S_j²R/V_j ≈ ε·(mean/spread)² of the feature's
// gradients — 10⁻¹⁰ for a mean 10³ times their spread.
//
// diagVariation updates the row r (colW…colDiagSum) for step t with
// gradient gj and returns V_j; rPrev = R(t−1), rNow = R(t), invT = 1/t.
// It is small enough to be inlined into Learn's loop.
func diagVariation(r []float64, gj, rPrev, rNow, invT float64) float64 {
	U, S := r[colG], r[colDiagSum]
	V := U - S*S*rPrev
	dj := gj - (S+gj)*invT
	if U == 0 && S == 0 {
		dj = gj // the feature's first gradient
	}
	if V < 0 {
		V = 0
	}
	V += dj * dj
	S += gj
	// Saturated, not infinite: the state stays finite.
	r[colG], r[colDiagSum] = min(V+S*S*rNow, math.MaxFloat64), S
	return V
}

// tailInvSq returns R(n) = Σ_{i>n} 1/i² = ψ₁(n+1) (the trigamma function)
// for an integer n ≥ 0: the recurrence ψ₁(x) = 1/x² + ψ₁(x+1) up to
// x ≥ 20, then the asymptotic series
// 1/x + 1/(2x²) + 1/(6x³) − 1/(30x⁵) + 1/(42x⁷) − 1/(30x⁹) + 5/(66x¹¹),
// whose first omitted term, 691/(2730x¹³), is below 10⁻¹⁶ of it there.
func tailInvSq(n float64) float64 {
	var s float64
	x := n + 1
	for ; x < 20; x++ {
		s += 1 / (x * x)
	}
	z := 1 / (x * x)
	series := 1 + 1/(2*x) + z*(1.0/6+z*(-1.0/30+z*(1.0/42+z*(-1.0/30+z*5.0/66))))
	return s + series/x
}

// scalarState is the model state of an Ouyang & Gray (KDD 2012) step besides the table.
//
// ‖δ̄_t‖² in O(s) (docs/algorithms.md §8). With G = Σ_{i≤t} g_i (per feature, in
// the table), N = ‖G_{t−1}‖² and the example's features I,
//
//	N′ = N + 2·g_I·G_I + ‖g‖²,  G_I += g_I,
//	‖δ̄_t‖² = Σ_{j∈I}(g_j − G_j/t)² + max(N′ − Σ_{j∈I}G_j², 0)/t²,
//
// the second term being the features outside the example, where
// δ̄_{t,j} = −G_j/t. This split avoids the cancellation of the expanded
// ‖g‖² − 2(g·G)/t + N′/t². N is updated incrementally and re-summed
// exactly, Σ_j G_j² over the seen features, whenever the features touched
// since the last re-sum reach the number of seen features: every ≈ d/s
// examples, so it costs at most one operation per feature touched.
//
// The first step. δ̄_1 = g_1 − ḡ_{1:1} = 0, so Eq. 10 gives η_1 = ∞ (the
// paper is silent). Here the first step's variation is taken against
// ḡ_{1:0} = 0 (the convention of the paper's Lemma 4.3): ‖δ̄_1‖² := ‖g_1‖².
// Eq. 10's first step is then c/‖g_1‖ — a move of length c = √α·D, the
// diameter bound of the paper's domain — and the sum under the root stays
// positive, so η_t is finite and non-increasing however alike the later
// gradients are (without this, identical gradients would leave a sum of
// rounding errors there). Eq. 27 then starts at 1/H when ‖g_1‖ ≥ 1, as
// for t < r₁. A zero gradient adds nothing: if every gradient so far was
// zero the sum is zero and the step is zero.
type scalarState struct {
	steps   float64 // t: learning steps taken (examples with positive importance)
	sumSq   float64 // N = ‖G‖², incremental between exact re-sums
	touched float64 // features touched since the last exact re-sum
	varSum  float64 // Σ_{i≤t}‖δ̄_i‖²
	varMax  float64 // Δ_t² = max_{i≤t}‖δ̄_i‖²
	gradSum float64 // Σ_{i≤t}‖g_i‖²
	gradMax float64 // G_t² = max_{i≤t}‖g_i‖²
	// The accelerated variant keeps x and x^ag as combinations of the
	// table's columns W (colW) and U (colU): x = a·W + b·U and
	// x^ag = c·W + e·U. Its dense steps (the averaging of Alg. 1 lines 3
	// and 5, and the ridge term) change only these four numbers; the
	// sparse gradient step changes W and U on the example's features.
	a, b, c, e float64
	rebases    float64 // O(d_seen) re-bases of the split (newSplit)

	lastVar float64 // ‖δ̄_t‖² of the latest step (tests)
	resums  int     // exact re-sums of N (tests)
}

func newScalarState() scalarState { return scalarState{a: 1, e: 1} }

// fields lists the saved state in file order.
func (s *scalarState) fields() []*float64 {
	return []*float64{&s.steps, &s.sumSq, &s.touched, &s.varSum, &s.varMax, &s.gradSum, &s.gradMax, &s.a, &s.b, &s.c, &s.e, &s.rebases}
}

func (s *scalarState) save(w *model.Writer) {
	for _, p := range s.fields() {
		w.Float64(*p)
	}
}

func (s *scalarState) load(r *model.Reader) {
	for _, p := range s.fields() {
		*p = r.Float64()
	}
}

// checkScalarState refuses a loaded state that no run can produce.
func (g *GD) checkScalarState() error {
	s := &g.ns
	for _, p := range s.fields() {
		if math.IsNaN(*p) || math.IsInf(*p, 0) {
			return errors.New("non-finite step-size state")
		}
	}
	switch {
	case s.steps < 0 || s.steps != math.Trunc(s.steps) || s.touched < 0 || s.rebases < 0:
		return errors.New("bad step counters")
	case s.sumSq < 0 || s.varSum < 0 || s.varMax < 0 || s.gradSum < 0 || s.gradMax < 0:
		return errors.New("negative sum of squares in the step-size state")
	case s.varMax > s.varSum || s.gradMax > s.gradSum:
		return errors.New("step-size state: a maximum exceeds its sum")
	case g.cfg.Step == StepNASAAccel && !splitOK(s.a, s.b, s.c, s.e):
		return errors.New("singular split of the accelerated iterates")
	}
	if g.cfg.Step == StepNASA && g.cfg.Adaptive {
		// V_j = U_j − S_j²·R(t) ≥ 0, up to its rounding.
		rows, r := g.tab.Rows, tailInvSq(s.steps)
		for o := 0; o < len(rows); o += g.stride {
			U, S := rows[o+colG], rows[o+colDiagSum]
			if U < 0 || U-S*S*r < -1e-9*U {
				return errors.New("bad per-feature NASA state")
			}
		}
		return nil
	}
	if g.cfg.Step.tracksVariation() {
		// N is ‖G‖² up to the rounding of the incremental updates since
		// the last exact re-sum, each at most a few ε·(N + ‖g‖²), and
		// N ≤ t·Σ‖g_i‖²: a loose bound that only gross damage exceeds.
		// Below the normal range (gradients of 1e-300 importance) each
		// update's squares underflow, an absolute error of up to ~1e-308
		// that no relative bound covers: (t+1)·1e-300 allows for it.
		exact := g.exactSumSq()
		if math.Abs(s.sumSq-exact) > 1e-6*(exact+s.sumSq+s.steps*s.gradSum)+(s.steps+1)*1e-300 {
			return fmt.Errorf("‖G‖² = %v disagrees with the stored gradient sums (%v)", s.sumSq, exact)
		}
	}
	return nil
}

// complementSumSq returns Σ G_j² over the seen features outside the
// example, summed directly: O(d_seen + s·log s), called when d_seen ≤ 2s.
func (g *GD) complementSumSq() float64 {
	g.sorted = append(g.sorted[:0], g.rows...)
	slices.Sort(g.sorted)
	rows, in := g.tab.Rows, g.sorted
	var n float64
	for o := 0; o < len(rows); o += g.stride {
		if len(in) > 0 && in[0] == o {
			in = in[1:]
			continue
		}
		n += rows[o+colSum] * rows[o+colSum]
	}
	return n
}

// exactSumSq returns Σ_j G_j² over the seen features.
func (g *GD) exactSumSq() float64 {
	rows := g.tab.Rows
	var n float64
	for o := colSum; o < len(rows); o += g.stride {
		n += rows[o] * rows[o]
	}
	return n
}

// splitOK reports whether x = a·W + b·U, x^ag = c·W + e·U is a safe
// basis: W and U are recovered from x and x^ag with at most a 10⁶-fold
// amplification of rounding.
func splitOK(a, b, c, e float64) bool {
	det := a*e - b*c
	scale := (math.Abs(a) + math.Abs(b)) * (math.Abs(c) + math.Abs(e))
	return math.Abs(det) > 1e-6*scale && !math.IsInf(scale, 0) && !math.IsNaN(det)
}

// learnScalar is Learn for the Ouyang & Gray (KDD 2012) steps. Per example it touches the
// example's features three times (dot products; the variation; the
// update) and never the others, except for the amortised re-sum of N and
// the accelerated variant's rare re-bases. looked says g.rows holds the
// example's rows already (Config.RMS).
func (g *GD) learnScalar(ex *sparse.Example, looked bool) float64 {
	s := &g.ns
	step := g.cfg.Step
	tracks, accel := step.tracksVariation(), step == StepNASAAccel
	if !looked {
		g.rows = g.rows[:0]
		for _, slot := range ex.Idx {
			g.rows = append(g.rows, g.tab.Row(slot)*g.stride)
		}
	}
	if tracks {
		ex = g.mergeRepeats(ex)
	}
	rows := g.tab.Rows
	var wx, ux, Gx, xx float64
	for i, o := range g.rows {
		x := ex.Val[i]
		wx += rows[o+colW] * x
		xx += x * x
		if tracks {
			Gx += rows[o+colSum] * x
		}
		if accel {
			ux += rows[o+colU] * x
		}
	}
	k := s.steps + 1
	beta := (k + 1) / 2
	p, pGrad := ex.Initial+g.scale*wx, 0.0
	if accel {
		xs, ags := s.a*wx+s.b*ux, s.c*wx+s.e*ux
		p = ex.Initial + ags
		pGrad = ex.Initial + xs/beta + (1-1/beta)*ags // x^md_t·s_t
	} else {
		pGrad = p
	}
	wt := ex.Weight
	d := g.loss.Deriv(pGrad, ex.Label)
	if !(wt > 0) || !linalg.IsFinite(pGrad) || !linalg.IsFinite(p) || math.IsNaN(d) {
		return p
	}
	if !gradInRange(wt*d, ex) {
		g.rejected++
		return p
	}
	gs := wt * d // g_t = gs·s_t
	ng := gs * gs * xx
	gradSum, gradMax := s.gradSum+ng, math.Max(s.gradMax, ng)

	var v, sumSq float64
	if tracks {
		sumSq = s.sumSq
		switch {
		case gs == 0:
			// g_t = 0: δ̄_t = −G/t everywhere.
			v = sumSq / (k * k)
		default:
			// ≥ 0 as ‖G‖² is: the cancellation of 2·gs·Gx against N
			// (a gradient undoing a huge sum) can round below zero, and
			// the state is saved (the loader refuses a negative N).
			sumSq = max(sumSq+(2*gs*Gx+ng), 0)
			var in, sI float64
			for i, o := range g.rows {
				gj := gs * ex.Val[i]
				Gj := rows[o+colSum] + gj
				sI += Gj * Gj
				dj := gj - Gj/k
				in += dj * dj
			}
			comp := sumSq - sI
			if out := g.tab.Len() - len(g.rows); out <= len(g.rows) {
				comp = g.complementSumSq()
			}
			v = in + math.Max(comp, 0)/(k*k)
		}
		if k == 1 {
			v = ng // the first-step guard: δ̄_1 := g_1
		}
	}
	varSum, varMax := s.varSum+v, math.Max(s.varMax, v)

	var eta float64
	switch step {
	case StepNASA:
		if varSum > 0 {
			eta = g.cfg.NasaC / math.Sqrt(varSum)
		}
	case StepNASAStrong:
		if varSum < 1 {
			eta = 1 / g.cfg.NasaH
		} else {
			eta = varMax / (g.cfg.NasaH * varSum)
		}
	case StepNASAAccel:
		lambda := g.cfg.NasaC
		if varSum >= 1 {
			lambda /= math.Sqrt(varSum)
		}
		eta = math.Min((k+1)/(4*g.cfg.NasaL), lambda/2)
	case StepScalarAdaGrad:
		if gradSum > 0 {
			eta = g.cfg.Eta / math.Sqrt(gradSum)
		}
	case StepSAdaGrad:
		if gradSum > 0 {
			eta = gradMax / (g.cfg.NasaH * gradSum)
		}
	}
	u := -eta * gs
	if !linalg.IsFinite(gradSum) || !linalg.IsFinite(varSum) || !linalg.IsFinite(sumSq) || !linalg.IsFinite(eta) || !linalg.IsFinite(u*math.Max(1, xx)/g.scale) {
		return p // nothing committed: the model stays as it was
	}

	// Commit.
	s.steps, s.gradSum, s.gradMax, s.varSum, s.varMax, s.lastVar = k, gradSum, gradMax, varSum, varMax, v
	if tracks && gs != 0 {
		s.sumSq = sumSq
		for i, o := range g.rows {
			rows[o+colSum] += gs * ex.Val[i]
		}
		if s.touched += float64(len(g.rows)); s.touched >= float64(g.tab.Len()) {
			s.sumSq, s.touched = g.exactSumSq(), 0
			s.resums++
		}
	}
	if accel {
		g.stepAccel(ex, eta, u, beta)
		return p
	}
	if u != 0 {
		u /= g.scale
		for i, o := range g.rows {
			addFinite(&rows[o+colW], u*ex.Val[i])
		}
	}
	if g.cfg.L2 > 0 && eta > 0 {
		// VW's L2 (gd.go), lazily: x ← (1 − importance·λ·η_t)·x.
		g.scale *= 1 - g.cfg.L2*wt*eta
		if g.scale < 1e-9 || !(g.scale > 0) {
			g.syncScale()
		}
	}
	return p
}

// stepAccel finishes an Alg. 1 step on the split form: the dense parts
//
//	x_t = x_{t−1} − η·λ·x^md_t (the ridge term, with --l2 λ),
//	x^ag_t = x_t/β + (1 − 1/β)·x^ag_{t−1}
//
// change only the coefficients (a, b, c, e); the sparse part, −η·g on x
// and −η·g/β on x^ag, is written into W and U on the example's features
// through the inverse of the new coefficient matrix. When that matrix is
// nearly singular — always at t = 1, where β = 1 makes x^ag_1 = x_1 — the
// iterates are written out to W = x, U = x^ag over the seen features
// (O(d_seen)): once at the start, then each time the determinant has
// shrunk 10⁶-fold relative to the coefficients, which without --l2 is at
// t ≈ 1.4·10³, 1.4·10⁶, … (it shrinks as 2/t²).
func (g *GD) stepAccel(ex *sparse.Example, eta, u, beta float64) {
	s := &g.ns
	rows := g.tab.Rows
	// η·λ·h ≥ 1 would overshoot the ridge's shrink (x ← x − l2·x^md with
	// l2 > 1): the coefficients then grow by l2 per step until the weights
	// overflow. It is capped at 1, as syncScale's shrink to zero is.
	l2 := min(eta*g.cfg.L2*ex.Weight, 1)
	inv := 1 / beta
	mdA, mdB := inv*s.a+(1-inv)*s.c, inv*s.b+(1-inv)*s.e
	a, b := s.a-l2*mdA, s.b-l2*mdB
	c, e := inv*a+(1-inv)*s.c, inv*b+(1-inv)*s.e
	if !splitOK(a, b, c, e) {
		g.newSplit(ex, l2, u, inv)
		return
	}
	// Solve [a b; c e]·[dW; dU] = [u; u/β].
	det := a*e - b*c
	dW := (u*e - b*u*inv) / det
	dU := (a*u*inv - c*u) / det
	if !linalg.IsFinite(dW) || !linalg.IsFinite(dU) {
		return
	}
	s.a, s.b, s.c, s.e = a, b, c, e
	for i, o := range g.rows {
		x := ex.Val[i]
		addFinite(&rows[o+colW], dW*x)
		addFinite(&rows[o+colU], dU*x)
	}
}

// newSplit takes the accelerated step with the iterates written out: every
// seen feature gets W = x_t and U = x^ag_t, and the split restarts at
// a = e = 1, b = c = 0.
func (g *GD) newSplit(ex *sparse.Example, l2, u, inv float64) {
	s := &g.ns
	rows := g.tab.Rows
	for o := 0; o < len(rows); o += g.stride {
		W, U := rows[o+colW], rows[o+colU]
		x, ag := s.a*W+s.b*U, s.c*W+s.e*U
		x -= l2 * (inv*x + (1-inv)*ag)
		if y := inv*x + (1-inv)*ag; linalg.IsFinite(x) && linalg.IsFinite(y) {
			rows[o+colW], rows[o+colU] = x, y
		}
	}
	for i, o := range g.rows {
		addFinite(&rows[o+colW], u*ex.Val[i])
		addFinite(&rows[o+colU], u*inv*ex.Val[i])
	}
	s.a, s.b, s.c, s.e = 1, 0, 0, 1
	s.rebases++
}

// predictAccel is Predict for the accelerated variant: x^ag_t·s.
func (g *GD) predictAccel(ex *sparse.Example) float64 {
	rows := g.tab.Rows
	var wx, ux float64
	for i, slot := range ex.Idx {
		if r := g.tab.Find(slot); r >= 0 {
			o := r * g.stride
			wx += rows[o+colW] * ex.Val[i]
			ux += rows[o+colU] * ex.Val[i]
		}
	}
	return ex.Initial + g.ns.c*wx + g.ns.e*ux
}

func (g *GD) weightsAccel(fn func(slot uint32, w float64)) {
	rows := g.tab.Rows
	for r, k := range g.tab.Keys {
		o := r * g.stride
		fn(k, g.ns.c*rows[o+colW]+g.ns.e*rows[o+colU])
	}
}

// addFinite adds d to *w unless the sum would not be finite: a step that
// would overflow a weight is not taken, so that no data can put Inf or
// NaN into a model.
func addFinite(w *float64, d float64) {
	if v := *w + d; v-v == 0 {
		*w = v
	}
}

// maxGrad bounds the gradient of one feature, |importance·ℓ'·x_j|: an
// update beyond it is refused as numerically out of range (it takes a
// value far beyond the parser's 1e18, from interactions or namespace
// scales, or a diverging unclipped loss). Its square, summed into the
// AdaGrad and NASA accumulators, then stays finite.
const maxGrad = 1e150

// gradInRange reports whether the example's gradient gs·x is within
// maxGrad (NaN is not).
func gradInRange(gs float64, ex *sparse.Example) bool {
	var m float64
	for _, v := range ex.Val {
		m = max(m, math.Abs(v))
	}
	return math.Abs(gs)*m <= maxGrad
}
