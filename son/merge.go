package son

import (
	"errors"
	"fmt"
	"math"
	"runtime"

	"github.com/sparseson/sparseson/internal/linalg"
	"github.com/sparseson/sparseson/sparse"
)

// Merge implements sparse.Merger for SON (issue 18). Per feature seen by any part:
//
//   - Weights. w_j = w̄_j + Z_jᵀb is materialised in each part (raw space:
//     times 1/√D_j with pre-scaling) and combined by a.Weighting — by
//     evidence, the parts' Σg² of pre-scaling D (EvidenceAverage; without --diag
//     there is none, and the parts' example counts weigh) — and stored as
//     w̄_j of the merged model with b = 0. In the scaled-space form the
//     evidence average is also the merge that the quadratic model of the
//     parts' objectives asks for: its ridge in raw coordinates is
//     α_sk·D_j, and α_sk = W·α₀ = ¼d²/W is about the same for a part and
//     for the whole data (news20: 161k for a quarter, 174k for all).
//     Parts trained with Total = K > 1 (--total) were regularised for
//     the whole stream instead (scaled.go) and are estimates of its model:
//     the CLI then asks for ByExamples, the average of the parts' models
//     (cmd/sparseson/merge.go, averagesShards). The merged model's W_own
//     is 0: all of its weight counts as the stream's.
//   - Pre-scaling. D_j − 0.1 = Σ h·g_j² is a sum: the parts' are added
//     (base + Σ(part − base) with a base). Exact.
//   - Counters: rounds t, importance W, folds add up. Exact.
//   - Sketch. Part i's rows S_i = C_i·Z_i live in its own pre-scaled space
//     (x̃ = D_i^{-1/2}x) and, in the scaled-space form, in units of its own
//     W_i (Σĝĝᵀ ≈ W_i·C_i, scaled.go). Column j of S_i is multiplied by
//     √(D_ij/D_j) (into the merged space) and, in the scaled form, the whole
//     of S_i by √(W/W_i) (into the merged units): then S_iᵀS_i ≈
//     W·D^{-1/2}G_iD^{-1/2} with G_i part i's Σggᵀ, and the stacked
//     matrix's Gram is what the one-stream sketch estimates, W·C. Without
//     pre-scaling the change is the identity and the stack is exactly the
//     parts' sketches. The stack goes to the sketch's Merge (FD/RFD: seed
//     002's stack-and-shrink; Oja: the same shrink of its eigen-directions
//     weighted by their eigenvalue estimates; RP: the sum of the
//     projections).
//   - With a base, the parts' sketches share the base's rows, which cannot
//     be subtracted from a sketch; each part's rows are multiplied by
//     √(c/Σc_i), c = c₀ + Σ(c_i − c₀) the merged count and c_i the parts'
//     (W in the scaled form, t in the paper's). The merged sketch then
//     holds the parts' mean covariance per example times the merged count:
//     exact when the parts' data have the same covariance, and otherwise
//     an approximation with no bound.
//   - Σ‖ĝ‖² (for α's completion ρ = (Σ‖ĝ‖² − captured)/(W·(d − r)),
//     scaled.go) is the parts' sum, each part's converted as its sketch
//     rows are: the energy its sketch captures by the factor its rows'
//     energy took in the stack (the conversion above, the share included),
//     the rest, which lies outside the sketch, by the factor its diagonal
//     energy Σ_j (C_i)_jj takes, feature by feature. ρ is a small
//     difference of the two (satellite_grey: the sketch holds 99% of
//     Σ‖ĝ‖²), so the two must be converted alike: a merged sketch then
//     captures no more than the merged Σ‖ĝ‖² (to rounding), and about
//     the share its parts did. (Converting Σ‖ĝ‖² by the share alone, as
//     before, left a base's round with a sketch 13% above Σ‖ĝ‖² on
//     satellite_grey — the rows' conversion is not the share where the
//     round's gradients are smaller than the base's — so ρ was 0, α₀ fell
//     from 0.005 to the ridge's 3e-6, and the next round's shards reached
//     12–16% test error against 3%.) The per-example energies an exact
//     conversion would take are not kept.
//
// Cost: O(d·(N² + N·p)) over the d merged features, N = Σ rows of the
// parts' sketches, plus the sketch's O(N³). Parts are only read (their
// deferred steps are applied on the fly). Both passes over the features
// run on every core by blocks of sparse.MergeBlock features (mergeWork);
// the sums are the blocks' in block order, so the result does not depend
// on the number of cores.
func (s *Learner) Merge(a *sparse.MergeArgs) error {
	defer runtime.KeepAlive(s)
	defer runtime.KeepAlive(a) // the parts: their tables are read to the end
	m, err := s.newMerge(a)
	if err != nil {
		return err
	}
	if err := m.counters(); err != nil {
		return err
	}
	if err := m.stack(); err != nil {
		return err
	}
	m.weights()
	s.sumG2 = m.sumG2()
	var sbase sparse.Sketch
	if m.base != nil {
		sbase = m.base.sk
	}
	W := 0.0
	if s.cfg.Scaled {
		W = s.w
	}
	if err := m.skm.Merge(&sparse.SketchMerge{Parts: m.sks, Base: sbase, Rows: m.offs, Gram: m.G, N: m.n, W: W, Apply: m.apply}); err != nil {
		return err
	}
	if m.applied != 1 {
		return fmt.Errorf("merge: the %s sketch did not write the merged Z", s.sk.Name())
	}
	return m.finish()
}

// merge is the state of one Learner.Merge across its phases: the parts and
// their change of coordinates (counters), the stack of their sketch rows
// over the union of their features (stack), pass 1 over the features for
// the weights, D and the stack's Gram matrix (weights, sumG2), and pass 2,
// called by the sketch's Merge, for the merged table (apply, finish).
type merge struct {
	s         *Learner
	a         *sparse.MergeArgs
	parts     []*Learner
	base      *Learner
	skm       sparse.SketchMerger
	k         int
	diag      bool
	ws, cs    []float64 // the parts' W and counts (W or t)
	unit      []float64 // each part's factor into the merged units
	sks       []sparse.Sketch
	Cs        [][]float64 // the parts' Basis: S_i = C_i·Z_i, q_i×p_i
	qs, ps    []int
	offs      []int // part i's rows in the stack: offs[i] … offs[i+1]−1
	n         int   // rows in the stack
	u         *sparse.Union
	dd, wbar  []float64 // per merged feature: Σg² and w̄ (pre-scaled)
	iu        []float64 // per merged feature: 1/u_j (Config.Unit)
	usq, un   []float64 // per merged feature: Σx_j² and n_j (Config.UnitRMS)
	own, in   []float64 // per part: sketch energy before/after conversion
	eOwn, eIn []float64 // per part: diagonal energy before/after
	G         []float64 // the stack's Gram matrix, n×n
	applied   int       // calls of apply
	wsq       float64   // ‖w̄‖² of the merged table
	y         []float64 // Z·w̄ of the merged table
}

// mergeWork is one block of features' scratch and sums in a pass: the
// passes run the blocks (sparse.MergeBlock features each) on every core
// and add the blocks' sums in block order, so the merge does not depend
// on the number of cores, and with one block it sums as a serial loop.
type mergeWork struct {
	wz        [][]float64 // per part: [w̄_j, Z_j] of the feature loaded
	rowOf     []int       // per part: the feature's row, −1 for none
	evid, raw []float64   // per part: the feature's evidence and weight
	kept      []float64   // per part: its weight, or the base's
	c         []float64   // one stacked column (len n)
	lo, hi    []int       // c's segments of the parts that hold the feature
	wb        []float64   // the base's [w̄_j, Z_j]
	// Pass 1's columns that span the whole stack wait in cs[:nq] to be
	// added to G four at a time (linalg.SyrUpper4); c is cs[nq].
	cs [4][]float64
	nq int
	// The block's sums: pass 1's per-part energies and Gram matrix (n×n),
	// pass 2's ‖w̄‖², Z·w̄ and ZZᵀ (r×r).
	own, in, eOwn, eIn []float64
	G                  []float64
	wsq                float64
	y, gram            []float64
}

// newWork allocates a block's scratch; sums holds the length of its
// Gram matrix.
func (m *merge) newWork(sums int) *mergeWork {
	k, pw := m.k, 1+m.s.pmax
	w := &mergeWork{wz: make([][]float64, k), rowOf: make([]int, k), lo: make([]int, 0, k), hi: make([]int, 0, k)}
	for q := range w.cs {
		w.cs[q] = make([]float64, m.n)
	}
	w.c = w.cs[0]
	for i := range w.wz {
		w.wz[i] = make([]float64, pw)
	}
	w.evid, w.raw, w.kept = make([]float64, k), make([]float64, k), make([]float64, k)
	w.own, w.in, w.eOwn, w.eIn = make([]float64, k), make([]float64, k), make([]float64, k), make([]float64, k)
	if m.base != nil {
		w.wb = make([]float64, pw)
	}
	w.G = make([]float64, sums)
	return w
}

// addQueued adds the columns waiting in cs[:nq] to G, in order.
func (w *mergeWork) addQueued() {
	for _, c := range w.cs[:w.nq] {
		linalg.SyrUpper(w.G, c)
	}
	w.nq = 0
}

// addSums adds the blocks' sums in block order into dst (dst = the first
// block's, so that one block is exactly a serial loop's sums).
func addSums(dst []float64, blocks []*mergeWork, of func(w *mergeWork) []float64) {
	for b, w := range blocks {
		src := of(w)
		if b == 0 {
			copy(dst, src)
			continue
		}
		for i, v := range src {
			dst[i] += v
		}
	}
}

// newMerge checks the receiver, the parts and the base.
func (s *Learner) newMerge(a *sparse.MergeArgs) (*merge, error) {
	if s.tab.Len() != 0 || s.t != 0 {
		return nil, errors.New("merge: the receiving SON learner is not new")
	}
	if len(a.Parts) == 0 {
		return nil, errors.New("merge: no models to merge")
	}
	parts := make([]*Learner, len(a.Parts))
	for i, l := range a.Parts {
		p, err := s.mergePart(l)
		if err != nil {
			return nil, fmt.Errorf("model %d: %w", i+1, err)
		}
		parts[i] = p
	}
	var base *Learner
	if a.Base != nil {
		var err error
		if base, err = s.mergePart(a.Base); err != nil {
			return nil, fmt.Errorf("base model: %w", err)
		}
	}
	skm, ok := s.sk.(sparse.SketchMerger)
	if !ok {
		return nil, fmt.Errorf("the %s sketch cannot be merged", s.sk.Name())
	}
	return &merge{s: s, a: a, parts: parts, base: base, skm: skm, k: len(parts), diag: s.cfg.Diag}, nil
}

// count is a part's example count in the units of the sketch: W in the
// scaled-space form, t in the paper's.
func (m *merge) count(p *Learner) float64 {
	if m.s.cfg.Scaled {
		return p.w
	}
	return p.t
}

// counters sets the merged counters and each part's factor into the
// merged units (unit).
func (m *merge) counters() error {
	s, k := m.s, m.k
	ts, ws, cs := make([]float64, k), make([]float64, k), make([]float64, k)
	var t0, w0, c0 float64
	folds, rejected := 0, 0
	for i, p := range m.parts {
		ts[i], ws[i], cs[i] = p.t, p.w, m.count(p)
		folds += p.folds
		rejected += p.rejected
	}
	if base := m.base; base != nil {
		t0, w0, c0 = base.t, base.w, m.count(base)
		folds -= (k - 1) * base.folds
		for i, p := range m.parts {
			if p.t < t0 || p.tab.Len() < base.tab.Len() {
				return fmt.Errorf("model %d has seen fewer examples or features than the base (%v against %v rounds): it was not trained from the base (-i)", i+1, p.t, t0)
			}
		}
	}
	s.t, s.w = sparse.MergedSum(ts, t0), sparse.MergedSum(ws, w0)
	s.folds, s.rejected = max(folds, 0), rejected
	share := 1.0
	if m.base != nil {
		var sum float64
		for _, c := range cs {
			sum += c
		}
		if sum > 0 {
			share = sparse.MergedSum(cs, c0) / sum
		}
	}
	m.unit = make([]float64, k)
	for i := range m.parts {
		m.unit[i] = math.Sqrt(share)
		if s.cfg.Scaled && ws[i] > 0 {
			m.unit[i] = math.Sqrt(share * s.w / ws[i])
		}
	}
	m.ws, m.cs = ws, cs
	return nil
}

// stack collects the parts' sketch rows (their Basis) and the union of
// their features, and allocates the per-feature scratch.
func (m *merge) stack() error {
	k := m.k
	m.sks = make([]sparse.Sketch, k)
	m.Cs = make([][]float64, k)
	m.qs, m.ps = make([]int, k), make([]int, k)
	m.offs = make([]int, k+1)
	tabs := make([]*sparse.Table, k)
	for i, p := range m.parts {
		pm, ok := p.sk.(sparse.SketchMerger)
		if !ok {
			return fmt.Errorf("model %d: its %s sketch cannot be merged", i+1, p.sk.Name())
		}
		m.sks[i] = p.sk
		m.Cs[i], m.qs[i] = pm.Basis()
		m.ps[i] = len(p.st.Z)
		m.offs[i+1] = m.offs[i] + m.qs[i]
		tabs[i] = p.tab
	}
	m.n = m.offs[k]
	m.u = sparse.NewUnion(tabs...)
	d := len(m.u.Keys)
	m.dd, m.wbar = make([]float64, d), make([]float64, d)
	if m.s.uOff != 0 {
		m.iu = make([]float64, d)
	}
	if m.s.cfg.UnitRMS {
		m.usq, m.un = make([]float64, d), make([]float64, d)
	}
	m.own, m.in = make([]float64, k), make([]float64, k)
	m.eOwn, m.eIn = make([]float64, k), make([]float64, k)
	return nil
}

// load reads feature j of every part into w.wz and w.rowOf.
func (m *merge) load(w *mergeWork, j int) {
	for i, p := range m.parts {
		r := m.u.Row(i, j)
		w.rowOf[i] = r
		if r >= 0 {
			p.refreshed(r, w.wz[i])
		}
	}
}

// column writes the stacked, converted sketch column of feature j into
// w.c (len n), zero outside the segments w.lo/w.hi of the parts that hold
// the feature; load(j) must have run. With acc, it adds each part's
// energy in this column before (own) and after (in) the conversion.
func (m *merge) column(w *mergeWork, j int, acc bool) {
	c := w.c
	clear(c)
	w.lo, w.hi = w.lo[:0], w.hi[:0]
	for i, p := range m.parts {
		r := w.rowOf[i]
		if r < 0 || m.qs[i] == 0 {
			continue
		}
		if s := len(w.hi); s > 0 && w.hi[s-1] == m.offs[i] {
			w.hi[s-1] += m.qs[i] // one segment for adjacent parts
		} else {
			w.lo, w.hi = append(w.lo, m.offs[i]), append(w.hi, m.offs[i]+m.qs[i])
		}
		f := m.unit[i]
		if m.diag {
			f *= math.Sqrt((diag0 + p.tab.Rows[p.wOff(r)+p.dOff]) / (diag0 + m.dd[j]))
			f *= m.unitRatio(p, r, j)
		}
		zc := w.wz[i][1 : 1+m.ps[i]]
		C, q, pi := m.Cs[i], m.qs[i], m.ps[i]
		for a := 0; a < q; a++ {
			v := linalg.Dot(C[a*pi:a*pi+pi], zc)
			c[m.offs[i]+a] = f * v
			if acc {
				w.own[i] += v * v
				w.in[i] += f * v * f * v
			}
		}
	}
}

// baseWeight is the base's raw weight and Σg² for key: what every part
// started from (0, 0 without a base or where the base never saw it).
func (m *merge) baseWeight(w *mergeWork, key uint32) (w0, dd0, iu0 float64) {
	base := m.base
	if base == nil {
		return 0, 0, 0
	}
	r := base.tab.Find(key)
	if r < 0 {
		return 0, 0, 0
	}
	base.refreshed(r, w.wb)
	pz := len(base.st.Z)
	w0 = w.wb[0] + linalg.Dot(base.b[:pz], w.wb[1:1+pz])
	if m.diag {
		o := base.wOff(r)
		dd0 = base.tab.Rows[o+base.dOff]
		w0 *= base.tab.Rows[o+base.dOff+1]
	}
	if base.uOff != 0 {
		iu0 = base.tab.Rows[base.wOff(r)+base.uOff]
		w0 *= iu0
	}
	return w0, dd0, iu0
}

// Parts trained apart keep a feature's unit u_j (Config.Unit) from their
// own values of it, so their Σg² and pre-scaled columns are in units that
// differ by (u_ij/u_j)². The merged feature's u_j is the largest |x_j|
// that the base and the parts have seen, or under Config.UnitRMS the
// root mean square of all their values (featureUnit), as one learner on
// the whole stream would have it; a part's Σg² is converted
// by unitRatio², its sketch column by unitRatio. Without Config.Unit both
// are 1. A part with no unit for the feature has seen only zero values of
// it: its Σg², weight and column are zero, and so is the ratio.

// featureUnit sets the merged 1/u_j of feature j (loaded) from the base's
// iu0 or the parts', and returns it (1 without Config.Unit).
func (m *merge) featureUnit(wk *mergeWork, j int, iu0 float64) float64 {
	if m.iu == nil {
		return 1
	}
	if m.un != nil {
		return m.rmsFeatureUnit(wk, j)
	}
	iu := iu0
	for i, p := range m.parts {
		if r := wk.rowOf[i]; r >= 0 {
			if v := p.tab.Rows[p.wOff(r)+p.uOff]; v != 0 && (iu == 0 || v < iu) {
				iu = v // 1/u: the largest u
			}
		}
	}
	m.iu[j] = iu
	return iu
}

// rmsFeatureUnit is featureUnit under Config.UnitRMS: the merged sums are
// the base's and every part's own additions to them (its sums less the
// base's, which it started from), as one learner on the whole stream
// would have them. u_j is, of the base's and the parts' own, the largest
// 1/u_j that the learner's rule (inBand) would keep against the
// merged sums, or else their root mean square: the parts' order does not
// matter, and merging one part, or copies of the base, changes nothing.
func (m *merge) rmsFeatureUnit(wk *mergeWork, j int) float64 {
	var sq0, n0, iu0 float64
	if base := m.base; base != nil {
		if r := base.tab.Find(m.u.Keys[j]); r >= 0 {
			o := base.wOff(r) + base.uOff
			iu0, sq0, n0 = base.tab.Rows[o], base.tab.Rows[o+1], base.tab.Rows[o+2]
		}
	}
	sq, n := sq0, n0
	for i, p := range m.parts {
		if r := wk.rowOf[i]; r >= 0 {
			o := p.wOff(r) + p.uOff
			sq += max(0, p.tab.Rows[o+1]-sq0)
			n += max(0, p.tab.Rows[o+2]-n0)
		}
	}
	sq = sat(sq)
	kept := 0.0
	keep := func(iu float64) {
		if iu != 0 && inBand(iu, sq, n) {
			kept = max(kept, iu)
		}
	}
	keep(iu0)
	for i, p := range m.parts {
		if r := wk.rowOf[i]; r >= 0 {
			keep(p.tab.Rows[p.wOff(r)+p.uOff])
		}
	}
	if kept == 0 {
		kept = rmsUnit(sq, n)
	}
	m.usq[j], m.un[j], m.iu[j] = sq, n, kept
	return kept
}

// unitRatio is u_ij/u_j: the factor from part p's pre-scaled units of
// feature j (row r) into the merged ones (featureUnit must have run).
func (m *merge) unitRatio(p *Learner, r, j int) float64 {
	if m.iu == nil {
		return 1
	}
	iu := p.tab.Rows[p.wOff(r)+p.uOff]
	if iu == 0 {
		return 0
	}
	return m.iu[j] / iu
}

// weight sets the merged w̄_j and D_j of feature j (loaded) from the parts'
// raw weights and evidence, and adds the parts' diagonal energy in it:
// with e_ij = Σg² of part i (the stored D − 0.1), (C_i)_jj = e_ij/(0.1 +
// e_ij) before the change of coordinates (eOwn) and e_ij/(0.1 + e_j)
// after it (eIn), which multiplies column j by (0.1 + e_ij)/(0.1 + e_j)
// as it does the sketch's columns (see Σ‖ĝ‖² in Merge's doc comment).
func (m *merge) weight(wk *mergeWork, j int, w0, dd0 float64) {
	ddj := dd0
	for i, p := range m.parts {
		r := wk.rowOf[i]
		wk.evid[i], wk.raw[i], wk.kept[i] = 0, 0, w0
		if r < 0 {
			continue
		}
		pz := m.ps[i]
		w := wk.wz[i][0] + linalg.Dot(p.b[:pz], wk.wz[i][1:1+pz])
		if m.diag {
			o := p.wOff(r)
			ur := m.unitRatio(p, r, j)
			ev := math.Max(0, p.tab.Rows[o+p.dOff]*ur*ur-dd0)
			ddj += ev
			w *= p.tab.Rows[o+p.dOff+1]
			if p.uOff != 0 {
				w *= p.tab.Rows[o+p.uOff]
			}
			wk.evid[i] = ev
		}
		wk.raw[i], wk.kept[i] = w, w
	}
	var w float64
	ok := false
	if m.a.Weighting.Evidence() {
		w, ok = sparse.EvidenceAverage(dd0, wk.evid, wk.kept)
	}
	if !ok {
		w = sparse.Weigh(m.cs, wk.raw)
	}
	m.dd[j] = ddj
	if m.diag {
		w *= math.Sqrt(diag0 + ddj)
		if m.iu != nil {
			if m.iu[j] == 0 {
				w = 0 // no part has seen a nonzero value: all weights are 0
			} else {
				w /= m.iu[j]
			}
		}
		for i, p := range m.parts {
			if r := wk.rowOf[i]; r >= 0 {
				e := p.tab.Rows[p.wOff(r)+p.dOff]
				ur := m.unitRatio(p, r, j)
				wk.eOwn[i] += e / (diag0 + e)
				wk.eIn[i] += e * ur * ur / (diag0 + ddj)
			}
		}
	}
	m.wbar[j] = w
}

// weights is pass 1: the merged weights and D, and the Gram matrix G of
// the stack, by blocks of features on every core.
func (m *merge) weights() {
	n := m.n
	m.G = make([]float64, n*n)
	d := len(m.u.Keys)
	blocks := make([]*mergeWork, sparse.Blocks(d, sparse.MergeBlock))
	sparse.ForBlocks(d, sparse.MergeBlock, func(b, lo, hi int) {
		w := m.newWork(n * n)
		for j := lo; j < hi; j++ {
			m.load(w, j)
			w0, dd0, iu0 := m.baseWeight(w, m.u.Keys[j])
			if iu := m.featureUnit(w, j, iu0); iu0 != 0 {
				dd0 *= (iu / iu0) * (iu / iu0) // the base's Σg'² in the merged units
			}
			m.weight(w, j, w0, dd0)
			if n == 0 {
				continue
			}
			w.c = w.cs[w.nq]
			m.column(w, j, true)
			if len(w.lo) == 1 && w.lo[0] == 0 && w.hi[0] == n {
				if w.nq++; w.nq == len(w.cs) {
					linalg.SyrUpper4(w.G, w.cs[0], w.cs[1], w.cs[2], w.cs[3])
					w.nq = 0
				}
				continue
			}
			w.addQueued() // G's terms stay in feature order
			linalg.SyrUpperSegments(w.G, w.c, w.lo, w.hi)
		}
		w.addQueued()
		blocks[b] = w
	})
	addSums(m.G, blocks, func(w *mergeWork) []float64 { return w.G })
	addSums(m.own, blocks, func(w *mergeWork) []float64 { return w.own })
	addSums(m.in, blocks, func(w *mergeWork) []float64 { return w.in })
	addSums(m.eOwn, blocks, func(w *mergeWork) []float64 { return w.eOwn })
	addSums(m.eIn, blocks, func(w *mergeWork) []float64 { return w.eIn })
	linalg.MirrorUpper(m.G, n)
}

// sumG2 is the merged Σ‖ĝ‖², converted as the sketch: the energy part i's
// sketch captures by the factor its rows' energy took in the stack
// (in/own), the rest by the factor of its diagonal energy, feature by
// feature (eIn/eOwn). Pass 1 must have run.
func (m *merge) sumG2() float64 {
	var sumG2 float64
	for i, p := range m.parts {
		rd := m.unit[i] * m.unit[i]
		if m.diag && m.eOwn[i] > 0 {
			rd *= m.eIn[i] / m.eOwn[i]
		}
		ri := rd
		if m.own[i] > 0 {
			ri = m.in[i] / m.own[i]
		}
		// ri·captured + rd·(Σ‖ĝ‖² − captured), the latter ≥ 0.
		capt := p.sk.Captured()
		sumG2 += rd*math.Max(p.sumG2, capt) + (ri-rd)*capt
	}
	return sumG2
}

// apply is pass 2, the sketch's SketchMerge.Apply: the merged table, with
// Z = T·(the stacked rows); it returns the new ZZᵀ. The rows are added in
// the union's order first, then filled by blocks of features on every
// core.
func (m *merge) apply(T []float64, r int) []float64 {
	s, n := m.s, m.n
	m.applied++
	if m.applied > 1 || r < 0 || r > s.pmax || len(T) < r*n {
		panic(fmt.Sprintf("son: bad merge transform (%d rows of %d, call %d)", r, n, m.applied))
	}
	s.tab.AddRows(m.u)
	d := len(m.u.Keys)
	blocks := make([]*mergeWork, sparse.Blocks(d, sparse.MergeBlock))
	sparse.ForBlocks(d, sparse.MergeBlock, func(b, lo, hi int) {
		w := m.newWork(0)
		w.y, w.gram = make([]float64, s.pmax), make([]float64, r*r)
		for j := lo; j < hi; j++ {
			m.applyFeature(w, T, r, j)
		}
		blocks[b] = w
	})
	m.y = make([]float64, s.pmax)
	gram := make([]float64, r*r)
	addSums(m.y, blocks, func(w *mergeWork) []float64 { return w.y })
	addSums(gram, blocks, func(w *mergeWork) []float64 { return w.gram })
	for b, w := range blocks {
		if b == 0 {
			m.wsq = w.wsq
		} else {
			m.wsq += w.wsq
		}
	}
	linalg.MirrorUpper(gram, r)
	return gram
}

// applyFeature writes row j of the merged table (feature j of the union)
// and adds it to the block's ‖w̄‖², Z·w̄ and ZZᵀ.
func (m *merge) applyFeature(w *mergeWork, T []float64, r, j int) {
	s, n := m.s, m.n
	m.load(w, j)
	m.column(w, j, false)
	o := s.wOff(j)
	rows := s.tab.Rows
	wj := m.wbar[j]
	rows[o] = wj
	z := rows[o+1 : o+1+r]
	for l := range z {
		z[l] = linalg.Dot(T[l*n:l*n+n], w.c)
	}
	if m.diag {
		rows[o+s.dOff] = m.dd[j]
		rows[o+s.dOff+1] = 1 / math.Sqrt(diag0+m.dd[j])
	}
	if m.iu != nil {
		rows[o+s.uOff] = m.iu[j]
	}
	if m.un != nil {
		rows[o+s.uOff+1], rows[o+s.uOff+2] = m.usq[j], m.un[j]
	}
	w.wsq += wj * wj
	for l, zl := range z {
		if zl != 0 {
			w.y[l] += wj * zl
		}
	}
	linalg.SyrUpper(w.gram, z)
}

// finish sets the merged learner's derived state once the sketch has
// written Z, and refuses a merged model that is not finite.
func (m *merge) finish() error {
	s := m.s
	p := s.sk.Rows()
	clear(s.b)
	s.st.Z = s.z[:p]
	if s.lz.on {
		s.lz.stamp = make([]uint32, s.tab.Len())
		s.lz.touched = s.tab.Len() > 0
		copy(s.y, m.y)
	}
	s.wsq, s.w0sq = m.wsq, m.wsq
	if s.cfg.Scaled && s.w > 0 {
		s.setAlpha(s.w)
	}
	if !linalg.AllFinite(s.tab.Rows) || !linalg.AllFinite([]float64{s.t, s.w, s.sumG2, s.wsq}) || !linalg.AllFinite(s.y) {
		return errors.New("merge: the merged SON model is not finite")
	}
	return nil
}

// mergePart checks that l is a SON learner configured as s.
func (s *Learner) mergePart(l sparse.Learner) (*Learner, error) {
	p, ok := l.(*Learner)
	switch {
	case !ok:
		return nil, fmt.Errorf("a %T is not a SON learner", l)
	case p.cfg != s.cfg:
		return nil, errors.New("it was trained with another SON configuration")
	case p.sk.Name() != s.sk.Name() || p.pmax != s.pmax:
		return nil, fmt.Errorf("its sketch is %s with up to %d rows, not %s with %d", p.sk.Name(), p.pmax, s.sk.Name(), s.pmax)
	}
	return p, nil
}

// Rekey implements sparse.Rekeyer.
func (s *Learner) Rekey(f func(slot uint32) uint32) error { return s.tab.Rekey(f) }

// Basis implements sparse.SketchMerger: no rows.
func (n *NoSketch) Basis() ([]float64, int) { return nil, 0 }

// Merge implements sparse.SketchMerger: there is nothing to merge (α is the
// configured one, or the SON core's).
func (n *NoSketch) Merge(m *sparse.SketchMerge) error {
	for _, p := range m.Parts {
		if _, ok := p.(*NoSketch); !ok {
			return fmt.Errorf("cannot merge a %s sketch into none", p.Name())
		}
	}
	m.Apply(nil, 0)
	return nil
}
