package fd

import (
	"fmt"
	"io"
	"math"

	"github.com/sparseson/sparseson/internal/linalg"
	"github.com/sparseson/sparseson/model"
	"github.com/sparseson/sparseson/sparse"
)

// # Projected steps (Config.Project = γ > 0)
//
// With a host's gate limit L (SetGateLimit: package ada's FTSL, L = ε·r)
// almost every gated shrink on sparse text adds ĝ to [S; ĝᵀ], finds the
// absorb infeasible, and drops the direction that ĝ brought in: on
// news20's training set (FTSL, τ = 20) 99 % of the updates, each paying
// the arrowhead eigensolver, F_a, the absorb's least-norm solve, K′ and a
// scatter into Z, to leave the sketch's row space nearly as it was.
//
// Write ĝ = p + ĝ_⊥ with p = P_Sĝ, its projection on the row space of S,
// and b² = ‖ĝ_⊥‖² = ‖ĝ‖² − ‖p‖². In the diagonal state S = C·Z with
// SSᵀ = diag(E), so ‖p‖² = Σ_i (S_i·ĝ)²/E_i and p = Vᵀa with
// a_i = (S_i·ĝ)/√E_i in the basis of S's right singular vectors V: O(qp)
// from Z·x, which the core has. To first order in the coupling, the gated
// shrink keeps SᵀS + ĝĝᵀ − ĝ_⊥ĝ_⊥ᵀ = SᵀS + ppᵀ + (pĝ_⊥ᵀ + ĝ_⊥pᵀ) and
// drops ≈ b² along ĝ_⊥ (exactly: the eigenpair of [S; ĝᵀ]'s Gram matrix
// nearest ĝ_⊥). A projected step keeps SᵀS + ppᵀ — ĝ's part in the row
// space, so Z is not touched — and counts b² as a dropped direction's E′
// (ProjectSums; the host's escaped mass takes it as a drop's). It is
// taken when
//
//   - the gate would drop what it leaves out: b² < L (every E′ below the
//     limit is droppable, and the smallest eigenvalue of [S; ĝᵀ]'s Gram
//     matrix is at most b², the Rayleigh quotient of ĝ_⊥);
//   - the first-order term it leaves out is small beside L: the cross
//     term pĝ_⊥ᵀ + ĝ_⊥pᵀ has eigenvalues ±b‖p‖, and b‖p‖ < γ·L;
//   - the sketch is in its diagonal state with 0 < q < m − 1 live rows and
//     no FD shrinkage is due (a full sketch's shrink subtracts λ_m from
//     every direction: the exact path), and the gate acts.
//
// What holds (TestProjectedBounds, step by step against the dense
// reference internal/dense.GatedADA): ĝĝᵀ − ppᵀ has eigenvalues
// (b² ± b·√(b² + 4‖p‖²))/2, so with T = SᵀS + A (A the pending mass
// below)
//
//	−Σ ν_t·I ⪯ GᵀG − T ⪯ (ρ_{1:t} + ΣE′ + Σ(b_t² + b_t‖p_t‖) + skipped)·I,
//	ν_t = (b_t√(b_t² + 4‖p_t‖²) − b_t²)/2 ≤ b_t‖p_t‖ < γ·L_t
//
// over the projected steps t: the sketch may exceed the gradients' Gram
// matrix, along a mix of p and ĝ_⊥, by less than γ·L per projected step,
// where the exact gated FD never does; the drops' bounds are untouched.
//
// The ppᵀ are not folded into S one by one: each would be a q×q
// eigenproblem and a rotation of C. They are summed into A (q×q, in the
// basis V; O(q²) per step) and folded — diag(E) + A = UΛUᵀ,
// C ← Λ^{1/2}UᵀE^{−1/2}C, E ← Λ — when tr A reaches ProjectFold·L or before any other update of
// the sketch. Until then the host's preconditioner reads S without A:
// SᵀS ⪯ T ⪯ SᵀS + ProjectFold·L·I, so FTSL's (rI + SᵀS)^{1/2} is within a
// factor (1 + ProjectFold·ε)^{1/2} of T's (ε = 0.3: 1.5 %). A is saved
// with the sketch; Basis and Merge read S without it (package ada's
// learners are not merged).
//
// On news20 (FTSL at its defaults, one pass, logistic, -b 18; γ = 0.01):
// 88 % of the updates are projected steps and shrinks fall from 0.998 to
// 0.120 per update; on news20 ×10 to 0.013. Test error 9.80 → 9.85 %, log
// loss 0.33854 → 0.33838. Without the cross-term condition (every step
// with b² < L projected) the test error was 9.89–9.94 % and the log loss
// 0.3390–0.3397; a condition on b² against the sketch's smallest
// eigenvalue instead took fewer steps for the same accuracy.

// ProjectFold is the share of the gate's limit L that the pending
// in-span mass tr A may reach before it is folded into S (see above).
const ProjectFold = 0.1

// projState is the projected steps' state: A (q×q, stride lb, in the
// basis of S's right singular vectors), its trace, how many steps it
// holds, and the counters and Σb² saved with the sketch.
type projState struct {
	a, av        []float64
	tr           float64
	pending      int64
	steps, folds int64
	mass         float64 // Σb² over the projected steps
	still        bool    // the last Update was a projected step without a fold
}

// projAlloc sizes the projected steps' arrays.
func (s *Sketch) projAlloc() {
	if s.cfg.Project > 0 && s.proj.a == nil {
		s.proj.a = make([]float64, s.lb*s.lb)
		s.proj.av = make([]float64, s.lb)
	}
}

// projStep takes a projected step for ĝ = c·x (st.Z = Z·x, κ = ‖ĝ‖²) if the
// conditions above hold, and reports whether it did.
func (s *Sketch) projStep(st *sparse.Step, c, kap float64, zero bool) bool {
	q := s.q
	if s.cfg.Project == 0 || s.gateLimit == nil || zero || !s.diag || q == 0 || q+1 >= s.m ||
		s.nb+1 < s.lb || st.Seen < s.gateFrom {
		return false
	}
	lim := s.gateLimit()
	if !(lim > 0) || math.IsInf(lim, 0) {
		return false
	}
	p, pm := s.p, s.pmax
	z := st.Z[:p]
	av := s.proj.av[:q]
	var pp float64
	for i := 0; i < q; i++ {
		e := s.E[i]
		if !(e > 0) {
			return false
		}
		av[i] = c * linalg.DotVec(s.C[i*pm:i*pm+p], z) / math.Sqrt(e)
		pp += av[i] * av[i]
	}
	b2 := max(kap-pp, 0)
	if g := s.cfg.Project * lim; !(b2 < lim) || !(b2*pp < g*g) {
		return false
	}
	lb := s.lb
	for i, ai := range av {
		linalg.Axpy(ai, av, s.proj.a[i*lb:i*lb+q])
	}
	ps := &s.proj
	ps.tr += pp
	ps.pending++
	ps.steps++
	ps.mass = min(ps.mass+b2, math.MaxFloat64)
	ps.still = true
	if !(ps.tr < ProjectFold*lim) {
		s.projFold()
		ps.still = false
	}
	return true
}

// projFold folds the pending A into the diagonal state: diag(E) + A =
// UΛUᵀ, C ← Λ^{1/2}UᵀE^{−1/2}C, E ← Λ (Z, K and the host's state
// untouched).
func (s *Sketch) projFold() {
	ps := &s.proj
	if ps.pending == 0 {
		return
	}
	q, lb := s.q, s.lb
	G := s.g[:q*q]
	for i := 0; i < q; i++ {
		copy(G[i*q:i*q+q], ps.a[i*lb:i*lb+q])
		G[i*q+i] += s.E[i]
	}
	lam, U := s.lam[:q], s.u[:q*q]
	ok := linalg.EigSym(q, G, lam, U, s.work) && lam[0] > 0
	for i := 0; i < q; i++ {
		clear(ps.a[i*lb : i*lb+q])
	}
	ps.tr, ps.pending = 0, 0
	if !ok {
		// Only non-finite input gets here: the pending mass is lost, the
		// sketch stays as it was.
		return
	}
	keep := 0
	for keep < q && lam[keep] > EigTol*lam[0] {
		keep++
	}
	// A is in the basis V = E^{−1/2}C·Z, so the new rows are
	// √λ_k·u_kᵀV: C′_k = Σ_i U_ik·√(λ_k/E_i)·C_i.
	p, pm, fs := s.p, s.pmax, s.pmax+1
	for k := 0; k < keep; k++ {
		dst := s.fa[k*fs : k*fs+p]
		clear(dst)
		for i := 0; i < q; i++ {
			if u := U[i*q+k]; u != 0 {
				linalg.Axpy(u*math.Sqrt(lam[k]/s.E[i]), s.C[i*pm:i*pm+p], dst)
			}
		}
		s.eNew[k] = lam[k]
	}
	s.installRows(keep, q)
	s.spec.ok = false
	ps.folds++
}

// ProjectSums returns how many projected steps the sketch took and Σb²
// over them (the mass they left out, a drop's E′ each).
func (s *Sketch) ProjectSums() (steps int64, mass float64) { return s.proj.steps, s.proj.mass }

// ProjectPending returns the pending in-span mass A (q×q, stride q, a
// copy) of the projected steps, in the basis of the rows of the diagonal
// state's E^{−1/2}C·Z; nil when nothing is pending.
func (s *Sketch) ProjectPending() []float64 {
	if s.proj.pending == 0 {
		return nil
	}
	q, lb := s.q, s.lb
	out := make([]float64, q*q)
	for i := 0; i < q; i++ {
		copy(out[i*q:i*q+q], s.proj.a[i*lb:i*lb+q])
	}
	return out
}

// saveProject writes the projected steps' state (Config.Project > 0).
func (s *Sketch) saveProject(w *model.Writer) {
	ps := &s.proj
	w.Uint64(uint64(ps.steps))
	w.Uint64(uint64(ps.folds))
	w.Uint64(uint64(ps.pending))
	w.Float64(ps.mass)
	w.Float64(ps.tr)
	w.Float64s(ps.a)
}

// loadProject reads what saveProject wrote.
func (s *Sketch) loadProject(r *model.Reader) error {
	ps := &s.proj
	steps, folds, pending := int64(r.Uint64()), int64(r.Uint64()), int64(r.Uint64())
	mass, tr := r.Float64(), r.Float64()
	a := r.Float64s(nil)
	if r.Err() != nil {
		return r.Err()
	}
	if steps < 0 || folds < 0 || pending < 0 || pending > steps || !(mass >= 0) || math.IsInf(mass, 0) ||
		!(tr >= 0) || math.IsInf(tr, 0) || len(a) != len(ps.a) {
		return fmt.Errorf("%w: bad projected-step state of the FD sketch", model.ErrCorrupt)
	}
	for _, v := range a {
		if !linalg.IsFinite(v) {
			return fmt.Errorf("%w: non-finite projected-step state of the FD sketch", model.ErrCorrupt)
		}
	}
	ps.steps, ps.folds, ps.pending, ps.mass, ps.tr = steps, folds, pending, mass, tr
	copy(ps.a, a)
	return nil
}

// reportProject adds the projected steps' line to Report.
func (s *Sketch) reportProject(w io.Writer, updates float64) {
	ps := &s.proj
	fmt.Fprintf(w, "projected steps (γ = %g): %d (%.4f per update), Σb² left out = %.6g, folds = %d, pending = %d (tr A = %.6g)\n",
		s.cfg.Project, ps.steps, float64(ps.steps)/updates, ps.mass, ps.folds, ps.pending, ps.tr)
}
