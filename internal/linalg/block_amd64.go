//go:build !purego

package linalg

// mulBlock4, mulBlock2 and mulBlock1 are block_amd64.s's SSE2 kernels for
// four, two and one rows: mulBlockGo's sums, the same products and additions in the same
// order (MULPD, then ADDPD).
//
//go:noescape
func mulBlock4(dst *float64, ldd int, tt *float64, offs *int, n int, src *float64, w int, add bool)

//go:noescape
func mulBlock2(dst *float64, ldd int, tt *float64, offs *int, n int, src *float64, w int, add bool)

//go:noescape
func mulBlock1(dst *float64, ldd int, tt *float64, offs *int, n int, src *float64, w int, add bool)

// mulBlock calls the kernel for rows (4, 2 or 1) on slices that the caller
// has checked to hold every value it reads or writes (mulRowsBlock does).
func mulBlock(rows int, dst []float64, ldd int, tt []float64, offs []int, n int, src []float64, w int, add bool) {
	switch {
	case n == 0 || w == 0:
		mulBlockGo(rows, dst, ldd, tt, offs, n, src, w, add)
	case rows == 4:
		mulBlock4(&dst[0], ldd, &tt[0], &offs[0], n, &src[0], w, add)
	case rows == 2:
		mulBlock2(&dst[0], ldd, &tt[0], &offs[0], n, &src[0], w, add)
	default:
		mulBlock1(&dst[0], ldd, &tt[0], &offs[0], n, &src[0], w, add)
	}
}
