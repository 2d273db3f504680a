//go:build !amd64 || purego

package linalg

func gatherCols(z, rows []float64, offs []int, xt []float64) {
	checkCols(len(z), rows, offs, xt)
	gatherColsGo(z, rows, offs, xt)
}

func scatterCols(rows []float64, offs []int, xt []float64, c float64, d []float64) {
	checkCols(len(d), rows, offs, xt)
	scatterColsGo(rows, offs, xt, c, d)
}

func prefetchCols(rows []float64, offs []int, n int) float64 { return touchCols(rows, offs, n) }
