package ada

import (
	"fmt"
	"io"
	"math"

	"github.com/sparseson/sparseson/model"
	"github.com/sparseson/sparseson/son"
)

// # The per-coordinate completion (Config.Diag)
//
// Yang et al. (ICML 2025), Alg. 2 precondition with G̃_t = r·I + S_tᵀS_t,
// r = ρ_{1:t} (+ ε): the escaped mass bounds G_t − S_tᵀS_t in every
// direction, so a coordinate outside the sketch's span steps by η·g_j/√r.
// On sparse text that is the wrong scale for almost every feature: r grows
// with every example (news20, one pass, squared loss: r ≈ 4·10⁴ at the
// end), while a word seen n_j times has a gradient history
// G_jj = Σ ĝ_j² of about n_j·ℓ′², so AdaGrad would step it by ~1/√G_jj,
// two orders of magnitude more for the rare words that carry the text.
// The coordinate's own history bounds what escaped along it:
// e_jᵀ(G_t − S_tᵀS_t)e_j ≤ min(r, G_jj) (the residual is PSD, its diagonal
// at most G's). Diag adds the difference as a diagonal:
//
//	P′ = P + diag(e_j),  e_j = (G_jj + ε)^{−1/2} − r^{−1/2} where G_jj + ε < r, else 0,
//
// (nothing while r = 0, the pseudo-inverse phase), so P′ ⪰ P ≻ 0 and a
// coordinate steps by at least AdaGrad's η·g_j/√(G_jj + ε). That is a
// heuristic, not Yang et al.'s bound: P′^{−2} need not dominate G_t.
//
// The second half makes the larger steps safe whatever the number of
// features an example has: η is divided by √N, N the mean ‖x‖² of the
// examples learned (importance-weighted; an example counts from its step on), which is VW's normalized
// update's global factor (Ross, Mineiro and Langford, "Normalized online
// learning", UAI 2013). The papers' η is a length in weight space (the
// diameter of their regret bounds), and a margin βᵀx of unit size needs
// ‖β‖ ~ 1/‖x‖: on features of unit root mean square (Prescaled), ‖x‖² is
// about the number of features an example has (94 on news20, 13 on
// heart_scale). Both halves are unit-free: G_jj and ‖x‖² are in the
// units of the pre-scaled features and the gradients.
//
// Measured (docs/algorithms.md §19, one pass, -b 18): news20 test error,
// squared loss, 8.31/8.17/7.87/8.28 % → 5.92/5.83/6.37/6.37 % (FTSL,
// FTFSL, S-ADA, Fast S-ADA; AdaGrad 6.11 %), logistic 9.80/9.65/8.92/9.77
// → 6.92/6.89/6.36/6.35 % (AdaGrad 6.92 %). Either half alone is worse:
// the completion at the unnormalized η moved squared-loss news20 to
// 8.71–8.95 %, the normalized η without it to 13.3–15.4 %.
//
// The δ form takes the same completion with its growing δ_t (grow.go):
// its P steps 1/δ_t outside the sketch, so the cut is r = δ_t², e_j =
// (G_jj + ε)^{−1/2} − 1/δ_t (ε is 0 there). News20, squared loss:
// ADA-FD(M), ADA-FD(P), ADA-FFD(M), ADA-FFD(P) 12.71/8.71/7.66/8.92 % →
// 6.35/5.63/6.17/5.64 %.
//
// State: per feature seen in training G_jj and u_j (mirror descent: the
// diagonal part of β_j, β = β̄ + Zᵀb + u; dual averaging: ḡ_j, since
// β_j = −η(P′ḡ)_j needs ḡ_j beside the core's β̄·x), and N's two sums;
// saved before the split. Cost: G_jj and u_j are two more columns of the
// feature's row in the split's own table (son.Config.Aux), after the
// pre-scaler's Σx_j² and n_j, so the completion reads the rows and x̃ the
// core has looked up for the example already: no lookup of its own, and
// O(s) arithmetic per example (a square root and a division per feature
// under dual averaging's prediction). Kept at first in a table of its own,
// it cost a second slot lookup and a second random row per feature. News20's
// training set, one text pass, logistic, instructions (cachegrind) without
// the completion / its own table / folded: FTSL 1.915 / 2.134 / 2.030e9,
// S-ADA 1.417 / 1.614 / 1.505e9, FTFSL 2.899 / 2.970 / 2.866e9, Fast S-ADA
// 1.411 / 1.637 / 1.533e9 (FD-SON at m = 10 1.183e9; with the completion
// the doubled buffer's sketch sees other gradients, hence FTFSL's fewer).
// News20 ×10 as text, one pass, least of 5 alternated rounds at load
// 1.3–1.4 on 2 shared cores, CPU seconds: FTSL 1.50 / 2.09 / 1.67, S-ADA
// 1.18 / 1.62 / 1.36, FTFSL 1.44 / 2.02 / 1.64, Fast S-ADA 1.02 / 1.71 /
// 1.19 (FD-SON 0.82); peak RSS 1–3 MB above the form without it, 3–6 MB
// below the table's. The models are the same bytes as the table's: its
// rows were created by the same lookups as the split's, so Save writes
// them in the split's first-seen order.

// diagCols is the completion's columns in a feature's row of the split
// (son.Config.Aux): G_jj, then u_j.
const diagCols = 2

// diagState is the completion's state (nil without Config.Diag) beside
// the per-feature columns in the split's rows.
type diagState struct {
	// nsum and nw are Σh·‖x‖² and Σh over the examples learned.
	nsum, nw float64
}

// eta is the step size η, divided by √N under Config.Diag once an example
// has been learned.
func (a *Learner) eta() float64 {
	if g := a.dg; g != nil && g.nw > 0 {
		return a.cfg.Eta / math.Sqrt(g.nsum/g.nw)
	}
	return a.cfg.Eta
}

// diagCut is the escaped mass r and r^{−1/2}, computed once per example
// for diagExtraAt's loop instead of once per feature (the same bits).
type diagCut struct{ r, rinv float64 }

func (a *Learner) diagCut() diagCut {
	if a.cfg.Precond == Delta {
		// P steps 1/δ_t outside the sketch: the cut is r = δ_t².
		d := a.delta()
		return diagCut{d * d, 1 / d}
	}
	r := a.escapedMass()
	return diagCut{r, 1 / math.Sqrt(r)}
}

// diagExtra is e_j for a coordinate of history gjj.
func (a *Learner) diagExtra(gjj float64) float64 {
	return a.diagExtraAt(gjj, a.diagCut())
}

// diagExtraAt is diagExtra at the cut c.
func (a *Learner) diagExtraAt(gjj float64, c diagCut) float64 {
	m := gjj + a.cfg.Epsilon
	if !(c.r > 0) || !(m > 0) || m >= c.r {
		return 0
	}
	return 1/math.Sqrt(m) - c.rinv
}

// diagBegin returns the diagonal part of βᵀx for the example the split's
// Begin has looked up (x: the values the split learns on, x̃ under
// --ada_scale auto).
func (a *Learner) diagBegin() float64 {
	if a.dg == nil {
		return 0
	}
	if s, ok := a.sp.AuxDot(); ok {
		// Mirror descent on x̃: Σ u_j·x̃_j, which the split formed in
		// the pass that scaled x̃ (son.Split.AuxDot), the sum of the loop
		// below bit for bit. S-ADA on news20's training set, one text
		// pass: 0.895e9 → 0.875e9 instructions (Fast S-ADA 0.955e9 → 0.934e9).
		return s
	}
	rows, offs, x, col := a.sp.Aux()
	var s float64
	if a.cfg.Update == Mirror {
		for i, o := range offs {
			if o >= 0 {
				s += rows[o+col+1] * x[i]
			}
		}
		return s
	}
	c := a.diagCut()
	for i, o := range offs {
		if o < 0 {
			continue
		}
		if u := rows[o+col+1]; u != 0 {
			s += a.diagExtraAt(rows[o+col], c) * u * x[i]
		}
	}
	return -a.eta() * s
}

// diagEnergy counts a learned example (importance h, n = ‖x‖²) into N
// (after Begin with create). N counts it after its prediction, so that a
// prediction is the same whether it is made by Learn or, with the model
// saved, by Predict; and before the step, whose η/√N includes it.
func (a *Learner) diagEnergy(h, n float64) {
	g := a.dg
	if g == nil {
		return
	}
	if n > 0 && !math.IsInf(n, 0) {
		g.nsum += h * n
		g.nw += h
	}
}

// diagStep adds the example's sketched gradient ĝ = c·x to G_jj and takes
// its step h·ℓ′·x = gx (after the sketch's update): u_j −= η·e_j·g·x_j,
// e_j from the new G_jj, under mirror descent, ḡ_j += g·x_j under dual
// averaging. A step that would make u_j non-finite is not taken.
//
// G_jj gains ĝ_j² in the pass that steps u_j, not in a pass of its own
// before the sketch's update: nothing between reads G_jj (the core never
// reads these columns), and an example's slots are distinct
// (sparse.Example), so each G_jj is complete before it is read. S-ADA on
// news20's training set, one text pass: 0.922e9 → 0.910e9 instructions
// (FTSL 1.026e9 → 1.020e9).
func (a *Learner) diagStep(gx, c float64) {
	if a.dg == nil {
		return
	}
	rows, offs, x, col := a.sp.Aux()
	x = x[:len(offs)]
	if a.cfg.Update == Dual {
		for i, o := range offs {
			xi := x[i]
			v := c * xi
			rows[o+col] += v * v
			if u := rows[o+col+1] + gx*xi; finite(u) {
				rows[o+col+1] = u
			}
		}
		return
	}
	cut, eta := a.diagCut(), a.eta()
	for i, o := range offs {
		xi := x[i]
		v := c * xi
		gjj := rows[o+col] + v*v
		rows[o+col] = gjj
		if e := a.diagExtraAt(gjj, cut); e > 0 {
			if u := rows[o+col+1] - eta*e*gx*xi; finite(u) {
				rows[o+col+1] = u
			}
		}
	}
}

// finite is !IsInf(u, 0) && !IsNaN(u): u − u is 0 for a finite u and NaN
// for ±Inf and NaN, one subtraction and one comparison where the two
// tests moved u to an integer register and back (the step's line took 12
// of diagStep's 46 instructions per feature; S-ADA on news20's training
// set, one text pass: 0.875e9 → 0.869e9 instructions, FTSL 1.002e9 →
// 0.996e9).
func finite(u float64) bool { return u-u == 0 }

// diagWeight is the diagonal part of β_j for slot.
func (a *Learner) diagWeight(slot uint32) float64 {
	if a.dg == nil {
		return 0
	}
	row := a.sp.AuxOf(slot)
	if row == nil {
		return 0
	}
	gjj, u := row[0], row[1]
	if a.cfg.Update == Mirror {
		return u
	}
	return -a.eta() * a.diagExtra(gjj) * u
}

// saveDiag writes N's sums and, per feature in the split's first-seen
// order, G_jj and u_j (before the split): the format of the table the
// completion kept before its state moved into the split's rows, whose
// order was the split's too, so that models are the same bytes.
func (a *Learner) saveDiag(w *model.Writer) {
	g := a.dg
	w.Float64(g.nsum)
	w.Float64(g.nw)
	keys := make([]uint32, 0, a.sp.Seen())
	rows := make([]float64, 0, diagCols*a.sp.Seen())
	a.sp.AuxRows(func(slot uint32, aux []float64) {
		keys = append(keys, slot)
		rows = append(rows, aux...)
	})
	w.Uint32s(keys)
	w.Float64s(rows)
}

// savedDiag is what saveDiag wrote, read before the split it belongs to.
type savedDiag struct {
	g    *diagState
	keys []uint32
	rows []float64
}

// loadDiag reads what saveDiag wrote; install puts it into the split.
func loadDiag(r *model.Reader) (*savedDiag, error) {
	g := &diagState{}
	g.nsum, g.nw = r.Float64(), r.Float64()
	keys := r.Uint32s(nil)
	rows := r.Float64s(nil)
	if err := r.Err(); err != nil {
		return nil, err
	}
	if !(g.nsum >= 0) || !(g.nw >= 0) || math.IsInf(g.nsum, 0) || math.IsInf(g.nw, 0) {
		return nil, fmt.Errorf("%w: the completion's ‖x‖² sums %v, %v", model.ErrCorrupt, g.nsum, g.nw)
	}
	if len(rows) != diagCols*len(keys) {
		return nil, fmt.Errorf("%w: the completion's state holds %d values for %d features", model.ErrCorrupt, len(rows), len(keys))
	}
	for i := 0; i < len(rows); i += diagCols {
		if !(rows[i] >= 0) || math.IsInf(rows[i], 0) || math.IsInf(rows[i+1], 0) || math.IsNaN(rows[i+1]) {
			return nil, fmt.Errorf("%w: the completion's row %v, %v", model.ErrCorrupt, rows[i], rows[i+1])
		}
	}
	return &savedDiag{g: g, keys: keys, rows: rows}, nil
}

// install gives the loaded split its completion's columns; nil (no
// Config.Diag) installs nothing.
func (d *savedDiag) install(sp *son.Split) (*diagState, error) {
	if d == nil {
		return nil, nil
	}
	if err := sp.SetAux(d.keys, d.rows); err != nil {
		return nil, fmt.Errorf("the completion's state: %w", err)
	}
	return d.g, nil
}

// reportDiag adds the completion's line to Report.
func (a *Learner) reportDiag(w io.Writer) {
	g := a.dg
	if g == nil {
		return
	}
	var n float64
	if g.nw > 0 {
		n = g.nsum / g.nw
	}
	c := a.diagCut()
	var wider int
	a.sp.AuxRows(func(_ uint32, aux []float64) {
		if a.diagExtraAt(aux[0], c) > 0 {
			wider++
		}
	})
	out := "r^{−1/2}"
	if a.cfg.Precond == Delta {
		out = "1/δ_t"
	}
	fmt.Fprintf(w, "completion (--ada_scale auto): η/√N = %.6g with N = %.6g the mean ‖x‖²; %d of %d features step by (G_jj + ε)^{−1/2} > %s = %.6g\n",
		a.eta(), n, wider, a.sp.Seen(), out, c.rinv)
}
