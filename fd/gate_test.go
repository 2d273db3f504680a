package fd

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sparseson/sparseson/internal/dense"
	"gonum.org/v1/gonum/mat"
)

// triesQueue passes the gated sketch's per-update consultations (gateLog)
// to the dense reference (dense.FD.Tries), in order.
type triesQueue struct{ q []int }

func (t *triesQueue) push(n int) { t.q = append(t.q, n) }
func (t *triesQueue) pop() int {
	if len(t.q) == 0 {
		return 0
	}
	n := t.q[0]
	t.q = t.q[1:]
	return n
}

// gated returns a dense FD wired to sk's gate (and its skips).
func gated(sk *Sketch, m, d int, alpha, eps float64, robust bool) *dense.FD {
	var tq triesQueue
	sk.gateLog = tq.push
	dn := dense.NewFD(m, d, alpha, robust, false)
	dn.Gate, dn.Tries, dn.Skip = eps, tq.pop, sk.cfg.Skip
	return dn
}

// gateCase is one open-loop setting. ε is large enough that drops happen
// in every case (the test insists on it).
type gateCase struct {
	d, m, s int
	robust  bool
	alpha   float64
	eps     float64
	spread  float64
	skip    float64 // κ of the gate's skips (Config.Skip)
}

func gateCases() []gateCase {
	var cs []gateCase
	for _, robust := range []bool{false, true} {
		for _, dm := range [][3]int{{50, 5, 5}, {100, 10, 8}, {40, 3, 20}, {80, 6, 3}} {
			for _, eps := range []float64{1, 4} {
				a := 1.0
				if robust {
					a = 0
				}
				cs = append(cs, gateCase{d: dm[0], m: dm[1], s: dm[2], robust: robust, alpha: a, eps: eps, spread: 1})
			}
			// The skips, at a κ that leaves some gradients in and keeps
			// some out on these streams (the test insists on both).
			cs = append(cs, gateCase{d: dm[0], m: dm[1], s: dm[2], robust: robust, alpha: 1, eps: 4, spread: 1, skip: 0.25})
		}
	}
	return cs
}

// TestGateOpenLoop: the same ĝ sequence into the gated sparse sketch and
// into the gated dense reference gives the same SᵀS to 1e-12 (relative to
// its largest entry), the same α and the same drops.
func TestGateOpenLoop(t *testing.T) {
	for k, c := range gateCases() {
		name := fmt.Sprintf("d%d_m%d_s%d_robust%v_eps%g_skip%g", c.d, c.m, c.s, c.robust, c.eps, c.skip)
		t.Run(name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(k), 26))
			sk, err := New(Config{M: c.m, Alpha: c.alpha, Robust: c.robust, Gate: c.eps, GateFrom: -1, Skip: c.skip})
			if err != nil {
				t.Fatal(err)
			}
			dn := gated(sk, c.m, c.d, c.alpha, c.eps, c.robust)
			h := newDenseHost(c.d, sk.MaxRows())
			T := 600
			var worst float64
			for step, g := range randomStream(rng, T, c.d, c.s, c.spread) {
				scale := 0.5 + rng.Float64()
				x := make([]float64, c.d)
				for j := range x {
					x[j] = g[j] / scale
				}
				h.feed(sk, scale, x)
				dn.Update(g)
				if int64(len(dn.Drops)) != sk.Counts().Drops {
					t.Fatalf("step %d: %d drops, dense %d", step, sk.Counts().Drops, len(dn.Drops))
				}
				if n, _ := sk.SkipSums(); n != int64(dn.Skips) {
					t.Fatalf("step %d: %d skips, dense %d", step, n, dn.Skips)
				}
				if step%5 != 0 && step != T-1 {
					continue
				}
				sc, df := maxAbsDiff(sts(sk, h.Z, c.d), gramT(dn.Rows, c.d))
				if sc > 0 {
					worst = max(worst, df/sc)
				}
				if df > 1e-12*sc {
					t.Fatalf("step %d: ‖SᵀS − S_dᵀS_d‖_max/‖S_dᵀS_d‖ = %.3g", step, df/sc)
				}
				if dense.Rel(sk.Alpha(), dn.Alpha()) > 1e-12 {
					t.Fatalf("step %d: α %v, dense %v", step, sk.Alpha(), dn.Alpha())
				}
			}
			cnt := sk.Counts()
			_, dropA := sk.GateSums()
			if cnt.Drops == 0 {
				t.Fatal("no drops: the case does not exercise the gate")
			}
			if math.Abs(dropA-dn.DropA) > 1e-9*dn.DropA {
				t.Fatalf("Σ E′/α = %v, dense %v", dropA, dn.DropA)
			}
			skips, skipA := sk.SkipSums()
			if c.skip > 0 && (skips == 0 || skips == cnt.Updates) {
				t.Fatalf("%d skips of %d updates: the case does not exercise both paths", skips, cnt.Updates)
			}
			if math.Abs(skipA-dn.SkipA) > 1e-9*dn.SkipA {
				t.Fatalf("Σ ‖ĝ‖²/α of the skips = %v, dense %v", skipA, dn.SkipA)
			}
			t.Logf("worst %.2e; drops %d (Σ E′/α %.4g), skips %d, absorbs %d appends %d compactions %d", worst, cnt.Drops, dropA, skips, cnt.Absorbs, cnt.Appends, cnt.Compactions)
		})
	}
}

// TestGateBounds checks, step by step on the gated sparse sketch, the
// statements of gate.go: S_tᵀS_t = S_{t−1}ᵀS_{t−1} + ĝĝᵀ − Δ_t − D_t with
// Δ_t FD's shrinkage (from an independent eigendecomposition) and the
// drops D_t positive semidefinite (smallest eigenvalue ≥ −1e-12‖GᵀG‖₂)
// with trace Σ E′ of the step's drops; and every 25 steps
// 0 ⪯ GᵀG − SᵀS ⪯ (Σρ + ‖ΣD_t‖₂)·I and Σρ ≤ Ω_k/(m − k) for every k < m.
// With skips (Config.Skip) a skipped step has no shrinkage and D_t = ĝĝᵀ,
// whose trace is the skip's ‖ĝ‖².
func TestGateBounds(t *testing.T) {
	for k, dm := range [][3]int{{30, 4, 6}, {40, 8, 10}, {25, 6, 25}, {60, 10, 4}} {
		d, m, s := dm[0], dm[1], dm[2]
		for _, c := range []struct {
			robust bool
			skip   float64
		}{{false, 0}, {true, 0}, {false, 5}, {true, 5}} {
			robust := c.robust
			t.Run(fmt.Sprintf("d%d_m%d_s%d_robust%v_skip%g", d, m, s, robust, c.skip), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(uint64(k), 27))
				sk, err := New(Config{M: m, Alpha: 0.05, Robust: robust, Gate: 2, GateFrom: -1, Skip: c.skip})
				if err != nil {
					t.Fatal(err)
				}
				h := newDenseHost(d, sk.MaxRows())
				drops := make([][]float64, d) // Σ_t D_t
				for i := range drops {
					drops[i] = make([]float64, d)
				}
				var G [][]float64
				prev := gramT(nil, d)
				for step, g := range decayingStream(rng, 300, d, s) {
					G = append(G, g)
					P := add(prev, gramT([][]float64{g}, d))
					rho0, dropA0, skips0, skipA0 := sk.SumRho(), sk.sumDropA, sk.skips, sk.sumSkipA
					h.feed(sk, 1, g)
					alpha := sk.Alpha() // α_t, after RFD's growth
					cur := sts(sk, h.Z, d)
					scale := symEigen(gramT(G, d))[d-1]
					// Δ_t from P's eigendecomposition; none where ĝ was skipped.
					rho, delta := shrinkage(P, m)
					if sk.skips > skips0 {
						rho, delta = 0, gramT(nil, d)
					}
					if math.Abs(rho-(sk.SumRho()-rho0)) > 1e-9*scale {
						t.Fatalf("step %d: ρ = %v, sketch %v", step, rho, sk.SumRho()-rho0)
					}
					D := sub(sub(P, delta), cur)
					ev := symEigen(D)
					if ev[0] < -1e-12*scale {
						t.Fatalf("step %d: the drop has eigenvalue %.3g < 0", step, ev[0])
					}
					var tr float64
					for i := range D {
						tr += D[i][i]
					}
					if want := (sk.sumDropA - dropA0 + sk.sumSkipA - skipA0) * alpha; math.Abs(tr-want) > 1e-9*scale {
						t.Fatalf("step %d: trace of the drop %v, Σ E′ of the drops %v", step, tr, want)
					}
					drops = add(drops, D)
					prev = cur
					if step%25 != 24 {
						continue
					}
					checkGateBound(t, step, G, cur, drops, sk.SumRho(), m, scale)
				}
				if sk.Counts().Drops == 0 {
					t.Fatal("no drops: the case does not exercise the gate")
				}
				if c.skip > 0 && (sk.skips == 0 || sk.skips == sk.Counts().Updates) {
					t.Fatalf("%d skips of %d updates: the case does not exercise both paths", sk.skips, sk.Counts().Updates)
				}
				t.Logf("%+v, skips %d", sk.Counts(), sk.skips)
			})
		}
	}
}

// checkGateBound checks 0 ⪯ GᵀG − SᵀS ⪯ (Σρ + ‖ΣD‖₂)·I and
// Σρ ≤ Ω_k/(m − k) for every k < m.
func checkGateBound(t *testing.T, step int, G, sts, drops [][]float64, sumRho float64, m int, scale float64) {
	t.Helper()
	d := len(sts)
	ata := gramT(G, d)
	ev := symEigen(sub(ata, sts))
	evD := symEigen(drops)
	if ev[0] < -1e-12*scale || ev[d-1] > (sumRho+evD[d-1])+1e-12*scale {
		t.Fatalf("step %d: GᵀG − SᵀS has eigenvalues in [%.6g, %.6g], want [0, Σρ + ‖ΣD‖ = %.6g]", step, ev[0], ev[d-1], sumRho+evD[d-1])
	}
	sv := symEigen(ata)
	for k := 0; k < m; k++ {
		var tail float64
		for i := 0; i < d-k; i++ {
			tail += math.Max(sv[i], 0)
		}
		if sumRho > tail/float64(m-k)*(1+1e-12) {
			t.Fatalf("step %d k %d: Σρ = %.6g > Ω_k/(m−k) = %.6g", step, k, sumRho, tail/float64(m-k))
		}
	}
}

// shrinkage returns FD's ρ (the m-th eigenvalue of P, 0 below EigTol·λ₁)
// and Δ = Σ_i min(λ_i, ρ)v_iv_iᵀ.
func shrinkage(P [][]float64, m int) (float64, [][]float64) {
	d := len(P)
	lam, V := symEigenVecs(P)
	top := lam[d-1]
	rho := 0.0
	if m <= d && lam[d-m] > EigTol*top {
		rho = lam[d-m]
	}
	out := gramT(nil, d)
	for i := 0; i < d; i++ {
		l := min(math.Max(lam[i], 0), rho)
		if l == 0 {
			continue
		}
		for a := 0; a < d; a++ {
			for b := 0; b < d; b++ {
				out[a][b] += l * V[a][i] * V[b][i]
			}
		}
	}
	return rho, out
}

func add(a, b [][]float64) [][]float64 {
	out := make([][]float64, len(a))
	for i := range a {
		out[i] = make([]float64, len(a[i]))
		for j := range a[i] {
			out[i][j] = a[i][j] + b[i][j]
		}
	}
	return out
}

// TestGateMatchesDense is the closed-loop oracle for the gated sketch:
// sparse SON with the gated FD/RFD and dense SON with the gated dense
// reference give the same predictions (rel ≤ 1e-9) and weights, in the
// well-posed regimes of TestMatchesDense (logistic loss, squared loss
// with RFD), eager and deferred.
func TestGateMatchesDense(t *testing.T) {
	var cases []setup
	seed := uint64(260)
	for i, dm := range [][3]int{{80, 5, 10}, {200, 10, 20}, {120, 7, 12}} {
		for _, diag := range []bool{false, true} {
			base := setup{d: dm[0], m: dm[1], s: dm[2], C: 1, diag: diag}
			for _, v := range []struct {
				loss   string
				alpha  float64
				robust bool
			}{{"logistic", []float64{0.5, 1, 0.5}[i], false}, {"logistic", 0.5, true}, {"squared", []float64{0, 0.5, 0}[i], true}} {
				c := base
				c.lossName, c.alpha, c.robust, c.seed = v.loss, v.alpha, v.robust, seed
				c.ring = []int{0, -1, 3}[seed%3]
				seed++
				cases = append(cases, c)
			}
		}
	}
	for _, c := range cases {
		T := 1000
		if testing.Short() {
			T = 300
		}
		t.Run(fmt.Sprintf("%v_T%d", c, T), func(t *testing.T) {
			cfg := c.config()
			// ε from "drop at nearly every shrink" to "now and then".
			cfg.Gate, cfg.GateFrom = []float64{4, 0.3, 0.03}[c.seed%3], -1
			if c.seed%2 == 1 {
				cfg.Skip = 0.5 / cfg.Gate // skips below α/2
			}
			sp, sk := newSparse(t, c, cfg)
			fdd := gated(sk, c.m, c.d, c.alpha, cfg.Gate, c.robust)
			dn := dense.NewSON(c.d, c.C, dense.Sigma(c.lossName, c.C), 1, 0, c.diag, dense.Loss(c.lossName), fdd)
			var worst float64
			for i, ex := range c.data(T) {
				a, b := sp.Learn(&ex), dn.Learn(&ex)
				worst = max(worst, dense.Rel(a, b))
				if !(dense.Rel(a, b) <= 1e-9) {
					t.Fatalf("step %d: sparse %.15g dense %.15g (rel %.3g); drops %d vs %d", i, a, b, dense.Rel(a, b), sk.Counts().Drops, len(fdd.Drops))
				}
			}
			ww := compareWeights(t, sp, dn, 1e-9)
			if sk.Counts().Drops == 0 {
				t.Fatal("no drops: the case does not exercise the gate")
			}
			if skips, _ := sk.SkipSums(); cfg.Skip > 0 && (skips == 0 || skips == sk.Counts().Updates) || skips != int64(fdd.Skips) {
				t.Fatalf("%d skips of %d updates (dense %d): the case does not exercise both paths", skips, sk.Counts().Updates, fdd.Skips)
			}
			t.Logf("max rel %.2e, weights %.2e, drops %d, skips %d", worst, ww, sk.Counts().Drops, fdd.Skips)
		})
	}
}

// TestGateSwitch: below GateFrom features seen the gated sketch is exact
// FD bit for bit (row cap included); from there on it drops, and Z's rows
// keep to gatedRowCap.
func TestGateSwitch(t *testing.T) {
	c := setup{d: 200, m: 6, s: 12, lossName: "logistic", alpha: 0.5, C: 1, seed: 261}
	data := c.data(1500)
	exact, _ := newSparse(t, c, c.config())
	cfg := c.config()
	cfg.Gate, cfg.GateFrom = 4, 150
	gate, sk := newSparse(t, c, cfg)
	switched, most := -1, 0
	for i := range data {
		a, b := exact.Learn(&data[i]), gate.Learn(&data[i])
		if switched >= 0 && i > switched+100 {
			most = max(most, sk.Rows())
		}
		if switched < 0 && gate.Seen() >= 150 {
			switched = i
		}
		if switched < 0 && (a != b || sk.Counts().Drops != 0) {
			t.Fatalf("example %d (%d features seen): exact %v, gated %v, drops %d", i, gate.Seen(), a, b, sk.Counts().Drops)
		}
	}
	if switched < 0 || sk.Counts().Drops == 0 {
		t.Fatalf("switched at %d, drops %d: the gate never acted", switched, sk.Counts().Drops)
	}
	if most > gatedRowCap(c.m) || most <= c.m-1 {
		t.Fatalf("rows of Z after the switch up to %d, gated cap %d", most, gatedRowCap(c.m))
	}
	t.Logf("switched at example %d, %d drops after", switched, sk.Counts().Drops)
}

// TestGateSaveLoad: a gated model continues bit for bit, counters and sums
// included.
func TestGateSaveLoad(t *testing.T) {
	c := setup{d: 100, m: 8, s: 10, lossName: "logistic", alpha: 0.5, C: 1, seed: 262}
	cfg := c.config()
	cfg.Gate, cfg.GateFrom, cfg.Skip = 4, -1, 0.1
	data := c.data(1200)
	a, ska := newSparse(t, c, cfg)
	for i := range data[:600] {
		a.Learn(&data[i])
	}
	b := saveLoadWith(t, a, c.sonConfig(), cfg, c.lossName)
	skb := b.Sketch().(*Sketch)
	ra, da := ska.GateSums()
	rb, db := skb.GateSums()
	if ska.Counts() != skb.Counts() || ra != rb || da != db || ska.Counts().Drops == 0 {
		t.Fatalf("loaded %+v %v %v, saved %+v %v %v", skb.Counts(), rb, db, ska.Counts(), ra, da)
	}
	if na, sa := ska.SkipSums(); na == 0 {
		t.Fatal("no skips: the case does not exercise their state")
	} else if nb, sb := skb.SkipSums(); na != nb || sa != sb {
		t.Fatalf("skips loaded %d %v, saved %d %v", nb, sb, na, sa)
	}
	for i := range data[600:] {
		ex := &data[600+i]
		if pa, pb := a.Learn(ex), b.Learn(ex); pa != pb {
			t.Fatalf("example %d: %v vs %v", i, pa, pb)
		}
	}
}

// TestGateValidates: the gate's configuration errors name the field.
func TestGateValidates(t *testing.T) {
	for _, cfg := range []Config{
		{M: 5, Alpha: 1, Gate: -1},
		{M: 5, Alpha: 1, Gate: math.NaN()},
		{M: 5, Alpha: 1, Gate: math.Inf(1)},
		{M: 5, Alpha: 1, Gate: 0.1, Fast: true},
		{M: 5, Alpha: 1, Skip: 0.1},
		{M: 5, Alpha: 1, Gate: 0.1, Skip: -1},
		{M: 5, Alpha: 1, Gate: 0.1, Skip: math.NaN()},
		{M: 5, Alpha: 1, Gate: 0.1, Skip: math.Inf(1)},
	} {
		if _, err := New(cfg); err == nil {
			t.Errorf("%+v: accepted", cfg)
		}
	}
	sk, err := New(Config{M: 5, Alpha: 1, Gate: 0.1})
	if err != nil || sk.gateFrom != GateRows*DefaultRowCap(5, false) {
		t.Fatalf("default switch: %v, %v", sk, err)
	}
}

// symEigenVecs returns the eigenvalues (ascending) and eigenvectors
// (columns of V) of the symmetric a.
func symEigenVecs(a [][]float64) ([]float64, [][]float64) {
	d := len(a)
	S := mat.NewSymDense(d, nil)
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			S.SetSym(i, j, (a[i][j]+a[j][i])/2)
		}
	}
	var es mat.EigenSym
	if !es.Factorize(S, true) {
		panic("eigen failed")
	}
	var V mat.Dense
	es.VectorsTo(&V)
	out := make([][]float64, d)
	for i := range out {
		out[i] = make([]float64, d)
		for j := range out[i] {
			out[i][j] = V.At(i, j)
		}
	}
	return es.Values(nil), out
}

// TestGateLeanAbsorb is the lean path's oracle: with every direction of
// [S; ĝᵀ] kept, the gated sketch skips the absorb candidate as infeasible
// (shrink.go); the general candidate, computed instead (leanOff), must
// come to the same moves — bit for bit the same sketch and SON — on the
// open-loop streams and through the SON core.
func TestGateLeanAbsorb(t *testing.T) {
	same := func(t *testing.T, step int, a, b *Sketch) {
		t.Helper()
		ca, cb := a.Counts(), b.Counts()
		// The general candidate may call a numerically singular solve
		// "row band" rather than "infeasible"; the refusals add up alike.
		ra := ca.AbsorbInfeasible + ca.AbsorbBand + ca.AbsorbIllCond
		rb := cb.AbsorbInfeasible + cb.AbsorbBand + cb.AbsorbIllCond
		ca.AbsorbInfeasible, ca.AbsorbBand, ca.AbsorbIllCond = 0, 0, 0
		cb.AbsorbInfeasible, cb.AbsorbBand, cb.AbsorbIllCond = 0, 0, 0
		sa, sb := a.State(), b.State()
		if ca != cb || ra != rb || a.Alpha() != b.Alpha() || fmt.Sprint(sa) != fmt.Sprint(sb) {
			t.Fatalf("step %d: lean %+v (refused %d), general %+v (refused %d)", step, ca, ra, cb, rb)
		}
	}
	for k, c := range gateCases() {
		t.Run(fmt.Sprintf("openloop_d%d_m%d_s%d_robust%v_eps%g", c.d, c.m, c.s, c.robust, c.eps), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(k), 28))
			cfg := Config{M: c.m, Alpha: c.alpha, Robust: c.robust, Gate: c.eps, GateFrom: -1}
			lean, _ := New(cfg)
			lean.leanSolveOff = true // the skip alone (TestGateLeanSolve: the solve)
			gen, _ := New(cfg)
			gen.leanOff = true
			hl, hg := newDenseHost(c.d, lean.MaxRows()), newDenseHost(c.d, gen.MaxRows())
			var skipped int64
			for step, g := range randomStream(rng, 600, c.d, c.s, c.spread) {
				hl.feed(lean, 1, g)
				hg.feed(gen, 1, g)
				same(t, step, lean, gen)
			}
			skipped = lean.Counts().AbsorbInfeasible
			if skipped == 0 {
				t.Fatal("the lean path never ran")
			}
			t.Logf("infeasible (lean) %d, general: infeasible %d band %d", skipped, gen.Counts().AbsorbInfeasible, gen.Counts().AbsorbBand)
		})
	}
	for _, c := range sonGateSetups(280) {
		t.Run("son_"+c.String(), func(t *testing.T) {
			cfg := c.config()
			cfg.Gate, cfg.GateFrom = 0.3, -1
			a, ska := newSparse(t, c, cfg)
			ska.leanSolveOff = true
			b, skb := newSparse(t, c, cfg)
			skb.leanOff = true
			for step, ex := range c.data(1500) {
				if pa, pb := a.Learn(&ex), b.Learn(&ex); pa != pb {
					t.Fatalf("step %d: lean %v, general %v", step, pa, pb)
				}
				same(t, step, ska, skb)
			}
			if ska.Counts().AbsorbInfeasible == 0 {
				t.Fatal("the lean path never ran")
			}
		})
	}
}

// TestGateReport: --sketch_report's gate line states the mode and puts the
// drops' Σ E′/α beside Σ m·ρ/α, with the sketch's own figures.
func TestGateReport(t *testing.T) {
	c := setup{d: 60, m: 5, s: 8, lossName: "logistic", alpha: 1, C: 1, seed: 91}
	for _, eps := range []float64{0, 2} {
		cfg := c.config()
		cfg.Gate, cfg.GateFrom = eps, -1
		sp, sk := newSparse(t, c, cfg)
		for _, ex := range c.data(500) {
			sp.Learn(&ex)
		}
		var b strings.Builder
		sp.Report(&b)
		rhoA, dropA := sk.GateSums()
		want := fmt.Sprintf("drops %d (%.4f per update), Σ E′/α of the drops = %.6g beside Σ m·ρ/α = %.6g", sk.Counts().Drops, float64(sk.Counts().Drops)/500, dropA, rhoA)
		mode := "gate off (exact FD)"
		if eps > 0 {
			mode = "gate ε = 2 from the start"
			if sk.Counts().Drops == 0 {
				t.Fatal("no drops")
			}
		}
		if out := b.String(); !strings.Contains(out, mode+": "+want) || !(rhoA > 0) {
			t.Errorf("ε = %v: report lacks %q:\n%s", eps, mode+": "+want, out)
		}
	}
}

// TestAbsorbBound is the oracle of the absorb candidate's κ̂ bound
// (absorbCandidate): where the bound p·‖F_aD′‖_F² vouches for κ̂ ≤ θ the
// candidate neither forms K′ nor computes κ̂; computing it always
// (kabExact) must come to the same moves — bit for bit the same sketch and
// SON — exact and gated, θ default and tight enough to refuse absorbs, on
// the open-loop streams and through the SON core.
func TestAbsorbBound(t *testing.T) {
	same := func(t *testing.T, step int, a, b *Sketch) {
		t.Helper()
		sa, sb := a.State(), b.State()
		if a.Counts() != b.Counts() || a.Alpha() != b.Alpha() || a.ZNorm2() != b.ZNorm2() || fmt.Sprint(sa) != fmt.Sprint(sb) {
			t.Fatalf("step %d: bound %+v, exact κ̂ %+v", step, a.Counts(), b.Counts())
		}
	}
	// θ = 15 refuses some absorbs as ill-conditioned, and the bound then
	// vouches for only some of the others.
	var tightBounded, tightIllCond, tightAbsorbs int64
	for k, c := range gateCases() {
		for _, eps := range []float64{0, c.eps} {
			for _, theta := range []float64{0, 15} {
				t.Run(fmt.Sprintf("openloop_d%d_m%d_s%d_robust%v_eps%g_theta%g", c.d, c.m, c.s, c.robust, eps, theta), func(t *testing.T) {
					rng := rand.New(rand.NewPCG(uint64(k), 29))
					cfg := Config{M: c.m, Alpha: c.alpha, Robust: c.robust, Gate: eps, GateFrom: -1, Theta: theta}
					a, _ := New(cfg)
					b, _ := New(cfg)
					b.kabExact = true
					ha, hb := newDenseHost(c.d, a.MaxRows()), newDenseHost(c.d, b.MaxRows())
					for step, g := range randomStream(rng, 600, c.d, c.s, c.spread) {
						ha.feed(a, 1, g)
						hb.feed(b, 1, g)
						same(t, step, a, b)
					}
					cnt := a.Counts()
					if theta == 0 && a.kabBounded == 0 {
						t.Fatal("the bound never vouched for an absorb")
					}
					if theta > 0 {
						tightBounded += a.kabBounded
						tightIllCond += cnt.AbsorbIllCond
						tightAbsorbs += cnt.Absorbs
					}
					t.Logf("absorbs %d, vouched for by the bound %d, ill-conditioned %d", cnt.Absorbs, a.kabBounded, cnt.AbsorbIllCond)
				})
			}
		}
	}
	if !(tightIllCond > 0 && tightBounded > 0 && tightBounded < tightAbsorbs) {
		t.Fatalf("θ = 15: %d absorbs, %d vouched for by the bound, %d refused as ill-conditioned: not both branches", tightAbsorbs, tightBounded, tightIllCond)
	}
	for _, c := range sonGateSetups(290) {
		for _, eps := range []float64{0, 0.3} {
			t.Run(fmt.Sprintf("son_%s_eps%g", c, eps), func(t *testing.T) {
				cfg := c.config()
				cfg.Gate, cfg.GateFrom = eps, -1
				a, ska := newSparse(t, c, cfg)
				b, skb := newSparse(t, c, cfg)
				skb.kabExact = true
				for step, ex := range c.data(1500) {
					if pa, pb := a.Learn(&ex), b.Learn(&ex); pa != pb {
						t.Fatalf("step %d: bound %v, exact κ̂ %v", step, pa, pb)
					}
					same(t, step, ska, skb)
				}
				if ska.kabBounded == 0 {
					t.Fatal("the bound never vouched for an absorb")
				}
			})
		}
	}
}

// TestGateLeanSolve is the lean candidate's oracle (lean.go): after the
// lean case's drop the absorb takes δ from the rank-two Woodbury solve
// instead of the Householder LQ; any δ with F_aδ = f gives the same
// sketch, so with and without it (leanSolveOff) the open-loop streams
// must give the same SᵀS to 1e-12 of its largest entry, and SON the same
// predictions to 1e-9; and the lean candidate must be what many such
// absorbs took. The two Z differ, and with them later refusals of the
// absorb (which the gate's drops follow: gate.go), so the open-loop
// comparison runs until the moves first differ, and most streams must
// not differ at all (TestGateOpenLoop and TestGateMatchesDense hold the
// lean sketch to the dense reference throughout).
func TestGateLeanSolve(t *testing.T) {
	var solves, absorbs int64
	var whole, streams int
	for k, c := range gateCases() {
		t.Run(fmt.Sprintf("openloop_d%d_m%d_s%d_robust%v_eps%g", c.d, c.m, c.s, c.robust, c.eps), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(k), 31))
			cfg := Config{M: c.m, Alpha: c.alpha, Robust: c.robust, Gate: c.eps, GateFrom: -1}
			lean, _ := New(cfg)
			gen, _ := New(cfg)
			gen.leanSolveOff = true
			hl, hg := newDenseHost(c.d, lean.MaxRows()), newDenseHost(c.d, gen.MaxRows())
			streams++
			diverged := false
			for step, g := range randomStream(rng, 600, c.d, c.s, c.spread) {
				hl.feed(lean, 1, g)
				hg.feed(gen, 1, g)
				if lean.Counts() != gen.Counts() {
					t.Logf("step %d: the moves differ from here (lean %+v, general %+v)", step, lean.Counts(), gen.Counts())
					diverged = true
					break
				}
				sc, df := maxAbsDiff(sts(lean, hl.Z, c.d), sts(gen, hg.Z, c.d))
				if df > 1e-12*sc {
					t.Fatalf("step %d: ‖SᵀS − S_gᵀS_g‖_max/‖S_gᵀS_g‖ = %.3g", step, df/sc)
				}
			}
			if !diverged {
				whole++
			}
			solves += lean.leanSolves
			absorbs += lean.Counts().Absorbs
			t.Logf("lean solves %d of %d absorbs", lean.leanSolves, lean.Counts().Absorbs)
		})
	}
	if 2*whole < streams {
		t.Fatalf("the moves differed in %d of %d streams", streams-whole, streams)
	}
	for _, c := range sonGateSetups(310) {
		t.Run("son_"+c.String(), func(t *testing.T) {
			cfg := c.config()
			cfg.Gate, cfg.GateFrom = 2, -1
			a, ska := newSparse(t, c, cfg)
			b, skb := newSparse(t, c, cfg)
			skb.leanSolveOff = true
			for step, ex := range c.data(1500) {
				if pa, pb := a.Learn(&ex), b.Learn(&ex); !(dense.Rel(pa, pb) <= 1e-9) {
					t.Fatalf("step %d: lean solve %v, without %v", step, pa, pb)
				}
			}
			if ska.leanSolves == 0 {
				t.Fatal("the lean solve never ran")
			}
			t.Logf("lean solves %d of %d absorbs", ska.leanSolves, ska.Counts().Absorbs)
		})
	}
	if !(4*solves > absorbs) {
		t.Fatalf("the lean candidate took %d of %d open-loop absorbs", solves, absorbs)
	}
}

// sonGateSetups are the two SON streams the gate's tests run through the
// whole learner (logistic with pre-scaling; squared with RFD), seeded
// seed and seed+1.
func sonGateSetups(seed uint64) []setup {
	return []setup{
		{d: 200, m: 10, s: 20, lossName: "logistic", alpha: 1, C: 1, diag: true, seed: seed},
		{d: 120, m: 7, s: 12, lossName: "squared", alpha: 0, C: 1, robust: true, seed: seed + 1},
	}
}
