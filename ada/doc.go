// Package ada holds the FD-adaptive learners: AdaGrad's full-matrix
// preconditioner built from a Frequent Directions sketch of the raw
// gradients, in the sparse split form of docs/algorithms.md §7 — one engine
// (Learner) and a table of configurations (Named):
//
//   - ADA-FD and ADA-FFD: Yuanyu Wan, Lijun Zhang, "Efficient Adaptive
//     Online Learning via Frequent Directions", IEEE TPAMI 2022:
//     H_t = δI + (S_tᵀS_t)^{1/2} under dual averaging (Alg. 1, Eq. 7; Alg. 3
//     with the doubled buffer) or composite mirror descent (Alg. 2, Eq. 8;
//     Alg. 4);
//   - FTSL and FTFSL: Sifan Yang, Yuanyu Wan, Peijia Li, Yibo Wang, Xiao
//     Zhang, Zhewei Wei, Lijun Zhang, "Dimension-Free Adaptive Subgradient
//     Methods with Frequent Directions", ICML 2025 (Alg. 2): the same
//     sketch with its escaped mass added back, G̃_t = ρ_{1:t}I + S_tᵀS_t, under dual averaging,
//     β_{t+1} = −η·G̃_t^{−1/2}ḡ_t (the pseudo-inverse while ρ_{1:t} = 0;
//     Config.Epsilon adds an optional ε to ρ);
//   - S-ADA and Fast S-ADA: the mirror-descent form Yang et al. (ICML
//     2025) compare against (Feinberg, Chen, Sun, Anil, Hazan, "Sketchy", NeurIPS 2023):
//     x_{t+1} = x_t − η(ρ_{1:t}I + B_tB_tᵀ)^{−1/2}g_t.
//
// # Three choices
//
// A learner is a Precond (δ form or escaped-mass form), an Update (mirror
// descent or dual averaging) and a Buffer (the per-step FD shrink of Wan &
// Zhang (TPAMI 2022), Alg. 1/2, or the doubled buffer of Alg. 3/4). Writing the
// preconditioner as P_t = c·I + Vᵀdiag(φ)V over the sketch's right
// singular vectors V with eigenvalues λ (docs/algorithms.md §7):
//
//	δ form:       c = 1/δ,      φ = 1/(δ + √λ) − 1/δ,
//	escaped form: c = r^{−1/2}, φ = (λ + r)^{−1/2} − r^{−1/2},  r = ρ_{1:t} + ε,
//	              c = 0,        φ = λ^{−1/2}                      (r = 0).
//
// With Config.Grow the δ form's δ is δ_t = δ + √r_t (grow.go), and with
// Config.Diag either form adds a per-coordinate diagonal to P (diag.go):
// the CLI's defaults on pre-scaled features.
//
// # Units of the features
//
// At the papers' constants none of these learners is invariant to the
// units of the features: η is a length in weight space and δ, ε are in the
// units of the gradients. Prescaled (prescale.go) runs any of them on
// x_j/s_j, s_j the root mean square of feature j's values so far, which
// makes the constants unit-free; the CLI's default (--ada_scale auto).
//
// # Defaults, and where they trail AdaGrad
//
// τ = 20 and δ = 1 (mirror descent) or 10 (dual averaging) are Wan &
// Zhang's (TPAMI 2022), §5.1 (the CLI defaults every learner to τ = 10
// under --ada_scale auto, as accurate on the shared sets at about half
// the time, and ADA-FD, ADA-FFD and Fast S-ADA at --ada_scale paper too:
// learners.ADASmallTau); ε = 0 is Yang et al.'s (ICML 2025), kept
// for S-ADA and for every learner at --ada_scale paper, while FTSL and
// FTFSL on pre-scaled features default to ε = 1 (learners.ADADefaultEpsilon:
// dual averaging's pseudo-inverse phase); η is ½ (¼ for the δ form at
// --ada_scale paper; the CLI's, package learners), divided by √N under
// the completion. Measured on pre-scaled features (docs/algorithms.md §19,
// "The defaults"), no single η serves the escaped form everywhere: where
// the data span fewer than τ directions ρ_{1:t} stays 0 and the
// pseudo-inverse wants a small η, while on sparse text ρ_{1:t}I — a bound
// on the mass FD discarded, added to every direction — makes each rare
// feature's step η·g_j/√ρ_{1:t}, far below AdaGrad's η·g_j/√(Σ g_j²),
// and wants a large one. A relative floor κ·λ₁ on ρ_{1:t} (unit-free)
// fixed the first at a cost to the mean accuracy over the shared sets;
// the absolute ε = 1 on pre-scaled features fixes it for the two
// dual-averaging learners at a smaller cost (docs/algorithms.md §19).
//
// # Sparse form
//
// The sketch is package fd's (sparse.Sketch, the raw gradient ĝ = ℓ′·x,
// τ = m rows, ρ_t = λ_τ its SumRho); the weights live in the SON core's
// split table (son.Split), β = β̄ + Zᵀb, and Vᵀdiag(φ)V = Zᵀ·Q·Z with
// the p×p Q of fd.Sketch.MulSpectral. Mirror descent takes the step
// β̄_I −= η·c·g_I, b −= η·ℓ′·Q·(Z_t x): O(s + p²). Dual averaging keeps
// ḡ = Σg in β̄ (O(s) per example) and y = Z·ḡ through every change of Z
// (the core's Z·β̄, maintained by absorb, append and compaction), and
// predicts βᵀx = −η(c·ḡ·x + (Zx)ᵀQy), O(ps + p²). No step visits the
// features seen; the sketch's compactions are deferred by the core.
//
// The per-step learners (ADA-FD, FTSL, S-ADA) cost FD-SON's per-example
// work at m = τ plus O(pq), and the pre-scaling's square root and
// division per feature (Prescaled; its sums sit in the split's rows). On
// sparse text exact FD's appends and the compactions they bring dominate
// (news20 at τ = 20: an append on 14 % of the examples, 55 stale rows
// refreshed per example). The gated sketch (Config.Gate, gate.go), which
// the CLI turns on for FTSL and S-ADA (--fd_gate), drops the weak
// direction instead and brings them to FD-SON's (m = 10) instruction
// count on news20 (0.91× and 0.98×, from 3.9× and 3.7× exact). ADA-FD's
// directions are rarely weak enough to drop under the δ form's limit, but
// its gate keeps every gradient with ‖ĝ‖² below that limit out of the
// sketch (gate.go, "Small gradients"), which on logistic text is nearly
// all of them once the model fits; the CLI gates it at ε = 2: 1.24×
// FD-SON's instructions on one pass of news20, from 1.90× exact, where
// the shrink and the refreshes of the rows its appends left stale were
// most of the cost. S-ADA may skip small gradients too (Config.Skip,
// their mass added to r; the CLI's default). The doubled buffer (ADA-FFD, FTFSL, Fast S-ADA) has no
// O(τ² + τs) form on
// sparse data: every gradient outside the sketch's span is a new row of
// Z, so Z fills every few examples and is compacted — deferred by the
// core, O(τ) per feature seen when it recurs, O(τ·d_seen) amortized — and
// each new row is folded into the diagonal factor by the shrink's
// arrowhead solver, O(τ²·p) (fd.Config.RankBuffer). Its Z row cap is 2τ
// (DoubledRowCap, Config.RowCap), not fd's 3τ: the compactions come
// about as often either way, and each costs less. It is the slower of
// the two here, the reverse of Wan & Zhang's (TPAMI 2022) dense-data finding (ADA-FFD
// faster than ADA-FD, whose SVD costs O(τ²d) there).
package ada
