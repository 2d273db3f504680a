package son

import (
	"math"

	"github.com/sparseson/sparseson/internal/linalg"
)

// The scaled-space sketch: SON with diagonal pre-scaling done so that the
// sketch keeps its second-order gain (issue #10; docs/algorithms.md
// §13).
//
// Luo et al. (NIPS 2016), §5.2, run SON on x̃ = D_t^{-1/2}x with D_t = 0.1 + Σ_{s≤t} g_s∘g_s
// and sketches ĝ_t = √(σ+η_t)·g̃_t, g̃_t = ℓ'_t·x̃_t. Each ĝ_s is taken in the
// coordinates of its own round, and D grows about linearly with s, so
// ‖ĝ_s‖² falls like s^{−3/2} (η_s ∝ s^{−1/2} times ‖x̃_s‖² ∝ 1/s): the sum
// Σĝĝᵀ converges, its first few dozen terms hold most of it, and the
// sketch's "Newton" directions are the early examples' (measured on seed
// 004 §5.1: adding the sketch doubled the error of m = 0 at κ = 10). The
// matrix SON should be inverting in the pre-scaled space is instead the
// current one,
//
//	C_t = D_t^{-1/2} (Σ_{s≤t} g_s g_sᵀ) D_t^{-1/2},
//
// whose diagonal is ≈ 1 whatever the features' scales. Raw full ONS steps
// with A = Σ g gᵀ; in pre-scaled coordinates that is A = C_t, so this form
// is ONS in the pre-scaled space with the sketch holding C_t's top
// directions. Four changes make it so, each O(1) or O(p²) per example:
//
//  1. Sum form. ĝ_t = √(h_t·W_t)·g̃_t with W_t = Σ_{s≤t} h_s. If the
//     features' scales are stationary, D_t ≈ (W_t/W_s)·D_s, so
//     W_s·g̃_s g̃_sᵀ ≈ W_t·D_t^{-1/2}g_s g_sᵀD_t^{-1/2} and Σ_s ĝ_sĝ_sᵀ ≈ W_t·C_t:
//     the sketch estimates C_t in units of W (a rare feature's old
//     occurrences count for less than C_t gives them; see α₀'s prior). The
//     sketch is used with α_sk = W_t·α₀ and every step is multiplied by
//     W_t, which is A = α₀I + SᵀS/W_t exactly; no sketch row is touched.
//  2. α₀ from the data: the isotropic completion of the sketch, ρ_t ≈ the
//     mean eigenvalue of C outside it, (Σ‖ĝ‖² − Σ sketch eigenvalues) /
//     (W·(d − r)) over the d features seen, r the sketch's rank — on seed
//     004 §5.1 it follows the small eigenvalue (≈ 0.08 at κ = 200, ≈ 0.6
//     at κ = 10), which is what makes the step κ-invariant — plus a ridge
//     Prior·(d/W_t)², d/W the features seen per example. Where the
//     examples far outnumber the features it vanishes (Luo et al. (NIPS 2016), §5.1:
//     0.25 at W = 100, 2.5e-5 at the end), and where the features
//     outnumber the examples it dominates (news20: 88k words, 11k
//     documents, 15 at the end of a pass): a ridge that grows with the
//     model's freedom relative to its evidence. A ridge linear in d/W
//     (a fixed ¼ per feature) had to stay at 1.95 on news20 to keep §5.1
//     within a point of plain SON, and news20 then reached 93.6% (94.6%
//     now) and 20-class news20 with --oaa 22.8% error (19.4% now, against
//     AdaGrad's 20.5%); on the other shared sets the two are within a
//     point of each other (docs/algorithms.md §14).
//
//     A shard (Total = K > 1, --total; docs/scaling.md) sees one K-th of the stream, and its examples are one K-th
//     of the evidence the ridge should count. Write the ridge as ¼·(s̄/n̄)²,
//     s̄ = Σ nonzeros / W the features per example and n̄ = Σ nonzeros / d
//     the occurrences per feature seen: d/W = s̄/n̄. For each feature the
//     shard has seen, K times its occurrences in the shard is an unbiased
//     estimate of its occurrences in the stream at the same point, so the
//     shard estimates the stream's n̄ over the features it fits as K·n̄_shard
//     and uses ¼·(d/(K·W))², its own d over the stream's W: the ridge a
//     stream learner with this d would have after K·W examples (each shard
//     is then regularised as the whole stream's model is, the
//     divide-and-conquer rule: under-regularise locally, average the parts
//     — sparseson merge does so for parts trained with --total). Started
//     from a merged model (-i, a later round of parameter mixing), only
//     what the shard sees itself is one K-th: W is counted as
//     W_before + K·W_own (evidence), W_own the weight seen since the model
//     was created or merged. ρ is a ratio of the sketch's energy to its W
//     (the pre-scaled curvature's diagonal is ≈ 1 in a shard as in the
//     stream) and needs no change, nor do D, the step and the sketch,
//     which a shard keeps in its own units (its A is about 1/K of the
//     stream's, as its objective is). Measured (docs/algorithms.md §14): news20, 4 shards,
//     one-shot merge, Oja 93.36 → 94.38% and FD 93.32 → 94.41% against one
//     stream's 94.60 and 94.41%; with the stream's exact d at K·W instead
//     (an oracle, in a throw-away build), 94.05 and 94.01%.
//  3. The step uses the sketch before this example (A_{t−1}) with the
//     current gradient added exactly, as ONS's A_t = A_{t−1} + ĝĝᵀ: since
//     g ∥ ĝ, Sherman–Morrison gives A_t⁻¹g = A_{t−1}⁻¹g/(1 + ĝᵀA_{t−1}⁻¹ĝ), a
//     scalar damping that is large exactly for examples the model has not
//     seen the like of. Stepping after an Oja update instead let Oja's
//     rotation toward ĝ_t correlate the preconditioner with the gradient
//     it preconditions, and on splice the bias direction drifted until
//     every prediction was −5 (sparse = dense to 1e-13, so not rounding;
//     an exact eigen-sketch of the same matrix did not drift).
//  4. A step rate (Rate, default 5): in the pre-scaled space the weights
//     w̃ are stored scaled, so every growth of D shrinks the raw weights
//     D^{-1/2}w̃ — a decay of about 1/(2t) per round that an ONS step of
//     size 1/t must also undo. Rate 5 keeps that bias near 10% (1/(2·5·1 +
//     1)); Luo et al. (NIPS 2016), §5.1 and the shared sets agree on 4–5 (docs/algorithms.md §14).
//
// Cost: O(p²) for ρ, the Sherman–Morrison scalar and the sketch's α (RP
// refactors its m×m matrix, O(m³)); nothing per feature beyond the paper's.

// DefaultRate is the step multiplier of the scaled-space form.
const DefaultRate = 5

// Prior scales the scaled-space ridge: α₀ ≥ Prior·(d/W)².
const Prior = 0.25

// learnScaled is the rest of a round in the scaled-space form, after the
// prediction and the update of D: α, the step, then the sketch.
//
// wsq is Σ_{j∈I} w̄_j² as w̄_I stands (−1 if not known), for trialBound.
func (s *Learner) learnScaled(h, d, n float64, z []float64, oldsq, wsq float64) {
	wPrev := s.w
	s.w += h
	if s.cfg.Total > 1 {
		s.wOwn += h
	}
	s.c = math.Sqrt(h*s.w) * d
	s.setAlpha(wPrev)
	p := len(z)
	s.st.C, s.st.N, s.st.Z, s.st.W, s.st.Seen = s.c, n, z, s.w, s.tab.Len()
	// The sketch's α: α_sk, plus RFD's own growth for a robust sketch.
	if a := s.sk.Alpha(); a > 0 {
		mz := s.mz[:p]
		if p > 0 {
			s.sk.MulM(mz, z)
		}
		// q = ĝᵀA_{t−1}⁻¹ĝ = c²·x̃ᵀ(I − ZᵀMZ)x̃/α ≥ 0.
		q := math.Max(0, s.c*s.c*(n-linalg.Dot(z, mz))/a)
		f := s.cfg.Rate * s.w * h * d / (a * (1 + q))
		if s.trialBound(f, f, mz, wsq, n) {
			s.deferStep(f, z, f, mz)
		} else {
			s.rejected++
		}
	}
	s.sk.Update(&s.st, s)
	s.settle()
	s.sumG2 = min(s.sumG2+s.c*s.c*n, math.MaxFloat64) // saturated: saved with the model
	// The sketch's absorb changed w̄_I after the step: re-measure (O(s)).
	s.guard(oldsq, -1)
}

// setAlpha computes this round's α₀ and gives the sketch α_sk = W_t·α₀.
// ρ uses the sums up to the previous round (wPrev = W_{t−1}).
func (s *Learner) setAlpha(wPrev float64) {
	a0 := s.cfg.Alpha0
	if a0 == 0 {
		d := float64(s.tab.Len())
		// ρ is 0 while nothing has been sketched, and when the sketch spans
		// every feature seen (rank ≥ d): there is no complement to complete,
		// and what the sketch holds only partly (RP's weak directions) is
		// inside its span already.
		var rho float64
		if free := d - float64(s.sk.Rank()); wPrev > 0 && free > 0 {
			rho = math.Max(0, (s.sumG2-s.sk.Captured())/(wPrev*free))
		}
		we := s.evidence()
		a0 = rho + Prior*(d/we)*(d/we)
		if !(a0 <= maxAlpha) {
			// A tiny W (importance weights of 1e-300) overflows the
			// ridge; α₀ is saved with the model, so it must stay finite.
			a0 = maxAlpha
		}
	}
	s.alpha0 = a0
	s.alphaSk = s.w * a0
	if !(s.alphaSk <= maxAlpha) {
		s.alphaSk = maxAlpha
	}
	s.sk.SetAlpha(s.alphaSk)
}

// evidence is the stream's importance weight at the point where this
// learner is: W, plus (Total − 1)·W_own for a shard.
func (s *Learner) evidence() float64 {
	if s.cfg.Total <= 1 {
		return s.w
	}
	return s.w + float64(s.cfg.Total-1)*s.wOwn
}

// maxAlpha keeps α_sk finite whatever W and the data (1e300 examples of
// weight 1e18 would not reach it).
const maxAlpha = 1e300

// Alpha0 is the last round's α₀ (scaled-space form; the sketch report).
func (s *Learner) Alpha0() float64 { return s.alpha0 }
