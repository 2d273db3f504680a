package ada

import (
	"fmt"
	"math"

	"github.com/sparseson/sparseson/internal/linalg"
	"github.com/sparseson/sparseson/model"
)

// # FTSL-Shampoo's per-coordinate completion (ShampooConfig.Diag)
//
// Both factors of Yang et al. (ICML 2025), Alg. 5, carry one global scale
// that sparse text gets wrong:
//
//   - outside the right sketch's span R^{−1/4} is r_R^{−1/4}, r_R = ε + ρR_{1:t},
//     and ρR grows with every example. A word seen n_j times has its own
//     history R_jj = Σ h‖a‖²x_j² ≈ n_j‖a‖², and (R_jj + ε)^{−1/4} would be its
//     factor. Measured on 20-class news20 (one pass, pre-scaled features):
//     after 32 examples every feature seen has R_jj + ε < r_R, and at the
//     end (r_R = 2.4·10⁴) the ratio (R_jj + ε)^{−1/4}/r_R^{−1/4} has median
//     10.6 and 90th percentile 12.4 — rare words step ten times less than
//     their own history says;
//   - L = Σ h‖x‖²aaᵀ grows with all examples: its largest eigenvalue is
//     7.1·10⁴ after one pass, so L^{−1/4} shrinks every weight, roughly like t^{−1/4}.
//
// The remedy, as for the FD-adaptive learners' completion (diag.go):
//
//	R^{−1/4} → R^{−1/4} + diag(e_j),  e_j = (R_jj + ε)^{−1/4} − r_R^{−1/4} where R_jj + ε < r_R, else 0,
//
// R_jj kept exactly per feature: FD's residual Σ GᵀG − R̂R̂ᵀ is PSD with
// its diagonal at most R_jj, so min(ρR, R_jj) bounds what escaped along
// e_j, and e_j ≥ 0 makes the completed factor ⪰ R^{−1/4}: a feature steps
// at least by its own history's quarter power. Its share of the scores is
// −η·L^{−1/4}·Σ_j e_j·x_j·Ḡ_{:,j}, O(K·s) over the Ḡ columns the example
// reads anyway. And the left factor is taken per example, L/T with T = Σh,
// with η divided by √N, N = Σh‖x‖²/T the mean ‖x‖² (VW's normalized
// update's factor, as the FD-adaptive learners' η/√N): the scores are
// multiplied by T^{1/4}/√N. T^{1/4} takes out the factor L's growth puts
// on every weight; and with every feature multiplied by one k the scores
// stay the same up to ε (L/T and R ∝ k², Ḡ and x ∝ k, so L^{−1/4}·Ḡ·R^{−1/4}·x ∝ k,
// and √N ∝ k), where the paper form's scores are ∝ k. On pre-scaled features N is about
// the number of features an example has (140 on news20, 9 on abalone3),
// and √(140/9) ≈ 4 is the ratio of the two sets' best η for the
// completion alone (1 and 4), with the normalization both are best at
// η 1–1.4. Measured, one pass, test error % at the best η of a grid
// (docs/algorithms.md §20; softmax AdaGrad 21.40 on 20-class news20,
// 44.29 on abalone3, the paper's form 26.46 and 39.45): the completion
// alone 20.74 (η 1) and 39.45 (η 4), with the normalization 20.62 (η 1.4)
// and 39.35 (η 1), so one η serves both; the normalization without the
// completion 26.65 at best on news20. It is a heuristic, not Yang et
// al.'s bound: with P′ the completed factor, P′^{−4} need not dominate
// Σ GᵀG.
//
// State: R_jj per feature seen (a float64 beside its K entries of Ḡ) and
// Σh‖x‖²; saved after Ḡ. Models without the option have neither.

// growDiag extends R_jj to the features seen (new ones at 0), geometrically
// as Ḡ.
func (m *Shampoo) growDiag() {
	need := m.sp.Seen()
	if len(m.rjj) >= need {
		return
	}
	if cap(m.rjj) < need {
		g := make([]float64, need, max(need, 2*cap(m.rjj)))
		copy(g, m.rjj)
		m.rjj = g
		return
	}
	m.rjj = m.rjj[:need]
}

// eta is the scores' factor: η, times T^{1/4}/√N = T^{3/4}/√(Σh‖x‖²) under
// Diag once an example with features has been learned.
func (m *Shampoo) eta() float64 {
	if !m.cfg.Diag || !(m.t > 0) || !(m.nsum > 0) {
		return m.cfg.Eta
	}
	return m.cfg.Eta * math.Sqrt(math.Sqrt(m.t)) * math.Sqrt(m.t/m.nsum)
}

// diagExtra is e_j of row r at r_R^{−1/4} = cr (0 without Diag).
func (m *Shampoo) diagExtra(r int, cr float64) float64 {
	if !m.cfg.Diag {
		return 0
	}
	return completion(m.rjj[r]+m.cfg.Epsilon, m.sk.SumRho()+m.cfg.Epsilon, cr)
}

// completion is e_j for R_jj + ε = g, r_R = rr, cr = r_R^{−1/4}.
func completion(g, rr, cr float64) float64 {
	if !(g < rr) {
		return 0
	}
	return 1/math.Sqrt(math.Sqrt(g)) - cr
}

// diagScore adds Σ_j e_j·x_j·Ḡ_{:,j} over the example's features to tk
// (cr = r_R^{−1/4}).
func (m *Shampoo) diagScore(tk, x []float64, cr float64) {
	k, eps := m.k, m.cfg.Epsilon
	rr := m.sk.SumRho() + eps
	for i, r := range m.rows {
		if r < 0 {
			continue
		}
		if e := completion(m.rjj[r]+eps, rr, cr); e != 0 {
			linalg.Axpy(e*x[i], m.gbar[r*k:r*k+k], tk)
		}
	}
}

// diagLearn counts a learned example (importance h, n = ‖x‖²,
// na = ‖p − e_y‖²) into Σh‖x‖² and R_jj, after its prediction.
func (m *Shampoo) diagLearn(x []float64, h, n, na float64) {
	if n > 0 && !math.IsInf(n, 0) {
		m.nsum += h * n
	}
	c := h * na
	for i, r := range m.rows {
		m.rjj[r] += c * x[i] * x[i]
	}
}

// saveDiag writes the completion's state (nothing without Diag).
func (m *Shampoo) saveDiag(w *model.Writer) {
	if m.cfg.Diag {
		w.Float64(m.nsum)
		w.Float64s(m.rjj[:m.sp.Seen()])
	}
}

// loadShampooDiag reads what saveDiag wrote (checkDiag checks it once the split
// is loaded).
func loadShampooDiag(r *model.Reader, cfg ShampooConfig) (nsum float64, rjj []float64) {
	if cfg.Diag {
		nsum = r.Float64()
		rjj = r.Float64s(nil)
	}
	return nsum, rjj
}

// diagBelow counts the features whose R_jj + ε is below r_R (--sketch_report).
func (m *Shampoo) diagBelow() int {
	rr := m.sk.SumRho() + m.cfg.Epsilon
	n := 0
	for _, v := range m.rjj {
		if v+m.cfg.Epsilon < rr {
			n++
		}
	}
	return n
}

// checkDiag refuses a completion state that does not fit the split's
// features or is out of range.
func (m *Shampoo) checkDiag(seen int) error {
	if !m.cfg.Diag {
		return nil
	}
	if len(m.rjj) != seen {
		return fmt.Errorf("%w: FTSL-Shampoo's R_jj has %d entries for %d features", model.ErrCorrupt, len(m.rjj), seen)
	}
	if !(m.nsum >= 0) || math.IsInf(m.nsum, 0) {
		return fmt.Errorf("%w: FTSL-Shampoo's Σh‖x‖² out of range", model.ErrCorrupt)
	}
	for _, v := range m.rjj {
		if !(v >= 0) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: FTSL-Shampoo's R_jj out of range", model.ErrCorrupt)
		}
	}
	return nil
}
