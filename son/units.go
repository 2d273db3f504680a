package son

import (
	"math"

	"github.com/sparseson/sparseson/internal/linalg"
)

// Why D₁ has units (Config.Unit): the pre-scaling D = 0.1·I + diag(Σ g gᵀ)
// of Luo et al. (NIPS 2016), §5.2 adds a constant to a sum in the units of
// g², that is of x_j². Features ×1/255 shrink Σg² by 255² while 0.1 stays,
// so x̃ = D^{-1/2}x stays far below its unit-free value for thousands of
// examples (full ONS on splice: 89.3 % test accuracy at ×1, 79.6 % at
// ×1/255). With Config.Unit, D_j = 0.1·u_j² + Σg_j², u_j the largest |x_j|
// seen so far (VW's --normalized keeps the same per-feature maximum): x̃,
// and everything computed from it (the data-derived α₀, the sketch, the
// step), is the same at any scale of any feature; where the features'
// largest magnitude is 1 (binary features, the constant, sets scaled to
// [0, 1] or [−1, 1], on which the paper's 0.1 was chosen) it is the
// paper's D₁, on binary features bit for bit (unless two features of an
// example share a slot: the hashing adds their values).
//
// Measured before it (one-pass test error on the 11 shared binary sets,
// five SON defaults, logistic and squared, against D₁ = 0.1·I): one c for
// all features, the mean x_k² of the first example, is not unit-free (VW's
// constant keeps the value 1 and dominates it at ×1/255: Oja-SON on splice
// 92.62 / 92.15 % at ×1 / ×1/255); the largest x_k² of the first example
// without the constant leaves the constant's D₁ in the data's units and
// had 0.38–2.63 pp more mean test error; u_j fixed at
// feature j's first nonzero value is unit-free but one value is a noisy
// scale (near zero it takes D₁ to nothing): up to 1.45 pp more mean test
// error, on sonar, breast_cancer, heart_scale and ionosphere. The running
// maximum had 0.13–1.33 pp more (news20 logistic +0.7 to +1.0 pp): the
// paper's 0.1 suits data whose largest magnitude is about 1, which is why
// Config.Unit is the CLI's --diag_init auto, not its default.
//
// The learner runs the paper's pre-scaling on x'_j = x_j/u_j, whose D is
// 0.1 + Σg'² = D_j/u_j², with 1/u_j in one more column of the row (uOff;
// 0 until the feature's first nonzero value): the kernels that update D
// and scale x (linalg.ScaleGather, linalg.RescaleGather) run unchanged,
// and x'·(0.1 + Σg'²)^{-1/2} = x·D_j^{-1/2}. When u_j grows, Σg'² is
// rescaled with it (no cancellation, unlike D_j − 0.1 = 0.1·(u_j² − 1) +
// Σg_j² in the paper's column, which loses every digit of a feature of
// values ~1e-8).

// unitOf is 1/|x| for a nonzero x, or 1 (the paper's unit) where that is
// not a positive finite number (x infinite, NaN or subnormal).
func unitOf(x float64) float64 {
	iu := 1 / math.Abs(x)
	if !(iu > 0 && iu <= math.MaxFloat64) {
		return 1
	}
	return iu
}

// rmsUnit is 1/u_j = 1/√(Σx_j²/n_j) of UnitRMS from a row's sums, 0
// before the feature's first nonzero value (n_j = 0), 1 where the root
// mean square is not a positive finite number (it underflows).
func rmsUnit(sq, n float64) float64 {
	if !(n > 0) {
		return 0
	}
	return unitOf(math.Sqrt(sq / n))
}

// unitVals sets x'_k = x_k/u_j for the example's rows (offs, all
// created), moving u_j first (units.go: the largest |x_j| so far, or with
// UnitRMS the root mean square of the values so far, this example's
// added to the sums first when add), and returns x'.
func (s *Learner) unitVals(val []float64, add bool) []float64 {
	if s.cfg.UnitRMS {
		return s.rmsUnitVals(val, add)
	}
	rows, u := s.tab.Rows, s.uOff
	xu := s.xu[:0]
	for k, o := range s.offs {
		x := val[k]
		iu := rows[o+u]
		if a := x * iu; (a > 1 || a < -1 || iu == 0 && x != 0) && unitOf(x) != iu {
			iu = s.setUnit(o, iu, unitOf(x))
		}
		xu = append(xu, x*iu)
	}
	s.xu = xu
	return xu
}

// rmsUnitVals is unitVals under UnitRMS: the sums take every value of
// the example (linalg.RMSAdd's rules, those of package ada's pre-scaling)
// before any x' is formed, so that a slot repeated in the example is
// scaled as its other occurrences.
func (s *Learner) rmsUnitVals(val []float64, add bool) []float64 {
	rows, u := s.tab.Rows, s.uOff
	val = val[:len(s.offs)]
	if add {
		s.first = linalg.RMSAdd(rows, val, s.offs, u+1, s.first[:0])
	}
	xu := s.xu[:0]
	for k, o := range s.offs {
		iu := rows[o+u]
		if nu := rmsUnit(rows[o+u+1], rows[o+u+2]); nu != iu {
			iu = s.setUnit(o, iu, nu)
		}
		xu = append(xu, val[k]*iu)
	}
	s.xu = xu
	return xu
}

// setUnit sets row o's 1/u_j from iu to nu (from 0 at the first value:
// Σg'² is then 0), rescaling Σg'² = Σg_j²/u_j² and the scale
// 1/√(0.1 + Σg'²) with it, and returns nu.
func (s *Learner) setUnit(o int, iu, nu float64) float64 {
	rows := s.tab.Rows
	rows[o+s.uOff] = nu
	if iu != 0 {
		r := nu / iu
		d := sat(rows[o+s.dOff] * r * r)
		rows[o+s.dOff], rows[o+s.dOff+1] = d, 1/math.Sqrt(diag0+d)
	}
	return nu
}
