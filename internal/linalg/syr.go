package linalg

// SyrUpperSegments adds v vᵀ to the upper triangle of the n×n row-major a
// (n = len(v)) where v is zero outside the segments [lo[s], hi[s]) (in
// increasing order, not overlapping): only the blocks of a between
// non-zero segments are visited, so a vector with a few short segments
// costs their squared length, not n². The sums are SyrUpper's to the
// bit: the products it skips are exact zeros, and adding a zero leaves a
// sum as it was. A merge of K sketches stacks K·m rows per feature, and a
// rare feature lives in one or two of the K (son's merge, pass 1).
func SyrUpperSegments(a, v []float64, lo, hi []int) {
	n := len(v)
	for s := range lo {
		for i := lo[s]; i < hi[s]; i++ {
			vi := v[i]
			if vi == 0 {
				continue
			}
			row := a[i*n : i*n+n]
			for j := i; j < hi[s]; j++ {
				row[j] += vi * v[j]
			}
			for t := s + 1; t < len(lo); t++ {
				for j := lo[t]; j < hi[t]; j++ {
					row[j] += vi * v[j]
				}
			}
		}
	}
}

// SyrUpper4 adds v0v0ᵀ + v1v1ᵀ + v2v2ᵀ + v3v3ᵀ to the upper triangle of
// the n×n row-major a (n = len(v0) = … = len(v3)): four SyrUpper calls in
// that order, to the bit, with a's rows read and written once instead of
// four times. A Gram matrix of a few hundred rows summed over a million
// columns is bound by those reads and writes, not by the products. Each
// entry's terms are added in the order of the vectors, and a vector's
// zero entry skips its term as SyrUpper does.
func SyrUpper4(a, v0, v1, v2, v3 []float64) {
	n := len(v0)
	v1, v2, v3 = v1[:n], v2[:n], v3[:n]
	for i := 0; i < n; i++ {
		x0, x1, x2, x3 := v0[i], v1[i], v2[i], v3[i]
		row := a[i*n+i : i*n+n]
		u0, u1, u2, u3 := v0[i:], v1[i:], v2[i:], v3[i:]
		u0, u1, u2, u3 = u0[:len(row)], u1[:len(row)], u2[:len(row)], u3[:len(row)]
		if x0 != 0 && x1 != 0 && x2 != 0 && x3 != 0 {
			for j := range row {
				row[j] = row[j] + x0*u0[j] + x1*u1[j] + x2*u2[j] + x3*u3[j]
			}
			continue
		}
		for t, x := range [4]float64{x0, x1, x2, x3} {
			if x == 0 {
				continue
			}
			u := [4][]float64{u0, u1, u2, u3}[t]
			for j := range row {
				row[j] += x * u[j]
			}
		}
	}
}
