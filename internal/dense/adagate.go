package dense

import (
	"github.com/sparseson/sparseson/loss"
)

// GatedADA is the dense reference of package ada's gated per-step
// learners (ADA-FD, FTSL, S-ADA with ada.Config.Gate = ε > 0): ADA's
// per-step sketch replaced by the gated FD reference FD (with Gate), whose
// limit on a dropped direction's E′ is, before each update,
//
//   - δ form: (εδ)²;
//   - escaped form: ε·r, r = ρ_{1:t} + ΣE′_drops/τ + Eps, the escaped mass
//     with the drops counted at FD's own rate (package ada's gate.go).
//
// The escaped form's preconditioner uses the same r; the rest of a round
// is ADA.Learn's. In the δ form a gradient with ‖ĝ‖² below the limit is
// kept out of FD altogether (package ada's gate.go, "Small gradients"),
// in the escaped form one below SkipK times the limit (ada.Config.Skip),
// its ‖ĝ‖²/τ then added to r; SkipMass sums those ‖ĝ‖². Tries, called once
// per update, says how many directions the sparse learner dropped in it
// (FD.Tries; whether the gate is consulted depends on the factored form).
type GatedADA struct {
	*ADA
	FD   *FD
	Gate float64
	// DropMass is ΣE′ of the dropped directions, SkipMass Σ‖ĝ‖² of the
	// Skips gradients kept out of the sketch (δ form).
	DropMass, SkipMass float64
	Skips              int
	// SkipK is κ of the escaped form's skips (0: none).
	SkipK float64
	// Limits lists the limit of every update, Gram the gradients' Gram
	// matrix Σ ĝĝᵀ (d×d, row-major) for the bound tests.
	Limits []float64
	Gram   []float64
}

// NewGatedADA returns an untrained gated reference. With the doubled
// buffer (cfg.Fast) the gate is the skips alone (package ada's gate.go):
// FD is nil, nothing is dropped, tries is unused, and a full buffer is
// shrunk when the next gradient joins it (ADA.deferShrink).
func NewGatedADA(cfg ADAConfig, l loss.Loss, gate float64, tries func() int) *GatedADA {
	if cfg.Tau == 0 {
		panic("dense: the gate applies to a sketch")
	}
	if cfg.Fast {
		a := &GatedADA{ADA: NewADA(cfg, l), Gate: gate, Gram: make([]float64, cfg.D*cfg.D)}
		a.step, a.deferShrink = a.fastStep, true
		return a
	}
	f := NewFD(cfg.Tau, cfg.D, 1, false, false)
	f.Gate, f.Tries = gate, tries
	a := &GatedADA{ADA: NewADA(cfg, l), FD: f, Gate: gate, Gram: make([]float64, cfg.D*cfg.D)}
	a.step = a.gatedStep
	return a
}

// Limit is the gate's current bound on E′.
func (a *GatedADA) Limit() float64 {
	if !a.Cfg.Escaped {
		e := a.Gate * a.Cfg.Delta
		return e * e
	}
	if a.FD == nil {
		return a.Gate * (a.Rho + a.Cfg.Eps) // Rho counts the skips' ‖ĝ‖²/τ
	}
	return a.Gate * (a.FD.SumRho + (a.DropMass+a.SkipMass)/float64(a.Cfg.Tau) + a.Cfg.Eps)
}

// skip records g in Gram and Limits and reports whether it stays out of
// the sketch, counting it if so.
func (a *GatedADA) skip(g []float64) bool {
	d := a.Cfg.D
	for i, gi := range g {
		if gi == 0 {
			continue
		}
		for j, gj := range g {
			a.Gram[i*d+j] += gi * gj
		}
	}
	lim := a.Limit()
	a.Limits = append(a.Limits, lim)
	var gsq float64
	for _, v := range g {
		gsq += v * v
	}
	if !a.Cfg.Escaped && gsq < lim || a.Cfg.Escaped && gsq < a.SkipK*lim {
		a.SkipMass += gsq
		a.Skips++
		return true
	}
	return false
}

// fastStep is the doubled buffer's sketch with the skips: a skipped
// gradient's ‖ĝ‖²/τ joins ρ in the escaped form; one that joins the buffer
// first shrinks it if the last one filled it.
func (a *GatedADA) fastStep(g []float64) (full bool) {
	if a.skip(g) {
		if a.Cfg.Escaped {
			var gsq float64
			for _, v := range g {
				gsq += v * v
			}
			a.Rho += gsq / float64(a.Cfg.Tau)
		}
		return false
	}
	if a.shrinkDue {
		a.shrinkFast()
		a.shrinkDue = false
	}
	return a.sketch(g)
}

// gatedStep is the gated FD step, ADA.Learn's per-step sketch here: the
// limit set through FD's α (FD's own limit is Gate·A; A is otherwise
// unused by plain FD), ADA's rows and escaped mass taken from FD.
func (a *GatedADA) gatedStep(g []float64) bool {
	if a.skip(g) {
		if a.Cfg.Escaped {
			a.Rho = a.FD.SumRho + (a.DropMass+a.SkipMass)/float64(a.Cfg.Tau)
		}
		return false
	}
	lim := a.Limits[len(a.Limits)-1]
	a.FD.A = lim / a.Gate
	n := len(a.FD.Drops)
	a.FD.Update(g)
	for _, e := range a.FD.Drops[n:] {
		a.DropMass += e
	}
	for i := range a.S {
		a.S[i] = append(a.S[i][:0], a.FD.Rows[i]...)
	}
	a.Rho = a.FD.SumRho + (a.DropMass+a.SkipMass)/float64(a.Cfg.Tau)
	a.Rhos = a.FD.Rhos
	return false
}
