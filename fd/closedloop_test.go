package fd

import (
	"fmt"
	"math"
	"os"
	"testing"

	"github.com/sparseson/sparseson/internal/dense"
	"github.com/sparseson/sparseson/son"
	"github.com/sparseson/sparseson/sparse"
)

type setup struct {
	d, m, s      int
	lossName     string
	alpha, C     float64
	diag         bool
	robust, fast bool
	spread       float64
	seed         uint64
	ring         int  // SONConfig.LazyRing (0 default, < 0 eager)
	bits         uint // hash bits (0: 9); 2^bits must be ≥ d
	unit         bool // son.Config.Unit (the scaled-space tests)
	rms          bool // son.Config.UnitRMS, with unit
}

func (c setup) String() string {
	kind := "fd"
	if c.robust {
		kind = "rfd"
	}
	if c.fast {
		kind += "_fast"
	}
	name := fmt.Sprintf("%s_d%d_m%d_s%d_%s_a%g_C%g_diag%v_seed%d_ring%d", kind, c.d, c.m, c.s, c.lossName, c.alpha, c.C, c.diag, c.seed, c.ring)
	if c.unit {
		name += fmt.Sprintf("_unit_spread%g", c.spread)
	}
	if c.rms {
		name += "_rms"
	}
	return name
}

func (c setup) config() Config {
	return Config{M: c.m, Alpha: c.alpha, Robust: c.robust, Fast: c.fast}
}

func (c setup) sonConfig() son.Config {
	bits := c.bits
	if bits == 0 {
		bits = 9
	}
	if 1<<bits < c.d {
		panic("fd test: d exceeds the hash space")
	}
	return son.Config{Bits: bits, C: c.C, Sigma: dense.Sigma(c.lossName, c.C), Eta0: 1, Diag: c.diag, LazyRing: c.ring}
}

func newSparse(t testing.TB, c setup, cfg Config) (*son.Learner, *Sketch) {
	t.Helper()
	sk, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	sp, err := son.New(c.sonConfig(), dense.Loss(c.lossName), sk)
	if err != nil {
		t.Fatal(err)
	}
	return sp, sk
}

func newDense(c setup) *dense.SON {
	return dense.NewSON(c.d, c.C, dense.Sigma(c.lossName, c.C), 1, 0, c.diag, dense.Loss(c.lossName), dense.NewFD(c.m, c.d, c.alpha, c.robust, c.fast))
}

func (c setup) data(T int) []sparse.Example {
	return dense.Problem{D: c.d, S: c.s, T: T, Loss: c.lossName, Spread: c.spread, Seed: c.seed}.Examples()
}

// sensitivity runs dense SON twice, the second time on the input perturbed
// by a relative 1e-15, and returns the largest prediction difference rel.
func sensitivity(c setup, T int) float64 {
	return dense.Sensitivity(func() interface{ Learn(*sparse.Example) float64 } { return newDense(c) }, c.data(T), c.seed)
}

func compareWeights(t *testing.T, sp *son.Learner, dn *dense.SON, tol float64) float64 {
	t.Helper()
	want := dn.Weights()
	var scale, worst float64
	for _, v := range want {
		scale = math.Max(scale, math.Abs(v))
	}
	sp.Weights(func(slot uint32, w float64) {
		e := math.Abs(w-want[slot]) / (1 + scale)
		worst = max(worst, e)
		if e > tol {
			t.Errorf("w[%d]: sparse %.15g dense %.15g", slot, w, want[slot])
		}
	})
	return worst
}

// closedLoop runs sparse and dense SON side by side on c's stream and fails
// if a prediction (or, at the end, a weight) differs by more than tol.
func closedLoop(t *testing.T, c setup, cfg Config, T int, tol float64) (worst, wworst float64) {
	t.Helper()
	data := c.data(T)
	sp, _ := newSparse(t, c, cfg)
	dn := newDense(c)
	for i := range data {
		a, b := sp.Learn(&data[i]), dn.Learn(&data[i])
		worst = max(worst, dense.Rel(a, b))
		if !(dense.Rel(a, b) <= tol) {
			t.Fatalf("step %d: sparse %.15g dense %.15g (rel %.3g)", i, a, b, dense.Rel(a, b))
		}
	}
	wworst = compareWeights(t, sp, dn, tol)
	return worst, wworst
}

// TestSensitivity prints the 1e-15 input-perturbation sensitivity of the
// dense reference for the closed-loop settings (developer tool; set
// FD_SENS=1).
func TestSensitivity(t *testing.T) {
	if os.Getenv("FD_SENS") == "" {
		t.Skip("set FD_SENS=1")
	}
	for _, robust := range []bool{false, true} {
		for _, fast := range []bool{false, true} {
			for _, lossName := range []string{"squared", "logistic"} {
				for _, alpha := range []float64{0, 0.5, 1, 4, 8, 16} {
					if alpha == 0 && !robust {
						continue
					}
					for _, diag := range []bool{false, true} {
						var worst300, worst1000 float64
						for k, dm := range [][3]int{{50, 5, 5}, {80, 3, 10}, {200, 10, 20}, {120, 7, 12}} {
							c := setup{d: dm[0], m: dm[1], s: dm[2], lossName: lossName, alpha: alpha, C: 1, diag: diag, robust: robust, fast: fast, seed: uint64(k + 1)}
							worst300 = max(worst300, sensitivity(c, 300))
							worst1000 = max(worst1000, sensitivity(c, 1000))
						}
						fmt.Printf("robust=%v fast=%v %-8s α=%-4g diag=%-5v  T=300: %.1e  T=1000: %.1e\n", robust, fast, lossName, alpha, diag, worst300, worst1000)
					}
				}
			}
		}
	}
}

// TestMatchesDense is the closed-loop oracle of docs/algorithms.md §9 A: sparse
// SON with each sketch and dense Alg. 1 with the dense sketch
// (internal/dense.FD: Luo et al. (NIPS 2016), Alg. 2 as written, Luo et al. (JMLR 2019), Alg. 2/4/5) give
// the same predictions at every step (rel = |Δŷ|/(1+|ŷ|) ≤ 1e-9) and the
// same final weights.
//
// Horizons and α follow a measurement of each setting's sensitivity: dense
// SON against itself on a 1e-15 relative perturbation of the input
// (TestSensitivity, max over four streams). Plain FD with squared loss and
// α ≤ 4 is chaotic even in dense form (the perturbation grows to O(1) by
// T = 1000; 0.02 at T = 300 for α = 1), α = 8 reaches 1.4e-9 by T = 1000,
// α = 16 stays at 2e-14: so squared-loss FD runs 1000 steps with α = 16.
// With pre-scaling (Diag) the squared-loss streams are tame from α = 4
// (6e-12 at T = 1000). Logistic FD (≤ 2e-12 for α ≥ 0.5) and every RFD/RFD₀
// setting (≤ 2.5e-12) are well-posed and run 1000 steps. The doubled buffer
// behaves alike (squared α = 8: 1.8e-12 at T = 1000).
//
// docs/algorithms.md §9 A also asks for plain FD + squared loss with α ∈ {0.5, 1}
// up to T = 60. On 320 such streams (40 seeds × 4 shapes × Diag) the
// sparse–dense difference reached 2.9e-9 by T = 15, 4e-8 by T = 30 and
// 1e-5 by T = 60 — and two sparse runs that differ only in RowCap and θ
// (i.e. in rounding) differ by exactly as much (4.4e-8 at T = 30), while
// dense-vs-dense on a 1e-15 input perturbation reaches 1.7e-10 at T = 30:
// the split weights' per-step rounding (docs/algorithms.md §2, "Numerical fact",
// ~log₁₀(1+E/α) digits) is what the chaos amplifies, not a sketch
// discrepancy. Those settings are covered by the open-loop test
// (TestOpenLoop, docs/algorithms.md §9 B) instead.
func TestMatchesDense(t *testing.T) {
	type tc struct {
		setup
		T int
	}
	var cases []tc
	seed := uint64(1)
	dims := [][3]int{{50, 1, 5}, {80, 5, 10}, {200, 10, 20}, {120, 7, 12}}
	for _, fast := range []bool{false, true} {
		for _, diag := range []bool{false, true} {
			for i, dm := range dims {
				small := []float64{0.5, 1}[i%2]
				base := setup{d: dm[0], m: dm[1], s: dm[2], C: 1, diag: diag, fast: fast}
				add := func(lossName string, alpha float64, robust bool, T int) {
					c := base
					c.lossName, c.alpha, c.robust, c.seed = lossName, alpha, robust, seed
					// Every way of applying folds and compactions meets
					// the dense oracle: deferred (default ring), eager, and
					// deferred with rings so small that flushes are frequent.
					c.ring = []int{0, -1, 1, 3}[seed%4]
					seed++
					cases = append(cases, tc{c, T})
				}
				add("logistic", small, false, 1000)
				sqAlpha := 16.0
				if diag {
					sqAlpha = []float64{4, 8}[i%2]
				}
				add("squared", sqAlpha, false, 1000)
				add("logistic", []float64{0, 0.5}[i%2], true, 1000)
				add("squared", []float64{0.5, 0}[i%2], true, 1000)
			}
		}
	}
	for _, c := range cases {
		T := c.T
		if testing.Short() {
			T = min(T, 300)
		}
		t.Run(fmt.Sprintf("%v_T%d", c.setup, T), func(t *testing.T) {
			worst, ww := closedLoop(t, c.setup, c.config(), T, 1e-9)
			t.Logf("max rel %.2e over %d steps, weights %.2e", worst, T, ww)
		})
	}
}
