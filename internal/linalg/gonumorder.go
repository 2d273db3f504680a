//go:build amd64 && !noasm && !gccgo && !safe

package linalg

// Go copies of gonum's amd64 assembly kernels (gonum.org/v1/gonum
// v0.17.0, internal/asm/f64) that sum in the kernels' exact order, so
// that a caller may leave gonum without changing a model's bits. The
// build (GOAMD64=v1) fuses no multiply-adds, so each product and sum
// rounds as the SSE2 instructions do. The build tags are gonum's: where
// gonum uses its Go fallback, gonumorder_other.go copies that.
// TestGonumOrderBits checks every copy against gonum's own routine.
//
// They spare gonum's call, argument checks and set-up, but as scalar code
// they take about 4 instructions per product against the packed
// kernels' 2.5 (dot) and 2.2 (the matrix–vector product), so on FD's
// vectors of 8–14 values and refreshes of about 100 products they cost
// more than they save. On news20 (m = 10, logistic, three cached passes,
// valgrind --tool=cachegrind), with models byte-identical either way:
// GonumDot in place of floats.Dot in the absorb's least-norm solve took
// 20e6 more instructions (5.097e9 → 5.117e9), and GonumGemv in place of
// Dgemv in package son's stale-row refreshes (about 100 products each)
// 250e6 more (4.968e9 → 5.218e9). The hot paths therefore keep gonum;
// these are for code that sums short vectors where a call would dominate.

// GonumDot is gonum's floats.Dot (f64.DotUnitary; b may be longer than
// a): four partial sums for i mod 4 over the blocks of four, the 1–3
// trailing products added to the first, then (s1 + s3) + (s0 + s2).
func GonumDot(a, b []float64) float64 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i < len(a)-3; i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return (s1 + s3) + (s0 + s2)
}

// GonumGemv sets y = A·x for the m×n row-major A (stride lda), with the
// bits of gonum's Dgemv(blas.NoTrans, m, n, 1, a, lda, x, 1, 0, y, 1)
// (f64.GemvN): each row sums its even and odd columns in two lanes over
// the pairs of columns, and adds an odd n's last product after the lanes
// (rows in blocks of four and two) or, for the last row of an odd m, to
// the even lane before them. y must not overlap x.
func GonumGemv(m, n int, a []float64, lda int, x, y []float64) {
	if m == 0 || n == 0 {
		return
	}
	x = x[:n]
	y = y[:m]
	ev := n &^ 1
	xe := x[:ev] // the column pairs; bounds the loops' indices
	i := 0
	// Four rows at a time, as the kernel does, so that each pair of x is
	// loaded once for four rows.
	for ; i+4 <= m; i += 4 {
		r0 := a[i*lda : i*lda+n]
		r1 := a[(i+1)*lda : (i+1)*lda+n]
		r2 := a[(i+2)*lda : (i+2)*lda+n]
		r3 := a[(i+3)*lda : (i+3)*lda+n]
		var e0, o0, e1, o1, e2, o2, e3, o3 float64
		r0, r1, r2, r3 = r0[:len(xe)], r1[:len(xe)], r2[:len(xe)], r3[:len(xe)]
		for j := 1; j < len(xe); j += 2 {
			u, v := xe[j-1], xe[j]
			e0 += r0[j-1] * u
			o0 += r0[j] * v
			e1 += r1[j-1] * u
			o1 += r1[j] * v
			e2 += r2[j-1] * u
			o2 += r2[j] * v
			e3 += r3[j-1] * u
			o3 += r3[j] * v
		}
		s0, s1, s2, s3 := e0+o0, e1+o1, e2+o2, e3+o3
		if ev < n {
			xl, l := x[ev], i*lda+ev
			s0 += a[l] * xl
			s1 += a[l+lda] * xl
			s2 += a[l+2*lda] * xl
			s3 += a[l+3*lda] * xl
		}
		y[i], y[i+1], y[i+2], y[i+3] = s0, s1, s2, s3
	}
	for ; i < m; i++ {
		row := a[i*lda : i*lda+n]
		var e, o float64
		row = row[:len(xe)]
		for j := 1; j < len(xe); j += 2 {
			e += row[j-1] * xe[j-1]
			o += row[j] * xe[j]
		}
		switch {
		case ev == n:
			y[i] = e + o
		case i == m-1 && m&1 == 1:
			y[i] = (e + a[i*lda+ev]*x[ev]) + o
		default:
			y[i] = (e + o) + a[i*lda+ev]*x[ev]
		}
	}
}
