package ada

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/sparseson/sparseson/internal/dense"
	"github.com/sparseson/sparseson/sparse"
	"gonum.org/v1/gonum/mat"
)

// fullReference is ADA-FULL for c's preconditioner form: δI + G^{1/2}
// (ADA-FD, ADA-FFD), or the pseudo-inverse G^{†1/2} (the escaped-mass
// learners while nothing escapes).
func fullReference(c oracleCase, d int) *dense.ADA {
	dc := c.denseConfig()
	dc.D, dc.Tau, dc.Fast = d, 0, false
	return dense.NewADA(dc, dense.Loss(c.lossName))
}

// runAgainst feeds data to the sparse learner and a dense one and returns
// the largest prediction and final-weight differences.
func runAgainst(t *testing.T, sp *Learner, dn *dense.ADA, data []sparse.Example) (worst float64) {
	t.Helper()
	for i := range data {
		a, b := sp.Learn(&data[i]), dn.Learn(&data[i])
		worst = max(worst, dense.Rel(a, b))
	}
	want := dn.Weights()
	var scale float64
	for _, v := range want {
		scale = math.Max(scale, math.Abs(v))
	}
	sp.Weights(func(slot uint32, w float64) {
		worst = max(worst, math.Abs(w-want[slot])/(1+scale))
	})
	return worst
}

// TestFullSize checks Wan & Zhang (TPAMI 2022), §5.2 and footnote 1: ADA-FD with τ ≥ d+1 and
// ADA-FFD with 2τ ≥ d+1 never discard anything and equal ADA-FULL; FTSL,
// S-ADA, FTFSL and Fast S-ADA at those sizes keep ρ = 0 and equal the
// pseudo-inverse ADA-FULL (δ = 0).
func TestFullSize(t *testing.T) {
	const d = 10
	for _, v := range variants() {
		c := oracleCase{v: v, d: d, s: 4, t: 200, tau: d + 1, lossName: "logistic", eta: 0.5, seed: 5}
		if n, _ := Lookup(v.name); n.Buffer == Doubled {
			c.tau = (d + 2) / 2 // 2τ ≥ d+1
		}
		t.Run(c.String(), func(t *testing.T) {
			t.Parallel()
			sp := c.newSparse(t)
			worst := runAgainst(t, sp, fullReference(c, d), c.data())
			sens := dense.Sensitivity(func() interface{ Learn(*sparse.Example) float64 } { return fullReference(c, d) }, c.data(), 3)
			t.Logf("against ADA-FULL: %.3g (ADA-FULL's own 1e-15 sensitivity %.3g)", worst, sens)
			if !(worst <= 1e-9) {
				t.Errorf("τ = %d against ADA-FULL: %.3g", c.tau, worst)
			}
			if sp.Rho() != 0 {
				t.Errorf("ρ = %v at full size", sp.Rho())
			}
		})
	}
}

// subspaceData draws examples x_t = Σ_k a_tk·u_k in the span of r fixed
// sparse vectors u_k (8 nonzeros each) in d dimensions, with ±1 labels.
func subspaceData(d, r, T int, seed uint64) []sparse.Example {
	rng := rand.New(rand.NewPCG(seed, 17))
	u := make([]map[int]float64, r)
	for k := range u {
		u[k] = map[int]float64{}
		for _, j := range rng.Perm(d)[:8] {
			u[k][j] = rng.NormFloat64()
		}
	}
	out := make([]sparse.Example, T)
	for t := range out {
		x := map[int]float64{}
		for k := range u {
			a := rng.NormFloat64()
			for j, v := range u[k] {
				x[j] += a * v
			}
		}
		ex := &out[t]
		ex.Weight, ex.HasLabel, ex.Label = 1, true, 1
		if rng.Float64() < 0.5 {
			ex.Label = -1
		}
		keys := make([]int, 0, len(x))
		for j := range x {
			keys = append(keys, j)
		}
		sort.Ints(keys)
		for _, j := range keys {
			ex.Idx = append(ex.Idx, uint32(j))
			ex.Val = append(ex.Val, x[j])
		}
	}
	return out
}

// TestSubspace checks Wan & Zhang's (TPAMI 2022) remark after Theorem 2: gradients in an
// r-dimensional subspace with τ = r+1 leave no escaped mass (Δ_T = 0), so
// every learner equals ADA-FULL (pseudo-inverse ADA-FULL for the escaped
// form) at τ ≪ d.
func TestSubspace(t *testing.T) {
	const d, r = 100, 4
	for _, v := range variants() {
		c := oracleCase{v: v, d: d, tau: r + 1, lossName: "logistic", eta: 0.5, seed: 6}
		t.Run(c.String(), func(t *testing.T) {
			t.Parallel()
			data := subspaceData(d, r, 120, c.seed)
			sp := c.newSparse(t)
			worst := runAgainst(t, sp, fullReference(c, d), data)
			t.Logf("against ADA-FULL: %.3g, ρ = %.3g", worst, sp.Rho())
			if !(worst <= 1e-9) {
				t.Errorf("τ = r+1 = %d in a rank-%d stream against ADA-FULL: %.3g", c.tau, r, worst)
			}
			if sp.Rho() > 1e-12*sp.Sketch().Captured() {
				t.Errorf("ρ = %v in a rank-%d stream at τ = %d", sp.Rho(), r, c.tau)
			}
		})
	}
}

// zMatrix returns Z (p×d) and β̄ from the learner's split table.
func zMatrix(a *Learner, d int) (Z [][]float64, bbar []float64) {
	p := a.Split().Rows()
	Z = make([][]float64, p)
	for i := range Z {
		Z[i] = make([]float64, d)
	}
	bbar = make([]float64, d)
	a.Split().Columns(func(slot uint32, b float64, z []float64) {
		bbar[slot] = b
		for i := range Z {
			Z[i][slot] = z[i]
		}
	})
	return Z, bbar
}

// TestZBar checks that dual averaging's y = Z·ḡ, kept incrementally through
// absorbs, appends and (deferred) compactions, equals Z·ḡ recomputed from
// the table, to 1e-12 relative to Σ_j |Z_ij·ḡ_j|, on a news20-like stream
// long enough for many compactions.
func TestZBar(t *testing.T) {
	const bits = 12
	data := dense.NewsLike(600, 20000, 40, bits, 3)
	for _, v := range variants() {
		if v.update != Dual {
			continue
		}
		c := oracleCase{v: v, tau: 8, lossName: "logistic", eta: 0.5}
		t.Run(c.String(), func(t *testing.T) {
			t.Parallel()
			cfg := c.config()
			cfg.Bits = bits
			a, err := New(cfg, dense.Loss("logistic"))
			if err != nil {
				t.Fatal(err)
			}
			var worst float64
			for i := range data {
				a.Learn(&data[i])
				if i%100 != 99 {
					continue
				}
				Z, gbar := zMatrix(a, 1<<bits)
				y := a.Split().ZBar()
				for k := range Z {
					var exact, scale float64
					for j, zj := range Z[k] {
						exact += zj * gbar[j]
						scale += math.Abs(zj * gbar[j])
					}
					worst = max(worst, math.Abs(y[k]-exact)/scale)
				}
			}
			t.Logf("y = Z·ḡ to %.3g relative, %d compactions", worst, a.Sketch().Counts().Compactions)
			if !(worst <= 1e-12) {
				t.Errorf("y = Z·ḡ off by %.3g (relative)", worst)
			}
			if n := a.Sketch().Counts().Compactions; n < 5 {
				t.Errorf("only %d compactions: the stream does not exercise them", n)
			}
		})
	}
}

// sketchGram returns SᵀS (d×d) of the learner's sketch, S = C·Z.
func sketchGram(a *Learner, d int) *mat.SymDense {
	Z, _ := zMatrix(a, d)
	st := a.Sketch().State()
	out := mat.NewSymDense(d, nil)
	for i := 0; i < st.Q; i++ {
		row := make([]float64, d)
		for k := 0; k < st.P; k++ {
			if c := st.C[i*st.P+k]; c != 0 {
				for j := range row {
					row[j] += c * Z[k][j]
				}
			}
		}
		out.SymRankOne(out, 1, mat.NewVecDense(d, row))
	}
	return out
}

// TestBounds checks, open-loop on a stream with a decaying spectrum, the
// FD guarantees the regret bounds rest on (Wan & Zhang (TPAMI 2022), Lemma 4 and Eq. 13;
// Yang et al.'s (ICML 2025) escaped mass): 0 ⪯ G_t − S_tᵀS_t ⪯ ρ_{1:t}I, and
// ρ_{1:T} = Δ_T ≤ ‖C_T − C_T^k‖_F²/(τ − k) for every k < τ, C_T the stacked
// gradients — for the per-step and the doubled buffer (Eq. 13 is stated
// for ADA-FFD: its τ is the sketch size of the doubled buffer, whose
// shrink also subtracts the τ-th eigenvalue).
func TestBounds(t *testing.T) {
	const d = 30
	for _, name := range []string{"ada_fd", "ada_ffd"} {
		for _, tau := range []int{4, 7} {
			c := oracleCase{v: variant{name, Mirror}, d: d, s: 6, t: 300, tau: tau, eta: 0.1, seed: 8}
			t.Run(c.String(), func(t *testing.T) {
				t.Parallel()
				rng := rand.New(rand.NewPCG(9, uint64(tau)))
				data := c.data()
				for i := range data {
					for k, j := range data[i].Idx {
						data[i].Val[k] *= math.Pow(1+float64(j), -0.8)
					}
					data[i].Label = rng.NormFloat64()
				}
				a, err := New(c.config(), gradLoss{})
				if err != nil {
					t.Fatal(err)
				}
				G := mat.NewSymDense(d, nil)
				for i := range data {
					a.Learn(&data[i])
					g := make([]float64, d)
					for k, j := range data[i].Idx {
						g[j] = data[i].Label * data[i].Val[k]
					}
					G.SymRankOne(G, 1, mat.NewVecDense(d, g))
					if i%50 != 49 {
						continue
					}
					diff := mat.NewSymDense(d, nil)
					sk := sketchGram(a, d)
					for r := 0; r < d; r++ {
						for c := r; c < d; c++ {
							diff.SetSym(r, c, G.At(r, c)-sk.At(r, c))
						}
					}
					ev := eigenvalues(diff)
					top := eigenvalues(G)[d-1]
					rho := a.Rho()
					if ev[0] < -1e-10*top || ev[d-1] > rho+1e-10*top {
						t.Errorf("step %d: eigenvalues of G − SᵀS in [%.3g, %.3g], want [0, ρ = %.3g]", i+1, ev[0], ev[d-1], rho)
					}
					lam := eigenvalues(G)
					for k := 0; k < tau; k++ {
						var tail float64
						for i := 0; i < d-k; i++ {
							tail += math.Max(lam[i], 0) // ascending: the d−k smallest
						}
						if bound := tail / float64(tau-k); rho > bound*(1+1e-10) {
							t.Errorf("step %d, k = %d: Δ = %.6g > ‖C − C^k‖²/(τ−k) = %.6g", i+1, k, rho, bound)
						}
					}
				}
				if a.Rho() == 0 {
					t.Error("nothing escaped: the bounds were not exercised")
				}
			})
		}
	}
}

func eigenvalues(a *mat.SymDense) []float64 {
	var es mat.EigenSym
	if !es.Factorize(a, false) {
		panic("eigen failed")
	}
	return es.Values(nil)
}

// reloaded is a saved and loaded copy of a (configuration cfg, logistic
// loss).
func reloaded(t *testing.T, a *Learner, cfg Config) *Learner {
	t.Helper()
	r, _ := encodeParse(t, a.Save)
	b, err := Load(r, cfg, dense.Loss("logistic"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// trainedTo returns a new learner configured as cfg (logistic loss)
// after learning data[:cut].
func trainedTo(t *testing.T, cfg Config, data []sparse.Example, cut int) *Learner {
	t.Helper()
	a, err := New(cfg, dense.Loss("logistic"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range data[:cut] {
		a.Learn(&data[i])
	}
	return a
}

// learnUntil has a learn data in order until, after an example past
// example from, done holds (given how many steps a had carried t past
// before that example); it returns how many examples a learned, or −1
// if done never held.
func learnUntil(a *Learner, data []sparse.Example, from int, done func(carriedBefore int) bool) int {
	for i := range data {
		n := a.carried
		a.Learn(&data[i])
		if i > from && done(n) {
			return i + 1
		}
	}
	return -1
}

// learnsAsReloaded checks that a learner saved and loaded after data[:cut]
// predicts and learns data[cut:] with a's bits.
func learnsAsReloaded(t *testing.T, a *Learner, cfg Config, data []sparse.Example, cut int) {
	t.Helper()
	learnsAsLoaded(t, a, reloaded(t, a, cfg), data, cut)
}

// learnsAsLoaded checks that b, a reloaded from a after data[:cut],
// predicts and learns the rest of data bit for bit as a does.
func learnsAsLoaded(t *testing.T, a, b *Learner, data []sparse.Example, cut int) {
	t.Helper()
	for i := range data[cut:] {
		ex := &data[cut+i]
		if pa, pb := a.Predict(ex), b.Predict(ex); pa != pb {
			t.Fatalf("example %d: predict %v after the reload, %v without", cut+i, pb, pa)
		}
		if pa, pb := a.Learn(ex), b.Learn(ex); pa != pb {
			t.Fatalf("example %d: learn %v after the reload, %v without", cut+i, pb, pa)
		}
	}
}

// TestSaveLoad checks that save → load → continue is bit-identical to
// never stopping, for every learner, mid-way through a stream (with
// deferred steps pending and, for the doubled buffer, a partly filled
// buffer).
func TestSaveLoad(t *testing.T) {
	data := dense.NewsLike(400, 20000, 40, 12, 4)
	for _, v := range variants() {
		for _, cut := range []int{1, 137, 250} {
			c := oracleCase{v: v, tau: 6, lossName: "logistic", eta: 0.5}
			t.Run(fmt.Sprintf("%v_cut%d", c, cut), func(t *testing.T) {
				t.Parallel()
				cfg := c.config()
				cfg.Bits = 12
				a := trainedTo(t, cfg, data, cut)
				b := reloaded(t, a, cfg)
				learnsAsLoaded(t, a, b, data, cut)
				same := true
				wa := map[uint32]float64{}
				a.Weights(func(s uint32, w float64) { wa[s] = w })
				b.Weights(func(s uint32, w float64) { same = same && wa[s] == w })
				if !same {
					t.Error("final weights differ after the reload")
				}
			})
		}
	}
}
