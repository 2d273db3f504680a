package linalg

// GatherCols sets z[i] = Σ_k xt[k]·rows[offs[k]+i] for i < len(z): the
// product Z·x̃ of a sparse example with the columns of Z that the SON
// learners keep in their feature rows (one short column per feature, at
// offset offs[k] of the row store). Each z[i] is summed over k in order
// from zero, with a rounded product and a rounded sum per term, so the
// bits are those of the plain loop z[i] += xt[k]*rows[offs[k]+i]
// whatever the kernel: on amd64 the columns are summed two lanes at a
// time (SSE2: a lane is one i, so the order per i is unchanged), up to
// eight values of z held in registers across the example.
//
// It panics unless len(xt) ≥ len(offs) and every column lies within rows
// (0 ≤ offs[k], offs[k]+len(z) ≤ len(rows)): the kernels do not check
// bounds themselves.
func GatherCols(z, rows []float64, offs []int, xt []float64) {
	if len(offs) == 0 {
		clear(z)
		return
	}
	checkLens(len(z), rows, offs, xt)
	gatherCols(z, rows, offs, xt)
}

// ScatterCols adds (c·xt[k])·d[i] to rows[offs[k]+i] for i < len(d) and
// every k, the rank-one update Z += d·(c·x̃)ᵀ on the example's columns,
// with the bits of the plain loop rows[offs[k]+i] += c*xt[k]*d[i]. Its
// bounds are GatherCols'; the offsets must be distinct (a column is read
// and written once per block of d).
func ScatterCols(rows []float64, offs []int, xt []float64, c float64, d []float64) {
	if len(offs) == 0 {
		return
	}
	checkLens(len(d), rows, offs, xt)
	scatterCols(rows, offs, xt, c, d)
}

const (
	errColRange = "linalg: column out of range"
	errColVals  = "linalg: fewer values than columns"
)

// checkLens checks what the kernels take on trust: as many values as
// columns, and room for a column at all. The kernels check the offsets.
func checkLens(p int, rows []float64, offs []int, xt []float64) {
	if len(xt) < len(offs) {
		panic(errColVals)
	}
	if len(rows) < p {
		panic(errColRange)
	}
}

// checkCols checks every column, for the Go kernels.
func checkCols(p int, rows []float64, offs []int, xt []float64) {
	checkLens(p, rows, offs, xt)
	last := len(rows) - p
	for _, o := range offs {
		if o < 0 || o > last {
			panic(errColRange)
		}
	}
}

// gatherColsGo and scatterColsGo are the kernels' definition, in blocks
// of eight, four, two and one values of z (or d) held in registers. The
// conversions round each product before its sum, so that a compiler that
// fuses multiply-adds (GOAMD64=v3, arm64) gives the same bits as the
// assembly and as every other build.
func gatherColsGo(z, rows []float64, offs []int, xt []float64) {
	xt = xt[:len(offs)]
	p := len(z)
	i := 0
	for ; i+8 <= p; i += 8 {
		var a0, a1, a2, a3, a4, a5, a6, a7 float64
		for k, o := range offs {
			x := xt[k]
			r := rows[o+i : o+8+i : o+8+i]
			a0 += float64(x * r[0])
			a1 += float64(x * r[1])
			a2 += float64(x * r[2])
			a3 += float64(x * r[3])
			a4 += float64(x * r[4])
			a5 += float64(x * r[5])
			a6 += float64(x * r[6])
			a7 += float64(x * r[7])
		}
		z[i], z[i+1], z[i+2], z[i+3] = a0, a1, a2, a3
		z[i+4], z[i+5], z[i+6], z[i+7] = a4, a5, a6, a7
	}
	gatherTailGo(z, rows, offs, xt, i)
}

// gatherTailGo sums the last p mod 8 values of z from column i on.
func gatherTailGo(z, rows []float64, offs []int, xt []float64, i int) {
	p := len(z)
	if i+4 <= p {
		var a0, a1, a2, a3 float64
		for k, o := range offs {
			x := xt[k]
			r := rows[o+i : o+4+i : o+4+i]
			a0 += float64(x * r[0])
			a1 += float64(x * r[1])
			a2 += float64(x * r[2])
			a3 += float64(x * r[3])
		}
		z[i], z[i+1], z[i+2], z[i+3] = a0, a1, a2, a3
		i += 4
	}
	if i+2 <= p {
		var a0, a1 float64
		for k, o := range offs {
			x := xt[k]
			r := rows[o+i : o+2+i : o+2+i]
			a0 += float64(x * r[0])
			a1 += float64(x * r[1])
		}
		z[i], z[i+1] = a0, a1
		i += 2
	}
	if i < p {
		var a0 float64
		for k, o := range offs {
			a0 += float64(xt[k] * rows[o+i])
		}
		z[i] = a0
	}
}

func scatterColsGo(rows []float64, offs []int, xt []float64, c float64, delta []float64) {
	xt = xt[:len(offs)]
	p := len(delta)
	i := 0
	for ; i+8 <= p; i += 8 {
		d := delta[i : i+8 : i+8]
		d0, d1, d2, d3, d4, d5, d6, d7 := d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7]
		for k, o := range offs {
			a := c * xt[k]
			r := rows[o+i : o+8+i : o+8+i]
			r[0] += float64(a * d0)
			r[1] += float64(a * d1)
			r[2] += float64(a * d2)
			r[3] += float64(a * d3)
			r[4] += float64(a * d4)
			r[5] += float64(a * d5)
			r[6] += float64(a * d6)
			r[7] += float64(a * d7)
		}
	}
	scatterTailGo(rows, offs, xt, c, delta, i)
}

// scatterTailGo updates the last p mod 8 entries of each column from i on.
func scatterTailGo(rows []float64, offs []int, xt []float64, c float64, delta []float64, i int) {
	p := len(delta)
	for ; i+4 <= p; i += 4 {
		d0, d1, d2, d3 := delta[i], delta[i+1], delta[i+2], delta[i+3]
		for k, o := range offs {
			a := c * xt[k]
			r := rows[o+i : o+4+i : o+4+i]
			r[0] += float64(a * d0)
			r[1] += float64(a * d1)
			r[2] += float64(a * d2)
			r[3] += float64(a * d3)
		}
	}
	for ; i < p; i++ {
		d := delta[i]
		for k, o := range offs {
			rows[o+i] += float64(float64(c*xt[k]) * d)
		}
	}
}

// PrefetchCols asks for the cache lines of rows[o : o+n] for every o ≥ 0
// in offs (a negative o is skipped), so that the misses of all an example's rows are in flight at
// once before it reads them. A prefetch never waits for its line and
// never faults: on amd64 (PREFETCHT0) the processor may run ahead over
// all the rows, where loads that a sum kept alive held its window
// (reorder buffer) until their data came, a few rows at a time. Elsewhere
// it loads one value per line and returns their sum, which the caller
// keeps so that the loads stay.
func PrefetchCols(rows []float64, offs []int, n int) float64 {
	if n <= 0 {
		return 0
	}
	return prefetchCols(rows, offs, n)
}

func touchCols(rows []float64, offs []int, n int) (touch float64) {
	for _, o := range offs {
		if o < 0 || o > len(rows)-n {
			continue
		}
		row := rows[o : o+n]
		for k := 0; k < len(row); k += 8 {
			touch += row[k]
		}
		touch += row[len(row)-1] // a row can end on a line k misses
	}
	return touch
}
