package fd

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/sparseson/sparseson/internal/dense"
	"github.com/sparseson/sparseson/son"
	"github.com/sparseson/sparseson/sparse"
)

func TestEigTolMatchesDense(t *testing.T) {
	if EigTol != dense.FDEigTol {
		t.Fatalf("fd.EigTol = %v, dense.FDEigTol = %v", EigTol, dense.FDEigTol)
	}
}

// TestOpenLoop is docs/algorithms.md §9 B: the same ĝ sequence into the sparse
// sketch (through a dense test Host) and into the dense FD/RFD reference
// gives the same SᵀS, ‖SᵀS − S_dᵀS_d‖_max/‖S_dᵀS_d‖_max ≤ 1e-12, and the
// same α.
func TestOpenLoop(t *testing.T) {
	type tc struct {
		d, m, s      int
		robust, fast bool
		alpha        float64
		theta        float64
		rowCap       int
		spread       float64
	}
	var cases []tc
	for _, fast := range []bool{false, true} {
		for _, robust := range []bool{false, true} {
			for _, dm := range [][3]int{{50, 5, 5}, {30, 1, 3}, {40, 3, 20}, {100, 10, 8}, {8, 12, 3}} {
				for _, theta := range []float64{1e4, 1e8} {
					a := 1.0
					if robust {
						a = 0
					}
					cases = append(cases, tc{d: dm[0], m: dm[1], s: dm[2], robust: robust, fast: fast, alpha: a, theta: theta, spread: 1})
				}
			}
		}
	}
	for k, c := range cases {
		name := fmt.Sprintf("d%d_m%d_s%d_robust%v_fast%v_theta%g", c.d, c.m, c.s, c.robust, c.fast, c.theta)
		t.Run(name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(k), 7))
			sk, err := New(Config{M: c.m, Alpha: c.alpha, Robust: c.robust, Fast: c.fast, Theta: c.theta, RowCap: c.rowCap})
			if err != nil {
				t.Fatal(err)
			}
			dn := dense.NewFD(c.m, c.d, c.alpha, c.robust, c.fast)
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
				if step%7 != 0 && step != T-1 {
					continue
				}
				a, b := sts(sk, h.Z, c.d), gramT(denseRows(dn), c.d)
				sc, df := maxAbsDiff(a, b)
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
			t.Logf("worst %.2e; shrinks %d absorbs %d appends %d compactions %d (cond %d)", worst, cnt.Shrinks, cnt.Absorbs, cnt.Appends, cnt.Compactions, cnt.CondCompact)
		})
	}
}

// recorder wraps a Sketch and records the scale c of every ĝ = c·x̃.
type recorder struct {
	*Sketch
	cs []float64
}

func (r *recorder) Update(st *sparse.Step, h sparse.Host) {
	r.cs = append(r.cs, st.C)
	r.Sketch.Update(st, h)
}

// TestOpenLoopThroughSON is §9 B driven by a real son.Learner: the ĝ
// sequence the SON produced (recorded) goes into the dense sketch, and
// SᵀS = ZᵀCᵀCZ is rebuilt from the core's table with son.Learner.ZColumn.
func TestOpenLoopThroughSON(t *testing.T) {
	for i, c := range []setup{
		{d: 80, m: 6, s: 10, lossName: "squared", alpha: 1, C: 1},
		{d: 120, m: 8, s: 12, lossName: "logistic", alpha: 0, C: 1, robust: true},
		{d: 60, m: 4, s: 8, lossName: "logistic", alpha: 0.5, C: 1, fast: true},
	} {
		c.seed = uint64(30 + i)
		t.Run(c.String(), func(t *testing.T) {
			sk, err := New(c.config())
			if err != nil {
				t.Fatal(err)
			}
			rec := &recorder{Sketch: sk}
			sp, err := son.New(c.sonConfig(), dense.Loss(c.lossName), rec)
			if err != nil {
				t.Fatal(err)
			}
			dn := dense.NewFD(c.m, c.d, c.alpha, c.robust, c.fast)
			var worst float64
			for step, ex := range c.data(800) {
				n := len(rec.cs)
				sp.Learn(&ex)
				if len(rec.cs) == n {
					continue
				}
				g := make([]float64, c.d)
				for k, j := range ex.Idx {
					g[j] += rec.cs[n] * ex.Val[k]
				}
				dn.Update(g)
				if step%20 != 0 {
					continue
				}
				sc, df := maxAbsDiff(sparseSTS(sp, sk, c.d), gramT(dn.Rows, c.d))
				worst = max(worst, df/sc)
				if df > 1e-12*sc || dense.Rel(sk.Alpha(), dn.Alpha()) > 1e-12 {
					t.Fatalf("step %d: ‖SᵀS − S_dᵀS_d‖/‖S_dᵀS_d‖ = %.3g, α %v vs %v", step, df/sc, sk.Alpha(), dn.Alpha())
				}
			}
			t.Logf("worst %.2e, %+v", worst, sk.Counts())
		})
	}
}

// sparseSTS rebuilds SᵀS from the SON's table.
func sparseSTS(sp *son.Learner, sk *Sketch, d int) [][]float64 {
	return sts(sk, dense.ZMatrix(sp, sk.Rows(), d), d)
}
