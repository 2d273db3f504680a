package fd

import (
	"fmt"
	"io"
	"math"

	"github.com/sparseson/sparseson/internal/linalg"
	"github.com/sparseson/sparseson/model"
	"github.com/sparseson/sparseson/sparse"
)

// Save implements sparse.Sketch: the whole sketch state, bit-exactly.
func (s *Sketch) Save(w *model.Writer) {
	w.Uint32(uint32(s.m))
	w.Uint32(uint32(s.lb))
	w.Uint32(uint32(s.pmax))
	w.Uint32(uint32(s.p))
	w.Uint32(uint32(s.q))
	w.Uint32(uint32(s.nb))
	w.Bool(s.diag)
	w.Float64(s.alpha)
	w.Float64(s.sumRho)
	w.Float64(s.grow)
	w.Float64(s.knorm)
	cs := s.cnt.fields()
	w.Uint32(uint32(len(cs)))
	for _, v := range cs {
		w.Uint64(uint64(*v))
	}
	for _, a := range s.stateArrays() {
		w.Float64s(a)
	}
	if s.cfg.Gate != 0 {
		w.Uint64(uint64(s.cnt.Drops))
		w.Float64(s.sumRhoA)
		w.Float64(s.sumDropA)
	}
	if s.cfg.Skip != 0 {
		w.Uint64(uint64(s.skips))
		w.Float64(s.sumSkipA)
	}
	if s.cfg.Project != 0 {
		s.saveProject(w)
	}
}

func (c *Counts) fields() []*int64 {
	return []*int64{&c.Updates, &c.Shrinks, &c.Absorbs, &c.Appends, &c.Compactions, &c.CondCompact, &c.Skipped,
		&c.AbsorbInfeasible, &c.AbsorbIllCond, &c.AbsorbBand, &c.EigFallbacks}
}

func (s *Sketch) stateArrays() [][]float64 {
	return [][]float64{s.C, s.K, s.E, s.L, s.pu, s.pinv}
}

// OrthoBasis implements sparse.BasisSketch: in the diagonal state C =
// E^{1/2}F with FKFᵀ = I, so F = E^{−1/2}C (the live rows with E > 0);
// between shrinks (rows buffered) there is no orthonormal basis.
func (s *Sketch) OrthoBasis() ([]float64, int, int, bool) {
	if !s.diag {
		return nil, 0, 0, false
	}
	q, p, pm := s.q, s.p, s.pmax
	F := make([]float64, q*p)
	n := 0
	for i := 0; i < q; i++ {
		if !(s.E[i] > 0) {
			continue
		}
		r := 1 / math.Sqrt(s.E[i])
		for j := 0; j < p; j++ {
			F[n*p+j] = r * s.C[i*pm+j]
		}
		n++
	}
	return F, n, p, true
}

// SavesAlpha implements sparse.AlphaSaver: α (with RFD's growth) and the
// factor L built from it are saved as they are. Setting α again on load
// would recompute α_sk + grow, which can differ in the last bit from the α
// the growth was added to, and rebuild L from it.
func (s *Sketch) SavesAlpha() {}

// Load implements sparse.Sketch; the sketch must have been created with the
// saved model's Config.
func (s *Sketch) Load(r *model.Reader) error {
	m, lb, pm := int(r.Uint32()), int(r.Uint32()), int(r.Uint32())
	p, q, nb := int(r.Uint32()), int(r.Uint32()), int(r.Uint32())
	diag := r.Bool()
	alpha, sumRho, grow, knorm := r.Float64(), r.Float64(), r.Float64(), r.Float64()
	var cnt Counts
	cs := cnt.fields()
	// Models written before EigFallbacks existed have one counter less.
	n := int(r.Uint32())
	if n != len(cs) && n != len(cs)-1 {
		r.Fail("FD sketch has %d counters, want %d", n, len(cs))
		n = 0
	}
	for _, v := range cs[:n] {
		*v = int64(r.Uint64())
	}
	arrs := s.stateArrays()
	loaded := make([][]float64, len(arrs))
	for i := range arrs {
		loaded[i] = r.Float64s(nil)
	}
	var drops int64
	var rhoA, dropA float64
	if s.cfg.Gate != 0 {
		drops, rhoA, dropA = int64(r.Uint64()), r.Float64(), r.Float64()
	}
	var skips int64
	var skipA float64
	if s.cfg.Skip != 0 {
		skips, skipA = int64(r.Uint64()), r.Float64()
	}
	if r.Err() != nil {
		return r.Err()
	}
	if s.cfg.Project != 0 {
		if err := s.loadProject(r); err != nil {
			return err
		}
	}
	if drops < 0 || !(rhoA >= 0) || !(dropA >= 0) || math.IsInf(rhoA, 0) || math.IsInf(dropA, 0) ||
		skips < 0 || !(skipA >= 0) || math.IsInf(skipA, 0) {
		return fmt.Errorf("%w: bad FD gate counters", model.ErrCorrupt)
	}
	if m != s.m || lb != s.lb || pm != s.pmax {
		return fmt.Errorf("%w: FD sketch saved with m = %d, buffer %d, row cap %d; configured m = %d, buffer %d, row cap %d",
			model.ErrCorrupt, m, lb, pm, s.m, s.lb, s.pmax)
	}
	full := lb // rows the buffer may hold: a rank-counted one holds lb (rank.go)
	if !s.cfg.RankBuffer {
		full = lb - 1
	}
	if p > pm || q > full || nb > full || (q > 0 && p == 0) {
		return fmt.Errorf("%w: FD sketch state does not fit (p = %d, q = %d, buffer %d)", model.ErrCorrupt, p, q, nb)
	}
	for i, a := range loaded {
		if len(a) != len(arrs[i]) {
			return fmt.Errorf("%w: FD sketch array %d has %d values, want %d", model.ErrCorrupt, i, len(a), len(arrs[i]))
		}
		for _, v := range a {
			if !linalg.IsFinite(v) {
				return fmt.Errorf("%w: non-finite FD sketch state", model.ErrCorrupt)
			}
		}
	}
	for _, v := range cs {
		if *v < 0 {
			return fmt.Errorf("%w: negative FD sketch counter", model.ErrCorrupt)
		}
	}
	if !(alpha >= 0) || math.IsInf(alpha, 0) || !(sumRho >= 0) || !(knorm >= 0) || math.IsInf(knorm, 0) || math.IsInf(sumRho, 0) || !(grow >= 0) || math.IsInf(grow, 0) {
		return fmt.Errorf("%w: bad FD sketch scalars", model.ErrCorrupt)
	}
	if !s.cfg.Robust && !s.cfg.HostAlpha && alpha != s.cfg.Alpha {
		return fmt.Errorf("%w: FD sketch saved with α = %v, configured %v", model.ErrCorrupt, alpha, s.cfg.Alpha)
	}
	for i, a := range loaded {
		copy(arrs[i], a)
	}
	s.p, s.q, s.nb, s.diag = p, q, nb, diag
	s.invalidate()
	s.alpha, s.sumRho, s.grow, s.knorm = alpha, sumRho, grow, knorm
	s.cnt = cnt
	s.cnt.Drops, s.sumRhoA, s.sumDropA = drops, rhoA, dropA
	s.skips, s.sumSkipA = skips, skipA
	return nil
}

// Eigenvalues returns the eigenvalues of SSᵀ (= those of SᵀS), largest
// first: in the diagonal state the E of the last shrink.
func (s *Sketch) Eigenvalues() []float64 {
	q := s.q
	if q == 0 {
		return nil
	}
	if s.diag {
		return append([]float64(nil), s.E[:q]...)
	}
	G := make([]float64, q*q)
	s.gramInto(G, q)
	lam, U := make([]float64, q), make([]float64, q*q)
	work := make([]float64, q+linalg.EigWork(q))
	if !linalg.EigSym(q, G, lam, U, work) {
		return nil
	}
	for i := range lam {
		lam[i] = math.Max(lam[i], 0)
	}
	return lam
}

// Report implements sparse.Sketch: the eigenvalue estimates, the share of
// Σ‖ĝ‖² they capture, and the absorb/append/compaction rates per update.
func (s *Sketch) Report(w io.Writer, sumG2 float64) {
	c := s.cnt
	fmt.Fprintf(w, "sketch = %s, m = %d, α = %.6g, rows of Z = %d (cap %d), sketch rows = %d, updates = %d\n",
		s.Name(), s.m, s.alpha, s.p, s.pmax, s.q, c.Updates)
	share := sparse.ReportSpectrum(w, "top eigenvalue estimates (E)", s.Eigenvalues(), sumG2)
	fmt.Fprintf(w, "share of Σ‖ĝ‖² captured = %.4f (Σ‖ĝ‖² = %.6g, Σλ_m discarded = %.6g)\n", share, sumG2, s.sumRho)
	rate := func(n int64) float64 {
		if c.Updates == 0 {
			return 0
		}
		return float64(n) / float64(c.Updates)
	}
	fmt.Fprintf(w, "per update: shrinks %.4f, absorbs %.4f, appends %.4f, compactions %.5f (%.5f for conditioning), skipped %d, eigensolver fallbacks %d\n",
		rate(c.Shrinks), rate(c.Absorbs), rate(c.Appends), rate(c.Compactions), rate(c.CondCompact), c.Skipped, c.EigFallbacks)
	fmt.Fprintf(w, "absorb refused per update: infeasible %.4f, ill-conditioned %.4f, row band %.4f\n",
		rate(c.AbsorbInfeasible), rate(c.AbsorbIllCond), rate(c.AbsorbBand))
	gate := "off (exact FD)"
	if s.cfg.Gate > 0 {
		from := fmt.Sprintf("from %d features seen", s.gateFrom)
		if s.gateFrom < 0 {
			from = "from the start"
		}
		gate = fmt.Sprintf("ε = %g %s", s.cfg.Gate, from)
	}
	fmt.Fprintf(w, "gate %s: drops %d (%.4f per update), Σ E′/α of the drops = %.6g beside Σ m·ρ/α = %.6g\n",
		gate, c.Drops, rate(c.Drops), s.sumDropA, s.sumRhoA)
	if s.cfg.Skip != 0 {
		fmt.Fprintf(w, "gate's skips (‖ĝ‖² < κ·ε·α, κ = %g): %d (%.4f per update), Σ ‖ĝ‖²/α of the skips = %.6g; Σ(m·ρ + E′ + ‖ĝ‖²)/α = %.6g\n",
			s.cfg.Skip, s.skips, rate(s.skips), s.sumSkipA, s.sumRhoA+s.sumDropA+s.sumSkipA)
	}
	if s.cfg.Project != 0 {
		s.reportProject(w, max(float64(c.Updates), 1))
	}
}
