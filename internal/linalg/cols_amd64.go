//go:build !purego

package linalg

// The SSE2 kernels (cols_amd64.s) take a block of n = 1, 2, …, 16 values
// of z or d at column offset i of every column, in one pass over the
// example's columns (a block per pass would reload every column's offset
// and value: at m = 10 the block of two cost half as much as the block of
// eight). They check each offset and report false at the first one out
// of range.

//go:noescape
func gather1(z, rows []float64, offs []int, xt []float64) (ok bool)

//go:noescape
func gather2(z, rows []float64, offs []int, xt []float64) (ok bool)

//go:noescape
func gather3(z, rows []float64, offs []int, xt []float64) (ok bool)

//go:noescape
func gather4(z, rows []float64, offs []int, xt []float64) (ok bool)

//go:noescape
func gather5(z, rows []float64, offs []int, xt []float64) (ok bool)

//go:noescape
func gather6(z, rows []float64, offs []int, xt []float64) (ok bool)

//go:noescape
func gather7(z, rows []float64, offs []int, xt []float64) (ok bool)

//go:noescape
func gather8(z, rows []float64, offs []int, xt []float64) (ok bool)

//go:noescape
func gather9(z, rows []float64, offs []int, xt []float64) (ok bool)

//go:noescape
func gather10(z, rows []float64, offs []int, xt []float64) (ok bool)

//go:noescape
func gather11(z, rows []float64, offs []int, xt []float64) (ok bool)

//go:noescape
func gather12(z, rows []float64, offs []int, xt []float64) (ok bool)

//go:noescape
func gather13(z, rows []float64, offs []int, xt []float64) (ok bool)

//go:noescape
func gather14(z, rows []float64, offs []int, xt []float64) (ok bool)

//go:noescape
func gather15(z, rows []float64, offs []int, xt []float64) (ok bool)

//go:noescape
func gather16(z, rows []float64, offs []int, xt []float64) (ok bool)

//go:noescape
func scatter1(rows []float64, offs []int, xt []float64, c float64, d []float64) (ok bool)

//go:noescape
func scatter2(rows []float64, offs []int, xt []float64, c float64, d []float64) (ok bool)

//go:noescape
func scatter3(rows []float64, offs []int, xt []float64, c float64, d []float64) (ok bool)

//go:noescape
func scatter4(rows []float64, offs []int, xt []float64, c float64, d []float64) (ok bool)

//go:noescape
func scatter5(rows []float64, offs []int, xt []float64, c float64, d []float64) (ok bool)

//go:noescape
func scatter6(rows []float64, offs []int, xt []float64, c float64, d []float64) (ok bool)

//go:noescape
func scatter7(rows []float64, offs []int, xt []float64, c float64, d []float64) (ok bool)

//go:noescape
func scatter8(rows []float64, offs []int, xt []float64, c float64, d []float64) (ok bool)

//go:noescape
func scatter9(rows []float64, offs []int, xt []float64, c float64, d []float64) (ok bool)

//go:noescape
func scatter10(rows []float64, offs []int, xt []float64, c float64, d []float64) (ok bool)

//go:noescape
func scatter11(rows []float64, offs []int, xt []float64, c float64, d []float64) (ok bool)

//go:noescape
func scatter12(rows []float64, offs []int, xt []float64, c float64, d []float64) (ok bool)

//go:noescape
func scatter13(rows []float64, offs []int, xt []float64, c float64, d []float64) (ok bool)

//go:noescape
func scatter14(rows []float64, offs []int, xt []float64, c float64, d []float64) (ok bool)

//go:noescape
func scatter15(rows []float64, offs []int, xt []float64, c float64, d []float64) (ok bool)

//go:noescape
func scatter16(rows []float64, offs []int, xt []float64, c float64, d []float64) (ok bool)

var (
	gathers = [...]func(z, rows []float64, offs []int, xt []float64) bool{
		gather1, gather2, gather3, gather4, gather5, gather6, gather7, gather8,
		gather9, gather10, gather11, gather12, gather13, gather14, gather15, gather16}
	scatters = [...]func(rows []float64, offs []int, xt []float64, c float64, d []float64) bool{
		scatter1, scatter2, scatter3, scatter4, scatter5, scatter6, scatter7, scatter8,
		scatter9, scatter10, scatter11, scatter12, scatter13, scatter14, scatter15, scatter16}
)

func gatherCols(z, rows []float64, offs []int, xt []float64) {
	for i := 0; i < len(z); i += 16 {
		n := min(len(z)-i, 16)
		if !gathers[n-1](z[i:i+n], rows[i:], offs, xt) {
			panic(errColRange)
		}
	}
}

func scatterCols(rows []float64, offs []int, xt []float64, c float64, d []float64) {
	for i := 0; i < len(d); i += 16 {
		n := min(len(d)-i, 16)
		if !scatters[n-1](rows[i:], offs, xt, c, d[i:i+n]) {
			panic(errColRange)
		}
	}
}

// prefetchLines prefetches, for each o in offs, the lines of the bytes
// [8o, 8o+size) from &rows[0]: every 64 bytes and the last byte.
//
//go:noescape
func prefetchLines(rows []float64, offs []int, size int)

func prefetchCols(rows []float64, offs []int, n int) float64 {
	prefetchLines(rows, offs, 8*n)
	return 0
}
