package ada

import (
	"fmt"
	"math"

	"github.com/sparseson/sparseson/fd"
	"github.com/sparseson/sparseson/internal/linalg"
	"github.com/sparseson/sparseson/model"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/gonum"
)

// leftFD is FTSL-Shampoo's left factor (Yang et al. (ICML 2025), Alg. 5 line 5): Alg. 4,
// Frequent Directions in general form, on the K×K matrices
// M_t = h·G_tG_tᵀ = vvᵀ with v = √h·‖x‖·(p − e_y) — every M_t is rank one,
// because G_t = (p − e_y)xᵀ is. It keeps L̂L̂ᵀ = U·diag(λ)·Uᵀ on its range,
// U K×r with orthonormal columns and λ₁ ≥ … ≥ λ_r > 0, r ≤ τ − 1 (r ≤ K
// with no sketch, tau = 0), and ρL_{1:t}.
//
// One step of Alg. 4 needs the eigendecomposition of L̂L̂ᵀ + vvᵀ. Its
// non-zero eigenvalues are those of the (r+1)×(r+1) Gram matrix of
// [UΛ^{1/2}, v], the arrowhead [[Λ, Λ^{1/2}∘Uᵀv], [·, ‖v‖²]] = WMWᵀ of FD's
// shrink, which linalg.Arrowhead decomposes in O(r²) (LAPACK's Dsyev when it
// cannot vouch for its result), and the eigenvectors are the left singular
// vectors [UΛ^{1/2}, v]·W·M^{−1/2}, one K×(r+1)×r′ product (ADA-FULL's
// update, full.go). Alg. 4 then keeps the top τ − 1 of them, shrunk by the
// τ-th, μ_τ, which is the escaped mass of the step. With τ > K nothing is
// ever shrunk (the sum has rank ≤ K < τ): that is the exact factor, the
// same as tau = 0 — --shampoo_exact_left.
//
// The product keeps U's columns orthonormal only as far as U was: the
// rounding of each update stays in U (about 1e-17 per update with K = 20
// and the exact factor, 2e-12 after 200k updates, measured; the sketched
// factor, whose smallest directions are recomputed at every shrink, stays
// at 1e-15). Every leftRefresh updates the factor is therefore
// re-diagonalized from U·diag(λ)·Uᵀ by LAPACK's Dsyev — O(K³) once per
// leftRefresh examples — which resets UᵀU = I to rounding.
//
// Cost O(K·r²) per example; memory K·(K+1) floats plus the refresh's K².
type leftFD struct {
	k, tau int
	r      int
	lam    []float64 // r, descending
	u      []float64 // column i (the i-th eigenvector) is u[i*k : i*k+k]
	rho    float64
	arrow  *linalg.Arrowhead
	dsyev  int64 // arrowheads Dsyev decomposed
	n      int64 // updates (non-zero v) so far, for the refresh

	// scratch
	a, mu, w, tm, unew []float64
	ca, cw, cwork      []float64 // refresh: K×K matrix, eigenvalues, Dsyev's workspace
}

// leftRefresh is how many updates pass between re-diagonalizations.
const leftRefresh = 1024

// leftCols is the most eigenvectors the factor can hold.
func leftCols(k, tau int) int {
	if tau == 0 || tau > k {
		return k
	}
	return tau - 1
}

func newLeftFD(k, tau int) *leftFD {
	c := leftCols(k, tau)
	n := c + 1
	var q [1]float64
	lapackImpl.Dsyev(lapack.EVCompute, blas.Upper, k, make([]float64, k*k), k, make([]float64, k), q[:], -1)
	return &leftFD{k: k, tau: tau, lam: make([]float64, c), u: make([]float64, k*c),
		arrow: linalg.NewArrowhead(max(c, 1)),
		a:     make([]float64, c), mu: make([]float64, n), w: make([]float64, n*n),
		tm: make([]float64, n*c), unew: make([]float64, k*c),
		ca: make([]float64, k*k), cw: make([]float64, k), cwork: make([]float64, max(int(q[0]), 3*k))}
}

var lapackImpl gonum.Implementation

// refresh re-diagonalizes L̂L̂ᵀ = U·diag(λ)·Uᵀ (see leftFD): the same
// matrix, with eigenvectors orthonormal to rounding again. Eigenvalues
// ≤ EigTol·λ₁ are dropped, as after every update.
func (l *leftFD) refresh() {
	k, r := l.k, l.r
	C := l.ca
	clear(C)
	for i := 0; i < r; i++ {
		col := l.u[i*k : i*k+k]
		for a, va := range col {
			linalg.Axpy(l.lam[i]*va, col[a:], C[a*k+a:a*k+k])
		}
	}
	if !lapackImpl.Dsyev(lapack.EVCompute, blas.Upper, k, C, k, l.cw, l.cwork, len(l.cwork)) || !linalg.AllFinite(l.cw) {
		return
	}
	top := l.cw[k-1]
	r2 := 0
	for r2 < min(r, k) && l.cw[k-1-r2] > fd.EigTol*top {
		r2++
	}
	for j := 0; j < r2; j++ {
		src := k - 1 - j
		l.lam[j] = l.cw[src]
		col := l.u[j*k : j*k+k]
		for a := range col {
			// Dsyev leaves eigenvector src in column src of C (row-major).
			col[a] = C[a*k+src]
		}
	}
	l.r = r2
}

// add is one step of Alg. 4 with M = vvᵀ (len(v) = K).
func (l *leftFD) add(v []float64) {
	k, r := l.k, l.r
	var kap float64
	for _, x := range v {
		kap += x * x
	}
	if !(kap > 0) || math.IsInf(kap, 0) {
		// M = 0: L̂L̂ᵀ has rank ≤ τ − 1 < τ, so λ_τ = 0 and Alg. 4 changes
		// nothing.
		return
	}
	// The arrowhead's border: Λ^{1/2}∘Uᵀv.
	a := l.a[:r]
	for i := range a {
		a[i] = math.Sqrt(l.lam[i]) * linalg.Dot(l.u[i*k:i*k+k], v)
	}
	n := r + 1
	mu, w := l.mu[:n], l.w[:n*n]
	if !l.arrow.Solve(l.lam[:r], a, kap, mu, w) {
		l.dsyev++
		denseArrow(l.lam[:r], a, kap, mu, w)
	}
	top := mu[0]
	if !(top > 0) || math.IsInf(top, 0) {
		return
	}
	for i, m := range mu {
		if !(m > fd.EigTol*top) {
			mu[i] = 0
		}
	}
	// Alg. 4 lines 2–3: λ_τ of the K×K sum (0 when it has fewer than τ
	// eigenvalues), and the top τ − 1 shrunk by it.
	var rho float64
	if l.tau > 0 && l.tau <= n && l.tau <= k {
		rho = mu[l.tau-1]
	}
	r2 := 0
	for r2 < min(n, len(l.lam)) && mu[r2]-rho > fd.EigTol*top {
		r2++
	}
	// T = [Λ^{1/2}; 1]∘W·M^{−1/2} (n×r2); U′ = [U, v]·T.
	tm := l.tm[:n*r2]
	for j := 0; j < r2; j++ {
		inv := 1 / math.Sqrt(mu[j])
		for i := 0; i < r; i++ {
			tm[i*r2+j] = math.Sqrt(l.lam[i]) * w[i*n+j] * inv
		}
		tm[r*r2+j] = w[r*n+j] * inv
	}
	un := l.unew[:k*r2]
	for j := 0; j < r2; j++ {
		col := un[j*k : j*k+k]
		for c := range col {
			col[c] = tm[r*r2+j] * v[c]
		}
		for i := 0; i < r; i++ {
			linalg.Axpy(tm[i*r2+j], l.u[i*k:i*k+k], col)
		}
	}
	l.u, l.unew = l.unew, l.u
	for j := 0; j < r2; j++ {
		l.lam[j] = mu[j] - rho
	}
	l.r = r2
	l.rho += rho
	if l.n++; l.n%leftRefresh == 0 {
		l.refresh()
	}
}

// coefficients returns L^{−1/4} = c·I + U·diag(φ)·Uᵀ for L = L̂L̂ᵀ + (ρ + ε)I,
// writing φ into phi (len r): c = (ρ+ε)^{−1/4}, φ_i = (λ_i+ρ+ε)^{−1/4} − c,
// the difference written without cancellation (quarterDiff).
func (l *leftFD) coefficients(eps float64, phi []float64) (c float64) {
	r := l.rho + eps
	b := math.Sqrt(math.Sqrt(r))
	for i, lam := range l.lam[:l.r] {
		phi[i] = lam * quarterDiff(lam, r, b)
	}
	return 1 / b
}

// apply sets dst = L^{−1/4}·src (c and φ from coefficients; dst ≠ src).
func (l *leftFD) apply(dst, src []float64, c float64, phi []float64) {
	k := l.k
	for i := range dst {
		dst[i] = c * src[i]
	}
	for i := 0; i < l.r; i++ {
		col := l.u[i*k : i*k+k]
		linalg.Axpy(phi[i]*linalg.Dot(col, src), col, dst)
	}
}

// quarterDiff returns ((λ+r)^{−1/4} − r^{−1/4})/λ for λ > 0, r > 0, b = r^{1/4}:
// with a = (λ+r)^{1/4}, 1/a − 1/b = (b − a)/(ab) and b − a =
// −λ/((a+b)(a²+b²)) (a⁴ − b⁴ = λ), so the quotient is
// −1/(ab(a+b)(a²+b²)), exact where the plain difference would cancel
// (λ ≪ r).
func quarterDiff(lam, r, b float64) float64 {
	a := math.Sqrt(math.Sqrt(lam + r))
	return -1 / (a * b * (a + b) * (a*a + b*b))
}

func (l *leftFD) save(w *model.Writer) {
	w.Uint32(uint32(l.r))
	w.Float64(l.rho)
	w.Uint64(uint64(l.dsyev))
	w.Uint64(uint64(l.n))
	w.Float64s(l.lam[:l.r])
	w.Float64s(l.u[:l.k*l.r])
}

func (l *leftFD) load(r *model.Reader) error {
	n := int(r.Uint32())
	l.rho = r.Float64()
	l.dsyev = int64(r.Uint64())
	l.n = int64(r.Uint64())
	lam := r.Float64s(nil)
	u := r.Float64s(nil)
	if r.Err() != nil {
		return r.Err()
	}
	if n > len(l.lam) || len(lam) != n || len(u) != l.k*n || !(l.rho >= 0) || math.IsInf(l.rho, 0) || l.n < 0 || l.dsyev < 0 {
		return fmt.Errorf("%w: FTSL-Shampoo's left factor does not fit K = %d, τ = %d", model.ErrCorrupt, l.k, l.tau)
	}
	for i, v := range lam {
		if !(v > 0) || math.IsInf(v, 0) || i > 0 && v > lam[i-1] {
			return fmt.Errorf("%w: FTSL-Shampoo's left eigenvalues", model.ErrCorrupt)
		}
	}
	if !linalg.AllFinite(u) {
		return fmt.Errorf("%w: non-finite value in FTSL-Shampoo's left factor", model.ErrCorrupt)
	}
	l.r = n
	copy(l.lam, lam)
	copy(l.u, u)
	return nil
}
