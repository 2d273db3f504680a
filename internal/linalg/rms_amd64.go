//go:build !purego

package linalg

// rmsScaleAsm is rms_amd64.s's kernel for rmsScale, with the dot
// product's column k after the sums' (0: none): two features a step,
// each lane's quotients and square root rounded as the scalar ones
// (DIVPD, SQRTPD), a feature without a count masked to +0, the products
// added one feature at a time, in order. It returns ok false, having
// written part of xt, at an offset whose columns are not inside rows;
// the caller checks xt's and val's lengths.
//
//go:noescape
func rmsScaleAsm(xt, val, rows []float64, offs []int, r, k int) (s float64, ok bool)

func rmsScale(xt, val, rows []float64, offs []int, r, dot int) float64 {
	xt, val = xt[:len(offs)], val[:len(offs)]
	k := 0
	if dot != 0 {
		k = dot - r
		if k < 2 {
			panic("linalg: RMSScale's dot column overlaps the sums")
		}
	}
	if len(rows) >= 2 {
		if s, ok := rmsScaleAsm(xt, val, rows, offs, r, k); ok {
			return s
		}
	}
	return rmsScaleGo(xt, val, rows, offs, r, dot) // the bounds' panic, or rows too short for any
}
