//go:build !purego

package linalg

// fill4asm is fd_rows_amd64.s's kernel of fill4Go.
//
//go:noescape
func fill4asm(tt *float64, u *float64, ldu, r int, cols *int, sc *float64) (zero bool)

// fill4 is fill4Go by the assembly kernel (r ≥ 1; the caller has checked
// every index, as fill4Go's slices would).
func fill4(tt, u []float64, ldu, r int, cols []int, sc []float64) bool {
	return fill4asm(&tt[0], &u[0], ldu, r, &cols[0], &sc[0])
}
