package linalg

import (
	"fmt"
	"testing"
)

// BenchmarkEigSym times the eigendecomposition every FD shrink does (Luo et
// al. (NIPS 2016), Alg. 2 line 2) of an (m+1)×(m+1) arrowhead Gram matrix
// [[diag(E), v], [vᵀ, κ]], by LAPACK's Dsyev (O(m³), what the doubled
// buffer and Config.Dsyev use) and by the arrowhead solver (O(m²), every
// other shrink).
func BenchmarkEigSym(b *testing.B) {
	for _, m := range []int{5, 10, 20, 50} {
		n := m + 1
		E, v := make([]float64, m), make([]float64, m)
		g := make([]float64, n*n)
		for i := 0; i < m; i++ {
			E[i] = float64(m - i)
			v[i] = 0.3 / float64(i+1)
			g[i*n+i] = E[i]
			g[i*n+m] = v[i]
			g[m*n+i] = v[i]
		}
		const kap = 1.5
		g[m*n+m] = kap
		lam, u := make([]float64, n), make([]float64, n*n)
		b.Run(fmt.Sprintf("dsyev/m=%d", m), func(b *testing.B) {
			a := make([]float64, n*n)
			work := make([]float64, EigWork(n)+n)
			b.ReportAllocs()
			for b.Loop() {
				copy(a, g)
				if !EigSym(n, a, lam, u, work) {
					b.Fatal("no convergence")
				}
			}
		})
		b.Run(fmt.Sprintf("arrow/m=%d", m), func(b *testing.B) {
			ae := newArrowEig(m)
			b.ReportAllocs()
			for b.Loop() {
				if !ae.solve(E, v, kap, lam, u) {
					b.Fatal("declined")
				}
			}
		})
	}
}

// BenchmarkAxpy4 times FD's F_a kernel: a row of p values combined from
// q rows of C, by Axpy4 on groups of four rows and by the Axpy2 on pairs
// that it replaced (the same bits), at news20's sizes for m = 10 and 20
// (q = m − 1 rows, p ≈ m + 4 columns).
func BenchmarkAxpy4(b *testing.B) {
	for _, m := range []int{10, 20} {
		q, p := m-1, m+4
		C := make([]float64, q*p)
		for i := range C {
			C[i] = float64(i%7) - 2.5
		}
		y := make([]float64, p)
		row := func(j int) []float64 { return C[j*p : j*p+p] }
		b.Run(fmt.Sprintf("axpy4/m=%d", m), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				clear(y)
				j := 0
				for ; j+4 <= q; j += 4 {
					Axpy4(0.5, row(j), -0.25, row(j+1), 0.125, row(j+2), 2, row(j+3), y)
				}
				for ; j+2 <= q; j += 2 {
					Axpy2(0.5, row(j), -0.25, row(j+1), y)
				}
				if j < q {
					Axpy(0.5, row(j), y)
				}
			}
		})
		b.Run(fmt.Sprintf("axpy2/m=%d", m), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				clear(y)
				j := 0
				for ; j+2 <= q; j += 2 {
					Axpy2(0.5, row(j), -0.25, row(j+1), y)
				}
				if j < q {
					Axpy(0.5, row(j), y)
				}
			}
		})
	}
}
