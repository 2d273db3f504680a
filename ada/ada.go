package ada

import (
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"

	"github.com/sparseson/sparseson/fd"
	"github.com/sparseson/sparseson/internal/linalg"
	"github.com/sparseson/sparseson/loss"
	"github.com/sparseson/sparseson/model"
	"github.com/sparseson/sparseson/son"
	"github.com/sparseson/sparseson/sparse"
)

// Learner is the FD-adaptive engine (see the package comment): every
// learner of the table Learners is one Config of it.
//
// Invariant between examples: under mirror descent β_{t+1} = β̄ + Zᵀb;
// under dual averaging β̄ holds ḡ_t, b = 0, the core's ZBar holds Z·ḡ_t, and
// β_{t+1} = −η(c·ḡ_t + ZᵀQ·Zḡ_t) with c and Q from the sketch S_t and ρ_{1:t}.
type Learner struct {
	cfg  Config
	loss loss.Loss
	sk   *fd.Sketch
	sp   *son.Split

	// scratch, sized for the sketch's largest buffer and row count
	w []float64 // φ(λ)/λ per eigenvalue
	v []float64 // Q·z or Q·y

	// Config.DualCache: t = C·(Z·ḡ) while tOK, and u = C·(Z·x) of the
	// example score last saw while uOK (score, Learn).
	t, u     []float64
	tOK, uOK bool
	carried  int // tests: the steps t was carried past

	skips    int        // gradients kept out of the sketch (gate.go), this run
	skipMass float64    // Σ‖ĝ‖² of those the escaped form kept out (Config.Skip), saved
	dg       *diagState // Config.Diag's completion (diag.go), else nil
}

// New returns an untrained learner.
func New(cfg Config, l loss.Loss) (*Learner, error) { return newWith(cfg, l, false) }

// splitOptions are the split's columns: with rms the pre-scaling's
// (prescale.go), with Config.Diag the completion's (diag.go); under
// mirror descent on x̃ the split also forms u·x̃ for diagBegin.
func (c Config) splitOptions(rms bool) son.SplitOptions {
	o := son.SplitOptions{RMS: rms}
	if c.Diag {
		o.Aux = diagCols
		if rms && c.Update == Mirror {
			o.AuxDot = 1 + 1 // u_j, the second column
		}
	}
	return o
}

// newWith is New, on x̃ with rms (prescale.go).
func newWith(cfg Config, l loss.Loss, rms bool) (*Learner, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	sk, err := fd.New(cfg.gatedSketchConfig())
	if err != nil {
		return nil, err
	}
	sp, err := son.NewSplitWith(cfg.Bits, sk, cfg.splitOptions(rms))
	if err != nil {
		return nil, err
	}
	a, err := newLearner(cfg, l, sk, sp)
	if a != nil && cfg.Diag {
		a.dg = &diagState{}
	}
	return a, err
}

// Load restores a learner saved by Save; cfg must be the saved model's.
func Load(r *model.Reader, cfg Config, l loss.Loss) (*Learner, error) {
	return loadWith(r, cfg, l, false)
}

// loadWith is Load, on x̃ with rms (prescale.go).
func loadWith(r *model.Reader, cfg Config, l loss.Loss, rms bool) (*Learner, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	sk, err := fd.New(cfg.gatedSketchConfig())
	if err != nil {
		return nil, err
	}
	var skipped float64
	if cfg.savesSkips() {
		// Written before the split only by models with Config.Skip or
		// Grow, so that the others read as before it.
		skipped = r.Float64()
		if err := r.Err(); err != nil {
			return nil, err
		}
		if !(skipped >= 0) || math.IsInf(skipped, 0) {
			return nil, fmt.Errorf("%w: skipped gradients' mass %v", model.ErrCorrupt, skipped)
		}
	}
	tOK, t, err := loadDualCache(r, cfg)
	if err != nil {
		return nil, err
	}
	var sd *savedDiag
	if cfg.Diag {
		if sd, err = loadDiag(r); err != nil {
			return nil, err
		}
	}
	sp, err := son.LoadSplitWith(r, cfg.Bits, sk, cfg.splitOptions(rms))
	if err != nil {
		return nil, fmt.Errorf("loading the %s state: %w", cfg.Name(), err)
	}
	dg, err := sd.install(sp)
	if err != nil {
		return nil, err
	}
	if !(sk.SumRho() >= 0) || math.IsInf(sk.SumRho(), 0) {
		return nil, fmt.Errorf("%w: escaped mass ρ = %v", model.ErrCorrupt, sk.SumRho())
	}
	a, err := newLearner(cfg, l, sk, sp)
	if a != nil {
		a.skipMass, a.dg = skipped, dg
		if cfg.DualCache {
			if len(t) != len(a.t) {
				return nil, fmt.Errorf("%w: dual-averaging product of %d values, want %d", model.ErrCorrupt, len(t), len(a.t))
			}
			a.tOK = tOK
			copy(a.t, t)
		}
	}
	return a, err
}

func newLearner(cfg Config, l loss.Loss, sk *fd.Sketch, sp *son.Split) (*Learner, error) {
	if cfg.Update == Dual && sp.ZBar() == nil {
		return nil, errors.New("ada: dual averaging needs the core's Z·ḡ (a sketch that keeps ZZᵀ)")
	}
	lb := cfg.Tau
	if cfg.Buffer == Doubled {
		lb = 2 * cfg.Tau
	}
	a := &Learner{cfg: cfg, loss: l, sk: sk, sp: sp,
		w: make([]float64, lb), v: make([]float64, sk.MaxRows()), t: make([]float64, lb), u: make([]float64, lb)}
	if cfg.Gate > 0 && cfg.Buffer == Single {
		sk.SetGateLimit(a.gateLimit)
	}
	return a, nil
}

// Config returns the learner's configuration.
func (a *Learner) Config() Config { return a.cfg }

// Sketch returns the FD sketch (for tests and diagnostics).
func (a *Learner) Sketch() *fd.Sketch { return a.sk }

// Split returns the split weights (for tests and diagnostics).
func (a *Learner) Split() *son.Split { return a.sp }

// Rho is ρ_{1:t}, the sketch's escaped mass.
func (a *Learner) Rho() float64 { return a.sk.SumRho() }

// coefficients factors the current sketch and returns c of
// P = c·I + Vᵀdiag(φ)V, with w_i = φ(λ_i)/λ_i in a.w (the weights of
// MulSpectral; see the package comment). The differences φ are written
// without cancellation: 1/(δ+√λ) − 1/δ = −√λ/(δ(δ+√λ)), and
// (λ+r)^{−1/2} − r^{−1/2} = −λ/(√(λ+r)·√r·(√(λ+r) + √r)).
func (a *Learner) coefficients() (c float64, w []float64) {
	lam := a.sk.Spectrum()
	w = a.w[:len(lam)]
	switch r := a.escapedMass(); {
	case a.cfg.Precond == Delta:
		d := a.delta()
		c = 1 / d
		for i, l := range lam {
			w[i] = 0
			if l > 0 {
				s := math.Sqrt(l)
				w[i] = -1 / (d * (d + s) * s)
			}
		}
	case r > 0:
		sr := math.Sqrt(r)
		c = 1 / sr
		for i, l := range lam {
			w[i] = 0
			if l > 0 {
				s := math.Sqrt(l + r)
				w[i] = -1 / (s * sr * (s + sr))
			}
		}
	default:
		// ρ = 0: the pseudo-inverse (SᵀS)^{†1/2}, λ^{−1/2} on the sketch.
		for i, l := range lam {
			w[i] = 0
			if l > 0 {
				w[i] = 1 / (l * math.Sqrt(l))
			}
		}
	}
	return c, w
}

// score is βᵀx for the example Begin has looked up (bx = β̄·x, z = Z·x).
func (a *Learner) score(bx float64, z []float64) float64 {
	if a.cfg.Update == Mirror {
		return bx + linalg.Dot(a.sp.B(), z)
	}
	c, w := a.coefficients()
	if a.cfg.DualCache && a.sk.SpectralCZ(a.u, z) {
		// (Zx)ᵀCᵀdiag(w)C(Zḡ) as Σ w_i·u_i·t_i, with t carried over from
		// the last example while the factors stay (Learn): one q×p
		// product per example instead of MulSpectral's two (FTFSL on
		// news20, q and p about 2τ).
		if !a.tOK {
			a.sk.SpectralCZ(a.t, a.sp.ZBar())
			a.tOK = true
		}
		a.uOK = true
		return -a.eta() * (c*bx + dotW(w, a.u, a.t))
	}
	a.uOK = false
	v := a.v[:len(z)]
	a.sk.MulSpectral(v, a.sp.ZBar(), w)
	return -a.eta() * (c*bx + linalg.Dot(z, v))
}

// dotW is Σ w_i·u_i·t_i over w's length.
func dotW(w, u, t []float64) (s float64) {
	u, t = u[:len(w)], t[:len(w)]
	for i, wi := range w {
		s += wi * u[i] * t[i]
	}
	return s
}

// Predict implements sparse.Learner.
func (a *Learner) Predict(ex *sparse.Example) float64 {
	defer runtime.KeepAlive(a)
	bx, z, _ := a.sp.Begin(ex, false)
	return ex.Initial + a.score(bx, z) + a.diagBegin()
}

// loadDualCache reads Config.DualCache's carried product t (nothing without it).
func loadDualCache(r *model.Reader, cfg Config) (ok bool, t []float64, err error) {
	if !cfg.DualCache {
		return false, nil, nil
	}
	ok, t = r.Bool(), r.Float64s(nil)
	if err := r.Err(); err != nil {
		return false, nil, err
	}
	for _, v := range t {
		if !linalg.IsFinite(v) {
			return false, nil, fmt.Errorf("%w: non-finite dual-averaging product", model.ErrCorrupt)
		}
	}
	return ok, t, nil
}

// Learn implements sparse.Learner: one round of the configured algorithm.
func (a *Learner) Learn(ex *sparse.Example) float64 {
	defer runtime.KeepAlive(a)
	bx, z, n := a.sp.Begin(ex, true)
	pred := ex.Initial + a.score(bx, z) + a.diagBegin()
	h := ex.Weight
	d := a.loss.Deriv(pred, ex.Label)
	if !(h > 0) || !linalg.IsFinite(pred) || !linalg.IsFinite(d) {
		return pred
	}
	// The sketch takes √h·ℓ′·x, the step h·ℓ′·x: importance h counts as h
	// copies of the example, as in SON.
	same := true // the sketch's factors as score saw them
	a.diagEnergy(h, n)
	sc := math.Sqrt(h) * d // ĝ = sc·x
	if a.skipSketch(sc * sc * n) {
		a.skips++
	} else {
		z = a.sp.Sketch(sc)
		same = a.sk.Unchanged()
	}
	g := h * d
	if a.cfg.Update == Dual {
		// ḡ_I += g·x_I, and the core adds g·Z_t x to Z·ḡ.
		ok := a.sp.Step(-g, 0, nil)
		a.carry(same, ok, g)
		a.diagStep(g, sc)
		return pred
	}
	// β̄_I −= η·c·g·x_I, b −= η·g·Q·Z_t x.
	c, w := a.coefficients()
	v := a.v[:len(z)]
	a.sk.MulSpectral(v, z, w)
	eta := a.eta()
	a.sp.Step(eta*c*g, -eta*g, v)
	a.sp.Finish()
	a.diagStep(g, sc)
	return pred
}

// carry brings Config.DualCache's t = C·(Z·ḡ) past the step: Z·ḡ gained
// g·Z·x, so t gains g·u while C and Z are those score used (same), and a
// refused step (ok false) left Z·ḡ as it was; else t is formed afresh at
// the next score.
func (a *Learner) carry(same, ok bool, g float64) {
	switch {
	case !a.tOK:
	case !same || !a.uOK:
		a.tOK = false
	case ok:
		q := len(a.sk.Spectrum())
		linalg.Axpy(g, a.u[:q], a.t[:q])
		a.carried++
	}
}

// Rejected counts the steps refused as numerically out of range (a weight,
// or ḡ_j under dual averaging, beyond ±1e140: son.Split.Step); the
// CLI's end-of-run warning reads it.
func (a *Learner) Rejected() int { return a.sp.Refused() }

// Weights implements sparse.Learner: β_j for every feature seen.
func (a *Learner) Weights(fn func(slot uint32, w float64)) {
	defer runtime.KeepAlive(a)
	if a.cfg.Update == Mirror {
		b := a.sp.B()
		a.sp.Columns(func(slot uint32, bbar float64, z []float64) {
			fn(slot, bbar+linalg.Dot(b, z)+a.diagWeight(slot))
		})
		return
	}
	c, w := a.coefficients()
	y := a.sp.ZBar()
	v := make([]float64, len(y))
	a.sk.MulSpectral(v, y, w)
	eta := a.eta()
	a.sp.Columns(func(slot uint32, gbar float64, z []float64) {
		fn(slot, -eta*(c*gbar+linalg.Dot(z, v))+a.diagWeight(slot))
	})
}

// Save implements sparse.Learner: with Config.Skip or Grow the skipped
// gradients' mass, with Config.Diag the completion's state, then the split table and
// the sketch (ρ_{1:t} is the sketch's); the configuration is the model's
// options.
func (a *Learner) Save(w *model.Writer) error {
	defer runtime.KeepAlive(a)
	if a.cfg.savesSkips() {
		w.Float64(a.skipMass)
	}
	if a.cfg.DualCache {
		// t as carried, so that a resumed run adds to the same bits.
		w.Bool(a.tOK)
		w.Float64s(a.t)
	}
	if a.dg != nil {
		// Before the split, whose loader must end the body.
		a.saveDiag(w)
	}
	return a.sp.Save(w)
}

// Report implements sparse.Reporter.
func (a *Learner) Report(w io.Writer) {
	defer runtime.KeepAlive(a)
	a.sp.Report(w)
	c, _ := a.coefficients()
	fmt.Fprintf(w, "%s: ρ_{1:t} = %.6g, outside the sketch P = %.6g·I, steps refused = %d\n", a.cfg.Name(), a.sk.SumRho(), c, a.sp.Refused())
	a.reportGate(w)
	a.reportDiag(w)
}

// Name is the learner's paper name, with its update where it is a choice
// (ADA-FULL for Tau 0).
func (c Config) Name() string {
	upd := " (mirror descent)"
	if c.Update == Dual {
		upd = " (dual averaging)"
	}
	if c.Tau == 0 {
		return "ADA-FULL" + upd
	}
	for _, n := range Learners {
		if n.Precond == c.Precond && n.Buffer == c.Buffer && (!n.UpdateFixed || n.Update == c.Update) {
			if n.UpdateFixed {
				return n.Paper
			}
			return n.Paper + upd
		}
	}
	return "FD-adaptive"
}
