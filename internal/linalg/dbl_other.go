//go:build !amd64 || purego

package linalg

// refreshColAsmOn: RefreshCol runs the assembly kernel.
const refreshColAsmOn = false

// refreshCol is refreshColGo where there is no assembly kernel.
func refreshCol(row []float64, p int, a []float64, lda, m int, tmp []float64) int {
	return refreshColGo(row, p, a, lda, m, tmp)
}
