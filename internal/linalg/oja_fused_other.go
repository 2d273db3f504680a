//go:build !amd64 || purego

package linalg

func scaleGather(z, rows []float64, offs []int, val, xt []float64, scale, lim int) (n, wx, wsq float64) {
	return scaleGatherGo(z, rows, offs, val, xt, scale, lim)
}

func rescaleGather(z, rows []float64, offs []int, val, xt []float64, dOff, lim int, d, h, d0 float64) float64 {
	return rescaleGatherGo(z, rows, offs, val, xt, dOff, lim, d, h, d0)
}

func absorbScatter(rows []float64, offs []int, xt []float64, c float64, delta []float64, pend bool, f, cb float64, lim int) (wx, sq float64) {
	return absorbScatterGo(rows, offs, xt, c, delta, pend, f, cb, lim)
}
