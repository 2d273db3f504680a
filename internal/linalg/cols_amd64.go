package linalg

// The SSE2 kernels (cols_amd64.s) take a block of n = 2, 4, …, 16 values
// of z or d at column offset i of every column, in one pass over the
// example's columns (a block per pass would reload every column's offset
// and value: at m = 10 the block of two cost half as much as the block of
// eight). They check each offset and report false at the first one out
// of range.

//go:noescape
func gather2(z, rows []float64, offs []int, xt []float64) (ok bool)

//go:noescape
func gather4(z, rows []float64, offs []int, xt []float64) (ok bool)

//go:noescape
func gather6(z, rows []float64, offs []int, xt []float64) (ok bool)

//go:noescape
func gather8(z, rows []float64, offs []int, xt []float64) (ok bool)

//go:noescape
func gather10(z, rows []float64, offs []int, xt []float64) (ok bool)

//go:noescape
func gather12(z, rows []float64, offs []int, xt []float64) (ok bool)

//go:noescape
func gather14(z, rows []float64, offs []int, xt []float64) (ok bool)

//go:noescape
func gather16(z, rows []float64, offs []int, xt []float64) (ok bool)

//go:noescape
func scatter2(rows []float64, offs []int, xt []float64, c float64, d []float64) (ok bool)

//go:noescape
func scatter4(rows []float64, offs []int, xt []float64, c float64, d []float64) (ok bool)

//go:noescape
func scatter6(rows []float64, offs []int, xt []float64, c float64, d []float64) (ok bool)

//go:noescape
func scatter8(rows []float64, offs []int, xt []float64, c float64, d []float64) (ok bool)

//go:noescape
func scatter10(rows []float64, offs []int, xt []float64, c float64, d []float64) (ok bool)

//go:noescape
func scatter12(rows []float64, offs []int, xt []float64, c float64, d []float64) (ok bool)

//go:noescape
func scatter14(rows []float64, offs []int, xt []float64, c float64, d []float64) (ok bool)

//go:noescape
func scatter16(rows []float64, offs []int, xt []float64, c float64, d []float64) (ok bool)

var (
	gathers  = [...]func(z, rows []float64, offs []int, xt []float64) bool{gather2, gather4, gather6, gather8, gather10, gather12, gather14, gather16}
	scatters = [...]func(rows []float64, offs []int, xt []float64, c float64, d []float64) bool{scatter2, scatter4, scatter6, scatter8, scatter10, scatter12, scatter14, scatter16}
)

func gatherCols(z, rows []float64, offs []int, xt []float64) {
	p := len(z)
	for i := 0; i < p; {
		n := min(p-i, 16)
		if n == 1 {
			checkCols(1, rows[i:], offs, xt)
			gatherTailGo(z, rows, offs, xt[:len(offs)], i)
			return
		}
		n &^= 1
		if !gathers[n/2-1](z[i:i+n], rows[i:], offs, xt) {
			panic(errColRange)
		}
		i += n
	}
}

func scatterCols(rows []float64, offs []int, xt []float64, c float64, d []float64) {
	p := len(d)
	for i := 0; i < p; {
		n := min(p-i, 16)
		if n == 1 {
			checkCols(1, rows[i:], offs, xt)
			scatterTailGo(rows, offs, xt[:len(offs)], c, d, i)
			return
		}
		n &^= 1
		if !scatters[n/2-1](rows[i:], offs, xt, c, d[i:i+n]) {
			panic(errColRange)
		}
		i += n
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
