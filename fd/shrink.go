package fd

import (
	"math"

	"github.com/sparseson/sparseson/internal/linalg"
	"github.com/sparseson/sparseson/sparse"
)

// shrink is one step of FD/RFD on the full buffer [S; ĝᵀ] (docs/algorithms.md §4):
// decompose its Gram matrix, choose absorb, append or compact-and-retry,
// and apply the choice.
func (s *Sketch) shrink(st *sparse.Step, h sparse.Host, c, kap float64, zero bool) {
	s.cnt.Shrinks++
	s.gateOn = s.cfg.Gate > 0 && st.Seen >= s.gateFrom
	s.pcap = s.pmax
	if s.gateOn {
		s.pcap = min(s.pmax, s.gatedCap())
	}
	for compacted := false; ; compacted = true {
		z := st.Z[:s.p]
		// A compaction recomputes the shrink, dropped directions included.
		s.pendDrops, s.pendDropA, s.gateTries = 0, 0, 0
		keep, rho, done := s.decompose(z, c, kap, zero)
		if done {
			return
		}
		if zero || keep == 0 {
			s.commit(keep, rho)
			return
		}
		s.gateRho = rho
		mv, k := s.choose(z, c, kap, keep, compacted)
		keep = k
		switch mv {
		case moveAbsorb:
			s.doAbsorb(h, keep, rho, c, kap, z)
			return
		case moveAppend:
			s.doAppend(h, keep, rho, c, kap, z)
			return
		}
		s.compact(h, s.p < s.pcap)
	}
}

// decompose is steps 1–2 of the shrink: it eigendecomposes the Gram matrix
// G of [S; ĝᵀ] (ĝ left out if zero), chooses the kept rows E′ = λ_{1:keep}
// − ρ (in eNew) and forms F_ext = [F_a | f] (fa, stride pmax+1, with f
// also in fext). done reports that the shrink is already finished (nothing
// to decompose, a non-finite G, or every row dead).
func (s *Sketch) decompose(z []float64, c, kap float64, zero bool) (keep int, rho float64, done bool) {
	q := s.q
	g := q
	if !zero {
		g = q + 1
	}
	if g == 0 {
		s.nb = s.m - 1
		return 0, 0, true
	}
	lam, U := s.lam[:g], s.u[:g*g]
	if !s.eigGram(z, c, kap, zero, lam, U) {
		// Only non-finite input gets here: drop ĝ, keep the buffer full.
		s.cnt.Skipped++
		s.nb = s.lb - 1
		return 0, 0, true
	}
	s.nb = s.m - 1
	top := lam[0]
	if !(top > 0) {
		// Nothing left: every row is dead.
		s.setDiag(0)
		return 0, 0, true
	}
	for i := range lam {
		if lam[i] <= EigTol*top {
			lam[i] = 0
		}
	}
	keep, rho = shrinkValues(lam, s.m, s.eNew)
	for i := 0; i < keep; i++ {
		s.cols[i] = i
		s.finv[i] = 1 / math.Sqrt(lam[i])
		if !zero {
			s.fext[i] = U[q*g+i] * s.finv[i]
		}
	}
	s.faDone = false
	s.zeroG = zero
	// The gated sketch's lean case (choose) drops a direction before it
	// reads F_a: forming it then spares the dropped row.
	if !s.leanCase(keep, zero) {
		s.formFa(keep)
	}
	return keep, rho, false
}

// ensureFa forms F_ext's rows if the lean case left them for later.
func (s *Sketch) ensureFa(keep int) {
	if !s.faDone {
		s.formFa(keep)
	}
}

// leanCase reports whether the gated sketch skips the absorb candidate as
// infeasible (choose): every direction of [S; ĝᵀ] is kept.
func (s *Sketch) leanCase(keep int, zero bool) bool {
	return s.gateOn && !zero && keep == s.q+1 && !s.leanOff
}

// formFa forms F_ext = Λ^{−1/2}U_{:,cols}ᵀ·[[C, 0], [0, 1]] = [F_a | f]
// (fa, stride pmax+1) for the keep rows the shrink keeps (cols, finv,
// fext).
//
// F_a's row i is Σ_j (U_{j,col_i}·λ_i^{−1/2})·C_j, one axpy per nonzero
// weight in j's order; linalg's FormRows gives those bits (TestFormFaBits)
// with four rows of F_a × four columns held in registers (SSE2 on amd64)
// instead of loading and storing the row once per row of C: news20, m =
// 10, 3 cached passes, 153e6 → 82e6 instructions. (MulRows, with the
// weights in a matrix first, took 170e6: its per-call set-up is as large
// as these products.)
func (s *Sketch) formFa(keep int) {
	p, q, pm, fs := s.p, s.q, s.pmax, s.pmax+1
	g := q + 1
	if s.zeroG {
		g = q
	}
	s.faRows.FormRows(s.fa, fs, s.u[:g*g], g, s.cols[:keep], s.finv[:keep], s.C, pm, keep, q, p)
	if !s.zeroG {
		for i := 0; i < keep; i++ {
			s.fa[i*fs+p] = s.fext[i]
		}
	}
	s.faDone = true
}

// eigGram eigendecomposes the Gram matrix G of [S; ĝᵀ] (g×g, g = q or
// q+1 without or with ĝ) into lam (descending) and U (stride g). In the
// diagonal state G = [[diag E, c·Cz], [·, κ]] is an arrowhead and goes to
// the O(g²) arrowhead solver (linalg.Arrowhead) unless Config.Dsyev is set or the
// solver cannot vouch for its result; a zero ĝ leaves diag(E) itself. The
// buffered state's G = CKCᵀ bordered (the warm-up's first shrink, and every
// shrink of the doubled buffer) is a general symmetric matrix and goes to
// LAPACK's Dsyev. Its rank structure — diag(E) plus one rank-one term per
// buffered row — would allow one arrowhead step per buffered row instead
// (keeping the diagonal state throughout), but each step must also rotate
// C, O(g²·p) per example, against the doubled buffer's amortized
// O((2m)³/m) for Dsyev every m examples (about 12m³ against 72m² flops
// with p ≈ 3m); so the doubled buffer keeps Dsyev.
func (s *Sketch) eigGram(z []float64, c, kap float64, zero bool, lam, U []float64) bool {
	q := s.q
	g := len(lam)
	if s.diag && !s.cfg.Dsyev {
		E := s.E[:q]
		if zero {
			if descending(E) {
				copy(lam, E)
				clear(U)
				for i := 0; i < g; i++ {
					U[i*g+i] = 1
				}
				return true
			}
		} else {
			v, w := s.y1[:q], s.y2[:q]
			s.cz(v, z)
			for i := range w {
				w[i] = c * v[i]
			}
			if s.arrow.Solve(E, w, kap, lam, U) {
				return true
			}
		}
		s.cnt.EigFallbacks++
	}
	G := s.g[:g*g]
	if s.diag {
		clear(G)
		for i := 0; i < q; i++ {
			G[i*g+i] = s.E[i]
		}
	} else {
		W := s.gramW()
		for i := 0; i < q; i++ {
			copy(G[i*g:i*g+q], W[i*q:i*q+q])
		}
	}
	if !zero {
		v := s.y1[:q]
		s.cz(v, z)
		for i := 0; i < q; i++ {
			G[i*g+q] = c * v[i]
			G[q*g+i] = c * v[i]
		}
		G[q*g+q] = kap
	}
	return linalg.EigSym(g, G, lam, U, s.work)
}

func descending(x []float64) bool {
	for i := 1; i < len(x); i++ {
		if !(x[i] <= x[i-1]) {
			return false
		}
	}
	return true
}

// A move is the shrink's choice for a nonzero ĝ.
type move int

const (
	moveAbsorb  move = iota // Z ← Z + δĝᵀ (§4 step 3)
	moveAppend              // Z ← [Z; ĝᵀ] (§4 step 4)
	moveCompact             // compact, then decompose again (§4 step 5)
)

// choose picks the move (see the package comment): absorb if it is possible,
// within the row band and κ̂ ≤ θ; else append if Z has a free row and κ̂ ≤ θ;
// else compact once and retry, and after that the better-conditioned of the
// two. A gate that acts drops directions first (gateDrop) and returns the
// rows it keeps. The absorb candidate is left in dlt and k2.
func (s *Sketch) choose(z []float64, c, kap float64, keep int, compacted bool) (move, int) {
	p := s.p
	var kab float64
	var okAb, band bool
	lean := s.leanCase(keep, false)
	if lean {
		// The lean path of the gated sketch (gate.go): every direction of
		// [S; ĝᵀ] is kept, and F_a = Λ^{−1/2}U_{:,1:keep}ᵀ·[C; 0] has rank
		// at most q < keep, so the absorb is infeasible — the common case
		// on sparse text (three in five shrinks on news20), where the
		// general candidate's LQ, K′ and κ̂ would only find that out.
		kab = math.Inf(1)
	} else {
		kab, okAb, band = s.absorbCandidate(z, c, kap, keep, compacted)
	}
	if !compacted {
		switch {
		case band:
			s.cnt.AbsorbBand++
		case !okAb:
			s.cnt.AbsorbInfeasible++
		case kab > s.theta:
			s.cnt.AbsorbIllCond++
		}
	}
	for s.gateOn && !(okAb && kab <= s.theta) {
		s.gateTries++
		k, ok := s.gateDrop(keep)
		if !ok {
			break
		}
		keep = k
		// One drop from the lean case: the lean candidate first (lean.go).
		s.leanTry = lean && s.gateTries == 1
		kab, okAb, _ = s.absorbCandidate(z, c, kap, keep, compacted)
		s.leanTry = false
	}
	if okAb && kab <= s.theta {
		return moveAbsorb, keep
	}
	s.ensureFa(keep)
	// Append candidate: K_ext = [[K, a], [aᵀ, κ]], F_ext = [F_a | f].
	kap2 := math.Inf(1)
	if p < s.pcap {
		a := s.vq[:p]
		for i, v := range z {
			a[i] = c * v
		}
		kap2 = s.condEst(s.K, p, keep, a, kap)
		if !linalg.IsFinite(kap2) {
			kap2 = math.Inf(1)
		}
	}
	switch {
	case p < s.pcap && kap2 <= s.theta:
		return moveAppend, keep
	case !compacted:
		return moveCompact, keep
	case okAb && (p >= s.pcap || kab <= kap2):
		return moveAbsorb, keep
	default:
		return moveAppend, keep
	}
}

// absorbCandidate solves F_a δ = f and forms K′ = K + δaᵀ + aδᵀ + κδδᵀ
// (a = c·z): δ into dlt, K′ only where its κ̂ must be computed (exact,
// or when the cosines' bound cannot vouch for it; doAbsorb forms it in
// place). It returns the candidate's κ̂ — exactly when exact, else a value
// on the same side of θ — whether the absorb is possible and keeps the row
// band, and whether it exists but breaks the band.
func (s *Sketch) absorbCandidate(z []float64, c, kap float64, keep int, exact bool) (kab float64, okAb, band bool) {
	p, pm, fs := s.p, s.pmax, s.pmax+1
	kab = math.Inf(1)
	if keep > p {
		return kab, false, false
	}
	s.ensureFa(keep)
	// Solve in the row-equilibrated basis Ẑ = D⁻¹Z (D = diag(K)^{1/2}):
	// (F_aD)δ̂ = f with least ‖δ̂‖, δ = Dδ̂. This minimizes the relative
	// change Σ(δ_j‖ĝ‖/‖Z_j‖)² of the rows of Z, and the solve's backward
	// error is then relative to each column of F_aD, not to the largest
	// column of F_a.
	dd := s.dsc[:p]
	for j := 0; j < p; j++ {
		dd[j] = math.Sqrt(max(s.K[j*pm+j], 0))
		if !(dd[j] > 0) || !linalg.IsFinite(dd[j]) {
			dd[j] = 1
		}
	}
	cs := s.dsc2[:p]
	if s.leanTry && !exact && keep == s.q && !s.leanSolveOff && s.gateLimit == nil && s.leanDelta(keep, kap) {
		// The lean candidate (lean.go), kept if the absorb it gives is
		// accepted; else the general one below.
		clear(cs)
		for i := 0; i < keep; i++ {
			for j, v := range s.fa[i*fs:][:p] {
				x := v * dd[j]
				cs[j] += x * x
			}
		}
		kab, okAb, band = s.judgeAbsorb(z, c, kap, keep, exact, dd)
		if okAb && kab <= s.theta {
			s.leanSolves++
			return kab, okAb, band
		}
		kab = math.Inf(1)
		// condEst reused dsc: the row norms again.
		for j := 0; j < p; j++ {
			dd[j] = math.Sqrt(max(s.K[j*pm+j], 0))
			if !(dd[j] > 0) || !linalg.IsFinite(dd[j]) {
				dd[j] = 1
			}
		}
	}
	// With A = F_aD its column sums of squares cs, from which the κ̂
	// bound below takes ‖F_aD′‖_F² (D′ the new row norms) without another
	// pass over F_a.
	A := s.qa[:keep*p]
	clear(cs)
	for i := 0; i < keep; i++ {
		src := s.fa[i*fs:][:p] // of dd's and cs's length: no bounds checks below
		row := A[i*p:][:p]
		for j, v := range src {
			x := v * dd[j]
			row[j] = x
			cs[j] += x * x
		}
	}
	if !minNormRows(A, keep, p, p, s.fext[:keep], s.dlt, s.tau, s.ys) {
		return kab, false, false
	}
	d := s.dlt[:p]
	for j := range d {
		d[j] *= dd[j]
	}
	return s.judgeAbsorb(z, c, kap, keep, exact, dd)
}

// judgeAbsorb is absorbCandidate's verdict on the candidate δ in dlt (dd
// the row norms of Z, dsc2 the column sums of squares of F_a·diag(dd)).
func (s *Sketch) judgeAbsorb(z []float64, c, kap float64, keep int, exact bool, dd []float64) (kab float64, okAb, band bool) {
	p, pm := s.p, s.pmax
	d := s.dlt[:p]
	// The absorb adds δ_jĝ to row j of Z: when that swamps the row,
	// its old content (and w̄ through Host.Absorb's compensation)
	// keeps only ε·|δ̂_j|‖ĝ‖ relative accuracy, and the residual of
	// the solve enters V′ as (F_aδ − f)ĝᵀ. Count that amplification
	// along with the conditioning of the new basis.
	gn := math.Sqrt(kap)
	// Row j becomes Z_j + δ_jĝ, computed to ε·(‖Z_j‖ + |δ_j|‖ĝ‖):
	// relative to the new row that loses a factor (‖Z_j‖ +
	// |δ_j|‖ĝ‖)/‖Z_j + δ_jĝ‖ (cancellation), and relative to the old
	// one a factor 1 + |δ_j|‖ĝ‖/‖Z_j‖ (swamping) — which is also the
	// factor by which Host.Absorb's exactly cancelling changes
	// w̄ −= ĝ(δ·b), Zᵀb += ĝ(δ·b) can exceed the weights they
	// carry (b_j‖Z_j‖ is bounded by the core's fold guard). Count the
	// larger of the two along with the conditioning of the new
	// basis, and keep the row norms within the band (Config.RowBand).
	// The new row norms are K′'s diagonal, each entry computed as
	// kPrime computes it.
	nd := s.ndg[:p]
	z = z[:p]
	for i := range nd {
		nd[i] = (s.K[i*pm+i] + (c*d[i])*z[i]) + (c*z[i]+kap*d[i])*d[i]
	}
	var sw, dmin, dmax float64
	dmin = math.Inf(1)
	for j := range d {
		nj := math.Sqrt(max(nd[j], 0))
		if d[j] != 0 {
			sw = max(sw, (s.dsc[j]+math.Abs(d[j])*gn)/min(nj, s.dsc[j]))
		}
		dmin, dmax = min(dmin, nj), max(dmax, nj)
	}
	inBand := dmax*dmax <= s.band && dmin*dmin*s.band >= 1
	kab = sw * sw
	// κ̂ = ‖D′⁻¹K′D′⁻¹‖_F·‖F_aD′‖_F² (condEst) needs all of K′ only when
	// its value decides: the absorb is otherwise refused already (band,
	// or swamping alone beyond θ), and every entry of the equilibrated
	// Gram matrix D′⁻¹K′D′⁻¹ is a cosine, so its Frobenius norm is at
	// most p and p·‖F_aD′‖_F² ≤ θ vouches for κ̂ ≤ θ. Only after a
	// compaction (exact) is the value itself compared (choose).
	if exact || s.kabExact || (inBand && kab <= s.theta && !(float64(p)*s.faNorm(nd, dd)*(1+cosSlack) <= s.theta)) {
		s.kPrime(s.k2, z, c, kap, false)
		kab = math.Max(s.condEst(s.k2, p, keep, nil, 0), kab)
	} else if inBand && kab <= s.theta {
		kab = math.Max(float64(p)*s.faNorm(nd, dd), kab)
		s.kabBounded++
	}
	okAb = linalg.IsFinite(kab) && inBand
	band = linalg.IsFinite(kab) && !okAb
	return kab, okAb, band
}

// cosSlack is the rounding allowed in the cosines' bound (absorbCandidate):
// K′ is K's running sum of rank-two updates, whose entries may leave
// Cauchy–Schwarz by rounding, far below this.
const cosSlack = 1e-6

// faNorm is ‖F_aD′‖_F² for D′ = diag(nd)^{1/2}, from the column sums of
// squares of F_aD (dsc2, absorbCandidate) and D = diag(dd). It is only
// compared with θ, with a margin, so it need not round as condEst does.
func (s *Sketch) faNorm(nd, dd []float64) float64 {
	var s2 float64
	for j, v := range s.dsc2[:len(nd)] {
		s2 += v * (max(nd[j], 0) / (dd[j] * dd[j]))
	}
	return s2
}

// kPrime forms the absorb's K′ = K + δaᵀ + aδᵀ + κδδᵀ (a = c·z, δ in dlt)
// into dst (stride pmax; dst is K itself when inPlace): K′_ij = K_ij +
// (cδ_i)z_j + (cz_i + κδ_i)δ_j on and above the diagonal, two vector
// updates per row in one pass (axpy2); the lower triangle mirrors it, so
// that K stays exactly symmetric. In place it also returns kBound(K′),
// summed row by row as each row is finished (its lower part came from
// the rows above) — kBound's sums in kBound's order, without a second
// pass over K′.
func (s *Sketch) kPrime(dst, z []float64, c, kap float64, inPlace bool) (knorm float64) {
	p, pm := s.p, s.pmax
	d := s.dlt[:p]
	var inf, sq float64
	for i := 0; i < p; i++ {
		row := dst[i*pm+i : i*pm+p]
		if !inPlace {
			copy(row, s.K[i*pm+i:i*pm+p])
		}
		a, b := c*d[i], c*z[i]+kap*d[i]
		col := dst[i*pm+i:]
		if !inPlace {
			linalg.Axpy2(a, z[i:p], b, d[i:p], row)
			for j, v := range row {
				col[j*pm] = v
			}
			continue
		}
		// The norms' sums take the row's left part (mirrored by the
		// rows above) first, then the new part as it is updated (Axpy2's
		// expression) and mirrored, in one pass over the row.
		var r float64
		for _, v := range dst[i*pm : i*pm+i] {
			r += math.Abs(v)
			sq += v * v
		}
		zi, di := z[i:p], d[i:p]
		zi, di = zi[:len(row)], di[:len(row)]
		for j, v := range row {
			v = (v + a*zi[j]) + b*di[j]
			row[j] = v
			col[j*pm] = v
			r += math.Abs(v)
			sq += v * v
		}
		inf = max(inf, r)
	}
	if !inPlace {
		return 0
	}
	if !(sq > 1e-280 && sq < 1e280) {
		return min(inf, frob(dst, p, p, pm))
	}
	return min(inf, math.Sqrt(sq))
}

// condEst is the condition estimate κ̂ of a candidate basis: K (p×p,
// stride pmax; bordered by a and κ when a is not nil) and F = fa (keep rows,
// p or p+1 columns). With D = diag(K)^{1/2} (the row norms of Z) it is
// ‖D⁻¹KD⁻¹‖_F·‖FD‖_F² — docs/algorithms.md's ‖K‖_F·‖F‖_F² after equilibrating the
// rows of Z. Rounding in z = Zx is relative to each row's norm, and V = FZ
// magnifies it by at most ‖FD‖₂·‖(D⁻¹KD⁻¹)^{1/2}‖₂ ≤ κ̂^{1/2}; the
// unequilibrated bound also counts mere differences of scale between rows
// (an appended ĝ next to unit rows), which cost no accuracy.
func (s *Sketch) condEst(K []float64, p, keep int, a []float64, kap float64) float64 {
	pm, fs := s.pmax, s.pmax+1
	dd, inv := s.dsc[:p+1], s.dinv[:p+1]
	for j := 0; j < p; j++ {
		dd[j] = math.Sqrt(max(K[j*pm+j], 0))
		inv[j] = 0
		if dd[j] > 0 {
			inv[j] = 1 / dd[j]
		}
	}
	n := p
	if a != nil {
		dd[p] = math.Sqrt(kap)
		inv[p] = 1 / dd[p]
		n++
	}
	// ‖D⁻¹KD⁻¹‖_F² over the rows and columns with D_j > 0 (K symmetric:
	// the strict upper triangle twice, plus the diagonal).
	var s1 float64
	for i := 0; i < p; i++ {
		di := inv[i]
		if di == 0 {
			continue
		}
		row := K[i*pm : i*pm+p]
		var off float64
		for j := i + 1; j < p; j++ {
			x := row[j] * inv[j]
			off += x * x
		}
		x := row[i] * di
		s1 += (2*off + x*x) * di * di
		if a != nil {
			x := a[i] * di * inv[p]
			s1 += 2 * x * x
		}
	}
	if a != nil {
		s1++
	}
	var s2 float64
	for i := 0; i < keep; i++ {
		row := s.fa[i*fs : i*fs+n]
		for j, v := range row {
			x := v * dd[j]
			s2 += x * x
		}
	}
	return math.Sqrt(s1) * s2
}

// doAbsorb commits the absorb candidate (δ in dlt).
func (s *Sketch) doAbsorb(h sparse.Host, keep int, rho, c, kap float64, z []float64) {
	s.invalidate()
	kn := s.kPrime(s.K, z, c, kap, true)
	h.Absorb(s.dlt[:s.p])
	s.cnt.Absorbs++
	s.commit(keep, rho)
	s.knorm = kn
}

// doAppend commits the append candidate.
func (s *Sketch) doAppend(h sparse.Host, keep int, rho, c, kap float64, z []float64) {
	p, fs := s.p, s.pmax+1
	scale := s.appendRow(h, c, kap, z)
	for i := 0; i < keep; i++ {
		s.fa[i*fs+p] *= scale
	}
	s.commit(keep, rho)
}

// commit installs the shrunk sketch: C = E′^{1/2}·F_a (F_a in fa, p columns
// after any append), the diagonal state, and RFD's α.
func (s *Sketch) commit(keep int, rho float64) {
	s.invalidate()
	p, pm, fs := s.p, s.pmax, s.pmax+1
	for i := 0; i < keep; i++ {
		se := math.Sqrt(s.eNew[i])
		dst := s.C[i*pm : i*pm+p]
		src := s.fa[i*fs:][:len(dst)]
		for j := range dst {
			dst[j] = se * src[j]
		}
	}
	s.sumRho += rho
	if s.cfg.Robust {
		s.alpha += rho / 2 / s.wcur
		s.grow += rho / 2 / s.wcur
	}
	// Saturated (they are saved): α can be as small as 1e-300.
	if s.alpha > 0 {
		s.sumRhoA = min(s.sumRhoA+float64(s.m)*rho/s.alpha, math.MaxFloat64)
	}
	s.cnt.Drops += s.pendDrops
	s.sumDropA = min(s.sumDropA+s.pendDropA, math.MaxFloat64)
	s.pendDrops, s.pendDropA = 0, 0
	s.setDiag(keep)
}

// setDiag enters the diagonal state with q = keep rows and E = eNew.
func (s *Sketch) setDiag(keep int) {
	s.invalidate()
	lb := s.lb
	s.q = keep
	s.diag = true
	copy(s.E[:keep], s.eNew[:keep])
	for i := keep; i < lb; i++ {
		s.E[i] = 0
	}
	clear(s.L)
	for i := 0; i < keep; i++ {
		s.L[i*lb+i] = math.Sqrt(s.alpha + s.E[i])
	}
}

// appendRow makes ĝᵀ the new row p of Z (Host.Append), rescales it to unit
// norm by a one-row absorb — Z_p ← Z_p + (1/‖ĝ‖ − 1)ĝᵀ, touching only the
// example's columns, with b_p = 0 so that w̄ is unchanged — and borders K.
// It returns ‖ĝ‖, the factor for column p of C or F that keeps S. Rows of
// unit norm keep the row band meaningful and the core's fold bound
// ‖b‖²·ZNorm2 from counting mere differences of scale between rows.
func (s *Sketch) appendRow(h sparse.Host, c, kap float64, z []float64) float64 {
	s.invalidate()
	p, pm := s.p, s.pmax
	nrm := math.Sqrt(kap)
	sc := 1 / nrm
	for i, zi := range z {
		s.K[i*pm+p] = c * zi * sc
		s.K[p*pm+i] = c * zi * sc
	}
	s.K[p*pm+p] = 1
	h.Append()
	d := s.dlt[:p+1]
	clear(d[:p])
	d[p] = sc - 1
	h.Absorb(d)
	s.p++
	s.cnt.Appends++
	s.knorm = kBound(s.K, s.p, pm)
	return nrm
}
