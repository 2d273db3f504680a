package linalg

// FDRows is the scratch of FormRows, kept by its caller between calls:
// MulRows clears its own on every call, which on the 10×12 products of an
// FD shrink cost as much as the kernel.
type FDRows struct {
	tt   [8 * mulChunk]float64
	offs [mulChunk]int
}

// FormRows sets row i of dst (i < nr, its first w values, row stride ldd)
// to Σ_j (u_{j,col_i}·sc_i)·src_j over j = 0…r−1 ascending (u_{j,c} =
// u[j*ldu+c], col_i = cols[i]; row j of src at stride lds), skipping the
// terms whose coefficient is zero.
//
// It is MulRows with t_ij = u_{j,col_i}·sc_i rounded first, without the
// matrix t: package fd forms F_a = Λ^{−1/2}U_{:,cols}ᵀ·C so on every shrink
// (the eigenvectors' columns scaled by 1/√λ), and the coefficients go
// straight into the kernel's packed layout. The bits are MulRows's, hence
// those of one axpy per nonzero coefficient in j's order
// (TestFormRowsBits): a coefficient zero in some rows of a block only is
// added there as 0·x when src is finite (a sum that starts at +0 is never
// −0), and the block runs the axpys otherwise.
func (st *FDRows) FormRows(dst []float64, ldd int, u []float64, ldu int, cols []int, sc []float64, src []float64, lds, nr, r, w int) {
	if nr <= 0 || w <= 0 {
		return
	}
	fin := 0 // src's finiteness: 0 unknown, 1 yes, −1 no
	i := 0
	for ; i+4 <= nr; i += 4 {
		st.block(4, dst[i*ldd:], ldd, u, ldu, cols[i:i+4], sc[i:i+4], src, lds, r, w, &fin)
	}
	if i < nr && nr >= 4 {
		// The last 1–3 rows as a block of four that ends at row nr − 1,
		// rewriting rows of the block before with the same values (dst
		// is only written): one kernel call of four rows instead of one
		// of two and one of one.
		i = nr - 4
		st.block(4, dst[i*ldd:], ldd, u, ldu, cols[i:i+4], sc[i:i+4], src, lds, r, w, &fin)
		return
	}
	if i+2 <= nr {
		st.block(2, dst[i*ldd:], ldd, u, ldu, cols[i:i+2], sc[i:i+2], src, lds, r, w, &fin)
		i += 2
	}
	if i < nr {
		st.block(1, dst[i*ldd:], ldd, u, ldu, cols[i:i+1], sc[i:i+1], src, lds, r, w, &fin)
	}
}

// fill4Go writes a block of four rows' coefficients in mulBlock4's layout,
// tt[8j+2k] = tt[8j+2k+1] = u[j·ldu + cols[k]]·sc[k] for j < r, k < 4, and
// reports whether one of them is zero or NaN (for block's general path).
func fill4Go(tt, u []float64, ldu, r int, cols []int, sc []float64) (zero bool) {
	for j := 0; j < r; j++ {
		for k := 0; k < 4; k++ {
			v := u[j*ldu+cols[k]] * sc[k]
			tt[8*j+2*k], tt[8*j+2*k+1] = v, v
			zero = zero || v == 0 || v != v
		}
	}
	return zero
}

// block is FormRows for rows = 4, 2 or 1 output rows (mulRowsBlock's
// scheme, coefficients computed in place). Filling the kernel's layout one
// output row at a time instead (a zero check per block) took a third more
// instructions on news20.
func (st *FDRows) block(rows int, dst []float64, ldd int, u []float64, ldu int, cols []int, sc []float64, src []float64, lds, r, w int, fin *int) {
	_ = dst[(rows-1)*ldd+w-1] // every row the kernel writes
	chunk := mulChunkFor(lds, rows)
	tt, offs := &st.tt, &st.offs
	n, more := 0, false
	// The rows' columns and scales, and U's row by offset: loads and bounds
	// checks out of the per-term loop (the coefficients' set-up had cost
	// as much as the kernel's products).
	c0, s0 := cols[0], sc[0]
	c1, s1, c2, s2, c3, s3 := c0, s0, c0, s0, c0, s0
	if rows >= 2 {
		c1, s1 = cols[1], sc[1]
	}
	if rows == 4 {
		c2, s2, c3, s3 = cols[2], sc[2], cols[3], sc[3]
	}
	cmax := max(c0, c1, c2, c3)
	if cmax >= ldu || min(c0, c1, c2, c3) < 0 {
		panic("linalg: FormRows column out of range")
	}
	if r > 0 {
		_ = u[(r-1)*ldu+cmax]
	}
	// Four rows and no zero coefficient (the common case): the
	// coefficients by fill4 (assembly on amd64: the compiler spilled
	// the loop below's live values), then one kernel call.
	if rows == 4 && r > 0 && r <= chunk {
		_ = src[(r-1)*lds+w-1] // every term's row
		if !fill4(tt[:8*r], u, ldu, r, cols[:4], sc[:4]) {
			o := offs[:r]
			for j := range o {
				o[j] = j * lds * 8
			}
			mulBlock(rows, dst, ldd, tt[:8*r], o, r, src, w, false)
			return
		}
	}
	for j, uo := 0, 0; j < r; j, uo = j+1, uo+ldu {
		q := tt[8*n : 8*n+8 : 8*n+8]
		var zeros int
		switch rows {
		case 4:
			a, b, c, d := u[uo+c0]*s0, u[uo+c1]*s1, u[uo+c2]*s2, u[uo+c3]*s3
			q[0], q[1], q[2], q[3], q[4], q[5], q[6], q[7] = a, a, b, b, c, c, d, d
			if a == 0 || b == 0 || c == 0 || d == 0 {
				zeros = b2i(a == 0) + b2i(b == 0) + b2i(c == 0) + b2i(d == 0)
			}
		case 2:
			a, b := u[uo+c0]*s0, u[uo+c1]*s1
			q[0], q[1], q[2], q[3] = a, a, b, b
			if a == 0 || b == 0 {
				zeros = b2i(a == 0) + b2i(b == 0)
			}
		default:
			a := u[uo+c0] * s0
			q[0], q[1] = a, a
			zeros = b2i(a == 0)
		}
		if zeros == rows {
			continue
		}
		if zeros > 0 && !finiteRows(src, lds, r, w, fin) {
			formRowsAxpy(rows, dst, ldd, u, ldu, cols, sc, src, lds, r, w)
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

// finiteRows reports whether src's r rows of w values are finite, computed
// once per FormRows call (fin caches it).
func finiteRows(src []float64, lds, r, w int, fin *int) bool {
	if *fin == 0 {
		*fin = 1
		for j := 0; j < r; j++ {
			if !AllFinite(src[j*lds : j*lds+w]) {
				*fin = -1
				break
			}
		}
	}
	return *fin > 0
}

// formRowsAxpy is the axpy sequence FormRows replaces, for rows output
// rows.
func formRowsAxpy(rows int, dst []float64, ldd int, u []float64, ldu int, cols []int, sc []float64, src []float64, lds, r, w int) {
	for i := 0; i < rows; i++ {
		row := dst[i*ldd : i*ldd+w]
		clear(row)
		for j := 0; j < r; j++ {
			if v := u[j*ldu+cols[i]] * sc[i]; v != 0 {
				AxpyVec(v, src[j*lds:j*lds+w], row)
			}
		}
	}
}
