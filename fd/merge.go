package fd

import (
	"errors"
	"fmt"
	"math"

	"github.com/sparseson/sparseson/internal/linalg"
	"github.com/sparseson/sparseson/sparse"
)

// shrinkValues is FD's shrink of the eigenvalues of a stack of rows (Luo et al.
// (NIPS 2016), Alg. 2 line 2; Luo et al. (JMLR 2019), Alg. 2 lines 5–6 and Alg. 7 lines 5–6, the
// block form): lam is descending with values ≤ EigTol·lam[0] already
// zeroed; with sketch size m the kept values E′ = λ_{1:m−1} − λ_m that
// exceed EigTol·λ₁ go to eNew, keep counts them, and rho = λ_m (0 for a
// stack of fewer than m rows) is what the shrink discards along every
// direction — RFD adds ρ/2 to α. The one copy of the rule: the per-example
// shrink (decompose) and the merge of sketches both call it.
func shrinkValues(lam []float64, m int, eNew []float64) (keep int, rho float64) {
	top := lam[0]
	if len(lam) >= m {
		rho = lam[m-1]
	}
	for keep < min(m-1, len(lam)) && lam[keep]-rho > EigTol*top {
		eNew[keep] = lam[keep] - rho
		keep++
	}
	return keep, rho
}

// Basis implements sparse.SketchMerger: the sketch is S = C·Z, in the
// diagonal state as in the buffered one.
func (s *Sketch) Basis() ([]float64, int) {
	p, q, pm := s.p, s.q, s.pmax
	C := make([]float64, q*p)
	for i := 0; i < q; i++ {
		copy(C[i*p:i*p+p], s.C[i*pm:i*pm+p])
	}
	return C, q
}

// Merge implements sparse.SketchMerger: the merge of Frequent Directions
// sketches of Luo et al. (JMLR 2019) (the block form of FD/RFD, Alg. 7, whose Lemma 5
// is the mergeability argument; also Ghashami, Liberty, Phillips and
// Woodruff, "Frequent Directions", SICOMP 2016). The parts' rows are
// stacked and shrunk once with FD's own rule (shrinkValues): the
// eigendecomposition of the stack's Gram matrix gives its right singular
// vectors V and values λ; the merged sketch keeps E′ = λ_{1:m−1} − λ_m
// along the first m−1, its Z is V (orthonormal rows) and C = E′^{1/2}K^{−1/2}
// with K = ZZᵀ as written (Löwdin, as compact does), so that FKFᵀ = I
// holds to rounding. A stack that fits in the buffer (fewer than m rows,
// 2m for the fast variant) is kept whole, as FD keeps a buffer that is
// not full: merging one sketch gives the same sketch (rotated).
//
// Guarantee (without a base and without pre-scaling, so that the stack
// is exactly the parts' sketches B_i of the parts' to-sketch rows A_i):
// with A the stack of every part's rows and B the merged sketch,
// 0 ⪯ AᵀA − BᵀB ⪯ Σρ·I, and Σρ ≤ ‖A − [A]_k‖_F²/(m − k) for every k < m,
// where Σρ sums λ_m over every shrink in every part and the merge's — the
// argument of Lemma 5 holds for any tree of shrinks, since each removes at
// least m·ρ of Frobenius mass and adds at most ρ to the spectral error.
// RFD's escaped mass adds up the same way: α = α₀ + ½Σρ (the parts' ρ/2
// summed, plus the merge's), and ‖AᵀA − (BᵀB + (α − α₀)I)‖₂ ≤
// ‖A − [A]_k‖_F²/(2(m − k)) (Theorem 3). The package tests check both.
//
// Counters add up; RFD's growth is in the merged units (ρ/2/W).
func (s *Sketch) Merge(m *sparse.SketchMerge) error {
	parts, base, err := s.mergeParts(m)
	if err != nil {
		return err
	}
	keep, rho, shrunk, lam, U, err := s.mergeSpectrum(m.Gram, m.N)
	if err != nil {
		return err
	}
	// Z = Λ^{−1/2}Uᵀ·(stack): the stack's right singular vectors.
	n := m.N
	T := make([]float64, keep*n)
	for i := 0; i < keep; i++ {
		inv := 1 / math.Sqrt(lam[i])
		for j := 0; j < n; j++ {
			T[i*n+j] = U[j*n+i] * inv
		}
	}
	gram := m.Apply(T, keep)
	s.mergeCounters(parts, base, shrunk, rho, m.W)
	s.mergeDiag(gram, keep, parts, shrunk)
	// C and K were written directly: the cached C·K·Cᵀ is stale.
	s.invalidate()
	if s.alpha == 0 {
		s.refreshPinv()
	}
	return nil
}

// mergeParts checks the receiver, and that the parts and the base are FD
// sketches configured as it is.
func (s *Sketch) mergeParts(m *sparse.SketchMerge) (parts []*Sketch, base *Sketch, err error) {
	if s.cnt.Updates != 0 || s.p != 0 || s.q != 0 {
		return nil, nil, errors.New("fd: merge into a sketch that is not new")
	}
	parts = make([]*Sketch, len(m.Parts))
	for i, sk := range m.Parts {
		p, ok := sk.(*Sketch)
		if !ok || p.cfg != s.cfg {
			return nil, nil, fmt.Errorf("fd: cannot merge a %s sketch into %s (m = %d)", sk.Name(), s.Name(), s.m)
		}
		parts[i] = p
	}
	if m.Base != nil {
		b, ok := m.Base.(*Sketch)
		if !ok || b.cfg != s.cfg {
			return nil, nil, fmt.Errorf("fd: the base's %s sketch does not match %s (m = %d)", m.Base.Name(), s.Name(), s.m)
		}
		base = b
	}
	return parts, base, nil
}

// mergeSpectrum eigendecomposes the stack's n×n Gram matrix and keeps its
// top directions: all the positive ones when they fit the buffer, else
// FD's shrink of them (Luo et al. (JMLR 2019), Alg. 2), which writes the
// kept eigenvalues into s.eNew and returns the mass ρ it removed.
func (s *Sketch) mergeSpectrum(gram []float64, n int) (keep int, rho float64, shrunk bool, lam, U []float64, err error) {
	if n == 0 {
		return 0, 0, false, nil, nil, nil
	}
	G := append([]float64(nil), gram[:n*n]...)
	lam, U = make([]float64, n), make([]float64, n*n)
	if !linalg.EigSym(n, G, lam, U, make([]float64, n+linalg.EigWork(n))) {
		return 0, 0, false, nil, nil, errors.New("fd: merge: the eigendecomposition of the stacked sketches failed")
	}
	if top := lam[0]; top > 0 {
		for i := range lam {
			if lam[i] <= EigTol*top {
				lam[i] = 0
			}
		}
		if n >= s.lb {
			keep, rho = shrinkValues(lam, s.m, s.eNew)
			shrunk = true
		} else {
			for keep < n && lam[keep] > 0 {
				s.eNew[keep] = lam[keep]
				keep++
			}
		}
	}
	return keep, rho, shrunk, lam, U, nil
}

// mergedSum is sparse.MergedSum of get over the parts and the base,
// floored at 0.
func mergedSum(parts []*Sketch, base *Sketch, get func(*Sketch) float64) float64 {
	v := make([]float64, len(parts))
	for i, p := range parts {
		v[i] = get(p)
	}
	var b0 float64
	if base != nil {
		b0 = get(base)
	}
	return math.Max(0, sparse.MergedSum(v, b0))
}

// mergeCounters adds up the parts' counters and sums and sets α (RFD's
// growth in the merged units: ρ/2/W).
func (s *Sketch) mergeCounters(parts []*Sketch, base *Sketch, shrunk bool, rho, W float64) {
	cs := s.cnt.fields()
	for f := range cs {
		v := make([]float64, len(parts))
		for i, p := range parts {
			v[i] = float64(*p.cnt.fields()[f])
		}
		var b0 float64
		if base != nil {
			b0 = float64(*base.cnt.fields()[f])
		}
		*cs[f] = int64(max(0, sparse.MergedSum(v, b0)))
	}
	if shrunk {
		s.cnt.Shrinks++
	}
	sum := func(get func(*Sketch) float64) float64 { return mergedSum(parts, base, get) }
	s.sumRho = sum(func(p *Sketch) float64 { return p.sumRho }) + rho
	s.sumRhoA = sum(func(p *Sketch) float64 { return p.sumRhoA })
	s.sumDropA = sum(func(p *Sketch) float64 { return p.sumDropA })
	s.cnt.Drops = int64(sum(func(p *Sketch) float64 { return float64(p.cnt.Drops) }))
	s.alpha = s.cfg.Alpha
	if s.cfg.Robust {
		s.grow = sum(func(p *Sketch) float64 { return p.grow }) + rho/2/math.Max(1, W)
		s.alpha += s.grow
	}
}

// mergeDiag puts the merged sketch in the diagonal state on Z = V (keep
// rows, Gram matrix gram) and sets its buffer's fill.
func (s *Sketch) mergeDiag(gram []float64, keep int, parts []*Sketch, shrunk bool) {
	s.setK(gram, keep)
	s.setDiag(keep)
	if keep > 0 {
		s.lowdin(keep)
		pm, lb := s.pmax, s.lb
		for i := 0; i < keep; i++ {
			se := math.Sqrt(s.E[i])
			for j := 0; j < keep; j++ {
				s.C[i*pm+j] = se * s.kfl[i*lb+j]
			}
		}
	}
	if shrunk {
		s.nb = s.m - 1
	} else {
		nb := keep
		for _, p := range parts {
			nb = max(nb, p.nb)
		}
		s.nb = min(nb, s.lb-1)
	}
}
