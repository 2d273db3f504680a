//go:build !purego

package linalg

// refreshColAsmOn: RefreshCol runs the assembly kernel.
const refreshColAsmOn = true

// refreshColAsm is dbl_amd64.s's SSE2 kernel: refreshColGo's sums, the
// same products and additions in the same order (MULPD, then ADDPD).
//
//go:noescape
func refreshColAsm(row *float64, p int, a *float64, lda, m int, tmp *float64) int

// RefreshCol is one refresh of the deferred-step ring (son/lazy.go): for
// the table row row = [w̄_j, c] whose column c = row[1:1+p] is stored in
// a past generation's coordinates and the map [β; M] of that generation
// (m = 1 + M's rows, row-major in a with stride lda), it trims c's
// trailing zeros to n values, forms out = [β; M]·c[:n] in tmp, and writes
// row[0] += out[0], row[1:m] = out[1:], and zeros over what remains of
// c[:n]. It returns n. With n = 0 it adds +0 to w̄_j and clears row[1:m],
// as the product of a zero column would.
//
// The product has the bits of gonum's blas Dgemv (NoTrans, α = 1, β = 0,
// unit strides; its SSE2 GemvN kernel), which the refreshes called before:
// rows in blocks of four, two, one; a row's columns summed in two lanes,
// even and odd, each ascending; the lanes added; then the last column if
// n is odd — except for the lone last row of an odd m, where that column
// joins the even lane before the lanes are added. One call does the whole
// refresh, where the call through Dgemv, its checks and the Go loops
// around it cost as much as the product (news20, ADA-FFD: 740
// instructions per refresh of a 10-row map, 417 of them in GemvN).
func RefreshCol(row []float64, p int, a []float64, lda, m int, tmp []float64) int {
	checkRefreshCol(row, p, a, lda, m, tmp)
	ap := &row[0] // a is empty only for m = 1, p = 0: the kernel reads none
	if len(a) > 0 {
		ap = &a[0]
	}
	return refreshColAsm(&row[0], p, ap, lda, m, &tmp[0])
}
