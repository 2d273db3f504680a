package oja

import (
	"errors"
	"fmt"
	"math"

	"github.com/sparseson/sparseson/sparse"
	"gonum.org/v1/gonum/mat"
)

// eigTol is the relative floor below which an eigenvalue of the stacked
// sketches counts as 0 (fd.EigTol's value, for the same reason: rounding
// in a Gram matrix is of order n·ε·λ₁).
const eigTol = 1e-12

// Basis implements sparse.SketchMerger: S = (tΛ)^{1/2}·V = (tΛ)^{1/2}F·Z,
// Oja's eigen-directions weighted by their eigenvalue estimates.
func (o *Sketch) Basis() ([]float64, int) {
	p, m := o.p, o.cfg.M
	C := make([]float64, p*p)
	for i := 0; i < p; i++ {
		e := math.Sqrt(math.Max(o.t*o.lam[i], 0))
		for j := 0; j <= i; j++ {
			C[i*p+j] = e * o.F[i*m+j]
		}
	}
	return C, p
}

// Merge implements sparse.SketchMerger. The parts' eigen-directions,
// weighted by their eigenvalue estimates (Basis), are stacked and shrunk
// once as Frequent Directions shrinks a full buffer (Luo et al. (JMLR 2019), Alg. 7),
// here for a sketch of m rows: the stack's top m right singular vectors
// become Z (orthonormal rows, so F = chol(K)⁻¹ ≈ I), with eigenvalue
// estimates E′ = λ_{1:m} − λ_{m+1}, Λ = E′/t over the merged round count t.
// The guarantee is FD's for the stacked matrix (0 ⪯ ΣS_iᵀS_i − SᵀS ⪯
// λ_{m+1}·I); Oja's own estimates carry none, so neither does the merge
// with respect to the data. A stack of at most m orthogonal rows (one
// part's) is kept as it is, in its order: merging one sketch gives the same
// sketch, which trains on as it would have.
// Re-basings and rounds add up.
func (o *Sketch) Merge(ms *sparse.SketchMerge) error {
	o.fzOK = false // F changes (Update's memo of F·z)
	if err := o.mergeCounts(ms); err != nil {
		return err
	}
	n, m := ms.N, o.cfg.M
	lam, U, err := stackSpectrum(ms.Gram, n, m)
	if err != nil {
		return err
	}
	cols, e := keptDirections(lam, n, m)
	keep := len(cols)
	T := make([]float64, keep*n)
	for i, c := range cols {
		inv := 1 / math.Sqrt(lam[c])
		for j := 0; j < n; j++ {
			T[i*n+j] = U[j*n+c] * inv
		}
	}
	gram := ms.Apply(T, keep)
	if err := o.setMerged(gram, keep, e); err != nil {
		return err
	}
	o.alpha = o.cfg.Alpha
	o.condition()
	return nil
}

// mergeCounts checks the receiver, the parts and the base, and adds up
// the rounds and re-basings.
func (o *Sketch) mergeCounts(ms *sparse.SketchMerge) error {
	if o.p != 0 || o.t != 0 {
		return errors.New("oja: merge into a sketch that is not new")
	}
	ts := make([]float64, len(ms.Parts))
	for i, sk := range ms.Parts {
		p, ok := sk.(*Sketch)
		if !ok || p.cfg != o.cfg {
			return fmt.Errorf("oja: cannot merge a %s sketch into oja (m = %d)", sk.Name(), o.cfg.M)
		}
		ts[i] = p.t
		o.rebases += p.rebases
	}
	var t0 float64
	if ms.Base != nil {
		b, ok := ms.Base.(*Sketch)
		if !ok || b.cfg != o.cfg {
			return fmt.Errorf("oja: the base's %s sketch does not match oja (m = %d)", ms.Base.Name(), o.cfg.M)
		}
		t0 = b.t
		o.rebases = max(0, o.rebases-(len(ms.Parts)-1)*b.rebases)
	}
	o.t = math.Max(0, sparse.MergedSum(ts, t0))
	return nil
}

// stackSpectrum eigendecomposes the stack's n×n Gram matrix: lam
// descending, U's columns the eigenvectors in the same order. Rows that
// are Oja rows already (one part: at most m, orthogonal) are kept as they
// are, in their order, which Oja's Gram–Schmidt depends on, so that the
// merge of one sketch is that sketch.
func stackSpectrum(gram []float64, n, m int) (lam, U []float64, err error) {
	lam, U = make([]float64, n), make([]float64, n*n)
	if n <= m && orthogonalRows(gram, n) {
		for i := 0; i < n; i++ {
			lam[i] = gram[i*n+i]
			U[i*n+i] = 1
		}
		return lam, U, nil
	}
	if n == 0 {
		return lam, U, nil
	}
	G := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			G.SetSym(i, j, gram[i*n+j])
		}
	}
	var es mat.EigenSym
	if !es.Factorize(G, true) {
		return nil, nil, errors.New("oja: merge: the eigendecomposition of the stacked sketches failed")
	}
	vals := es.Values(nil)
	var vecs mat.Dense
	es.VectorsTo(&vecs)
	for k := 0; k < n; k++ {
		lam[k] = vals[n-1-k]
		for i := 0; i < n; i++ {
			U[i*n+k] = vecs.At(i, n-1-k)
		}
	}
	return lam, U, nil
}

// keptDirections picks the columns of U to keep — at most m, above
// eigTol of the top after the shrink by ρ = λ_{m+1} — and their
// estimates E′ = λ − ρ.
func keptDirections(lam []float64, n, m int) (cols []int, e []float64) {
	var top, rho float64
	for _, l := range lam {
		top = math.Max(top, l)
	}
	if n > m {
		rho = math.Max(lam[m], 0)
	}
	for i := 0; i < n && len(cols) < m; i++ {
		if lam[i]-rho > eigTol*top {
			cols = append(cols, i)
			e = append(e, lam[i]-rho)
		}
	}
	return cols, e
}

// setMerged sets the sketch to the keep rows the SON core wrote (Gram
// matrix gram): K, F = chol(K)⁻¹ and Λ = E′/t.
func (o *Sketch) setMerged(gram []float64, keep int, e []float64) error {
	o.fzOK = false
	m := o.cfg.M
	o.p = keep
	clear(o.K)
	clear(o.F)
	clear(o.lam)
	for i := 0; i < keep; i++ {
		copy(o.K[i*m:i*m+keep], gram[i*keep:i*keep+keep])
	}
	if keep > 0 {
		G := mat.NewSymDense(keep, nil)
		for i := 0; i < keep; i++ {
			for j := i; j < keep; j++ {
				G.SetSym(i, j, gram[i*keep+j])
			}
		}
		var ch mat.Cholesky
		if !ch.Factorize(G) {
			return errors.New("oja: merge: the merged basis is not positive definite")
		}
		var L, Li mat.TriDense
		ch.LTo(&L)
		if err := Li.InverseTri(&L); err != nil {
			return fmt.Errorf("oja: merge: %w", err)
		}
		o.setF(&Li)
	}
	for i := 0; i < keep; i++ {
		if o.t > 0 {
			o.lam[i] = e[i] / o.t
		}
	}
	return nil
}

// orthogonalRows reports whether the Gram matrix G (n×n) is diagonal to
// rounding: |G_ab| ≤ 1e-10·√(G_aa·G_bb) for a ≠ b (FKFᵀ = I holds to
// 1e-10, docs/algorithms.md §9 C).
func orthogonalRows(G []float64, n int) bool {
	for a := 0; a < n; a++ {
		for b := 0; b < a; b++ {
			if math.Abs(G[a*n+b]) > 1e-10*math.Sqrt(math.Abs(G[a*n+a]*G[b*n+b])) {
				return false
			}
		}
	}
	return true
}
