package oja

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/sparseson/sparseson/internal/dense"
	"github.com/sparseson/sparseson/model"
	"github.com/sparseson/sparseson/son"
	"github.com/sparseson/sparseson/sparse"
)

type setup struct {
	d, m, s  int
	lossName string
	alpha, C float64
	diag     bool
	spread   float64
	seed     uint64
}

func (c setup) String() string {
	return fmt.Sprintf("d%d_m%d_s%d_%s_a%g_C%g_diag%v_spread%g_seed%d", c.d, c.m, c.s, c.lossName, c.alpha, c.C, c.diag, c.spread, c.seed)
}

func newPair(t *testing.T, c setup, cfg Config) (*son.Learner, *Sketch, *dense.SON) {
	t.Helper()
	cfg.M, cfg.Alpha = c.m, c.alpha
	if cfg.Rate == 0 {
		cfg.Rate = 1
	}
	sk, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	sp, err := son.New(son.Config{Bits: 8, C: c.C, Sigma: dense.Sigma(c.lossName, c.C), Eta0: 1, Diag: c.diag}, dense.Loss(c.lossName), sk)
	if err != nil {
		t.Fatal(err)
	}
	dn := dense.NewSON(c.d, c.C, dense.Sigma(c.lossName, c.C), 1, 0, c.diag, dense.Loss(c.lossName), dense.NewOja(c.m, c.d, c.alpha, cfg.Rate))
	return sp, sk, dn
}

// TestMatchesDense is the closed-loop oracle of docs/algorithms.md §9 A: sparse
// Oja-SON and the dense Alg. 1 + Alg. 3 give the same predictions at every
// step (1e-9 relative) and the same final weights, over 1000 steps.
//
// Squared-loss SON with small α is dynamically unstable on these random
// streams, in dense form too: with α = 1, C = 1 a 1e-15 relative change of
// the input moves the dense predictions by 1.7e-5 by step 1000 (and by up
// to 6e-8 the float64 dense reference drifts from a 256-bit one), so no
// float64 pair can agree to 1e-9 there. Squared loss is therefore checked
// over 1000 steps with α ∈ {8, 16}, where the same perturbation moves the
// dense predictions by at most 3e-12 yet E = tΛ ≫ α (the sketch dominates
// A_t), and with α ∈ {0.5, 1} over docs/algorithms.md §10's horizon of 300 steps.
func TestMatchesDense(t *testing.T) {
	type tc struct {
		setup
		T int
	}
	var cases []tc
	seed := uint64(1)
	dims := [][3]int{{50, 1, 5}, {80, 5, 10}, {200, 10, 20}, {120, 7, 12}}
	for _, diag := range []bool{false, true} {
		for i, dm := range dims {
			small := []float64{0.5, 1}[i%2]
			large := []float64{8, 16}[i%2]
			base := setup{d: dm[0], m: dm[1], s: dm[2], C: 1, diag: diag}
			lg, sq, sqShort := base, base, base
			lg.lossName, lg.alpha, lg.seed = "logistic", small, seed
			sq.lossName, sq.alpha, sq.seed = "squared", large, seed+1
			sqShort.lossName, sqShort.alpha, sqShort.seed = "squared", small, seed+2
			cases = append(cases, tc{lg, 1000}, tc{sq, 1000}, tc{sqShort, 300})
			seed += 3
		}
	}
	for _, c := range cases {
		T := c.T
		if testing.Short() {
			T = min(T, 300)
		}
		t.Run(fmt.Sprintf("%v_T%d", c.setup, T), func(t *testing.T) {
			data := dense.Problem{D: c.d, S: c.s, T: T, Loss: c.lossName, Seed: c.seed}.Examples()
			sp, sk, dn := newPair(t, c.setup, Config{})
			var worst float64
			for i := range data {
				a, b := sp.Learn(&data[i]), dn.Learn(&data[i])
				worst = max(worst, dense.Rel(a, b))
				if dense.Rel(a, b) > 1e-9 {
					t.Fatalf("step %d: sparse %.15g dense %.15g (rel %.3g)", i, a, b, dense.Rel(a, b))
				}
			}
			compareWeights(t, sp, dn, c.d, 1e-9)
			t.Logf("max rel %.2e over %d steps, %d re-basings, %d folds", worst, T, sk.Rebases(), sp.Folds())
		})
	}
}

// TestHardRegime: unnormalised features (column scales e^{±1.5}), α = 0.1,
// C = 2, where |uᵀx| ≫ C; §9 A allows 1e-7 here. Squared loss is nearly
// chaotic on this stream (a 1e-15 relative perturbation of the input moves
// float64 dense SON by 2e-8 by step 1000), so without pre-scaling it is
// checked against an extended-precision (256-bit) reference, which the
// float64 dense reference itself only matches to ~1e-8.
func TestHardRegime(t *testing.T) {
	T := 1000
	if testing.Short() {
		T = 400
	}
	for i, lossName := range []string{"squared", "logistic"} {
		for _, diag := range []bool{false, true} {
			c := setup{d: 50, m: 5, s: 5, lossName: lossName, alpha: 0.1, C: 2, diag: diag, spread: 1.5, seed: uint64(100 + i)}
			t.Run(c.String(), func(t *testing.T) {
				data := dense.Problem{D: c.d, S: c.s, T: T, Loss: c.lossName, Spread: c.spread, Seed: c.seed}.Examples()
				sp, _, dn := newPair(t, c, Config{})
				var big *dense.BigOjaSON
				if lossName == "squared" && !diag {
					big = dense.NewBigOjaSON(c.d, c.m, c.alpha, c.C, dense.Sigma(c.lossName, c.C), 1, 1, 256)
				}
				var worst float64
				for i := range data {
					a, b := sp.Learn(&data[i]), dn.Learn(&data[i])
					ref := "dense"
					if big != nil {
						ref = "256-bit"
						if e := big.Learn(&data[i]); dense.Rel(b, e) > 1e-7 {
							t.Fatalf("step %d: the float64 dense reference is %.3g from the 256-bit one", i, dense.Rel(b, e))
						} else {
							b = e
						}
					}
					worst = max(worst, dense.Rel(a, b))
					if dense.Rel(a, b) > 1e-7 {
						t.Fatalf("step %d: sparse %.15g %s %.15g (rel %.3g)", i, a, ref, b, dense.Rel(a, b))
					}
				}
				t.Logf("max rel %.2e over %d steps", worst, T)
			})
		}
	}
}

func compareWeights(t *testing.T, sp *son.Learner, dn *dense.SON, d int, tol float64) {
	t.Helper()
	want := dn.Weights()
	var scale float64
	for _, v := range want {
		scale = math.Max(scale, math.Abs(v))
	}
	sp.Weights(func(slot uint32, w float64) {
		if math.Abs(w-want[slot]) > tol*(1+scale) {
			t.Errorf("w[%d]: sparse %.15g dense %.15g", slot, w, want[slot])
		}
	})
}

// orthoError returns ‖FZ(FZ)ᵀ − I‖_max and ‖K − ZZᵀ‖_max/‖K‖_max.
func orthoError(sp *son.Learner, sk *Sketch, d int) (ortho, kerr float64) {
	F, K, p := sk.FK()
	Z := dense.ZMatrix(sp, p, d)
	V := make([][]float64, p)
	for i := range V {
		V[i] = make([]float64, d)
		for k := 0; k <= i; k++ {
			for j := 0; j < d; j++ {
				V[i][j] += F[i*p+k] * Z[k][j]
			}
		}
	}
	var kmax float64
	for i := 0; i < p; i++ {
		for j := 0; j < p; j++ {
			var vv, zz float64
			for l := 0; l < d; l++ {
				vv += V[i][l] * V[j][l]
				zz += Z[i][l] * Z[j][l]
			}
			want := 0.0
			if i == j {
				want = 1
			}
			ortho = math.Max(ortho, math.Abs(vv-want))
			kerr = math.Max(kerr, math.Abs(K[i*p+j]-zz))
			kmax = math.Max(kmax, math.Abs(K[i*p+j]))
		}
	}
	return ortho, kerr / kmax
}

// TestInvariants checks §9 C every 25 steps on a long stream: V = FZ stays
// orthonormal (below 1e-8, the bound), K tracks ZZᵀ, F stays lower
// triangular with a positive diagonal.
func TestInvariants(t *testing.T) {
	T := 20000
	if testing.Short() {
		T = 3000
	}
	for i, c := range []setup{
		{d: 60, m: 10, s: 8, lossName: "squared", alpha: 8, C: 2, seed: 7},
		{d: 60, m: 10, s: 8, lossName: "squared", alpha: 0.1, C: 2, spread: 1.5, seed: 8},
	} {
		data := dense.Problem{D: c.d, S: c.s, T: T, Loss: c.lossName, Spread: c.spread, Seed: c.seed}.Examples()
		// The first stream re-bases often (θ = 200), the second at the default θ.
		cfg := Config{}
		if i == 0 {
			cfg.Theta = 200
		}
		sp, sk, _ := newPair(t, c, cfg)
		for i := range data {
			sp.Learn(&data[i])
			if i%25 != 0 && i != len(data)-1 {
				continue
			}
			ortho, kerr := orthoError(sp, sk, c.d)
			if ortho > 1e-8 || kerr > 1e-12 {
				t.Fatalf("%v step %d: ‖FZ(FZ)ᵀ−I‖ = %.3g, ‖K−ZZᵀ‖/‖K‖ = %.3g", c, i, ortho, kerr)
			}
			F, _, p := sk.FK()
			for r := 0; r < p; r++ {
				if !(F[r*p+r] > 0) {
					t.Fatalf("step %d: F[%d][%d] = %v", i, r, r, F[r*p+r])
				}
				for k := r + 1; k < p; k++ {
					if F[r*p+k] != 0 {
						t.Fatalf("step %d: F not lower triangular", i)
					}
				}
			}
		}
		t.Logf("%v: %d re-basings over %d steps", c, sk.Rebases(), T)
		if sk.Rebases() == 0 {
			t.Errorf("%v: no re-basing happened; the test does not exercise it", c)
		}
	}
}

// TestDecomposeVariants: the O(m²) semiseparable Decompose equals the
// O(m³) Cholesky one.
func TestDecomposeVariants(t *testing.T) {
	c := setup{d: 80, m: 8, s: 10, lossName: "logistic", alpha: 0.5, C: 1, seed: 11}
	data := dense.Problem{D: c.d, S: c.s, T: 1000, Loss: c.lossName, Seed: c.seed}.Examples()
	fast, _, _ := newPair(t, c, Config{})
	slow, _, _ := newPair(t, c, Config{Cholesky: true})
	for i := range data {
		a, b := fast.Learn(&data[i]), slow.Learn(&data[i])
		if dense.Rel(a, b) > 1e-11 {
			t.Fatalf("step %d: O(m²) %.15g vs Cholesky %.15g", i, a, b)
		}
	}
}

// TestRebaseLeavesModelUnchanged: re-basing is a change of representation
// only — predictions with frequent re-basing equal those with none.
func TestRebaseLeavesModelUnchanged(t *testing.T) {
	c := setup{d: 60, m: 6, s: 8, lossName: "logistic", alpha: 1, C: 1, seed: 12}
	data := dense.Problem{D: c.d, S: c.s, T: 1000, Loss: c.lossName, Seed: c.seed}.Examples()
	often, skOften, _ := newPair(t, c, Config{Theta: 1.5})
	never, skNever, _ := newPair(t, c, Config{Theta: 1e300})
	for i := range data {
		a, b := often.Learn(&data[i]), never.Learn(&data[i])
		if dense.Rel(a, b) > 1e-9 {
			t.Fatalf("step %d: with re-basing %.15g, without %.15g", i, a, b)
		}
	}
	if skOften.Rebases() < 100 || skNever.Rebases() != 0 {
		t.Fatalf("re-basings: %d and %d", skOften.Rebases(), skNever.Rebases())
	}
}

// TestSaveLoadContinue: save → load → continue equals uninterrupted training,
// bit for bit, and -t predictions equal what training would predict next.
func TestSaveLoadContinue(t *testing.T) {
	for _, diag := range []bool{false, true} {
		c := setup{d: 100, m: 10, s: 10, lossName: "logistic", alpha: 1, C: 2, diag: diag, seed: 13}
		data := dense.Problem{D: c.d, S: c.s, T: 2000, Loss: c.lossName, Seed: c.seed}.Examples()
		a, _, _ := newPair(t, c, Config{})
		for i := range data[:1000] {
			a.Learn(&data[i])
		}
		path := filepath.Join(t.TempDir(), "m")
		if err := model.Save(path, nil, a.Save); err != nil {
			t.Fatal(err)
		}
		_, r, err := model.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		sk, _ := New(Config{M: c.m, Alpha: c.alpha, Rate: 1})
		b, err := son.Load(r, son.Config{Bits: 8, C: c.C, Eta0: 1, Diag: diag}, dense.Loss(c.lossName), sk)
		if err != nil {
			t.Fatal(err)
		}
		for i := range data[1000:] {
			ex := &data[1000+i]
			if pa, pb := a.Predict(ex), b.Predict(ex); pa != pb {
				t.Fatalf("diag=%v example %d: predict %v vs %v", diag, i, pa, pb)
			}
			if pa, pb := a.Learn(ex), b.Learn(ex); pa != pb {
				t.Fatalf("diag=%v example %d: learn %v vs %v", diag, i, pa, pb)
			}
		}
	}
}

// TestPredictIsNextLearnPrediction: Predict returns exactly the prediction
// Learn makes for the same example at the same state.
func TestPredictIsNextLearnPrediction(t *testing.T) {
	c := setup{d: 60, m: 5, s: 8, lossName: "squared", alpha: 0.5, C: 0.5, seed: 14}
	data := dense.Problem{D: c.d, S: c.s, T: 500, Loss: c.lossName, Seed: c.seed}.Examples()
	sp, _, _ := newPair(t, c, Config{})
	for i := range data {
		p := sp.Predict(&data[i])
		if l := sp.Learn(&data[i]); dense.Rel(p, l) > 1e-12 {
			t.Fatalf("step %d: Predict %v, Learn %v", i, p, l)
		}
	}
}

// TestEtaPower: the to-sketch scale with η_t = η₀/t (Luo et al.'s (JMLR 2019) choice)
// agrees with the dense reference as η₀/√t does.
func TestEtaPower(t *testing.T) {
	for _, lossName := range []string{"logistic", "squared"} {
		c := setup{d: 80, m: 6, s: 10, lossName: lossName, alpha: 8, C: 1, diag: true, seed: 21}
		data := dense.Problem{D: c.d, S: c.s, T: 1000, Loss: c.lossName, Seed: c.seed}.Examples()
		sk, err := New(Config{M: c.m, Alpha: c.alpha, Rate: 1})
		if err != nil {
			t.Fatal(err)
		}
		sp, err := son.New(son.Config{Bits: 8, C: c.C, Sigma: dense.Sigma(c.lossName, c.C), Eta0: 1, EtaPower: 1, Diag: true}, dense.Loss(c.lossName), sk)
		if err != nil {
			t.Fatal(err)
		}
		dn := dense.NewSON(c.d, c.C, dense.Sigma(c.lossName, c.C), 1, 0, true, dense.Loss(c.lossName), dense.NewOja(c.m, c.d, c.alpha, 1))
		dn.EtaPower = 1
		for i := range data {
			if a, b := sp.Learn(&data[i]), dn.Learn(&data[i]); dense.Rel(a, b) > 1e-9 {
				t.Fatalf("%s step %d: sparse %.15g dense %.15g", lossName, i, a, b)
			}
		}
	}
}

// nopHost is a Host that changes nothing: enough to drive two sketches
// through the same updates.
type nopHost struct{}

func (nopHost) Absorb([]float64)                    {}
func (nopHost) Append()                             {}
func (nopHost) Fold()                               {}
func (nopHost) Transform([]float64, int, []float64) {}

// TestMulMMemo: Update reuses the F·z of the MulM before it only for that
// z. A sketch given MulM calls between its updates — with the update's z,
// with another z, or none — keeps the bits of one given none.
func TestMulMMemo(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	mk := func() *Sketch {
		s, err := New(Config{M: 5, Alpha: 1, Rate: 1})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	plain, memo := mk(), mk()
	dst := make([]float64, 5)
	for it := range 400 {
		z := make([]float64, 5)
		for i := range z {
			z[i] = rng.NormFloat64()
		}
		c, n := rng.NormFloat64(), 10+rng.Float64()
		switch it % 3 {
		case 0:
			memo.MulM(dst, z)
		case 1:
			other := append([]float64(nil), z...)
			other[rng.IntN(len(other))] += 1
			memo.MulM(dst, other)
		}
		plain.Update(&sparse.Step{C: c, N: n, Z: append([]float64(nil), z...)}, nopHost{})
		memo.Update(&sparse.Step{C: c, N: n, Z: z}, nopHost{})
		for _, pair := range [][2][]float64{{plain.F, memo.F}, {plain.K, memo.K}, {plain.lam, memo.lam}} {
			for i := range pair[0] {
				if math.Float64bits(pair[0][i]) != math.Float64bits(pair[1][i]) {
					t.Fatalf("update %d: the sketch given MulM calls differs from the one given none", it)
				}
			}
		}
	}
	if plain.p == 0 {
		t.Fatal("no rows: the updates tested nothing")
	}
}
