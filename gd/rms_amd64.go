//go:build !purego

package gd

// rmsScaleAsm is rms_amd64.s's kernel for rmsScale: two features a step,
// each lane's quotients and square root rounded as the scalar ones
// (DIVPD, SQRTPD), a feature without a count masked to +0. It returns ok
// false, having written part of xt, at an offset whose columns are not
// inside rows; the caller checks xt's and val's lengths.
//
//go:noescape
func rmsScaleAsm(xt, val, rows []float64, offs []int, r int) (ok bool)

func rmsScale(xt, val, rows []float64, offs []int, r int) {
	xt, val = xt[:len(offs)], val[:len(offs)]
	if len(rows) >= 2 && rmsScaleAsm(xt, val, rows, offs, r) {
		return
	}
	rmsScaleGo(xt, val, rows, offs, r) // the bounds' panic, or rows too short for any
}
