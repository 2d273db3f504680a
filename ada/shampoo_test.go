package ada

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sparseson/sparseson/internal/dense"
	"github.com/sparseson/sparseson/internal/linalg"
	"github.com/sparseson/sparseson/model"
	"github.com/sparseson/sparseson/sparse"
	"gonum.org/v1/gonum/mat"
)

// shampooCase is FTSL-Shampoo on a random multiclass stream.
type shampooCase struct {
	k, d, s, t int
	tauL, tauR int // 0: that factor exact (tauR 0 only for the dense reference)
	eta, eps   float64
	spread     float64
	seed       uint64
	diag       bool // ShampooConfig.Diag
}

func (c shampooCase) String() string {
	return fmt.Sprintf("K%d_d%d_s%d_tauL%d_tauR%d_eps%g_seed%d_diag%v", c.k, c.d, c.s, c.tauL, c.tauR, c.eps, c.seed, c.diag)
}

func (c shampooCase) config() ShampooConfig {
	return ShampooConfig{Bits: 8, Classes: c.k, Tau: c.tauR, LeftTau: c.tauL, Eta: c.eta, Epsilon: c.eps, Diag: c.diag}
}

func (c shampooCase) newDense() *dense.Shampoo {
	return dense.NewShampoo(dense.ShampooConfig{K: c.k, D: c.d, TauL: c.tauL, TauR: c.tauR, Eta: c.eta, Eps: c.eps, Diag: c.diag})
}

func (c shampooCase) data() []sparse.Example {
	return dense.ClassStream(c.t, c.d, c.s, c.k, c.spread, c.seed)
}

func newShampooT(t testing.TB, cfg ShampooConfig) *Shampoo {
	t.Helper()
	m, err := NewShampoo(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// relScores is the largest |a_k − b_k|/(1 + max_k|b_k|) over the classes.
func relScores(a, b []float64) float64 {
	var scale, worst float64
	for _, v := range b {
		scale = math.Max(scale, math.Abs(v))
	}
	for i := range a {
		worst = math.Max(worst, math.Abs(a[i]-b[i])/(1+scale))
	}
	return worst
}

// shampooLoop runs the sparse learner and the dense reference side by side
// on data, returning the largest score difference over every progressive
// prediction and the largest final-weight difference (relative to
// 1 + max|W|).
func shampooLoop(t *testing.T, sp *Shampoo, dn *dense.Shampoo, data []sparse.Example) (worst, wworst float64) {
	t.Helper()
	for i := range data {
		ex := &data[i]
		sp.Learn(ex)
		want := dn.Learn(ex)
		worst = math.Max(worst, relScores(sp.s, want))
	}
	W := dn.Weights()
	var scale float64
	for _, v := range W.RawMatrix().Data {
		scale = math.Max(scale, math.Abs(v))
	}
	for k := 1; k <= sp.k; k++ {
		sp.ClassWeights(k, func(slot uint32, w float64) {
			wworst = math.Max(wworst, math.Abs(w-W.At(k-1, int(slot)))/(1+scale))
		})
	}
	return worst, wworst
}

// denseSensitivity measures how far a 1e-15 relative perturbation of the
// data moves the dense reference's scores over the stream (docs/algorithms.md §9,
// sensitivity note): the closed loop must be well posed for a 1e-9
// comparison to test the code rather than the stream.
// oracle runs the case's sparse learner and dense reference side by side
// (shampooLoop) after checking that the dense closed loop is not chaotic
// on the case's stream (its sensitivity to a 1e-15 perturbation, sens).
func (c shampooCase) oracle(t *testing.T) (sp *Shampoo, dn *dense.Shampoo, sens, worst, wworst float64) {
	t.Helper()
	data := c.data()
	sens = denseSensitivity(c, data)
	if sens > 1e-10 {
		t.Fatalf("dense reference moves %.3g under a 1e-15 perturbation: the closed loop is chaotic here", sens)
	}
	sp = newShampooT(t, c.config())
	dn = c.newDense()
	worst, wworst = shampooLoop(t, sp, dn, data)
	return sp, dn, sens, worst, wworst
}

func denseSensitivity(c shampooCase, data []sparse.Example) float64 {
	a, b := c.newDense(), c.newDense()
	pd := dense.Perturb(data, c.seed+7)
	var worst float64
	for i := range data {
		worst = math.Max(worst, relScores(a.Learn(&data[i]), b.Learn(&pd[i])))
	}
	return worst
}

// TestShampooOracle compares the sparse FTSL-Shampoo with the dense
// reference written from Yang et al.'s (ICML 2025) Alg. 5 and Alg. 4 (internal/dense),
// every class score of 1000 progressive predictions and every final
// weight, at 1e-9 relative: sketched left and right factors of several
// sizes (both shrink on these streams), the exact left factor, unit and
// spread feature scales, importance weights in [0.5, 2]. Each case first
// measures the dense learner's response to a 1e-15 perturbation of its
// input and requires it below 1e-10, so that the closed loop is not
// chaotic and a disagreement above 1e-9 is a bug.
func TestShampooOracle(t *testing.T) {
	cases := []shampooCase{
		{k: 4, d: 24, s: 6, t: 1000, tauL: 3, tauR: 5, eta: 0.5, eps: 1, seed: 1},
		{k: 4, d: 24, s: 6, t: 1000, tauL: 0, tauR: 5, eta: 0.5, eps: 1, seed: 2},
		{k: 5, d: 20, s: 8, t: 1000, tauL: 2, tauR: 3, eta: 1, eps: 0.1, spread: 1, seed: 3},
		{k: 3, d: 16, s: 5, t: 1000, tauL: 0, tauR: 8, eta: 0.3, eps: 0.01, spread: 0.5, seed: 4},
	}
	if testing.Short() {
		cases = cases[:2]
	}
	for _, c := range cases {
		t.Run(c.String(), func(t *testing.T) {
			sp, dn, sens, worst, wworst := c.oracle(t)
			t.Logf("sensitivity %.3g; scores %.3g, weights %.3g; ρL = %.4g (dense %.4g), ρR = %.4g (dense %.4g), fd counts %+v",
				sens, worst, wworst, sp.left.rho, dn.L.Rho, sp.sk.SumRho(), dn.R.Rho, sp.sk.Counts())
			if worst > 1e-9 || wworst > 1e-9 {
				t.Errorf("sparse FTSL-Shampoo differs from the dense reference: scores %.3g, weights %.3g", worst, wworst)
			}
			lr, rr := sp.Rho()
			if c.tauL > 0 && !(lr > 0) || !(rr > 0) {
				t.Errorf("a sketch never shrank (ρL = %v, ρR = %v): the case does not test the escaped mass", lr, rr)
			}
			if math.Abs(lr-dn.L.Rho) > 1e-9*(1+dn.L.Rho) || math.Abs(rr-dn.R.Rho) > 1e-9*(1+dn.R.Rho) {
				t.Errorf("escaped masses differ: left %v vs %v, right %v vs %v", lr, dn.L.Rho, rr, dn.R.Rho)
			}
		})
	}
}

// TestShampooFullMatrix: with sketch sizes τ_L ≥ K and τ_R ≥ d, FTSL-Shampoo
// is full-matrix Shampoo (primal-dual): Alg. 4 then keeps the exact sum,
// with the τ-th eigenvalue moved whole into ρ when τ = n. The sparse
// learner at τ_L = K, τ_R = d (the right factor shrinks, by eigenvalues
// that sum exactly into ρ), and with the exact left factor and
// τ_R = d + 1, must equal the dense full-matrix Shampoo (no sketch at all)
// to 1e-9; and the dense FTSL-Shampoo at τ = n must equal it too.
func TestShampooFullMatrix(t *testing.T) {
	const k, d, s, T = 4, 12, 5, 600
	data := dense.ClassStream(T, d, s, k, 0.5, 11)
	full := shampooCase{k: k, d: d, s: s, t: T, eta: 0.5, eps: 0.5, seed: 11}
	if sens := denseSensitivity(full, data); sens > 1e-10 {
		t.Fatalf("full Shampoo moves %.3g under a 1e-15 perturbation", sens)
	}
	for _, c := range []struct{ tauL, tauR int }{{k, d}, {0, d + 1}} {
		t.Run(fmt.Sprintf("tauL%d_tauR%d", c.tauL, c.tauR), func(t *testing.T) {
			sp := newShampooT(t, ShampooConfig{Bits: 8, Classes: k, Tau: c.tauR, LeftTau: c.tauL, Eta: full.eta, Epsilon: full.eps})
			worst, wworst := shampooLoop(t, sp, full.newDense(), data)
			lr, rr := sp.Rho()
			t.Logf("scores %.3g, weights %.3g, ρL = %.4g, ρR = %.4g", worst, wworst, lr, rr)
			if worst > 1e-9 || wworst > 1e-9 {
				t.Errorf("differs from full-matrix Shampoo: scores %.3g, weights %.3g", worst, wworst)
			}
			// The right factor at τ_R = d shrinks by its d-th eigenvalue;
			// the left one has rank ≤ K − 1 (1ᵀ(p − e_y) = 0), so at
			// τ_L = K its K-th eigenvalue is 0 and nothing escapes.
			if c.tauR == d && !(rr > 0) || lr != 0 {
				t.Errorf("escaped masses ρL = %v (want 0), ρR = %v (want > 0 at τ_R = d)", lr, rr)
			}
		})
	}
	t.Run("dense", func(t *testing.T) {
		a := dense.NewShampoo(dense.ShampooConfig{K: k, D: d, TauL: k, TauR: d, Eta: full.eta, Eps: full.eps})
		b := full.newDense()
		var worst float64
		for i := range data {
			worst = math.Max(worst, relScores(a.Learn(&data[i]), b.Learn(&data[i])))
		}
		if worst > 1e-9 || !(a.R.Rho > 0) || a.L.Rho != 0 {
			t.Errorf("dense FTSL-Shampoo at τ = n differs from full Shampoo by %.3g (ρL %v, ρR %v)", worst, a.L.Rho, a.R.Rho)
		}
	})
}

// TestShampooDenseKronecker checks the dense reference's matrix update
// (Eq. 3) against the vector form of Yang et al.'s (ICML 2025) proof (Lemma A.7),
// x = −η(L^{−1/4} ⊗ R^{−1/4})ḡ, on a tiny problem, and its Alg. 4 against
// the Luo et al. (NIPS 2016) FD reference (dense.FD) on the same rank-one rows.
func TestShampooDenseKronecker(t *testing.T) {
	const k, d = 3, 5
	data := dense.ClassStream(60, d, 3, k, 0.5, 5)
	m := dense.NewShampoo(dense.ShampooConfig{K: k, D: d, TauL: 2, TauR: 3, Eta: 0.7, Eps: 0.2})
	for i := range data {
		m.Learn(&data[i])
	}
	a, b := m.Weights(), m.KroneckerWeights()
	if !mat.EqualApprox(a, b, 1e-12) || mat.Norm(a, math.Inf(1)) == 0 {
		t.Errorf("Eq. (3) and its Kronecker form differ:\n%v\n%v", mat.Formatted(a), mat.Formatted(b))
	}
	rng := rand.New(rand.NewPCG(3, 4))
	const n, tau = 7, 3
	gen := dense.NewFDGeneral(n, tau)
	ref := dense.NewFD(tau, n, 1, false, false)
	for it := 0; it < 40; it++ {
		g := make([]float64, n)
		for j := range g {
			g[j] = rng.NormFloat64()
		}
		M := mat.NewSymDense(n, nil)
		M.SymRankOne(M, 1, mat.NewVecDense(n, g))
		gen.Add(M)
		ref.Update(g)
	}
	S := ref.S()
	var StS mat.Dense
	StS.Mul(S.T(), S)
	if !mat.EqualApprox(gen.C, &StS, 1e-10) || math.Abs(gen.Rho-ref.SumRho) > 1e-10*ref.SumRho || !(ref.SumRho > 0) {
		t.Errorf("Alg. 4 (general form) and Luo et al.'s (NIPS 2016) FD differ: ρ %v vs %v", gen.Rho, ref.SumRho)
	}
}

// TestShampooLeftOpenLoop feeds the same rank-one matrices to the left
// factor and to the dense Alg. 4, for sketch sizes below, at and above K,
// and to the exact factor; the sums and escaped masses agree to 1e-12
// relative and U keeps orthonormal columns (3000 updates: two of the
// factor's refreshes included).
func TestShampooLeftOpenLoop(t *testing.T) {
	const k = 6
	for _, tau := range []int{0, 1, 2, 4, k, k + 1} {
		t.Run(fmt.Sprint("tau", tau), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(tau), 9))
			l := newLeftFD(k, tau)
			ref := dense.NewFDGeneral(k, tau)
			var worst, ortho float64
			for it := 0; it < 3000; it++ {
				v := make([]float64, k)
				sc := math.Exp(3 * (2*rng.Float64() - 1))
				var sum float64
				for j := range v {
					v[j] = sc * rng.NormFloat64()
					sum += v[j]
				}
				if it%2 == 0 {
					// Softmax gradients sum to zero: half the stream is so.
					for j := range v {
						v[j] -= sum / k
					}
				}
				l.add(v)
				M := mat.NewSymDense(k, nil)
				M.SymRankOne(M, 1, mat.NewVecDense(k, v))
				ref.Add(M)
				if it%100 == 99 {
					C := l.matrix()
					top := math.Max(mat.Norm(ref.C, 2), 1)
					var diff mat.Dense
					diff.Sub(C, ref.C)
					worst = math.Max(worst, mat.Norm(&diff, math.Inf(1))/top)
					ortho = math.Max(ortho, l.orthoErr())
				}
			}
			t.Logf("‖C − C_ref‖/‖C‖ = %.3g, ‖UᵀU − I‖ = %.3g, ρ = %.6g (dense %.6g), rank %d, Dsyev %d", worst, ortho, l.rho, ref.Rho, l.r, l.dsyev)
			if worst > 1e-12 || ortho > 1e-12 || math.Abs(l.rho-ref.Rho) > 1e-12*(1+ref.Rho) {
				t.Errorf("left factor differs from Alg. 4: %.3g, orthogonality %.3g, ρ %v vs %v", worst, ortho, l.rho, ref.Rho)
			}
			if (tau >= 1 && tau <= k) != (ref.Rho > 0) {
				t.Errorf("τ = %d: escaped mass %v", tau, ref.Rho)
			}
		})
	}
}

// matrix returns L̂L̂ᵀ = U·diag(λ)·Uᵀ (tests).
func (l *leftFD) matrix() *mat.Dense {
	C := mat.NewDense(l.k, l.k, nil)
	for i := 0; i < l.r; i++ {
		col := l.u[i*l.k : i*l.k+l.k]
		for a := range col {
			for b := range col {
				C.Set(a, b, C.At(a, b)+l.lam[i]*col[a]*col[b])
			}
		}
	}
	return C
}

// orthoErr returns max|UᵀU − I|.
func (l *leftFD) orthoErr() (e float64) {
	for i := 0; i < l.r; i++ {
		for j := 0; j < l.r; j++ {
			v := linalg.Dot(l.u[i*l.k:i*l.k+l.k], l.u[j*l.k:j*l.k+l.k])
			if i == j {
				v--
			}
			e = math.Max(e, math.Abs(v))
		}
	}
	return e
}

// TestShampooYInvariant: Y, carried through every absorb, append and
// compaction of the right sketch, equals Z·Ḡᵀ recomputed from the table
// (to 1e-12 relative), on a stream long enough for many compactions.
func TestShampooYInvariant(t *testing.T) {
	const k, d = 5, 200
	data := dense.ClassStream(3000, d, 12, k, 1, 21)
	m := newShampooT(t, ShampooConfig{Bits: 10, Classes: k, Tau: 6, LeftTau: 4, Eta: 0.5, Epsilon: 1})
	var worst float64
	for i := range data {
		m.Learn(&data[i])
		if i%250 != 249 {
			continue
		}
		p := m.sp.Rows()
		if m.track.rows != p {
			t.Fatalf("Y has %d rows, Z %d", m.track.rows, p)
		}
		Y := make([]float64, p*k)
		var scale float64
		r := 0
		m.sp.Columns(func(_ uint32, _ float64, z []float64) {
			g := m.gbar[r*k : r*k+k]
			for a := 0; a < p; a++ {
				linalg.Axpy(z[a], g, Y[a*k:a*k+k])
			}
			r++
		})
		for _, v := range Y {
			scale = math.Max(scale, math.Abs(v))
		}
		for a, v := range Y {
			worst = math.Max(worst, math.Abs(v-m.track.y[a])/scale)
		}
	}
	c := m.sk.Counts()
	t.Logf("max |Y − ZḠᵀ|/max|ZḠᵀ| = %.3g; absorbs %d, appends %d, compactions %d", worst, c.Absorbs, c.Appends, c.Compactions)
	if worst > 1e-12 || c.Compactions < 10 || c.Absorbs == 0 {
		t.Errorf("Y drifted from Z·Ḡᵀ by %.3g (or the stream did not exercise the sketch: %+v)", worst, c)
	}
}

// TestShampooSaveLoad: save → load → continue is bit-identical to never
// stopping (scores, probabilities and weights), for the sketched and the
// exact left factor; a damaged or mismatched model is refused.
func TestShampooSaveLoad(t *testing.T) {
	const k, d = 4, 60
	data := dense.ClassStream(800, d, 8, k, 1, 31)
	for _, tauL := range []int{0, 3} {
		cfg := ShampooConfig{Bits: 9, Classes: k, Tau: 5, LeftTau: tauL, Eta: 0.5, Epsilon: 0.3}
		a := newShampooT(t, cfg)
		for i := range data[:400] {
			a.Learn(&data[i])
		}
		var buf bytes.Buffer
		if err := model.Encode(&buf, model.Options{"x": "y"}, a.Save); err != nil {
			t.Fatal(err)
		}
		_, r, err := model.Parse(buf.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		b, err := LoadShampoo(r, cfg)
		if err != nil {
			t.Fatal(err)
		}
		learnAlike(t, a, b, data, 400, fmt.Sprintf("τ_L %d, ", tauL))
		wa, wb := map[string]float64{}, map[string]float64{}
		a.Weights(func(s uint32, w float64) { wa[fmt.Sprint(len(wa), s)] = w })
		b.Weights(func(s uint32, w float64) { wb[fmt.Sprint(len(wb), s)] = w })
		if fmt.Sprint(wa) != fmt.Sprint(wb) || len(wa) == 0 {
			t.Errorf("τ_L %d: weights differ after save → load → continue", tauL)
		}
		// The same bytes under another configuration are refused.
		_, r, _ = model.Parse(buf.Bytes())
		bad := cfg
		bad.Classes = k + 1
		if _, err := LoadShampoo(r, bad); err == nil {
			t.Errorf("a %d-class model loaded as %d classes", k, k+1)
		}
		_, r, _ = model.Parse(buf.Bytes())
		bad = cfg
		bad.Tau = 4
		if _, err := LoadShampoo(r, bad); err == nil {
			t.Errorf("a τ_R = 5 model loaded with τ_R = 4")
		}
	}
}

// TestShampooExtremeInputs: features of magnitude 1e±150, importance
// weights up to 1e200 and a tiny ε neither put Inf or NaN into the model
// nor stop it from predicting a class.
func TestShampooExtremeInputs(t *testing.T) {
	for i, eps := range []float64{1e-300, 1, 1e100, 1e-300, 1, 1e100} {
		diag := i >= 3
		m := newShampooT(t, ShampooConfig{Bits: 6, Classes: 3, Tau: 3, LeftTau: 2, Eta: 1, Epsilon: eps, Diag: diag})
		rng := rand.New(rand.NewPCG(1, 1))
		for i := 0; i < 400; i++ {
			ex := &sparse.Example{HasLabel: true, Label: float64(1 + i%3), Weight: []float64{1, 1e-200, 1e200, 3}[i%4]}
			for j := 0; j < 4; j++ {
				ex.Idx = append(ex.Idx, uint32(rng.IntN(40)))
				ex.Val = append(ex.Val, rng.NormFloat64()*math.Pow(10, float64(rng.IntN(301)-150)))
			}
			c := m.Learn(ex)
			if c < 1 || c > 3 || c != math.Trunc(c) {
				t.Fatalf("ε %g: predicted class %v", eps, c)
			}
		}
		finite := linalg.AllFinite(m.gbar) && linalg.AllFinite(m.rjj) && linalg.IsFinite(m.nsum) && linalg.AllFinite(m.track.y) && linalg.AllFinite(m.left.lam[:m.left.r]) && linalg.AllFinite(m.left.u) && linalg.IsFinite(m.left.rho) && linalg.IsFinite(m.sk.SumRho())
		m.Weights(func(_ uint32, w float64) { finite = finite && !math.IsNaN(w) })
		if !finite || m.refused == 0 || m.t == 0 {
			t.Errorf("ε %g, Diag %v: non-finite state (%v), or the stream did not reach the overflow guard (%d refused) or learned nothing (Σh = %v)", eps, diag, !finite, m.refused, m.t)
		}
		var buf bytes.Buffer
		if err := model.Encode(&buf, model.Options{}, m.Save); err != nil {
			t.Fatal(err)
		}
		_, r, _ := model.Parse(buf.Bytes())
		if _, err := LoadShampoo(r, m.cfg); err != nil {
			t.Errorf("ε %g: the model does not load back: %v", eps, err)
		}
	}
}

// TestShampooWeightsAreTheModel: the exported weights (ClassWeights, and
// --audit's ClassSlotWeight, slot by slot) are the model the scores use —
// Predict's K scores equal W·x from them to 1e-12 — and Scores reports
// Predict's.
func TestShampooWeightsAreTheModel(t *testing.T) {
	const k, d = 4, 80
	data := dense.ClassStream(600, d, 9, k, 1, 41)
	m := newShampooT(t, ShampooConfig{Bits: 9, Classes: k, Tau: 5, LeftTau: 3, Eta: 0.5, Epsilon: 0.3})
	for i := range data[:500] {
		m.Learn(&data[i])
	}
	W := make([]map[uint32]float64, k)
	for c := 1; c <= k; c++ {
		W[c-1] = map[uint32]float64{}
		m.ClassWeights(c, func(slot uint32, w float64) {
			W[c-1][slot] = w
			if got := m.ClassSlotWeight(c, slot); got != w {
				t.Fatalf("class %d slot %d: ClassSlotWeight %v, ClassWeights %v", c, slot, got, w)
			}
		})
	}
	if got := m.ClassSlotWeight(1, 300); got != 0 { // the stream uses slots 0…79
		t.Errorf("an unseen slot weighs %v", got)
	}
	var worst float64
	s := make([]float64, k)
	for i := range data[500:] {
		ex := &data[500+i]
		m.Predict(ex)
		m.Scores(s)
		want := make([]float64, k)
		for c := range want {
			for j, slot := range ex.Idx {
				want[c] += W[c][slot] * ex.Val[j]
			}
		}
		worst = math.Max(worst, relScores(s, want))
	}
	if worst > 1e-12 {
		t.Errorf("scores differ from W·x by %.3g", worst)
	}
}

// TestShampooLeftDrift: 40000 updates of the exact K = 20 factor with
// softmax-like vectors (1ᵀv = 0) keep UᵀU = I to 1e-13: without the
// periodic refresh the rounding of the rank-one updates accumulates in U
// (≈ 4e-13 by then, 2e-12 after 200k, measured).
func TestShampooLeftDrift(t *testing.T) {
	const k = 20
	rng := rand.New(rand.NewPCG(1, 2))
	l := newLeftFD(k, 0)
	v := make([]float64, k)
	var worst float64
	for it := 1; it <= 40000; it++ {
		var sum float64
		sc := math.Exp(3 * (2*rng.Float64() - 1))
		for j := range v {
			v[j] = sc * rng.NormFloat64() * float64(1+j%3)
			sum += v[j]
		}
		for j := range v {
			v[j] -= sum / k
		}
		l.add(v)
		if it%5000 == 0 {
			worst = math.Max(worst, l.orthoErr())
		}
	}
	t.Logf("max |UᵀU − I| = %.3g, rank %d", worst, l.r)
	if worst > 1e-13 || l.r != k-1 {
		t.Errorf("left factor's eigenvectors drifted to %.3g (rank %d)", worst, l.r)
	}
}

// learnAlike has a and b (b loaded from a's model) learn data[from:] and
// fails at the first example whose class scores or probabilities differ
// in any bit; what prefixes the message.
func learnAlike(t *testing.T, a, b *Shampoo, data []sparse.Example, from int, what string) {
	t.Helper()
	pa, pb := make([]float64, a.k), make([]float64, b.k)
	for i := range data[from:] {
		ex := &data[from+i]
		ca, cb := a.Learn(ex), b.Learn(ex)
		a.Probabilities(pa)
		b.Probabilities(pb)
		if ca != cb || fmt.Sprint(pa) != fmt.Sprint(pb) || fmt.Sprint(a.s) != fmt.Sprint(b.s) {
			t.Fatalf("%sexample %d after loading: %v %v vs %v %v", what, from+i, ca, a.s, cb, b.s)
		}
	}
}
