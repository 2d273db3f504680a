package linalg

// MulRows sets row i of dst (i < nr, its first w values, row stride ldd)
// to Σ_j t_ij·src_j over j = 0…r−1 ascending (t_ij = t[i*ti+j*tj]; row j
// of src at stride lds), skipping the terms whose t_ij is zero; with add,
// the sum starts from dst's row instead of zero.
//
// It is the product T·S that a caller would otherwise write as nr·r Axpy
// (or AxpyVec) calls — row cleared, then y += t_ij·src_j for j ascending,
// skipping zeros — and it gives the same bits: every output value sees the
// same products added in the same order, each product rounded before its
// sum (SSE2 MULPD then ADDPD on amd64, as gonum's axpy and, at the build's
// GOAMD64 v1, Axpy; the portable Go kernel converts the product to
// float64, which forbids FMA), and a skipped term stays skipped where that matters (src holding ±Inf or NaN:
// 0·Inf would be NaN). What changes is the memory traffic: the axpy
// sequence loads and stores each output row r times, streaming rows as
// long as package son's whole ring of deferred maps (thousands of values,
// far beyond L1); here four output rows × four columns stay in eight
// registers while j runs, and each src value loaded serves four rows.
func MulRows(dst []float64, ldd int, t []float64, ti, tj int, src []float64, lds, nr, r, w int, add bool) {
	if nr <= 0 || w <= 0 {
		return
	}
	var st mulState // once per call: Go clears it (1.7 KiB)
	st.w = w
	// No column tiles: measured on package son's ring (37×37 maps over
	// 3,760 columns), tiles of 64…256 columns that keep the source rows
	// in L1 across row blocks took 1.2–2.1× the time of whole rows (the
	// gather repeated per tile, the streams cut short).
	i := 0
	for ; i+4 <= nr; i += 4 {
		mulRowsBlock(4, dst[i*ldd:], ldd, t[i*ti:], ti, tj, src, lds, r, w, add, &st)
	}
	if i+2 <= nr {
		mulRowsBlock(2, dst[i*ldd:], ldd, t[i*ti:], ti, tj, src, lds, r, w, add, &st)
		i += 2
	}
	if i < nr {
		mulRowsBlock(1, dst[i*ldd:], ldd, t[i*ti:], ti, tj, src, lds, r, w, add, &st)
	}
}

// mulChunk is how many terms the kernel takes per call (a longer sum
// continues from the stored partial sums: the same additions in the same
// order): 24 covers the rows of Z at m = 10 (RowCap 20) in one call.
const mulChunk = 24

// mulChunkFor is the chunk for source rows lds values apart, fewer terms
// where the rows share few L1 sets. Rows a multiple of 4 KiB apart (package
// son's ring, whose stride doubles from 16·RowCap values: 2,560 values at
// m = 10, 40 KiB at τ = 20) all fall in one set of an 8-way 32 KiB L1, so
// the kernel's r source lines evicted one another between the two halves
// of each line: on such rows BenchmarkMulRows took 1.2–1.9× the time of
// rows padded by one line. A chunk whose source and destination lines fit
// the ways of their sets (8 per set) loads each line once.
func mulChunkFor(lds, rows int) int {
	if lds%8 != 0 {
		return mulChunk // lines straddle rows: sets spread
	}
	sets := 64 / gcdPow2(lds/8, 64) // distinct L1 sets the rows use
	return min(mulChunk, max(4, 8*sets-rows))
}

// gcdPow2 is gcd(a, m) for m a power of two.
func gcdPow2(a, m int) int {
	g := 1
	for g < m && a%(2*g) == 0 {
		g *= 2
	}
	return g
}

// mulRowsAxpy is the axpy sequence MulRows replaces, in its order.
func mulRowsAxpy(dst []float64, ldd int, t []float64, ti, tj int, src []float64, lds, nr, r, w int, add bool) {
	for i := 0; i < nr; i++ {
		row := dst[i*ldd : i*ldd+w]
		if !add {
			clear(row)
		}
		for j := 0; j < r; j++ {
			if v := t[i*ti+j*tj]; v != 0 {
				AxpyVec(v, src[j*lds:j*lds+w], row)
			}
		}
	}
}

// mulState is MulRows's scratch: a chunk of a row block's terms (their
// coefficients, each twice for the kernel's packed multiply, term-major,
// and their src rows' byte offsets), and whether the call's source rows
// are all finite (0 unknown, 1 yes, −1 no). It is small because Go clears
// it on every call.
type mulState struct {
	tt   [8 * mulChunk]float64
	offs [mulChunk]int
	fin  int8
	w    int // the call's columns
}

// finite reports whether src's r rows of st.w values (all the call's
// columns) are finite, computed once per call.
func (st *mulState) finite(src []float64, lds, r int) bool {
	if st.fin == 0 {
		st.fin = 1
		for j := 0; j < r; j++ {
			if !AllFinite(src[j*lds : j*lds+st.w]) {
				st.fin = -1
				break
			}
		}
	}
	return st.fin > 0
}

// mulRowsBlock is MulRows for rows = 4, 2 or 1 output rows, by the SSE2
// kernel. Terms zero in all the block's rows are dropped. The kernel adds every other term to all its rows, so a
// term zero in some rows only (an eigenvector that deflated to a unit
// vector) is added there as 0·x: the sum's bits are those of skipping it
// when it starts from zero (a sum that starts at +0 is never −0, and
// s + (±0) = s) and x is finite. Otherwise (add, or some source value
// ±Inf/NaN in the call) the block runs the axpy sequence.
func mulRowsBlock(rows int, dst []float64, ldd int, t []float64, ti, tj int, src []float64, lds, r, w int, add bool, st *mulState) {
	chunk := mulChunkFor(lds, rows)
	if add && rows > 1 && r > chunk && mulPartial(rows, t, ti, tj, r) {
		// Decided before any chunk changes dst: the axpy sequence must
		// start from dst as given.
		mulRowsAxpy(dst, ldd, t, ti, tj, src, lds, rows, r, w, add)
		return
	}
	_ = dst[(rows-1)*ldd+w-1] // every row the kernel writes
	tt, offs := &st.tt, &st.offs
	n, more := 0, add
	for j := 0; j < r; j++ {
		q := tt[8*n : 8*n+8 : 8*n+8]
		tc := t[j*tj:]
		var zeros int
		switch rows {
		case 4:
			a, b, c, d := tc[0], tc[ti], tc[2*ti], tc[3*ti]
			q[0], q[1], q[2], q[3], q[4], q[5], q[6], q[7] = a, a, b, b, c, c, d, d
			zeros = b2i(a == 0) + b2i(b == 0) + b2i(c == 0) + b2i(d == 0)
		case 2:
			a, b := tc[0], tc[ti]
			q[0], q[1], q[2], q[3] = a, a, b, b
			zeros = b2i(a == 0) + b2i(b == 0)
		default:
			a := tc[0]
			q[0], q[1] = a, a
			zeros = b2i(a == 0)
		}
		if zeros == rows {
			continue
		}
		if zeros > 0 && (add || !st.finite(src, lds, r)) {
			// Without add the sequence rewrites the rows from zero, so
			// the chunks done so far do not matter.
			mulRowsAxpy(dst, ldd, t, ti, tj, src, lds, rows, r, w, add)
			return
		}
		offs[n] = j * lds * 8
		_ = src[j*lds+w-1] // the term's row
		n++
		if n == chunk {
			mulBlock(rows, dst, ldd, tt[:8*n], offs[:n], n, src, w, more)
			n, more = 0, true
		}
	}
	if n > 0 || !more {
		mulBlock(rows, dst, ldd, tt[:8*n], offs[:n], n, src, w, more)
	}
}

// b2i is 1 for true.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// mulPartial reports whether some term is zero in some of the rows only.
func mulPartial(rows int, t []float64, ti, tj, r int) bool {
	for j := 0; j < r; j++ {
		zeros := 0
		for i := 0; i < rows; i++ {
			zeros += b2i(t[i*ti+j*tj] == 0)
		}
		if zeros > 0 && zeros < rows {
			return true
		}
	}
	return false
}

// mulBlockGo is what the assembly kernels compute: for each of the w
// columns c and each of the rows, the sum that starts from zero (or from
// dst with add) and adds tt[8k+2i]·src[offs[k]/8 + c] for the terms k in
// order.
func mulBlockGo(rows int, dst []float64, ldd int, tt []float64, offs []int, n int, src []float64, w int, add bool) {
	for c := 0; c < w; c++ {
		for i := 0; i < rows; i++ {
			var a float64
			if add {
				a = dst[i*ldd+c]
			}
			for k := 0; k < n; k++ {
				a += float64(tt[8*k+2*i] * src[offs[k]/8+c])
			}
			dst[i*ldd+c] = a
		}
	}
}
