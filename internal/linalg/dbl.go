package linalg

// checkRefreshCol panics unless RefreshCol's kernel reads and writes
// within its slices: m−1 and p below len(row) (compared unsigned, so m ≥
// 1 and p ≥ 0 too), lda ≥ p, m values of tmp, and a the map's extent.
func checkRefreshCol(row []float64, p int, a []float64, lda, m int, tmp []float64) {
	if uint(m-1) >= uint(len(row)) || uint(p) >= uint(len(row)) || lda < p || len(tmp) < m ||
		len(a) < (m-1)*lda+p {
		panic("linalg: RefreshCol: bad shape")
	}
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
