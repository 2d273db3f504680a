package linalg

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
	if m < 1 || p < 0 || lda < p || m > len(row) || p >= len(row) || len(tmp) < m ||
		(p > 0 && len(a) < (m-1)*lda+p) {
		panic("linalg: RefreshCol: bad shape")
	}
	return refreshCol(row, p, a, lda, m, tmp)
}

// refreshColGo is RefreshCol in Go: the lanes' sums as the kernel forms
// them (the float64 conversions keep the compiler from fusing a product
// with its sum).
func refreshColGo(row []float64, p int, a []float64, lda, m int, tmp []float64) int {
	c := row[1 : 1+p]
	n := p
	for n > 0 && c[n-1] == 0 {
		n--
	}
	if n == 0 {
		row[0] += 0
		clear(row[1:m])
		return 0
	}
	even := n &^ 1
	for i := 0; i < m; i++ {
		ai := a[i*lda : i*lda+n]
		var e, o float64
		for j := 0; j < even; j += 2 {
			e += float64(ai[j] * c[j])
			o += float64(ai[j+1] * c[j+1])
		}
		lone := m&1 == 1 && i == m-1
		if n&1 == 1 && lone {
			e += float64(ai[n-1] * c[n-1])
		}
		s := e + o
		if n&1 == 1 && !lone {
			s += float64(ai[n-1] * c[n-1])
		}
		tmp[i] = s
	}
	row[0] += tmp[0]
	copy(row[1:m], tmp[1:m])
	if n >= m {
		clear(row[m : 1+n])
	}
	return n
}
