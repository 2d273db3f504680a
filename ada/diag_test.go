package ada

import (
	"fmt"
	"testing"

	"github.com/sparseson/sparseson/internal/dense"
	"github.com/sparseson/sparseson/sparse"
)

// diagCase is an oracle case with Config.Diag, ungated or gated (gate > 0:
// the gate from the first example, with skips where the learner has them).
type diagCase struct {
	gatedCase
	project float64 // Config.Project (FTSL's projected steps)
	cache   bool    // Config.DualCache
}

func (c diagCase) config() Config {
	cfg := c.oracleCase.config()
	if c.gate > 0 {
		cfg = c.gatedCase.config()
	}
	cfg.Diag, cfg.Project, cfg.DualCache = true, c.project, c.cache
	return cfg
}

// run trains the sparse learner and dense.DiagADA side by side and returns
// the largest prediction and final-weight differences (Rel), and the dense
// reference.
func (c diagCase) run(t *testing.T, data []sparse.Example) (worst, wworst float64, dn *dense.DiagADA, sp *Learner) {
	t.Helper()
	sp, err := New(c.config(), dense.Loss(c.lossName))
	if err != nil {
		t.Fatal(err)
	}
	var tries int
	if c.gate > 0 {
		g := dense.NewGatedADA(c.denseConfig(), dense.Loss(c.lossName), c.gate, func() int { return tries })
		g.SkipK, g.Project = c.skip, c.project
		dn = dense.NewDiagADA(g.ADA)
	} else {
		dn = dense.NewDiagADA(c.newDense())
	}
	for i := range data {
		before := sp.Sketch().Counts().Drops
		a := sp.Learn(&data[i])
		tries = int(sp.Sketch().Counts().Drops - before)
		worst = max(worst, dense.Rel(a, dn.Learn(&data[i])))
		if i%50 == 0 {
			worst = max(worst, dense.Rel(sp.Predict(&data[i]), dn.Predict(&data[i])))
		}
	}
	return worst, weightGap(sp, dn.Weights()), dn, sp
}

// TestDiagOracle compares the learners with the completion (diag.go)
// against dense.DiagADA, prediction by prediction and on the final
// weights, at 1e-9, ungated and gated (with the skips of S-ADA's, the
// doubled buffer's and the δ form's kind), under both losses: the
// escaped form at ε = 0 (the pseudo-inverse phase first) and 1, the δ
// form with its growing δ_t (Config.Grow, grow.go), under both updates.
// Each case must have the completion act — some coordinate's G_jj + ε
// below the cut (r, or δ_t²) at the end, and η/√N ≠ η — and the δ form's
// δ_t must have grown.
func TestDiagOracle(t *testing.T) {
	for _, v := range variants() {
		n, _ := Lookup(v.name)
		epss := []float64{0, 1}
		if n.Precond == Delta {
			epss = []float64{0}
		}
		for _, lossName := range []string{"logistic", "squared"} {
			for _, eps := range epss {
				for _, gate := range []float64{0, 0.5} {
					c := diagCase{gatedCase: gatedCase{oracleCase: oracleCase{v: v, d: 30, s: 4, t: 300, tau: 4, lossName: lossName, eta: 0.5, eps: eps, seed: 5, grow: n.Precond == Delta}}}
					if gate > 0 {
						c.gatedCase = c.oracleCase.gated(gate)
						if n.Precond == Escaped && (n.Buffer == Doubled || v.name == "sada") {
							c.skip = 1
						}
					}
					t.Run(fmt.Sprintf("%v_eps%g", c.gatedCase, eps), func(t *testing.T) {
						t.Parallel()
						w, ww, dn, sp := c.run(t, c.data())
						if !(w <= 1e-9) || !(ww <= 1e-9) {
							t.Errorf("sparse vs dense: predictions %.3g, weights %.3g (tolerance 1e-9)", w, ww)
						}
						cut := dn.Rho + eps
						if n.Precond == Delta {
							d := dn.DeltaNow()
							cut = d * d
							if !(d > c.config().Delta) {
								t.Errorf("δ_t = %v has not grown from δ", d)
							}
							if gate > 0 && (sp.skips == 0 || sp.skips == c.t) {
								t.Errorf("the gate's limit (εδ_t)² kept %d of %d gradients out of the sketch: want some, not all", sp.skips, c.t)
							}
						}
						var acting int
						for j := range dn.A {
							if dn.A[j] > 0 && dn.A[j]+eps < cut {
								acting++
							}
						}
						if acting == 0 || dn.Eta() == c.eta {
							t.Errorf("the completion does not act: %d coordinates below the cut, η/√N = %v", acting, dn.Eta())
						}
					})
				}
			}
		}
	}
}

// TestDiagDefaultsOracle: the completion with what else the escaped-form
// learners run under --ada_scale auto — FTSL's projected steps and FTSL's
// and FTFSL's carried dual-averaging product — against dense.DiagADA
// around the gated reference that takes the same projected steps, at
// 1e-9, on the projected-step streams (projCases: some updates projected,
// some folded, some shrunk) and the doubled buffer's skip streams. Each
// case must have the completion act and, for FTSL, take projected steps.
func TestDiagDefaultsOracle(t *testing.T) {
	var cases []diagCase
	for _, p := range projCases() {
		if p.v.name == "ftsl" && p.project < 1 {
			cases = append(cases, diagCase{gatedCase: p.gatedCase, project: p.project, cache: true})
		}
	}
	for _, lossName := range []string{"logistic", "squared"} {
		for _, c := range doubledSkipCases(func(v variant) oracleCase {
			return oracleCase{v: v, d: 40, s: 4, t: 300, tau: 5, lossName: lossName, eta: 0.5, eps: 1, seed: 5}
		}, 0.5, 0.3) {
			if n, _ := Lookup(c.v.name); n.Precond == Escaped {
				cases = append(cases, diagCase{gatedCase: c, cache: c.v.update == Dual})
			}
		}
	}
	if len(cases) < 4 {
		t.Fatalf("%d cases: the stream lists changed", len(cases))
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%v_project%g_cache%v", c.gatedCase, c.project, c.cache), func(t *testing.T) {
			t.Parallel()
			w, ww, dn, _ := c.run(t, c.data())
			if !(w <= 1e-9) || !(ww <= 1e-9) {
				t.Errorf("sparse vs dense: predictions %.3g, weights %.3g (tolerance 1e-9)", w, ww)
			}
			if dn.Eta() == c.eta {
				t.Error("the completion does not act: η/√N = η")
			}
		})
	}
}

// TestDiagSaveLoad: save → load → continue is bit-identical to never
// stopping with the completion, mid-way through a sparse stream; the δ
// form with its growing δ_t, gated, so that the skipped gradients' mass
// in r_t is saved too.
func TestDiagSaveLoad(t *testing.T) {
	data := dense.NewsLike(400, 20000, 40, 12, 4)
	for _, v := range variants() {
		for _, cut := range []int{1, 250} {
			n, _ := Lookup(v.name)
			c := oracleCase{v: v, tau: 6, lossName: "logistic", eta: 0.5, grow: n.Precond == Delta}
			t.Run(fmt.Sprintf("%v_cut%d", c, cut), func(t *testing.T) {
				t.Parallel()
				cfg := c.config()
				cfg.Bits, cfg.Diag = 12, true
				if cfg.Grow {
					cfg.Gate, cfg.GateFrom = 2, -1
				}
				a := trainedTo(t, cfg, data, cut)
				learnsAsReloaded(t, a, cfg, data, cut)
			})
		}
	}
}

// TestDiagConfig: the completion applies to both forms, the growing δ
// to the δ form alone.
func TestDiagConfig(t *testing.T) {
	for _, tc := range []struct {
		name       string
		pre        Precond
		diag, grow bool
		ok         bool
	}{
		{"delta", Delta, true, false, true},
		{"delta_grow", Delta, true, true, true},
		{"delta_grow_alone", Delta, false, true, true},
		{"escaped", Escaped, true, false, true},
		{"escaped_grow", Escaped, true, true, false},
	} {
		cfg := Config{Bits: 8, Tau: 4, Precond: tc.pre, Eta: 1, Delta: 1, Diag: tc.diag, Grow: tc.grow}
		if err := cfg.validate(); (err == nil) != tc.ok {
			t.Errorf("%s: validate() = %v, want ok %v", tc.name, err, tc.ok)
		}
	}
}

// BenchmarkLearnDiag is BenchmarkLearnGated with the completion
// (Config.Diag; the δ form with Config.Grow too), the CLI's default under
// --ada_scale auto: what
// the completion adds per example is BenchmarkLearnGated's figure
// subtracted; 0 allocs/op in the steady state.
func BenchmarkLearnDiag(b *testing.B) { benchGated(b, true) }
