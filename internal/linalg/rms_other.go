//go:build !amd64 || purego

package linalg

func rmsScale(xt, val, rows []float64, offs []int, r, dot int) float64 {
	return rmsScaleGo(xt[:len(offs)], val[:len(offs)], rows, offs, r, dot)
}
