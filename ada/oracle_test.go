package ada

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sparseson/sparseson/internal/dense"
	"github.com/sparseson/sparseson/sparse"
)

// variant is one of the eight learners (six names, ADA-FD/FFD under both
// updates).
type variant struct {
	name   string
	update Update
}

func variants() []variant {
	var out []variant
	for _, n := range Learners {
		if n.UpdateFixed {
			out = append(out, variant{n.Name, n.Update})
			continue
		}
		out = append(out, variant{n.Name, Mirror}, variant{n.Name, Dual})
	}
	return out
}

func (v variant) String() string {
	if n, _ := Lookup(v.name); !n.UpdateFixed {
		if v.update == Dual {
			return v.name + "_dual"
		}
		return v.name + "_mirror"
	}
	return v.name
}

// oracleCase is a learner on a random stream.
type oracleCase struct {
	v        variant
	d, s, t  int
	tau      int
	lossName string
	eta      float64
	delta    float64
	eps      float64
	seed     uint64
	// rowCap is Config.RowCap of a doubled buffer: 0 the CLI's
	// DoubledRowCap, −1 fd's default 3τ (the models before it).
	rowCap int
	// grow is Config.Grow (δ form).
	grow bool
}

func (c oracleCase) String() string {
	return fmt.Sprintf("%v_d%d_s%d_tau%d_%s_seed%d_cap%d", c.v, c.d, c.s, c.tau, c.lossName, c.seed, RowCap(c.config()))
}

func (c oracleCase) config() Config {
	n, ok := Lookup(c.v.name)
	if !ok {
		panic("no learner " + c.v.name)
	}
	delta := c.delta
	if delta == 0 {
		delta = DefaultDelta(c.v.update)
	}
	cfg := Config{Bits: 9, Tau: c.tau, Precond: n.Precond, Update: c.v.update, Buffer: n.Buffer, Eta: c.eta, Delta: delta, Epsilon: c.eps, Grow: c.grow}
	if n.Buffer == Doubled && c.rowCap == 0 {
		cfg.RowCap = DoubledRowCap(c.tau)
	}
	return cfg
}

func (c oracleCase) denseConfig() dense.ADAConfig {
	cfg := c.config()
	return dense.ADAConfig{D: c.d, Tau: cfg.Tau, Fast: cfg.Buffer == Doubled, Escaped: cfg.Precond == Escaped,
		Dual: cfg.Update == Dual, Eta: cfg.Eta, Delta: cfg.Delta, Eps: cfg.Epsilon, Grow: cfg.Grow}
}

func (c oracleCase) data() []sparse.Example {
	return dense.Problem{D: c.d, S: c.s, T: c.t, Loss: c.lossName, Seed: c.seed}.Examples()
}

func (c oracleCase) newSparse(t testing.TB) *Learner {
	t.Helper()
	a, err := New(c.config(), dense.Loss(c.lossName))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func (c oracleCase) newDense() *dense.ADA {
	return dense.NewADA(c.denseConfig(), dense.Loss(c.lossName))
}

// closedLoop runs the sparse learner and its dense reference side by side
// and returns the largest prediction and final-weight differences (Rel).
func closedLoop(t *testing.T, c oracleCase) (worst, wworst float64) {
	t.Helper()
	data := c.data()
	sp, dn := c.newSparse(t), c.newDense()
	for i := range data {
		a, b := sp.Learn(&data[i]), dn.Learn(&data[i])
		worst = max(worst, dense.Rel(a, b))
	}
	return worst, weightGap(sp, dn.Weights())
}

// TestOracle compares every learner with its dense reference from the
// papers' pseudo-code (internal/dense/ada.go), prediction by prediction
// and on the final weights, at the design tolerance 1e-9 (docs/algorithms.md §9).
// Each case also measures how far a 1e-15 relative perturbation of the
// input moves the dense learner itself, and requires that to be < 1e-10:
// the closed loop is then well posed and a 1e-9 disagreement is a bug, not
// chaos. The streams are long enough that the sketch shrinks, the escaped
// mass becomes positive (FTSL leaves its pseudo-inverse phase) and the
// doubled buffer shrinks several times; the test checks that too.
//
// Squared loss is included where it is well posed. ADA-FD under mirror
// descent with squared loss is not (the dense learner moves by 1e-3 under
// the 1e-15 perturbation by T = 200, docs/algorithms.md §9's sensitivity note): it
// is checked at T = 40 here and open-loop in TestOpenLoop.
func TestOracle(t *testing.T) {
	for _, v := range variants() {
		for _, lossName := range []string{"logistic", "squared"} {
			for _, seed := range []uint64{1, 2} {
				c := oracleCase{v: v, d: 20, s: 5, t: 300, tau: 5, lossName: lossName, eta: 0.5, seed: seed}
				if seed == 1 {
					c.rowCap = -1 // the doubled buffer's old cap, 3τ
				}
				if lossName == "squared" && v.name == "ada_fd" && v.update == Mirror {
					c.t = 40
				}
				t.Run(c.String(), func(t *testing.T) {
					t.Parallel()
					data := c.data()
					sens := dense.Sensitivity(func() interface{ Learn(*sparse.Example) float64 } { return c.newDense() }, data, seed+7)
					if !(sens < 1e-10) {
						t.Fatalf("dense reference moves by %.3g under a 1e-15 perturbation: not a well-posed case", sens)
					}
					w, ww := closedLoop(t, c)
					if !(w <= 1e-9) || !(ww <= 1e-9) {
						t.Errorf("sparse vs dense: predictions %.3g, weights %.3g (tolerance 1e-9)", w, ww)
					}
					// The case must exercise what it claims to.
					dn := c.newDense()
					for i := range data {
						dn.Learn(&data[i])
					}
					if dn.Rho == 0 && c.t > 100 {
						t.Errorf("no mass escaped the sketch in %d steps", c.t)
					}
					if c.config().Buffer == Doubled && c.t > 100 && dn.Shrinks < 3 {
						t.Errorf("the doubled buffer shrank %d times", dn.Shrinks)
					}
				})
			}
		}
	}
}

// gradLoss makes a stream open-loop: its derivative is the label, whatever
// the prediction, so the sparse and the dense learner see the same
// gradients and their weights are compared without feedback.
type gradLoss struct{}

func (gradLoss) Name() string               { return "grad" }
func (gradLoss) Value(p, y float64) float64 { return 0 }
func (gradLoss) Deriv(p, y float64) float64 { return y }
func (gradLoss) Clamp(p float64) float64    { return p }
func (gradLoss) Observe(float64)            {}
func (gradLoss) Param() float64             { return 0 }

// openStream is c's stream with N(0,1) derivatives as labels.
func openStream(c oracleCase) []sparse.Example {
	data := c.data()
	rng := rand.New(rand.NewPCG(c.seed, 11))
	for i := range data {
		data[i].Label = rng.NormFloat64()
	}
	return data
}

// TestOpenLoop checks the update maps of every learner open-loop (the
// same gradient stream into the sparse and the dense learner) over a long
// horizon, which covers the chaotic closed loops (ADA-FD mirror descent
// on squared loss) as well.
func TestOpenLoop(t *testing.T) {
	for _, v := range variants() {
		c := oracleCase{v: v, d: 20, s: 5, t: 400, tau: 5, eta: 0.5, seed: 3}
		t.Run(c.String(), func(t *testing.T) {
			t.Parallel()
			data := openStream(c)
			cfg := c.config()
			sp, err := New(cfg, gradLoss{})
			if err != nil {
				t.Fatal(err)
			}
			dn := dense.NewADA(c.denseConfig(), gradLoss{})
			var worst float64
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
			if !(worst <= 1e-10) {
				t.Errorf("open loop: sparse vs dense differ by %.3g", worst)
			}
		})
	}
}
