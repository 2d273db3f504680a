package linalg

// Arrowhead is the O(n²) eigensolver of arrow.go for the arrowhead
// matrices of rank-one eigen-updates: package fd's shrink (the Gram matrix
// [[diag E, E^{1/2}∘a], [·, ‖ĝ‖²]] of the sketch and the new row), and
// package ada's dense ADA-FULL, which keeps G_t = UΛUᵀ and adds ggᵀ
// through the Gram matrix of [Λ^{1/2}Uᵀ; gᵀ], the arrowhead
// [[diag Λ, Λ^{1/2}∘Uᵀg], [·, ‖g‖²]].
type Arrowhead struct {
	a *arrowEig
	n int
}

// NewArrowhead returns a solver for arrowheads with up to n poles.
func NewArrowhead(n int) *Arrowhead { return &Arrowhead{a: newArrowEig(n), n: n} }

// Cap is the largest number of poles Solve accepts.
func (h *Arrowhead) Cap() int { return h.n }

// Solve eigendecomposes G = [[diag(d), z], [zᵀ, kappa]] (len(d) = len(z)
// ≤ Cap()): lam (len(d)+1) gets the eigenvalues in descending order, u
// ((len(d)+1)², row-major) the eigenvectors as columns, rows ordered as
// G's (the border last). It reports false when it cannot vouch for the
// result (backward error above 1e-13 of G's largest entry, a root that did
// not converge, or non-finite input); lam and u are then garbage and the
// caller should use a dense eigensolver.
func (h *Arrowhead) Solve(d, z []float64, kappa float64, lam, u []float64) bool {
	return h.a.solve(d, z, kappa, lam, u)
}
