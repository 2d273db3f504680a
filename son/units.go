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
// ×1/255). With Config.Unit, D_j = 0.1·u_j² + Σg_j²: x̃, and everything
// computed from it (the data-derived α₀, the sketch, the step), is the
// same at any scale of any feature; where u_j = 1 (binary features, the
// constant) it is the paper's D₁, bit for bit (unless two features of an
// example share a slot: the hashing adds their values).
//
// u_j is, with Config.UnitRMS (the CLI's default, --diag_init auto), the
// root mean square of feature j's nonzero values in learned examples of
// positive weight so far, the current example's included, followed
// within a band (unitBand: u_j moves when the root mean square leaves
// about ±1.6 % of it); without it
// (--diag_init max) their largest magnitude, as VW's --normalized keeps.
// The running maximum is an outlier on raw word counts: one large count
// holds D_j far above the gradients' scale (news20, logistic, one pass:
// +0.74 to +1.01 pp test error against the paper's D₁, the root mean
// square +0.07 to +0.26). Both cost about 1–2 test examples on the small
// dense sets that come scaled to [−1, 1] (sonar, heart_scale), whose
// scale the paper's 0.1 knows from the whole set and u_j learns as the
// values arrive (docs/algorithms.md §6, with the forms rejected before:
// one scale for all features, u_j fixed at the first value).
//
// The learner runs the paper's pre-scaling on x'_j = x_j/u_j, whose D is
// 0.1 + Σg'² = D_j/u_j², with 1/u_j in one more column of the row (uOff;
// 0 until the feature's first nonzero value; under UnitRMS Σx_j² and n_j
// follow it): the kernels that update D and scale x
// (linalg.ScaleGather, linalg.RescaleGather) run unchanged, and
// x'·(0.1 + Σg'²)^{-1/2} = x·D_j^{-1/2}. When u_j moves, Σg'² is rescaled
// with it (no cancellation, unlike D_j − 0.1 = 0.1·(u_j² − 1) + Σg_j² in
// the paper's column, which loses every digit of a feature of values
// ~1e-8). Under UnitRMS u_j can fall as well as rise, so D_j is not
// monotone as in the paper; Σg'² is saturated (sat) as every saved sum.

// unitOf is 1/|x| for a nonzero x, or 1 (the paper's unit) where that is
// not a positive finite number (x infinite, NaN or subnormal).
func unitOf(x float64) float64 {
	iu := 1 / math.Abs(x)
	if !(iu > 0 && iu <= math.MaxFloat64) {
		return 1
	}
	return iu
}

// unitBand is how far UnitRMS lets the root mean square of a feature's
// values drift from the u_j in use before u_j follows it: u_j is
// refreshed when (rms/u_j)² leaves [1 − unitBand, 1 + unitBand], about
// ±1.6 % in u_j. The test is three products and two comparisons per
// occurrence, against two square roots and four divisions for a refresh
// at every occurrence, which took Oja- and FD-SON from 0.37–0.40 to
// 0.53–0.56 s wall on news20 ×10 (one pass, logistic; word counts move
// the root mean square on almost every occurrence); as a relative test
// on scale-free quantities it keeps u_j unit-free.
const unitBand = 1.0 / 32

// rmsUnit is 1/u_j = 1/√(Σx_j²/n_j) of UnitRMS from a row's sums, 0
// before the feature's first nonzero value (n_j = 0), 1 where the root
// mean square is not a positive finite number (it underflows).
func rmsUnit(sq, n float64) float64 {
	if !(n > 0) {
		return 0
	}
	return unitOf(math.Sqrt(sq / n))
}

// inBand says whether UnitRMS keeps 1/u_j = iu for a row whose sums are
// sq, n: while Σx_j²·iu² stays within n_j·(1 ± unitBand) (also before
// any value: both are 0); otherwise u_j is refreshed to rmsUnit's value
// (always at a feature's first value, iu = 0).
func inBand(iu, sq, n float64) bool {
	p := sq * iu * iu
	return p >= n*(1-unitBand) && p <= n*(1+unitBand)
}

// rescaled is Σg'² = d in the units of 1/u_j = iu moved to those of nu
// (iu ≠ 0), saturated as every saved sum.
func rescaled(d, iu, nu float64) float64 {
	r := nu / iu
	return sat(d * r * r)
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

// rmsUnitVals is unitVals under UnitRMS: each value in turn goes into its
// feature's sums (linalg.AddSquare) and u_j is refreshed against them
// (inBand). x' is as of the whole example, so that a slot repeated in
// the example is scaled as its other occurrences: formed as the loop
// goes, and formed again after it in an example where a unit moved (on
// news20 25 % of the occurrences refresh their unit in the first pass,
// 9 % in the second, 1 % in the tenth).
func (s *Learner) rmsUnitVals(val []float64, add bool) []float64 {
	rows, u := s.tab.Rows, s.uOff
	offs := s.offs
	val = val[:len(offs)]
	xu := s.xu[:0]
	moved := false
	for k, o := range offs {
		row := rows[o+u : o+u+3 : o+u+3]
		if add {
			linalg.AddSquare(row[1:], val[k])
		}
		if iu := row[0]; !inBand(iu, row[1], row[2]) {
			s.setUnit(o, iu, rmsUnit(row[1], row[2]))
			moved = true
		}
		xu = append(xu, val[k]*row[0])
	}
	if moved {
		for k, o := range offs {
			xu[k] = val[k] * rows[o+u]
		}
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
		d := rescaled(rows[o+s.dOff], iu, nu)
		rows[o+s.dOff], rows[o+s.dOff+1] = d, 1/math.Sqrt(diag0+d)
	}
	return nu
}
