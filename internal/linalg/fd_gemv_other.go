//go:build !amd64 || purego || noasm || safe

package linalg

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

func fdGemvN(m, n int, a []float64, lda int, x, y []float64) {
	gonum.Implementation{}.Dgemv(blas.NoTrans, m, n, 1, a, lda, x, 1, 0, y, 1)
}
