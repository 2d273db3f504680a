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
