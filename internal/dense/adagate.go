package dense

import (
	"math"

	"github.com/sparseson/sparseson/loss"
	"gonum.org/v1/gonum/mat"
)

// GatedADA is the dense reference of package ada's gated per-step
// learners (ADA-FD, FTSL, S-ADA with ada.Config.Gate = ε > 0): ADA's
// per-step sketch replaced by the gated FD reference FD (with Gate), whose
// limit on a dropped direction's E′ is, before each update,
//
//   - δ form: (εδ)², or (εδ_t)² with ADAConfig.Grow (δ_t = ADA.DeltaNow);
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
	// Project is γ of the projected steps (package fd's Config.Project,
	// escaped form; the gate acting from the first example): see project.
	// Pend is the pending in-span mass A (d×d), PendTr its trace;
	// Projected and Folds count the steps and folds, ProjMass is Σb² over
	// the steps, Nu Σν_t and ProjUp Σ(b_t² + b_t‖p_t‖), the bound's terms.
	Project              float64
	Pend                 []float64
	PendTr               float64
	pendN, sketched      int
	Projected, Folds     int
	ProjMass, Nu, ProjUp float64
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
		e := a.Gate * a.DeltaNow()
		return e * e
	}
	if a.FD == nil {
		return a.Gate * (a.Rho + a.Cfg.Eps) // Rho counts the skips' ‖ĝ‖²/τ
	}
	return a.Gate * a.escaped()
}

// escaped is r of the gated per-step escaped form: ρ_{1:t}, the drops',
// the projected steps' and the skips' mass at 1/τ, and Eps.
func (a *GatedADA) escaped() float64 {
	return a.FD.SumRho + (a.DropMass+a.ProjMass+a.SkipMass)/float64(a.Cfg.Tau) + a.Cfg.Eps
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
		if a.Cfg.Escaped || a.Cfg.Grow {
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
	if a.skip(g) || a.project(g) {
		if a.Cfg.Escaped || a.Cfg.Grow {
			a.Rho = a.escaped() - a.Cfg.Eps
		}
		return false
	}
	a.fold()
	a.sketched++
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
	a.Rho = a.escaped() - a.Cfg.Eps
	a.Rhos = a.FD.Rhos
	return false
}

// project is package fd's projected step (fd/project.go) on the explicit
// sketch, whose live rows S_i = √E_i·v_iᵀ are orthogonal: with p = P_Sĝ =
// Σ_i (S_i·ĝ/E_i)·S_i and b² = ‖ĝ‖² − ‖p‖², a ĝ with b² < L and b‖p‖ < γL
// (L the update's limit) adds ppᵀ to Pend, b² to ProjMass, and leaves the
// rows as they are, while q live rows, 0 < q < τ − 1, were left by at
// least τ earlier updates (the sparse sketch has shrunk: its diagonal state) and
// none is zero. Pend is folded once its trace reaches fd.ProjectFold·L.
func (a *GatedADA) project(g []float64) bool {
	f := a.FD
	q := 0
	for _, r := range f.Rows {
		if dotv(r, r) > 0 {
			q++
		}
	}
	if a.Project == 0 || q == 0 || q+1 >= f.M || a.sketched < f.M {
		return false
	}
	lim := a.Limits[len(a.Limits)-1]
	if !(lim > 0) {
		return false
	}
	d := a.Cfg.D
	p := make([]float64, d)
	var pp float64
	for _, r := range f.Rows {
		e := dotv(r, r)
		if e == 0 {
			continue
		}
		c := dotv(r, g) / e
		pp += c * c * e
		for j, v := range r {
			p[j] += c * v
		}
	}
	b2 := max(dotv(g, g)-pp, 0)
	if DebugProj {
		println("dense", a.sketched, q, b2, pp, lim)
	}
	if gl := a.Project * lim; !(b2 < lim) || !(b2*pp < gl*gl) {
		return false
	}
	if a.Pend == nil {
		a.Pend = make([]float64, d*d)
	}
	for i, pi := range p {
		for j, pj := range p {
			a.Pend[i*d+j] += pi * pj
		}
	}
	b := math.Sqrt(b2)
	a.Nu += (b*math.Sqrt(b2+4*pp) - b2) / 2
	a.ProjUp += b2 + b*math.Sqrt(pp)
	a.PendTr += pp
	a.pendN++
	a.Projected++
	a.ProjMass += b2
	if !(a.PendTr < projectFold*lim) {
		a.fold()
	}
	return true
}

// projectFold is package fd's ProjectFold (checked equal by package ada's
// tests; dense does not import fd).
const projectFold = 0.1

// fold replaces the live rows by those of SᵀS + Pend (its q leading
// eigenpairs, √λ_i·v_iᵀ) and clears Pend.
func (a *GatedADA) fold() {
	if a.pendN == 0 {
		return
	}
	f, d := a.FD, a.Cfg.D
	q := 0
	for _, r := range f.Rows {
		if dotv(r, r) > 0 {
			q++
		}
	}
	T := mat.NewSymDense(d, append([]float64(nil), a.Pend...))
	for _, r := range f.Rows {
		if dotv(r, r) > 0 {
			T.SymRankOne(T, 1, mat.NewVecDense(d, r))
		}
	}
	var es mat.EigenSym
	if !es.Factorize(T, true) {
		panic("dense: fold eigendecomposition failed")
	}
	vals := es.Values(nil) // ascending
	var V mat.Dense
	es.VectorsTo(&V)
	// The live rows, wherever the drops left them, become the fold's q
	// leading directions in the first q rows; the rest are zero.
	for i, r := range f.Rows {
		if i >= q {
			clear(r)
			continue
		}
		k := d - 1 - i
		se := math.Sqrt(max(vals[k], 0))
		for j := range r {
			r[j] = se * V.At(j, k)
		}
	}
	for i := range a.S {
		a.S[i] = append(a.S[i][:0], f.Rows[i]...)
	}
	clear(a.Pend)
	a.PendTr, a.pendN = 0, 0
	a.Folds++
}

var DebugProj bool
