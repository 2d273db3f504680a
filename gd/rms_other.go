//go:build !amd64 || purego

package gd

func rmsScale(xt, val, rows []float64, offs []int, r int) {
	rmsScaleGo(xt[:len(offs)], val[:len(offs)], rows, offs, r)
}
