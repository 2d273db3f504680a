package fd

// # The gated FD (Config.Gate = ε > 0)
//
// Exact FD in the factored form S = C·Z must append a row to Z whenever
// the shrunk directions cannot be written in Z's rows within the row band
// and θ (Counts.AbsorbBand, AbsorbIllCond, AbsorbInfeasible), and every
// append leads to a compaction — work on every feature Z's rows cover. On
// sparse text the directions that force it are the weakest: on news20
// (m = 10, logistic) their shrunk eigenvalues E′ are 5 %, 1.2 % and 0.02 %
// of α. The gate drops such a direction instead: when the absorb is
// refused, the kept direction that leans most on ĝ — the largest |f_i|,
// f_i = U_{q,i}/√λ_i being ĝ's coefficient in the new right singular
// vector v_i = F_ext[i]·[Z; ĝᵀ] — among those with E′_i < ε·α is removed
// from the shrunk sketch, and the absorb is tried again; Z gains a row only
// when no such direction is left. The choice depends only on [S; ĝᵀ]
// (λ_i, and f_i² = (ĝ·v_i)²/λ_i²), not on the representation; whether it
// is consulted does (a refused absorb), so the dense reference
// (internal/dense.FD.Gate) is told how often it was.
//
// What a drop costs, following the proof of Theorem 3 of Luo, Agarwal,
// Cesa-Bianchi and Langford, "Efficient Second Order Online Learning by
// Sketching", NIPS 2016 (FD-SON), with the Frequent Directions bound of
// Ghashami, Liberty, Phillips and Woodruff, "Frequent Directions: Simple
// and Deterministic Matrix Sketching", SIAM J. Comput. 45(5), 2016
// (Theorem 1.1's argument). Write Ŝ_t = [S_{t−1}; ĝ_tᵀ] and
// S_tᵀS_t = Ŝ_tᵀŜ_t − Δ_t − D_t, where Δ_t = Σ_i min(λ_i, ρ_t)v_iv_iᵀ is
// FD's shrinkage (PSD, ⪯ ρ_t·I, trace ≥ m·ρ_t) and D_t = Σ_dropped E′_i
// v_iv_iᵀ the drops (PSD, orthogonal to S_t's rows, since the v_i are
// orthonormal). Hence, with G the stacked ĝ,
//
//   - 0 ⪯ GᵀG − S_TᵀS_T = Σ_t(Δ_t + D_t) ⪯ (Σρ_t + ‖Σ_t D_t‖₂)·I: the
//     sketch still under-approximates the gradients' Gram matrix;
//   - Σρ_t ≤ Ω_k/(m − k) for every k < m, Ω_k = ‖G − G_k‖_F², as for
//     exact FD: ‖S_T‖_F² = ‖G‖_F² − Σtr Δ_t − Σtr D_t ≤ ‖G‖_F² − mΣρ_t −
//     Σtr D_t, while for the top-k right singular vectors V_k of G,
//     ‖S_TV_k‖_F² ≥ ‖G_k‖_F² − kΣρ_t − Σtr D_t; the drops' trace cancels;
//   - in the regret, ĝ_tᵀA_t⁻¹ĝ_t = ⟨A_t⁻¹, A_t − A_{t−1}⟩ + ⟨A_t⁻¹, Δ_t⟩ +
//     ⟨A_t⁻¹, D_t⟩, A_t = α_tI + S_tᵀS_t: the first terms sum to the
//     log-determinant term and to Σ m·ρ_t/α_t as in Theorem 3, and since a
//     dropped v_i is orthogonal to S_t, A_t⁻¹v_i = v_i/α_t and the last is
//     Σ_dropped E′_i/α_t < ε per drop. The bound of Theorem 3 gains at most
//     (1/(2(σ + η_T)))·Σ_t Σ_dropped E′_i/α_t ≤ ε·(drops)/(2(σ + η_T)).
//
// --sketch_report prints that sum beside Σ m·ρ_t/α_t, so that a user sees
// what the approximation cost against what FD's own shrinkage costs. The
// package tests check all three statements on the sparse sketch, and the
// sketch against the dense reference (gate_test.go).
//
// Where it pays: a compaction costs O(p·q·d_seen), so on data with few
// features (the small shared sets: 8…300 features against a row cap of 20)
// appending is cheap and the gate would lose accuracy for nothing; it acts
// once the features seen reach GateRows times the row cap (Config.GateFrom).

import "github.com/sparseson/sparseson/sparse"

// GateRows is the default switch of the gate: it acts once the features
// seen reach GateRows times exact FD's default row cap 2m (see above).
const GateRows = 50

// gatedRowCap is the row cap of Z while the gate acts (and, for the
// models that store it, the storage: GatedRowCap). With appends rare, Z's
// rows creep up to the cap between compactions, and every example pays
// for them in Z·x̃, the pre-scaling and the absorb, while a compaction
// comes once per (cap − q) appends and makes every row stale. At ε = 0.3
// four rows of headroom paid best (news20, 3 passes from the cache, m =
// 10: 5.97e9 instructions against 6.37e9 at 2m and 5.99e9 at m + 2, whose
// 28.1 row refreshes per example were the cost); at ε = 2, ten times
// fewer appends, two rows do: 3.17e9 at m + 4, 3.20e9 at m + 3, 3.02e9 at
// m + 2, 3.16e9 at m + 1 (its compactions' refreshes again), and at m =
// 20 5.69e9 → 5.14e9 (m + 4 → m + 2; Oja-SON 2.28e9 and 3.62e9).
func gatedRowCap(m int) int { return min(2*m, m+2) }

// gatedCap is the row cap while the gate acts: gatedRowCap for SON's
// gate (E′ < ε·α), and the m + 4 it had before for a host that sets its
// own limit (SetGateLimit: package ada's FTSL and S-ADA, whose models and
// accuracy were measured with it).
func (s *Sketch) gatedCap() int {
	if s.gateLimit != nil {
		return min(2*s.m, s.m+4)
	}
	return gatedRowCap(s.m)
}

// GatedRowCap is the row cap (Config.RowCap) for a gated sketch of size
// m that is the storage too: the SON core gives every feature a row of
// 1 + RowCap values (w̄_j, Z's column, then the pre-scaling), so the
// default 2m leaves m − 4 of them unused while the gate acts, and the
// rows the example reads span more cache lines. Before the gate acts
// (Config.GateFrom) the sketch is exact FD with this cap: the same
// sketch in exact arithmetic, compacted more often. News20, m = 10, 3
// cached passes, cap m + 4 (valgrind --tool=cachegrind --cache-sim=yes,
// a 4 MiB last level): data misses 63.3M → 58.9M, last-level 5.40M →
// 4.56M.
func GatedRowCap(m int) int { return gatedRowCap(m) }

// gateLean is the least share U_{q,i}² of ĝ in a direction the gate may
// drop: far above the rounding (≈1e-32) of a direction that does not
// contain ĝ at all, so that the dense reference, whose such shares are
// rounding rather than exact zeros, makes the same choices.
const gateLean = 1e-12

// DefaultGate is --fd_gate's default ε, that of the per-step FD-adaptive
// learners (FTSL, S-ADA; package ada), whose limit is ε·r.
const DefaultGate = 0.3

// SONGate is the default ε of FD-SON and RFD-SON (--fd, --rfd without
// --fd_gate): drops of directions with E′ < 2α. On news20 (m = 10,
// logistic, 3 passes from the cache) ε = 0.3 left 1.1 % of the examples
// to append and 23.4 row refreshes per update; ε = 1 took them to 0.24 %
// and 11.5, ε = 2 to 0.11 % and 5.5 (3.85e9 → 3.50e9 → 3.28e9 instructions
// beside Oja-SON's 2.28e9; m = 20: 8.23e9 → 7.07e9 → 6.20e9 beside 3.62e9).
// The test error and log loss after 1 and 3 passes stayed within 0.1 pp
// and 0.2 % of exact FD at every ε from 0.3 to 4, and the drops replace
// FD's own shrinkage rather than add to it: Σ(m·ρ + E′)/α fell from 1,181
// (exact) to 1,108, 1,086 and 1,058. The per-step learners keep 0.3: their
// accuracy was measured there (docs/algorithms.md §7).
const SONGate = 2

// # Small gradients
//
// With the gate acting, most shrinks on news20 end by dropping the very
// direction the gradient brought in (0.91 drops per update at ε = 2, 3
// passes): the whole shrink — the arrowhead eigensolver, F_a, the absorb's
// solve — was paid to leave the sketch nearly as it was. A ĝ with
// ‖ĝ‖² < κ·ε·α (Config.Skip = κ) is therefore kept out of the sketch
// before any of that: S_t = S_{t−1}. The argument is the drop's: ĝĝᵀ is
// positive semidefinite, so the sketch still under-approximates
// (0 ⪯ GᵀG − SᵀS ⪯ (Σρ + ‖ΣD‖₂ + Σ‖ĝ_skipped‖²)·I, TestGateBounds), FD's
// Σρ ≤ Ω_k/(m − k) is untouched (fewer shrinks), and the regret term it
// adds is ĝᵀA_t⁻¹ĝ ≤ ‖ĝ‖²/α_t < κ·ε per skip, summed in Σ‖ĝ‖²/α beside
// Σ E′/α (--sketch_report). The dense reference skips the same gradients
// (dense.FD.Skip; TestGateOpenLoop). At κ = SONSkip most gradients of
// logistic text are below the limit once the model fits, and the mass
// they carry is what the drops would have removed anyway: news20, m = 10,
// 3 passes from the cache, 93 % of the updates skip, Σ(m·ρ + E′ +
// ‖ĝ‖²)/α = 1,058.6 against 1,058.2 without skips (exact FD: 1,181), the
// test error identical (5.50 %) and the log loss 0.167966 → 0.167941; one
// pass 0.207966 → 0.207974. The limit applies where the host leaves it to
// the sketch (FD-SON, RFD-SON); package ada's learners have their own.

// SONSkip is κ of FD-SON's and RFD-SON's skips (Config.Skip) at their
// gated default: ‖ĝ‖² < κ·ε·α = α/10 at ε = 2, a gradient whose ĝĝᵀ would
// move αI + SᵀS by less than 10 % along any direction. On news20 (m = 10,
// logistic, 3 passes from the cache) κ = 0.01, 0.05, 0.1 and 0.25 skipped
// 73, 93, 98 and 99.5 % of the updates, all with the same test error and
// log loss within 0.02 % of no skips; 0.05 is well inside that range.
const SONSkip = 0.05

// skip reports whether the gate keeps ĝ (‖ĝ‖² = kap) out of the sketch
// ("Small gradients" above), and counts it.
func (s *Sketch) skip(st *sparse.Step, kap float64) bool {
	if s.cfg.Skip == 0 || s.gateLimit != nil || st.Seen < s.gateFrom || !(kap < s.cfg.Skip*s.cfg.Gate*s.alpha) {
		return false
	}
	s.skips++
	s.sumSkipA += kap / s.alpha
	return true
}

// SkipSums returns how many ĝ the gate kept out of the sketch and Σ‖ĝ‖²/α_t
// over them (Config.Skip).
func (s *Sketch) SkipSums() (skips int64, skipA float64) { return s.skips, s.sumSkipA }

// gateDrop removes from the shrunk rows (eNew, fa, fext; keep of them) the
// one that leans most on ĝ among those with E′ < ε·α, and reports whether
// there was one. The drop is pending until the shrink commits (a
// compaction recomputes the shrink).
func (s *Sketch) gateDrop(keep int) (int, bool) {
	// α_t of A_t = α_tI + S_tᵀS_t: RFD's grows in this shrink (commit).
	rho, alpha := s.gateRho, s.alpha
	if s.cfg.Robust {
		alpha += rho / 2 / s.wcur
	}
	lim := s.cfg.Gate * alpha
	if s.gateLimit != nil {
		lim = s.gateLimit()
	}
	bi, best := -1, 0.0
	for i := 0; i < keep; i++ {
		// f_i² = U_{q,i}²/λ_i; a direction with a negligible share of ĝ
		// (U_{q,i}² ≤ gateLean) is not what blocks the absorb.
		f := s.fext[i] * s.fext[i]
		if s.eNew[i] < lim && f > best && f*(s.eNew[i]+rho) > gateLean {
			bi, best = i, f
		}
	}
	if bi < 0 {
		return keep, false
	}
	s.pendDrops++
	s.pendDropA += s.eNew[bi] / alpha
	if s.faDone {
		fs := s.pmax + 1
		copy(s.fa[bi*fs:(keep-1)*fs], s.fa[(bi+1)*fs:keep*fs])
	}
	copy(s.cols[bi:keep-1], s.cols[bi+1:keep])
	copy(s.finv[bi:keep-1], s.finv[bi+1:keep])
	copy(s.fext[bi:keep-1], s.fext[bi+1:keep])
	copy(s.eNew[bi:keep-1], s.eNew[bi+1:keep])
	return keep - 1, true
}

// GateSums returns Σ m·ρ_t/α_t over the shrinks with α_t > 0 and
// Σ E′/α_t over the dropped directions (see the comment above).
func (s *Sketch) GateSums() (rhoA, dropA float64) { return s.sumRhoA, s.sumDropA }

// SetGateLimit makes the gate drop directions with E′ < limit() instead of
// E′ < ε·α, for a host whose preconditioner is not SON's αI + SᵀS (package
// ada's FD-adaptive learners, whose sketch's α is a placeholder; there
// Σ E′/α of GateSums is Σ E′ with α = 1). limit is called once per try, so
// it may follow the host's state; nil restores ε·α. It is not saved: the
// host sets it again when it loads a sketch.
func (s *Sketch) SetGateLimit(limit func() float64) { s.gateLimit = limit }
