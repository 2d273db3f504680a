//go:build !purego

package linalg

// refreshColAsmOn: RefreshCol runs the assembly kernel.
const refreshColAsmOn = true

// refreshColAsm is dbl_amd64.s's SSE2 kernel: refreshColGo's sums, the
// same products and additions in the same order (MULPD, then ADDPD).
//
//go:noescape
func refreshColAsm(row *float64, p int, a *float64, lda, m int, tmp *float64) int

// refreshCol calls the kernel on slices RefreshCol has checked (a may be
// empty only when p = 0, and then the kernel does not read it).
func refreshCol(row []float64, p int, a []float64, lda, m int, tmp []float64) int {
	if p == 0 {
		return refreshColGo(row, p, a, lda, m, tmp)
	}
	return refreshColAsm(&row[0], p, &a[0], lda, m, &tmp[0])
}
