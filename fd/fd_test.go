package fd

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sparseson/sparseson/internal/dense"
	"github.com/sparseson/sparseson/model"
	"github.com/sparseson/sparseson/son"
	"github.com/sparseson/sparseson/sparse"
)

func TestNewValidates(t *testing.T) {
	bad := []Config{
		{M: 0, Alpha: 1},
		{M: MaxM + 1, Alpha: 1},
		{M: 5, Alpha: 0}, // plain FD needs α > 0
		{M: 5, Alpha: -1, Robust: true},
		{M: 5, Alpha: math.NaN(), Robust: true},
		{M: 5, Alpha: math.Inf(1)},
		{M: 5, Alpha: 1, Theta: 0.5},
		{M: 5, Alpha: 1, Theta: math.NaN()},
		{M: 5, Alpha: 1, RowCap: 4},             // < m
		{M: 5, Alpha: 1, Fast: true, RowCap: 8}, // < 2m−1
		{M: 5, Alpha: 1, RowCap: 100000},
		{M: 5, Alpha: 1, RowBand: 1},
		{M: 5, Alpha: 1, RowBand: math.NaN()},
	}
	for _, c := range bad {
		if _, err := New(c); err == nil {
			t.Errorf("New(%+v) accepted", c)
		}
	}
	for _, c := range []struct {
		cfg  Config
		name string
	}{
		{Config{M: 5, Alpha: 1}, "fd"},
		{Config{M: 5, Robust: true}, "rfd"},
		{Config{M: 5, Alpha: 1, Fast: true}, "fd_fast"},
		{Config{M: 5, Alpha: 0.5, Robust: true, Fast: true}, "rfd_fast"},
		{Config{M: 1, Alpha: 1, RowCap: 1}, "fd"},
	} {
		sk, err := New(c.cfg)
		if err != nil {
			t.Fatalf("New(%+v): %v", c.cfg, err)
		}
		if sk.Name() != c.name {
			t.Errorf("Name() = %q, want %q", sk.Name(), c.name)
		}
		if sk.Alpha() != c.cfg.Alpha || sk.Rows() != 0 || sk.MaxRows() < c.cfg.M {
			t.Errorf("%s: fresh sketch α %v rows %d max %d", c.name, sk.Alpha(), sk.Rows(), sk.MaxRows())
		}
	}
}

// TestFullONS: FD with m > d never shrinks (λ_m of m rows in d < m
// dimensions is 0), so FD-SON is full ONS (Alg. 1 with A_t = αI + Σĝĝᵀ),
// and RFD₀-SON is full ONS with the pseudo-inverse. References: dense SON
// with the exact sketch dense.FullSketch (SᵀS = Σĝĝᵀ), and for α > 0 also
// dense.FullONS, which solves with A_t itself (Cholesky, O(d³) per step).
func TestFullONS(t *testing.T) {
	for i, c := range []setup{
		{d: 8, m: 12, s: 3, lossName: "logistic", alpha: 0.5, C: 1},
		{d: 10, m: 11, s: 5, lossName: "logistic", alpha: 1, C: 1, diag: true},
		{d: 6, m: 10, s: 6, lossName: "squared", alpha: 8, C: 1},
		{d: 8, m: 12, s: 3, lossName: "squared", alpha: 16, C: 1, fast: true},
		{d: 8, m: 9, s: 4, lossName: "logistic", alpha: 0, C: 1, robust: true},
		{d: 12, m: 13, s: 4, lossName: "squared", alpha: 0, C: 1, robust: true, diag: true},
	} {
		c.seed = uint64(40 + i)
		t.Run(c.String(), func(t *testing.T) {
			data := c.data(1000)
			sp, sk := newSparse(t, c, c.config())
			dn := dense.NewSON(c.d, c.C, dense.Sigma(c.lossName, c.C), 1, 0, c.diag, dense.Loss(c.lossName), dense.NewFullSketch(c.d, c.alpha))
			var ons *dense.FullONS
			if c.alpha > 0 {
				ons = dense.NewFullONS(c.d, c.alpha, c.C, dense.Sigma(c.lossName, c.C), 1, 0, c.diag, dense.Loss(c.lossName))
			}
			var worst, worstONS float64
			for i := range data {
				a, b := sp.Learn(&data[i]), dn.Learn(&data[i])
				worst = max(worst, dense.Rel(a, b))
				if dense.Rel(a, b) > 1e-9 {
					t.Fatalf("step %d: sparse %.15g full ONS %.15g (rel %.3g)", i, a, b, dense.Rel(a, b))
				}
				if ons != nil {
					o := ons.Learn(&data[i])
					worstONS = max(worstONS, dense.Rel(a, o))
					if dense.Rel(a, o) > 1e-9 {
						t.Fatalf("step %d: sparse %.15g FullONS %.15g (rel %.3g)", i, a, o, dense.Rel(a, o))
					}
				}
			}
			ww := compareWeights(t, sp, dn, 1e-9)
			if sk.Alpha() != c.alpha || sk.SumRho() != 0 {
				t.Errorf("the sketch shrank: α = %v, Σλ_m = %v", sk.Alpha(), sk.SumRho())
			}
			t.Logf("max rel %.2e (vs FullONS %.2e), weights %.2e, %+v", worst, worstONS, ww, sk.Counts())
		})
	}
}

// orthoErr returns ‖VVᵀ − I‖_max for V = FZ, F = E^{−1/2}C (diagonal state
// only; V formed explicitly, so the check itself only loses what V = FZ
// loses) and ‖K − ZZᵀ‖_max/‖K‖_max.
func orthoErr(sk *Sketch, Z [][]float64) (ortho, kerr float64) {
	st := sk.State()
	p, q := st.P, st.Q
	var kmax float64
	for i := 0; i < p; i++ {
		for j := 0; j < p; j++ {
			zz := dotv(Z[i], Z[j])
			kerr = math.Max(kerr, math.Abs(zz-st.K[i*p+j]))
			kmax = math.Max(kmax, math.Abs(zz))
		}
	}
	if kmax > 0 {
		kerr /= kmax
	}
	if !st.Diag {
		return 0, kerr
	}
	V := make([][]float64, q)
	for a := range V {
		V[a] = make([]float64, len(Z[0]))
		for i := 0; i < p; i++ {
			if f := st.C[a*p+i] / math.Sqrt(st.E[a]); f != 0 {
				for j, z := range Z[i] {
					V[a][j] += f * z
				}
			}
		}
	}
	for a := 0; a < q; a++ {
		for b := 0; b < q; b++ {
			v := dotv(V[a], V[b])
			if a == b {
				v--
			}
			ortho = math.Max(ortho, math.Abs(v))
		}
	}
	return ortho, kerr
}

// TestInvariants checks docs/algorithms.md §9 C every 25 steps through a real SON
// (Z read back with son.Learner.ZColumn): in the diagonal state ‖FKFᵀ − I‖_max ≤
// 1e-10 with F = E^{−1/2}C on the live rows; ‖K − ZZᵀ‖/‖K‖ ≤ 1e-12; E ≥ 0
// and sorted; H = diag(1/(α+E)) in (0, 1/α]; and ZNorm2 ≥ ‖Z‖₂².
func TestInvariants(t *testing.T) {
	T := 5000
	if testing.Short() {
		T = 1500
	}
	for i, c := range []setup{
		{d: 60, m: 10, s: 8, lossName: "logistic", alpha: 1, C: 2},
		{d: 60, m: 10, s: 8, lossName: "squared", alpha: 16, C: 2, spread: 1.5},
		{d: 100, m: 6, s: 20, lossName: "logistic", alpha: 0, C: 1, robust: true},
		{d: 80, m: 5, s: 5, lossName: "logistic", alpha: 0.5, C: 1, fast: true},
		{d: 80, m: 5, s: 10, lossName: "squared", alpha: 0, C: 1, robust: true, fast: true, diag: true},
	} {
		c.seed = uint64(60 + i)
		t.Run(c.String(), func(t *testing.T) {
			data := c.data(T)
			sp, sk := newSparse(t, c, c.config())
			var wo, wk float64
			checked := 0
			for i := range data {
				sp.Learn(&data[i])
				if i%25 != 0 && i != len(data)-1 {
					continue
				}
				st := sk.State()
				Z := dense.ZMatrix(sp, st.P, c.d)
				o, ke := orthoErr(sk, Z)
				wo, wk = max(wo, o), max(wk, ke)
				if o > 1e-10 || ke > 1e-12 {
					t.Fatalf("step %d: ‖FKFᵀ−I‖ = %.3g, ‖K−ZZᵀ‖/‖K‖ = %.3g", i, o, ke)
				}
				if st.P > 0 {
					ev := symEigen(gramT(Z, c.d))
					if ev[c.d-1] > sk.ZNorm2()*(1+1e-12) {
						t.Fatalf("step %d: ‖Z‖₂² = %v > ZNorm2 = %v", i, ev[c.d-1], sk.ZNorm2())
					}
				}
				if !st.Diag {
					continue
				}
				checked++
				for k, e := range st.E {
					if !(e > 0) || (k > 0 && e > st.E[k-1]) {
						t.Fatalf("step %d: E = %v not positive and sorted", i, st.E)
					}
					if h := 1 / (st.Alpha + e); st.Alpha > 0 && !(h > 0 && h <= 1/st.Alpha) {
						t.Fatalf("step %d: H entry %v outside (0, 1/α]", i, h)
					}
				}
			}
			if checked == 0 {
				t.Fatal("never in the diagonal state")
			}
			t.Logf("max ‖FKFᵀ−I‖ %.2e, ‖K−ZZᵀ‖/‖K‖ %.2e, %d diagonal checks, %+v, folds %d", wo, wk, checked, sk.Counts(), sp.Folds())
		})
	}
}

// TestSaveLoadContinue: save → load → continue equals uninterrupted
// training bit for bit (predictions and weights), for every variant, with
// the split taken in RFD₀'s α = 0 phase too.
func TestSaveLoadContinue(t *testing.T) {
	for i, c := range []setup{
		{d: 100, m: 10, s: 10, lossName: "logistic", alpha: 1, C: 2},
		{d: 100, m: 10, s: 10, lossName: "logistic", alpha: 1, C: 2, diag: true, fast: true},
		{d: 80, m: 6, s: 8, lossName: "squared", alpha: 0, C: 1, robust: true},
		{d: 80, m: 6, s: 8, lossName: "logistic", alpha: 0, C: 1, robust: true, fast: true},
	} {
		c.seed = uint64(70 + i)
		for _, split := range []int{3, 1000} {
			t.Run(fmt.Sprintf("%v_split%d", c, split), func(t *testing.T) {
				data := c.data(2000)
				a, ska := newSparse(t, c, c.config())
				for i := range data[:split] {
					a.Learn(&data[i])
				}
				if split == 3 && c.robust && ska.Alpha() != 0 {
					t.Fatal("expected the α = 0 phase")
				}
				b := saveLoad(t, a, c)
				skb := b.Sketch().(*Sketch)
				if ska.Counts() != skb.Counts() || ska.Alpha() != skb.Alpha() {
					t.Fatalf("loaded counters/α differ: %+v %v vs %+v %v", ska.Counts(), ska.Alpha(), skb.Counts(), skb.Alpha())
				}
				for i := range data[split:] {
					ex := &data[split+i]
					if pa, pb := a.Predict(ex), b.Predict(ex); pa != pb {
						t.Fatalf("example %d: predict %v vs %v", i, pa, pb)
					}
					if pa, pb := a.Learn(ex), b.Learn(ex); pa != pb {
						t.Fatalf("example %d: learn %v vs %v", i, pa, pb)
					}
				}
				wa := map[uint32]float64{}
				a.Weights(func(s uint32, w float64) { wa[s] = w })
				b.Weights(func(s uint32, w float64) {
					if wa[s] != w {
						t.Fatalf("weight %d: %v vs %v", s, wa[s], w)
					}
				})
			})
		}
	}
}

// saveLoad saves a learner to a model file and loads it back with the
// setup's configuration.
func saveLoad(t *testing.T, a *son.Learner, c setup) *son.Learner {
	t.Helper()
	return saveLoadWith(t, a, c.sonConfig(), c.config(), c.lossName)
}

// saveLoadWith saves a learner and loads it back with the given
// configurations.
func saveLoadWith(t *testing.T, a *son.Learner, scfg son.Config, cfg Config, lossName string) *son.Learner {
	t.Helper()
	path := filepath.Join(t.TempDir(), "m")
	if err := model.Save(path, model.Options{}, a.Save); err != nil {
		t.Fatal(err)
	}
	_, r, err := model.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	sk, _ := New(cfg)
	b, err := son.Load(r, scfg, dense.Loss(lossName), sk)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestLoadRejects: a model saved with another sketch shape is refused.
func TestLoadRejects(t *testing.T) {
	c := setup{d: 50, m: 5, s: 5, lossName: "logistic", alpha: 1, C: 1, seed: 80}
	a, _ := newSparse(t, c, c.config())
	for _, ex := range c.data(100) {
		a.Learn(&ex)
	}
	var buf bytes.Buffer
	if err := model.Encode(&buf, model.Options{}, a.Save); err != nil {
		t.Fatal(err)
	}
	for _, cfg := range []Config{{M: 6, Alpha: 1}, {M: 5, Alpha: 1, RowCap: 30}, {M: 5, Alpha: 1, Fast: true}} {
		_, r, err := model.Parse(buf.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		sk, _ := New(cfg)
		if _, err := son.Load(r, c.sonConfig(), dense.Loss(c.lossName), sk); err == nil {
			t.Errorf("loading into %+v succeeded", cfg)
		}
	}
}

// TestExtremeInputs: through SON, feature magnitudes from 1e-300 and
// 1e-span to 1e+span mixed in one stream (for span 50, ‖ĝ‖² spans
// 1e-200…1e200, with importance weights 1e-10…1e10) and zero gradients,
// and, fed directly, ĝ = 0, 1e±300, 1e±150, Inf and NaN scales never put
// NaN or Inf into the sketch or its products M·z. Predictions and weights
// stay finite for every variant with span 6, and with per-step RFD (α
// adapts to the sketch at every step) for span 50. Plain FD keeps α fixed
// while E reaches 1e116, and the doubled buffer lets raw rows of that size
// sit next to an α that only moves at shrinks: E/α is then far beyond what
// the split weights of the core (docs/algorithms.md §2, "Numerical fact"), the
// Cholesky factor of N = αI + SSᵀ, or any float64 SON can resolve — the
// projection's q = n − zᵀMz cancels to rounding noise and w·x overflows —
// so there the non-finite predictions are only counted.
func TestExtremeInputs(t *testing.T) {
	for _, span := range []int{6, 50} {
		for _, cfg := range []Config{{M: 5, Alpha: 1}, {M: 5, Robust: true}, {M: 4, Alpha: 0.1, Fast: true}, {M: 4, Robust: true, Fast: true}} {
			for _, lossName := range []string{"squared", "logistic"} {
				rng := rand.New(rand.NewPCG(uint64(span), 9))
				mustFinite := span < 10 || (cfg.Robust && !cfg.Fast)
				sk, _ := New(cfg)
				sp, err := son.New(son.Config{Bits: 8, C: 1, Eta0: 1}, dense.Loss(lossName), sk)
				if err != nil {
					t.Fatal(err)
				}
				nan := 0
				for i := 0; i < 2000; i++ {
					ex := sparse.Example{Weight: 1, HasLabel: true, Label: float64(2*rng.IntN(2) - 1)}
					mag := math.Pow(10, float64(rng.IntN(2*span+1)-span))
					switch rng.IntN(6) {
					case 0:
						mag = 1e-300
					case 1:
						mag = 1
					}
					for _, j := range rng.Perm(60)[:1+rng.IntN(10)] {
						ex.Idx = append(ex.Idx, uint32(j))
						ex.Val = append(ex.Val, mag*(rng.Float64()+0.5))
					}
					if rng.IntN(10) == 0 {
						ex.Weight = math.Pow(10, float64(rng.IntN(20)-10))
					}
					l := sp.Learn(&ex)
					if p := sp.Predict(&ex); math.IsNaN(p) || math.IsNaN(l) {
						if mustFinite {
							t.Fatalf("%s %s span %d step %d: NaN prediction", sk.Name(), lossName, span, i)
						}
						nan++
					}
					checkFinite(t, sk)
					if p := sk.Rows(); p > 0 {
						z, dst := make([]float64, p), make([]float64, p)
						for k := range z {
							z[k] = rng.NormFloat64()
						}
						if sk.Alpha() > 0 {
							sk.MulM(dst, z)
						} else {
							sk.MulPinv(dst, z)
						}
						for _, v := range dst {
							if math.IsNaN(v) || math.IsInf(v, 0) {
								st := sk.State()
								t.Fatalf("%s %s step %d: non-finite M·z %v; z %v; diag %v α %v E %v L %v C %v K %v", sk.Name(), lossName, i, dst, z, st.Diag, st.Alpha, st.E, sk.L[:sk.lb*sk.lb], st.C, st.K)
							}
						}
					}
				}
				if mustFinite {
					sp.Weights(func(s uint32, w float64) {
						if math.IsNaN(w) || math.IsInf(w, 0) {
							t.Fatalf("%s %s: weight %d = %v", sk.Name(), lossName, s, w)
						}
					})
				}
				var rep strings.Builder
				sk.Report(&rep, 1)
				t.Logf("%s %s span 1e±%d: %d non-finite predictions, %+v", sk.Name(), lossName, span, nan, sk.Counts())
			}
		}
	}
	// Direct feeds: ĝ = 0, ±huge, tiny, non-finite scale.
	for _, cfg := range []Config{{M: 3, Alpha: 1}, {M: 3, Robust: true, Fast: true}} {
		sk, _ := New(cfg)
		h := newDenseHost(10, sk.MaxRows())
		for i, c := range []float64{0, 1, 1e300, 1e-300, math.Inf(1), math.NaN(), 0, 1e150, 1e-150, 1, 2, 3, 4, 5} {
			x := make([]float64, 10)
			x[i%10], x[(i+3)%10] = 1, -2
			h.feed(sk, c, x)
			checkFinite(t, sk)
		}
		if sk.Counts().Skipped == 0 {
			t.Errorf("%s: non-representable ĝ were not skipped", sk.Name())
		}
	}
}

func checkFinite(t *testing.T, sk *Sketch) {
	t.Helper()
	st := sk.State()
	for _, a := range [][]float64{st.C, st.K, st.E, {st.Alpha, sk.ZNorm2(), sk.SumRho()}} {
		for _, v := range a {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("%s: non-finite sketch state %v", sk.Name(), v)
			}
		}
	}
}

// TestCounters: the append/absorb/compaction counters follow the geometry.
// Mutually orthogonal ĝ of growing norm are always kept by FD, so every one
// needs an append (absorb is impossible: §4) and a compaction comes each
// time Z is full; ĝ cycling within a fixed 2-dimensional span are absorbed
// by every shrink after the warm-up.
func TestCounters(t *testing.T) {
	d, m := 200, 3
	sk, _ := New(Config{M: m, Alpha: 1, RowCap: 8})
	h := newDenseHost(d, sk.MaxRows())
	p, comp := 0, 0
	for i := 0; i < 150; i++ {
		x := make([]float64, d)
		x[i] = 1
		h.feed(sk, float64(i+1), x)
		// Warm-up appends, then every step keeps ĝ (the largest so far).
		if p == 8 {
			p = m - 1
			comp++
		}
		p++
	}
	c := sk.Counts()
	if c.Appends != 150 || c.Absorbs != 0 || c.Compactions != int64(comp) || sk.Rows() != p {
		t.Fatalf("orthogonal stream: %+v rows %d; want 150 appends, %d compactions, %d rows", c, sk.Rows(), comp, p)
	}
	if c.AbsorbInfeasible != c.Shrinks {
		t.Errorf("orthogonal stream: %d of %d shrinks found absorb infeasible", c.AbsorbInfeasible, c.Shrinks)
	}

	sk, _ = New(Config{M: 4, Alpha: 1})
	h = newDenseHost(d, sk.MaxRows())
	u, v := make([]float64, d), make([]float64, d)
	u[0], u[1], v[1], v[5] = 1, 2, 1, -1
	for i := 0; i < 100; i++ {
		x := make([]float64, d)
		a, b := math.Cos(float64(i)), math.Sin(float64(i))
		for j := range x {
			x[j] = a*u[j] + b*v[j]
		}
		h.feed(sk, 1, x)
	}
	c = sk.Counts()
	// The m−1 warm-up rows are buffered as they come (3 appends), then every
	// shrink can absorb; absorbs make the rows of Z drift (each adds δ_jĝ),
	// so now and then one would leave the row-norm band and an append (and
	// at the row cap a compaction) takes its place.
	if c.AbsorbInfeasible != 0 || c.Absorbs+c.Appends != 100 || c.Absorbs < 60 || c.Appends-3 > c.AbsorbBand+c.AbsorbIllCond {
		t.Fatalf("2-dimensional stream: %+v", c)
	}
}

// TestReport prints the eigenvalues, the captured share and the rates.
func TestReport(t *testing.T) {
	c := setup{d: 60, m: 5, s: 8, lossName: "logistic", alpha: 1, C: 1, seed: 90}
	sp, _ := newSparse(t, c, c.config())
	for _, ex := range c.data(500) {
		sp.Learn(&ex)
	}
	var b strings.Builder
	sp.Report(&b)
	out := b.String()
	for _, want := range []string{"sketch = fd", "top eigenvalue estimates", "share of Σ‖ĝ‖²", "absorbs", "appends", "compactions"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	t.Log("\n" + out)
}
