//go:build !amd64 || purego

package son

func rmsScale(xt, val, rows []float64, offs []int, r int) { rmsScaleGo(xt, val, rows, offs, r) }
