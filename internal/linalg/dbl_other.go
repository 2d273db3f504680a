//go:build !amd64 || purego

package linalg

// refreshColAsmOn: RefreshCol runs the assembly kernel.
const refreshColAsmOn = false

// RefreshCol is one refresh of the deferred-step ring, in Go where there
// is no assembly kernel (dbl_amd64.go documents it).
func RefreshCol(row []float64, p int, a []float64, lda, m int, tmp []float64) int {
	checkRefreshCol(row, p, a, lda, m, tmp)
	return refreshColGo(row, p, a, lda, m, tmp)
}
