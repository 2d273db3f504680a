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
		v := val[i]
		q := float64(v * v)
		if !(q > 0 && q <= math.MaxFloat64) {
			continue
		}
		j := o + r
		if sq := float64(rows[j] + q); sq <= math.MaxFloat64 {
			n := rows[j+1]
			if n == 0 {
				first = append(first, o)
			}
			rows[j], rows[j+1] = sq, n+1
		}
	}
	return first
}
