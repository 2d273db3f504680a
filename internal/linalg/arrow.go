package linalg

import "math"

// arrowEig is an O(n²) eigensolver for the symmetric arrowhead matrix
//
//	G = [[diag(d), z], [zᵀ, κ]]   ((n+1)×(n+1))
//
// that every FD shrink in the diagonal state decomposes (docs/algorithms.md §4
// step 1: d = E, z = E^{1/2}∘a, κ = ‖ĝ‖²). LAPACK's Dsyev reduces G to
// tridiagonal form and iterates, O(n³); the arrowhead's eigenvalues are
// instead the roots of its secular equation and its eigenvectors have a
// closed form (Golub, "Some modified matrix eigenvalue problems", SIAM
// Review 15, 1973; Bunch, Nielsen, Sorensen, "Rank-one modification of the
// symmetric eigenproblem", Numer. Math. 31, 1978). The eigenvectors are
// made orthogonal to working precision by the device of Gu and Eisenstat
// ("A divide-and-conquer algorithm for the symmetric tridiagonal
// eigenproblem", SIAM J. Matrix Anal. Appl. 16, 1995), which LAPACK's
// dlaed3/dlaed9 (and dlasd8 for the SVD) use: from the computed
// eigenvalues, recompute the border ẑ of the arrowhead that has exactly
// those eigenvalues, and take the eigenvectors of that one.
//
// # Algorithm
//
//  1. Scale G by its largest entry (no overflow in z², no underflow for
//     the tiny), sort d ascending.
//  2. Deflate (as LAPACK's dlaed2 does for the rank-one case), with
//     tol = 8ε·max|G_ij|:
//     - |z_i| ≤ tol: (d_i, e_i) is an eigenpair to within tol; drop it.
//     - two poles d_k < d_i whose Givens rotation (c, s) = (z_i, z_k)/r,
//     r = ‖(z_k, z_i)‖, zeroes z_k at the price of an off-diagonal
//     |(d_i − d_k)cs| ≤ tol: rotate, drop that entry; (c²d_k + s²d_i,
//     rotated e_k) is an eigenpair, and the pole i moves to s²d_k + c²d_i
//     with z_i = r. This covers equal and nearly equal d (any z) and
//     unequal d where one of the two z is small.
//     What is left has distinct poles p_1 < … < p_r, every |z_i| > tol:
//     the secular function f(λ) = λ − κ + Σ z_i²/(p_i − λ) is strictly
//     increasing between consecutive poles, and its r+1 roots interlace
//     them (λ_0 < p_1 < λ_1 < … < p_r < λ_r). Each deflation perturbs G
//     by at most tol in norm, which is below Dsyev's own backward error.
//     The criteria are what the secular solver needs: a zero z_i would
//     make p_i a root of f's numerator rather than a pole, and equal
//     poles leave an empty interval; tiny ones would make the roots
//     indistinguishable from the poles in floating point.
//     κ = 0, d = 0 (all poles equal: everything rotates into one) and
//     r = 0 (the root is κ) need no special case.
//  3. Each root by safeguarded rational interpolation in a shifted
//     variable: the origin σ is the pole nearer the root (decided by the
//     sign of f at the interval's midpoint), λ = σ + τ, and all
//     differences p_i − λ are formed as (p_i − σ) − τ — exact to a few ulps
//     relative to themselves, which is what step 4 needs. The model is the
//     osculating two-pole rational of Bunch–Nielsen–Sorensen (the poles to
//     the left lumped into the nearest left pole, those to the right and
//     the linear term λ into the nearest right one, matching f and f'),
//     started from the interpolant with the two nearest poles exact (as in
//     dlaed4); every step is clamped to the bracket kept from the signs of
//     f, so a bad step degrades to bisection. The extreme roots use the
//     one-pole model plus the exact linear term, started from a bound:
//     the root of the secular function with the nearest pole's term exact
//     and the others frozen at their value at that pole (edgeBound).
//     Iteration stops
//     when |f| is below the running bound of its own rounding error (≈
//     dlaed4's criterion), or after a model step below quadStop·|τ| (the
//     next would be below rounding; this saves the last evaluation).
//     About 3.5 evaluations of f per root on random arrowheads, fewer when
//     entries deflate (TestArrowOracle logs the counts).
//  4. Gu–Eisenstat: the arrowhead with poles p and eigenvalues λ has
//     ẑ_i² = −∏_j (p_i − λ_j) / ∏_{k≠i} (p_i − p_k) (compare the
//     characteristic polynomial at λ = p_i), evaluated as a product of
//     ratios (λ_k − p_i)/(p_k − p_i) and (p_i − λ_k)/(p_i − p_k), each ≥ 1
//     and each formed from the differences of step 3, so that nothing
//     overflows and every factor is accurate; sign(ẑ_i) = sign(z_i). The
//     eigenvector for λ_j is (ẑ_i/(λ_j − p_i))_i with border component 1,
//     normalised; these are the exact eigenvectors of
//     Ĝ = [[diag p, ẑ], [ẑᵀ, κ̂]] (κ̂ = Σλ − Σp) up to a few ulps per
//     component, hence orthonormal to working precision however accurate
//     the λ_j are (with z in place of ẑ they need not be: an eigenvalue off
//     by δ tilts its vector by δ/gap).
//  5. Certificate, O(n): ‖GU − UΛ‖ ≤ ‖G − Ĝ‖ + O(ε) and the λ_j are exact
//     for Ĝ, so Weyl bounds their error by ‖G − Ĝ‖_F = (2‖z − ẑ‖² +
//     (κ − κ̂)²)^{1/2}. If that exceeds certTol·max|G_ij|, if a root did
//     not converge, or if anything is not finite, the solver reports
//     failure and the caller falls back to Dsyev.
//  6. Undo the rotations on U's rows, merge the deflated pairs, and order
//     everything descending as eigSym does.
//
// Everything runs in workspace allocated once for n ≤ cap.
type arrowEig struct {
	wd, wz []float64 // scaled working copies of d and z (rotations update them)
	order  []int     // indices sorted by d ascending
	kept   []int     // original index of pole i (ascending)
	p, z   []float64 // the kept poles and border entries
	defl   []int     // deflated original indices
	dval   []float64 // … and their eigenvalues
	rot    []givens
	delta  []float64 // (r+1)×r: delta[j*r+i] = p_i − λ_j
	sig    []float64 // λ_j = sig[j] + tau[j]
	tau    []float64
	zh     []float64 // ẑ
	xv     []float64 // vectors' ẑ_i/delta of one root
	col    []int     // output column of root j / of deflated pair
	dcol   []int
	iters  int // secular iterations of the last call (for tests)
}

type givens struct {
	k, i int
	c, s float64
}

// certTol is the backward error (relative to the largest entry of G) up
// to which the solver vouches for its result; Dsyev's is a small multiple
// of n·ε.
const certTol = 1e-13

// maxSecularIter bounds the iterations per root; each costs O(n). The
// clamped steps halve the bracket at worst, so this is far more than a
// root that is representable needs; a root that hits it is reported as a
// failure.
const maxSecularIter = 100

// quadStop is the relative step below which a model step is the last:
// its square is below ε.
const quadStop = 1e-9

func newArrowEig(n int) *arrowEig {
	return &arrowEig{
		wd: make([]float64, n), wz: make([]float64, n),
		order: make([]int, n), kept: make([]int, n),
		p: make([]float64, n), z: make([]float64, n),
		defl: make([]int, n), dval: make([]float64, n),
		rot:   make([]givens, 0, n),
		delta: make([]float64, (n+1)*n),
		sig:   make([]float64, n+1), tau: make([]float64, n+1),
		zh: make([]float64, n), xv: make([]float64, n),
		col: make([]int, n+1), dcol: make([]int, n),
	}
}

// solve eigendecomposes G = [[diag(d), z], [zᵀ, kappa]] (n = len(d) ≤ the
// capacity): lam (n+1) gets the eigenvalues in descending order and u
// ((n+1)×(n+1), row-major) the eigenvectors as columns, rows ordered as
// G's (the border last). It reports false when it cannot vouch for the
// result (see the type's comment); lam and u are then garbage.
func (a *arrowEig) solve(d, z []float64, kappa float64, lam, u []float64) bool {
	n := len(d)
	N := n + 1
	a.iters = 0
	sc := math.Abs(kappa)
	for i := 0; i < n; i++ {
		sc = max(sc, math.Abs(d[i]), math.Abs(z[i]))
	}
	if !IsFinite(sc) {
		return false
	}
	u = u[:N*N]
	clear(u)
	if sc == 0 {
		for i := 0; i < N; i++ {
			lam[i] = 0
			u[i*N+i] = 1
		}
		return true
	}
	inv := 1 / sc
	if !IsFinite(inv) {
		return false
	}
	for i := 0; i < n; i++ {
		a.wd[i] = d[i] * inv
		a.wz[i] = z[i] * inv
	}
	kap := kappa * inv
	a.sortOrder(n)
	r, nd := a.deflate(n)

	// Secular roots, ascending.
	if r == 0 {
		a.sig[0], a.tau[0] = kap, 0
	} else if !a.roots(r, kap) {
		return false
	}
	if r > 0 && !a.certify(r, kap) {
		return false
	}

	// Merge the r+1 roots (ascending) and the nd deflated values (sorted
	// here) into descending columns.
	dv, dk := a.dval[:nd], a.defl[:nd]
	for i := 1; i < nd; i++ {
		for j := i; j > 0 && dv[j] < dv[j-1]; j-- {
			dv[j], dv[j-1] = dv[j-1], dv[j]
			dk[j], dk[j-1] = dk[j-1], dk[j]
		}
	}
	jr, jd := r, nd-1
	for c := 0; c < N; c++ {
		if jd < 0 || (jr >= 0 && a.sig[jr]+a.tau[jr] >= dv[jd]) {
			lam[c] = (a.sig[jr] + a.tau[jr]) * sc
			a.col[jr] = c
			jr--
		} else {
			lam[c] = dv[jd] * sc
			a.dcol[jd] = c
			jd--
		}
	}
	return a.vectors(u, n, r, nd)
}

// vectors writes into u (N×N, N = n+1, cleared) the eigenvectors of the
// r+1 secular roots (closed form over the recomputed border ẑ) and of the
// nd deflated values (unit vectors) in the columns solve assigned them
// (col, dcol), then undoes the deflation's rotations. It reports false
// when a root's vector cannot be normalised.
func (a *arrowEig) vectors(u []float64, n, r, nd int) bool {
	N := n + 1
	dk := a.defl[:nd]
	for j := 0; j <= r; j++ {
		c := a.col[j]
		if r == 0 {
			u[n*N+c] = 1
			break
		}
		row := a.delta[j*r : j*r+r]
		xs := a.xv[:r]
		nrm := 1 / math.Sqrt(quotients(xs, a.zh[:r], row))
		if !IsFinite(nrm) || nrm == 0 {
			return false
		}
		scatterCol(u, a.kept[:r], N, c, xs, nrm)
		u[n*N+c] = nrm
	}
	for j := 0; j < nd; j++ {
		u[dk[j]*N+a.dcol[j]] = 1
	}
	// The rotations were applied in order to the basis; their product acts
	// on the coordinates in reverse.
	for t := len(a.rot) - 1; t >= 0; t-- {
		g := a.rot[t]
		rk, ri := u[g.k*N:g.k*N+N], u[g.i*N:g.i*N+N]
		for c := range rk {
			xk, xi := rk[c], ri[c]
			rk[c] = g.c*xk + g.s*xi
			ri[c] = -g.s*xk + g.c*xi
		}
	}
	return true
}

// quotients sets xs_i = zh_i/dl_i and returns 1 + Σ xs_i² (summed in i's
// order): an eigenvector's entries before normalisation. Its own function:
// inside vectors' loop over the roots the compiler kept this loop's
// counter on the stack.
func quotients(xs, zh, dl []float64) float64 {
	zh, xs = zh[:len(dl)], xs[:len(dl)]
	s := 1.0
	for i, d := range dl {
		x := zh[i] / d
		xs[i] = x
		s += x * x
	}
	return s
}

// scatterCol writes −xs_i·nrm to u's row kept_i (stride N) in column c:
// x_i = ẑ_i/(λ_j − p_i) = −ẑ_i/delta, the quotient of the norm's loop
// negated (IEEE division rounds symmetrically, so this is the bits of
// dividing −ẑ_i again: one division per entry fewer).
func scatterCol(u []float64, kept []int, N, c int, xs []float64, nrm float64) {
	kept = kept[:len(xs)]
	for i, x := range xs {
		u[kept[i]*N+c] = -x * nrm
	}
}

// sortOrder sorts the indices of wd[:n] ascending (insertion sort after a
// reversal: the sketch's E arrives descending, so this is linear then).
func (a *arrowEig) sortOrder(n int) {
	o := a.order[:n]
	for i := range o {
		o[i] = n - 1 - i
	}
	for i := 1; i < n; i++ {
		for j := i; j > 0 && a.wd[o[j]] < a.wd[o[j-1]]; j-- {
			o[j], o[j-1] = o[j-1], o[j]
		}
	}
}

// deflate splits off the eigenpairs that need no secular root (see the
// type's comment) and leaves the r kept poles ascending in p, z, kept.
func (a *arrowEig) deflate(n int) (r, nd int) {
	const tol = 8 * eps
	a.rot = a.rot[:0]
	for _, i := range a.order[:n] {
		if math.Abs(a.wz[i]) <= tol {
			a.defl[nd], a.dval[nd] = i, a.wd[i]
			nd++
			continue
		}
		for r > 0 {
			k := a.kept[r-1]
			zk, zi := a.wz[k], a.wz[i]
			h := math.Hypot(zk, zi)
			c, s := zi/h, zk/h
			if math.Abs((a.wd[i]-a.wd[k])*c*s) > tol {
				break
			}
			// New basis e_k' = c·e_k − s·e_i (its border entry is 0) and
			// e_i' = s·e_k + c·e_i (border h).
			a.rot = append(a.rot, givens{k: k, i: i, c: c, s: s})
			dkk := c*c*a.wd[k] + s*s*a.wd[i]
			a.wd[i] = s*s*a.wd[k] + c*c*a.wd[i]
			a.wz[i], a.wz[k] = h, 0
			a.defl[nd], a.dval[nd] = k, dkk
			nd++
			r--
		}
		a.kept[r] = i
		r++
	}
	for t, i := range a.kept[:r] {
		a.p[t], a.z[t] = a.wd[i], a.wz[i]
	}
	return r, nd
}

const eps = 0x1p-53

// secular evaluates f(σ + τ) = σ − κ + τ + Σ z_i²/(p_i − σ − τ) for the
// root j (poles 0…j−1 lie left of it), writing p_i − λ into dl. It
// returns f, the slope contributions of the left poles (ψ') and of the
// right ones (φ'), and a bound on the rounding error of f.
func (a *arrowEig) secular(r, j int, sigma, sk, tau float64, dl []float64) (f, dpsi, dphi, err float64) {
	var psi, phi, run float64
	// Local slices of one length: the compiler then keeps them in
	// registers and drops the bounds checks, which a.p[i] and a.z[i]
	// reloaded after every store to dl (the arrowhead's largest cost).
	p, z := a.p[:r], a.z[:r]
	dl = dl[:r]
	for i := 0; i < j; i++ {
		d := (p[i] - sigma) - tau
		dl[i] = d
		t := z[i] / d
		psi += z[i] * t
		dpsi += t * t
		run += math.Abs(psi)
	}
	for i := r - 1; i >= j; i-- {
		d := (p[i] - sigma) - tau
		dl[i] = d
		t := z[i] / d
		phi += z[i] * t
		dphi += t * t
		run += phi
	}
	f = sk + tau + psi + phi
	err = eps * (run + 8*(phi-psi) + 2*math.Abs(sk) + 2*math.Abs(tau)*(1+dpsi+dphi) + 3*math.Abs(f))
	return f, dpsi, dphi, err
}

// roots finds the r+1 roots of the secular equation (r ≥ 1), ascending,
// into sig, tau and the rows of delta.
func (a *arrowEig) roots(r int, kap float64) bool {
	var zz float64
	for _, v := range a.z[:r] {
		zz += v * v
	}
	for j := 0; j <= r; j++ {
		dl := a.delta[j*r : j*r+r]
		var sigma, tau, lo, hi float64
		switch {
		case j == 0:
			// Below every pole: origin p_0, τ < 0. The other poles'
			// terms grow with τ, so with their value at τ = 0 in place
			// of theirs f is overestimated and the root of
			// τ + σ − κ + R(0) − z_0²/τ is a lower bound (exact for one
			// pole); so is the root of τ + σ − κ − ‖z‖²/τ.
			sigma = a.p[0]
			lo = a.edgeBound(r, 0, sigma-kap, zz, true)
			hi, tau = 0, lo
		case j == r:
			// Above every pole: the mirror image (an upper bound).
			sigma = a.p[r-1]
			hi = a.edgeBound(r, r-1, sigma-kap, zz, false)
			lo, tau = 0, hi
		default:
			// Between p_{j−1} and p_j: f at the midpoint picks the nearer
			// pole as origin; the start is the root of the interpolant
			// that keeps those two poles exact and the rest constant.
			pl, pr := a.p[j-1], a.p[j]
			w := pr - pl
			mid := w / 2
			f, _, _, _ := a.secular(r, j, pl, pl-kap, mid, dl)
			zl, zr := a.z[j-1]*a.z[j-1], a.z[j]*a.z[j]
			c0 := f - zl/dl[j-1] - zr/dl[j]
			if f >= 0 {
				sigma, lo, hi = pl, 0, mid
				// c0 + zl/(−t) + zr/(w − t) = 0.
				tau = pickRoot(c0, -(c0*w + zl + zr), zl*w, 0, mid)
			} else {
				sigma, lo, hi = pr, -mid, 0
				// c0 + zl/(−w − t) + zr/(−t) = 0.
				tau = pickRoot(c0, c0*w-zl-zr, -zr*w, -mid, 0)
			}
		}
		if !(lo < hi) {
			return false
		}
		if !(lo <= tau && tau <= hi) {
			tau = lo + (hi-lo)/2 // the interpolant's root was lost to rounding
		}
		if !a.root(r, j, sigma, sigma-kap, tau, lo, hi, dl) {
			return false
		}
	}
	return true
}

// edgeBound returns the bound on the shifted extreme root next to pole e
// (0 and below it, or r−1 and above; sk = σ − κ): the root on that side
// of τ + sk + R − z_e²/τ, R the other poles' terms at τ = 0, tightened by
// the one with ‖z‖² for all terms.
func (a *arrowEig) edgeBound(r, e int, sk, zz float64, below bool) float64 {
	var rest float64
	p, z := a.p[:r], a.z[:r]
	pe := p[e]
	for i := 0; i < r; i++ {
		if i != e {
			rest += z[i] * z[i] / (p[i] - pe)
		}
	}
	ze := a.z[e] * a.z[e]
	if below {
		return math.Max(quadRoot(1, sk+rest, -ze, false), quadRoot(1, sk, -zz, false))
	}
	return math.Min(quadRoot(1, sk+rest, -ze, true), quadRoot(1, sk, -zz, true))
}

// root iterates on root j from τ in the bracket [lo, hi] (shifted by σ).
func (a *arrowEig) root(r, j int, sigma, sk, tau, lo, hi float64, dl []float64) bool {
	for it := 0; it < maxSecularIter; it++ {
		a.iters++
		f, dpsi, dphi, err := a.secular(r, j, sigma, sk, tau, dl)
		if !IsFinite(f) {
			return false
		}
		if math.Abs(f) <= err {
			a.sig[j], a.tau[j] = sigma, tau
			return true
		}
		if f > 0 {
			hi = tau
		} else {
			lo = tau
		}
		var eta float64
		switch {
		case j == 0:
			// One pole on the right (Δ = p_0 − λ > 0) plus the linear
			// term: η² − (Δ(1+φ') − f)η − fΔ = 0, the root below Δ.
			d0 := dl[0]
			eta = monicRoot(-(d0*(1+dphi) - f), -f*d0, false)
		case j == r:
			d0 := dl[r-1]
			eta = monicRoot(-(d0*(1+dpsi) - f), -f*d0, true)
		default:
			// Two poles: left Δ_L < 0 carrying ψ', right Δ_R > 0 carrying
			// φ' + 1: cη² − aη + b = 0 with b = Δ_LΔ_R·f.
			dL, dR := dl[j-1], dl[j]
			fp := 1 + dpsi + dphi
			c := f - dL*dpsi - dR*(dphi+1)
			aa := (dL+dR)*f - dL*dR*fp
			// The root between the poles is always (a − √D)/(2c): the
			// other one lies beyond Δ_R if c > 0 and below Δ_L if c < 0.
			b := dL * dR * f
			sd := math.Sqrt(max(aa*aa-4*b*c, 0))
			switch {
			case aa > 0:
				eta = 2 * b / (aa + sd)
			case c != 0:
				eta = (aa - sd) / (2 * c)
			default:
				eta = b / aa
			}
		}
		t := tau + eta
		if !(t > lo && t < hi) || eta*f > 0 {
			// Outside the bracket (or the wrong way): halfway towards the
			// bracket end on the root's side.
			if f < 0 {
				t = tau + (hi-tau)/2
			} else {
				t = tau + (lo-tau)/2
			}
		} else if math.Abs(eta) <= quadStop*math.Abs(t) {
			// The model converges quadratically: after a step this small
			// (relative to the distance to the origin pole) the next one
			// would be below rounding. Take it without evaluating f again
			// (the certificate checks the result).
			p := a.p[:len(dl)]
			for i := range dl {
				dl[i] = (p[i] - sigma) - t
			}
			a.sig[j], a.tau[j] = sigma, t
			return true
		}
		if t == tau {
			a.sig[j], a.tau[j] = sigma, tau
			return true
		}
		tau = t
	}
	return false
}

// quadRoot returns the larger (hiRoot) or smaller real root of
// A t² + B t + C = 0, A ≠ 0, computed without cancellation; a negative
// discriminant (rounding) is taken as 0.
func quadRoot(A, B, C float64, hiRoot bool) float64 {
	D := math.Sqrt(max(B*B-4*A*C, 0))
	// q = −(B + sign(B)·D)/2; the roots are q/A and C/q.
	q := -(B + math.Copysign(D, B)) / 2
	r1 := q / A
	r2 := r1
	if q != 0 {
		r2 = C / q
	}
	if (r1 > r2) == hiRoot {
		return r1
	}
	return r2
}

// monicRoot returns the larger (hiRoot) or smaller real root of
// t² + Bt + C = 0 without cancellation (one square root, one division); a
// negative discriminant (rounding) is taken as 0.
func monicRoot(B, C float64, hiRoot bool) float64 {
	D := math.Sqrt(max(B*B-4*C, 0))
	if B >= 0 {
		q := -(B + D) / 2 // the smaller root
		if !hiRoot {
			return q
		}
		return C / q
	}
	q := (D - B) / 2 // the larger root
	if hiRoot {
		return q
	}
	return C / q
}

// pickRoot returns a root of A t² + B t + C = 0 in the open interval
// (lo, hi) — the model functions have exactly one there — or NaN.
func pickRoot(A, B, C, lo, hi float64) float64 {
	if A == 0 {
		if B == 0 {
			return math.NaN()
		}
		return -C / B
	}
	D := math.Sqrt(max(B*B-4*A*C, 0))
	q := -(B + math.Copysign(D, B)) / 2
	r1 := q / A
	if r1 > lo && r1 < hi {
		return r1
	}
	if q != 0 {
		if r2 := C / q; r2 > lo && r2 < hi {
			return r2
		}
	}
	return math.NaN()
}

// certify forms the Gu–Eisenstat border ẑ from the computed roots and
// checks ‖G − Ĝ‖_F ≤ certTol (G scaled to largest entry 1).
func (a *arrowEig) certify(r int, kap float64) bool {
	var e2 float64
	p, z, zh := a.p[:r], a.z[:r], a.zh[:r]
	delta := a.delta[:(r+1)*r]
	for i := 0; i < r; i++ {
		pi := p[i]
		// p_i − λ_i > 0 and λ_{i+1} − p_i > 0: the roots either side.
		prod := delta[i*r+i] * -delta[(i+1)*r+i]
		for k := 0; k < i; k++ {
			prod *= delta[k*r+i] / (pi - p[k])
		}
		for k := i + 1; k < r; k++ {
			prod *= -delta[(k+1)*r+i] / (p[k] - pi)
		}
		if !(prod > 0) || !IsFinite(prod) {
			return false
		}
		zh[i] = math.Copysign(math.Sqrt(prod), z[i])
		dz := zh[i] - z[i]
		e2 += 2 * dz * dz
	}
	// κ̂ = Σλ_j − Σp_i.
	kh := 0.0
	for j := 0; j <= r; j++ {
		kh += a.tau[j]
	}
	var ss float64
	for j := 0; j <= r; j++ {
		ss += a.sig[j]
	}
	for i := 0; i < r; i++ {
		ss -= a.p[i]
	}
	kh += ss
	dk := kh - kap
	e2 += dk * dk
	return e2 <= certTol*certTol
}
