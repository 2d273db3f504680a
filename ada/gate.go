package ada

import (
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/sparseson/sparseson/fd"
)

// # The gated sketch of the per-step learners (Config.Gate = ε > 0)
//
// ADA-FD, FTSL and S-ADA keep their sketch in package fd's factored form,
// so they pay exact FD's appends and compactions whenever a shrink's result
// cannot be absorbed into Z's rows (on news20 at τ = 20: an append on 14 %
// of the examples, 55 row refreshes per example). Package fd's gate
// (fd/gate.go) drops, instead of appending, the kept direction leaning most
// on ĝ among those whose shrunk eigenvalue E′ is below a limit; its own
// limit, ε·α, is what the direction is worth to SON's αI + SᵀS. These
// learners have no α (their sketch's α is a placeholder, 1), so the limit
// is what the direction is worth to their preconditioner (docs/algorithms.md §7):
//
//   - δ form, H = δI + (SᵀS)^{1/2} (Wan & Zhang (TPAMI 2022), Alg. 1/2): a
//     direction with eigenvalue E′ moves H⁻¹ along it from 1/δ to
//     1/(δ + √E′), a relative change √E′/(δ + √E′) < √E′/δ; the gate drops
//     it when √E′ < ε·δ, i.e. E′ < (εδ)² — SON's rule E′/(α + E′) < ε with
//     the δ form's own scale;
//   - escaped form, G̃ = rI + SᵀS, r = ρ_{1:t} + Config.Epsilon (Yang et
//     al. (ICML 2025), Alg. 2): the direction moves G̃^{−1/2} from r^{−1/2}
//     to (r + E′)^{−1/2}, a relative change below E′/(2r); the gate drops
//     it when E′ < ε·r (nothing while r = 0, the pseudo-inverse phase).
//
// In the escaped form a drop's E′ is counted into the escaped mass at
// FD's own rate: r = ρ_{1:t} + ΣE′_drops/τ + ε. A per-step shrink of a
// rank-τ buffer removes trace τ·ρ_t (ρ_t from each of its τ directions),
// so r = ρ_{1:t} is the trace FD removed over τ; a drop removes trace E′
// from one direction, and counting it as E′/τ keeps r what exact FD's
// shrinkage of that mass would have made it. Counting it whole —
// r ≥ ρ_{1:t} + ‖Σ drops‖₂, which keeps G̃_t ⪰ G_tᵀG_t, the property Yang et
// al.'s analysis uses, since GᵀG − SᵀS ⪯ (ρ_{1:t} + ‖Σ drops‖₂)·I
// (fd/gate.go) — feeds back: each drop raises r and with it the limit ε·r,
// and on news20 ×10 (one pass, logistic, τ = 20) the gate then dropped
// every gradient, r grew to Σ‖ĝ‖² and the sketch held nothing: the learner
// became a scalar AdaGrad. Not counting drops at all makes r smaller than
// exact FD's, and the steps larger (news20, one pass, test error 8.59 %
// against exact FD's 10.01 %: a change of the learner, not of its cost).
// With E′/τ: 9.81 %, log loss 0.3386 against 0.3457 (S-ADA: 8.87 % against
// 9.13 %). What holds, step by step (TestGatedBounds): 0 ⪯ GᵀG − SᵀS ⪯
// (ρ_{1:t} + ΣE′)·I, and every drop's E′ is below its limit, so
// G̃ + (1 − 1/τ)ΣE′·I ⪰ GᵀG; --sketch_report prints ΣE′ (the gate line's
// Σ E′/α, α = 1 here). The δ form has no escaped mass to adjust: a drop
// changes H⁻¹ only along the dropped direction, by the factor above.
//
// The gate's drops act where package fd's do: the per-step sketch only
// (the doubled buffer of ADA-FFD, FTFSL and Fast S-ADA has no absorb to
// refuse), once the features seen reach fd.GateRows times the row cap 2τ
// (the small sets never get there and keep exact FD's predictions), with
// Z's rows capped at τ + 4 while it acts. The doubled buffer takes the
// skips alone ("Small gradients" below): Config.Gate there is never passed
// to package fd.
//
// Where it pays (news20 twice over as text, one pass, logistic, τ = 20,
// valgrind --tool=cachegrind instructions; FD-SON at m = 10: 4.51e9): in
// the escaped form almost every refused absorb has a direction to drop
// (appends on 0.1 % of the examples instead of 14 %, 1.5 row refreshes per
// example instead of 55): FTSL 17.5e9 → 4.12e9, S-ADA 16.7e9 → 4.44e9.
// In the δ form the directions that block the absorb are seldom below
// (εδ)² — ADA-FD's smallest E′ on news20 are 0.2–0.4 at δ = 1, which move
// H⁻¹ by 30–40 % — so appends fall only to 7.6 %, and with the gated row
// cap τ + 4 the compactions double (13.4e9 → 13.6e9 instructions). What
// the δ form's gate does pay for is the next paragraph.
//
// # Small gradients (δ form)
//
// A gradient with ‖ĝ‖² < (εδ)² — below the limit on a dropped direction —
// is kept out of the sketch altogether when the gate acts: no shrink, no
// absorb, no append; the step is taken with the sketch as it stands. The
// limit is what justifies it: SᵀS + ĝĝᵀ differs from SᵀS by ‖ĝ‖² at most
// along any direction, so (SᵀS)^{1/2} by less than ‖ĝ‖ < εδ and H⁻¹ along
// any direction by a factor within [1/(1+ε), 1] — the bound a dropped
// direction has. The δ form has no escaped mass to charge it to, so
// nothing about the skipped gradient is kept (the dense reference,
// internal/dense.GatedADA, skips the same gradients and sums their mass;
// the step-by-step bound becomes 0 ⪯ GᵀG − SᵀS ⪯ (ρ_{1:t} + ΣE′ +
// Σ‖ĝ_skipped‖²)·I, TestGatedBounds). Logistic loss on text makes most
// gradients small once the model fits (ℓ′ ≈ 0.01): on news20 ×10 as text
// at ε = 2 (ADA-FD's CLI default under --ada_scale auto,
// learners.ADADeltaGate) 98.1 % of the gradients stay out, and the
// per-step shrink, the appends and the stale rows they bring are paid on
// the rest. One pass of news20's training set, valgrind --tool=cachegrind
// instructions: 2.87e9 exact, 1.86e9 gated (FD-SON, m = 10: 1.51e9); news20
// test error 7.57 → 7.29 % (after news20 ×10: 6.84 → 6.93 %).
//
// With the growing δ (Config.Grow, grow.go) the limit is (εδ_t)², in the
// units of H_t as it stands, so the bound above holds against H_t: a
// skip or drop moves H_t⁻¹ along any direction by a factor within
// [1/(1+ε), 1]. The skipped and dropped mass then joins r_t (at 1/τ, as in
// the escaped form) and is saved with the model. The CLI takes ε = 0.2
// there (learners.ADAGrowGate): ε = 2 against δ_t would keep all but 15
// of news20's gradients out; at 0.2, 225 reach ADA-FD's sketch in one
// pass, and ADA-FD's instructions fall 1.877e9 → 1.433e9 at the same test
// error.
//
// The escaped form skips only when asked (Config.Skip = κ > 0): a gradient
// with ‖ĝ‖² < κ·ε·r stays out of the sketch and, like a drop's E′, its
// ‖ĝ‖²/τ is added to r, so that G̃ + (1 − 1/τ)(ΣE′ + Σ‖ĝ_skipped‖²)·I ⪰
// GᵀG still holds (TestGatedBounds); the sum is saved with the model,
// before the split. Each skip raises r and so the limit: after a few
// thousand examples of news20 the sketch changes seldom (at κ = 0.1, 647
// of news20 ×10's 113,140 gradients reach it). S-ADA keeps its accuracy
// (news20 test error 8.87 → 8.92 % logistic, 7.85 → 7.87 % squared) and
// the CLI sets κ = 0.1 for it (learners.ADASkip); FTSL's dual averaging
// lost 0.45 points at the same κ, and FTSL keeps every gradient.
//
// # Projected steps (escaped form, per-step sketch)
//
// A skip loses ĝ's part in the sketch's row space, which FTSL's dual
// averaging needs. With Config.Project = γ > 0 the sketch (fd/project.go)
// instead adds only that part, p = P_Sĝ, when the gate would drop the
// rest (‖ĝ − p‖² < ε·r) and the cross term the gated shrink would also
// keep is small (‖ĝ − p‖·‖p‖ < γ·ε·r): no arrowhead, no absorb, Z
// untouched. The left-out ‖ĝ − p‖² counts as a drop's E′ (dropMass, so
// r takes it at 1/τ). The CLI sets γ = 0.01 for FTSL under --ada_scale
// auto (learners.ADAProject); on news20 it leaves 12 % of the updates to
// shrink after one pass (0.014 per update over news20 ×10) with the test
// error 9.80 → 9.82 %. The dense reference (internal/dense.GatedADA with
// Project) takes the same steps; TestProjectedBounds checks the bound
// the fd comment states.
//
// # Small gradients in the doubled buffer
//
// ADA-FFD, FTFSL and Fast S-ADA append every gradient outside the
// sketch's span as a row of Z and compact every τ or so examples, which
// leaves every feature's row stale (143 row refreshes per example on
// news20 at the defaults). The same skips apply, with the same switch
// (from fd.GateRows·2τ features seen) and the same limits: δ form ‖ĝ‖² <
// (εδ)², escaped form ‖ĝ‖² < κ·ε·r with ‖ĝ‖²/τ added to r. The bound is
// the per-step one: ĝĝᵀ is PSD, so the buffer without the skipped
// gradients under-approximates GᵀG by Σ‖ĝ_skipped‖² more at most (0 ⪯ GᵀG
// − VMVᵀ ⪯ (ρ_{1:t} + Σ‖ĝ_skipped‖²)·I, TestDoubledSkipsBounds). A full
// buffer is shrunk when the next gradient joins it (fd's order), so a
// skipped gradient's step sees the full buffer; the dense reference
// (internal/dense.GatedADA with ADAConfig.Fast) does the same. The CLI's
// defaults: ADA-FFD as ADA-FD (ε = 2 under --ada_scale auto), Fast S-ADA as
// S-ADA (ε = 0.3, κ = 0.1), FTFSL ε = 0.3, κ = 0.03 (learners.ADADualSkip).
// News20, one pass, logistic (test error; gradients kept out of the
// buffer; row refreshes per example): ADA-FFD 7.63 → 7.85 %, 86.7 %, 143 →
// 58; Fast S-ADA 9.75 → 9.77 %, 96.4 %, 143 → 16; FTFSL 9.63 → 9.65 %,
// 82.5 %, 113 → 44. CPU time on news20 ×10 as text, one pass: ADA-FFD
// 3.72 → 1.24 s, Fast S-ADA 3.83 → 1.08 s, FTFSL 8.22 → 1.53 s (FD-SON
// 0.80 s).

// gateActs reports whether the gate acts on the next update: Config.Gate
// > 0 and the features seen reach Config.GateFrom (fd.Config.GateFrom: 0
// selects fd.GateRows times exact FD's row cap 2τ, a negative value acts
// from the start).
func (a *Learner) gateActs() bool {
	from := a.cfg.GateFrom
	if from == 0 {
		from = fd.GateRows * fd.DefaultRowCap(a.cfg.Tau, false)
	}
	return a.cfg.Gate > 0 && a.sp.Seen() >= from
}

// skipSketch reports whether the gated δ form keeps a gradient of squared
// norm gsq out of the sketch (see "Small gradients" above).
func (a *Learner) skipSketch(gsq float64) bool {
	if a.cfg.Precond == Escaped {
		if a.cfg.Skip > 0 && gsq < a.cfg.Skip*a.gateLimit() && a.gateActs() {
			a.skipMass += gsq
			return true
		}
		return false
	}
	if gsq < a.gateLimit() && a.gateActs() {
		if a.cfg.Grow {
			a.skipMass += gsq // r_t takes it, as the escaped form's does
		}
		return true
	}
	return false
}

// validGate checks Config.Gate against the rest of c.
func (c Config) validGate() error {
	if !(c.Gate >= 0) || math.IsInf(c.Gate, 0) {
		return fmt.Errorf("the gate's ε (Config.Gate) must be finite and ≥ 0, got %v", c.Gate)
	}
	if !(c.Skip >= 0) || math.IsInf(c.Skip, 0) || c.Skip > 0 && (c.Precond != Escaped || c.Gate == 0) {
		return fmt.Errorf("Config.Skip %v: must be finite, ≥ 0, and 0 unless the escaped form is gated (Config.Gate)", c.Skip)
	}
	if !(c.Project >= 0) || math.IsInf(c.Project, 0) || c.Project > 0 && (c.Precond != Escaped || c.Buffer != Single || c.Gate == 0) {
		return fmt.Errorf("Config.Project %v: must be finite, ≥ 0, and 0 unless the escaped form's per-step sketch is gated (Config.Gate)", c.Project)
	}
	if c.DualCache && c.Update != Dual {
		return errors.New("Config.DualCache keeps a dual-averaging product: it needs the dual-averaging update")
	}
	if c.Gate > 0 && c.Buffer == Doubled && c.Precond == Escaped && c.Skip == 0 {
		// The doubled buffer has no absorb to refuse: its gate is the
		// skips alone, and in the escaped form those need κ.
		return errors.New("the doubled buffer's gate (Config.Gate) is its skips only: the escaped form needs Config.Skip > 0 with it")
	}
	return nil
}

// gatedSketchConfig is sketchConfig with c's gate; the doubled buffer's
// gate is the skips alone (skipSketch), so fd's sketch stays ungated.
func (c Config) gatedSketchConfig() fd.Config {
	sc := c.sketchConfig()
	if c.Buffer == Single {
		sc.Gate, sc.GateFrom, sc.Project = c.Gate, c.GateFrom, c.Project
	}
	return sc
}

// dropMass is ΣE′ of the directions the gate dropped (GateSums' Σ E′/α
// with the sketch's α = 1) and Σb² of the projected steps' left-out parts.
func (a *Learner) dropMass() float64 {
	if a.cfg.Gate == 0 || a.cfg.Buffer == Doubled {
		return 0
	}
	_, m := a.sk.GateSums()
	_, pm := a.sk.ProjectSums()
	return m + pm
}

// escapedMass is r of the escaped form: ρ_{1:t}, the gate's dropped mass
// and the skipped gradients' (each at 1/τ), and Config.Epsilon.
func (a *Learner) escapedMass() float64 {
	return a.sk.SumRho() + (a.dropMass()+a.skipMass)/float64(a.cfg.Tau) + a.cfg.Epsilon
}

// gateLimit is the bound on E′ below which the gate drops a direction (see
// the comment above).
func (a *Learner) gateLimit() float64 {
	if a.cfg.Precond == Delta {
		e := a.cfg.Gate * a.delta()
		return e * e
	}
	return a.cfg.Gate * a.escapedMass()
}

// validate is Validate with the gate's checks.
func (c Config) validate() error {
	if err := c.Validate(); err != nil {
		return err
	}
	return c.validGate()
}

// reportGate adds the gate's line to Report: the dropped mass and, in the
// escaped form, the r it gives.
func (a *Learner) reportGate(w io.Writer) {
	if a.cfg.Gate == 0 {
		return
	}
	m := a.dropMass()
	if a.cfg.Buffer == Doubled {
		a.reportDoubledSkips(w)
		return
	}
	if a.cfg.Precond == Delta {
		fmt.Fprintf(w, "gate: %d directions dropped below E′ < (εδ)² = %.6g, ΣE′ = %.6g; %d gradients with ‖ĝ‖² below it kept out of the sketch in this run\n", a.sk.Counts().Drops, a.gateLimit(), m, a.skips)
		return
	}
	if a.cfg.Skip > 0 {
		fmt.Fprintf(w, "gate: %d directions dropped below E′ < ε·r, ΣE′ = %.6g; %d gradients with ‖ĝ‖² < κ·ε·r (κ = %g) kept out of the sketch in this run, Σ‖ĝ‖² of all skipped = %.6g; r = ρ_{1:t} + (ΣE′ + Σ‖ĝ‖²)/τ + ε = %.6g\n", a.sk.Counts().Drops, m, a.skips, a.cfg.Skip, a.skipMass, a.escapedMass())
		return
	}
	fmt.Fprintf(w, "gate: %d directions dropped below E′ < ε·r, ΣE′ = %.6g, r = ρ_{1:t} + ΣE′/τ + ε = %.6g\n", a.sk.Counts().Drops, m, a.escapedMass())
}

// reportDoubledSkips is reportGate for the doubled buffer, whose gate is
// the skips alone.
func (a *Learner) reportDoubledSkips(w io.Writer) {
	if a.cfg.Precond == Delta {
		fmt.Fprintf(w, "gate (doubled buffer, skips only): %d gradients with ‖ĝ‖² < (εδ)² = %.6g kept out of the buffer in this run\n", a.skips, a.gateLimit())
		return
	}
	fmt.Fprintf(w, "gate (doubled buffer, skips only): %d gradients with ‖ĝ‖² < κ·ε·r (κ = %g) kept out of the buffer in this run, Σ‖ĝ‖² of all skipped = %.6g; r = ρ_{1:t} + Σ‖ĝ‖²/τ + ε = %.6g\n", a.skips, a.cfg.Skip, a.skipMass, a.escapedMass())
}
