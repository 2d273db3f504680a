package linalg

import "math"

// RMSScale sets xt[i] = val[i]/√(S/n) for the example's offsets, S and n
// the sums at rows[o+r] and rows[o+r+1] (Σx_j² and the count of feature
// j's training values: pre-scaling by the root mean square, package ada's
// Prescaled and docs/algorithms.md §19), or 0 where n is 0; with dot ≠ 0
// it returns Σ_i rows[o+dot]·xt[i], added in order (0 otherwise). The
// learners that keep the sums in their own rows (son's Config.RMS, gd's
// Config.RMS) share it. On amd64 it takes two features a step
// (rms_amd64.s), bit for bit rmsScaleGo's arithmetic; an offset whose
// columns are not inside rows panics, as the Go loop does.
func RMSScale(xt, val, rows []float64, offs []int, r, dot int) float64 {
	return rmsScale(xt, val, rows, offs, r, dot)
}

// rmsScaleGo is RMSScale's arithmetic one feature at a time.
func rmsScaleGo(xt, val, rows []float64, offs []int, r, dot int) (s float64) {
	for i, o := range offs {
		row := rows[o+r : o+r+2 : o+r+2]
		x := 0.0
		if row[1] > 0 {
			x = val[i] / math.Sqrt(row[0]/row[1])
		}
		xt[i] = x
		if dot != 0 {
			s += rows[o+dot] * x
		}
	}
	return s
}

// RMSAdd adds the example's values to their features' sums at rows[o+r]
// (Σx_j²) and rows[o+r+1] (n_j), in order, by the pre-scaling's rules: a
// value whose square is 0 or overflows gives no scale, and a sum that
// would overflow stays as it is. It appends to first, and returns, the
// offsets whose count went from 0 to 1 (the order in which features got
// their first value, which the saved model keeps).
func RMSAdd(rows, val []float64, offs []int, r int, first []int) []int {
	val = val[:len(offs)]
	for i, o := range offs {
		if AddSquare(rows[o+r:o+r+2:o+r+2], val[i]) {
			first = append(first, o)
		}
	}
	return first
}

// AddSquare adds v to one feature's sums, sums[0] = Σx_j² and sums[1] =
// n_j, by RMSAdd's rules, and says whether it was the feature's first
// value. The conversions keep v² and the sum rounded apart (no fused
// multiply-add), so that every platform adds the same bits.
func AddSquare(sums []float64, v float64) (first bool) {
	q := float64(v * v)
	if !(q > 0 && q <= math.MaxFloat64) {
		return false
	}
	if sq := float64(sums[0] + q); sq <= math.MaxFloat64 {
		n := sums[1]
		sums[0], sums[1] = sq, n+1
		return n == 0
	}
	return false
}

// RMSOf is the root mean square √(Σx_j²/n_j) of one feature's sums, 0
// before its first value (n_j = 0).
func RMSOf(sq, n float64) float64 {
	if !(n > 0) {
		return 0
	}
	return math.Sqrt(sq / n)
}

// RMSScaleSeen is RMSScale for a prediction, where a feature never seen
// in training has the offset −1 and x̃ = 0.
func RMSScaleSeen(xt, val, rows []float64, offs []int, r, dot int) (s float64) {
	val, xt = val[:len(offs)], xt[:len(offs)]
	for i, o := range offs {
		x := 0.0
		if o >= 0 {
			if row := rows[o+r : o+r+2 : o+r+2]; row[1] > 0 {
				x = val[i] / math.Sqrt(row[0]/row[1])
			}
			if dot != 0 {
				s += rows[o+dot] * x
			}
		}
		xt[i] = x
	}
	return s
}
