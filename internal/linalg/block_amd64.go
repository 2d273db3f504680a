//go:build !purego

package linalg

// mulBlock4 and mulBlock2 are block_amd64.s's SSE2 kernels for four and
// two rows: mulBlockGo's sums, the same products and additions in the same
// order (MULPD, then ADDPD).
//
//go:noescape
func mulBlock4(dst *float64, ldd int, tt *float64, offs *int, n int, src *float64, w int, add bool)

//go:noescape
func mulBlock2(dst *float64, ldd int, tt *float64, offs *int, n int, src *float64, w int, add bool)

// mulBlock calls the kernel for rows (4 or 2) on slices that the caller
// has checked to hold every value it reads or writes (mulRowsBlock does).
func mulBlock(rows int, dst []float64, ldd int, tt []float64, offs []int, n int, src []float64, w int, add bool) {
	switch {
	case n == 0 || w == 0:
		mulBlockGo(rows, dst, ldd, tt, offs, n, src, w, add)
	case rows == 4:
		mulBlock4(&dst[0], ldd, &tt[0], &offs[0], n, &src[0], w, add)
	default:
		mulBlock2(&dst[0], ldd, &tt[0], &offs[0], n, &src[0], w, add)
	}
}
