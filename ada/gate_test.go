package ada

import (
	"bytes"
	"fmt"
	"math"
	"testing"

	"github.com/sparseson/sparseson/internal/dense"
	"github.com/sparseson/sparseson/sparse"
	"gonum.org/v1/gonum/mat"
)

// perStep are the learners the gate applies to, ADA-FD under both updates.
func perStep() []variant {
	var out []variant
	for _, v := range variants() {
		if n, _ := Lookup(v.name); n.Buffer == Single {
			out = append(out, v)
		}
	}
	return out
}

// gatedCase is an oracle case with the gate acting from the first example.
type gatedCase struct {
	oracleCase
	gate float64
	skip float64 // Config.Skip (escaped form)
}

func (c gatedCase) String() string {
	return fmt.Sprintf("%v_gate%g_skip%g", c.oracleCase, c.gate, c.skip)
}

// gated is c with the gate ε at limit scale e: ε = e in the escaped form
// (limit ε·r); ε = e/δ in the δ form, so that its limit (εδ)² = e² is the
// same for both updates' δ — at e ≤ 1 beside these streams' gradients, of
// norm about 1, some gradients reach the sketch and some are kept out of
// it (skipSketch), and directions are dropped.
func (c oracleCase) gated(e float64) gatedCase {
	if d := c.config(); d.Precond == Delta {
		e /= d.Delta
	}
	return gatedCase{oracleCase: c, gate: e}
}

func (c gatedCase) config() Config {
	cfg := c.oracleCase.config()
	cfg.Gate, cfg.GateFrom, cfg.Skip = c.gate, -1, c.skip
	return cfg
}

// run trains the sparse learner and the gated dense reference side by
// side; the dense gate is consulted as often as the sparse one dropped.
func (c gatedCase) run(t *testing.T, data []sparse.Example) (sp *Learner, dn *dense.GatedADA, worst float64) {
	t.Helper()
	return c.sideBySide(t, c.config(), 0, data, nil)
}

// sideBySide is run for a sparse learner configured as cfg, with the
// dense reference's projected steps at γ = project and step, if set,
// called after each example.
func (c gatedCase) sideBySide(t *testing.T, cfg Config, project float64, data []sparse.Example, step func(i int, dn *dense.GatedADA)) (sp *Learner, dn *dense.GatedADA, worst float64) {
	t.Helper()
	sp, err := New(cfg, dense.Loss(c.lossName))
	if err != nil {
		t.Fatal(err)
	}
	var tries int
	dn = dense.NewGatedADA(c.denseConfig(), dense.Loss(c.lossName), c.gate, func() int { return tries })
	dn.SkipK, dn.Project = c.skip, project
	for i := range data {
		before := sp.Sketch().Counts().Drops
		a := sp.Learn(&data[i])
		tries = int(sp.Sketch().Counts().Drops - before)
		b := dn.Learn(&data[i])
		worst = max(worst, dense.Rel(a, b))
		if step != nil {
			step(i, dn)
		}
	}
	return sp, dn, worst
}

// TestGatedOracle compares the gated per-step learners with the gated
// dense reference (internal/dense.GatedADA), prediction by prediction and
// on the final weights, at 1e-9 (docs/algorithms.md §9), on a stream where
// the sketch both drops and appends. Each case must drop directions and
// its drops must be what the dense reference drops.
func TestGatedOracle(t *testing.T) {
	for _, v := range perStep() {
		for _, lossName := range []string{"logistic", "squared"} {
			for k := range 3 {
				o := oracleCase{v: v, d: 40, s: 4, t: 300, tau: 5, lossName: lossName, eta: 0.5, seed: 5}
				c := o.gated([]float64{0.3, 3, 0.3}[k])
				if o.config().Precond == Delta {
					if k == 2 {
						continue
					}
					c = o.gated([]float64{0.5, 1}[k])
				}
				if k == 2 {
					c.skip = 1 // the escaped form's skips (Config.Skip)
				}
				if lossName == "squared" && v.name == "ada_fd" && v.update == Mirror {
					c.t = 40 // chaotic closed loop (TestOracle)
				}
				t.Run(c.String(), func(t *testing.T) {
					t.Parallel()
					data := c.data()
					sp, dn, worst := c.run(t, data)
					wworst := weightGap(sp, dn.Weights())
					if !(worst <= 1e-9) || !(wworst <= 1e-9) {
						t.Errorf("sparse vs dense: predictions %.3g, weights %.3g (tolerance 1e-9)", worst, wworst)
					}
					drops := sp.Sketch().Counts().Drops
					if c.t > 100 && (drops == 0 || len(dn.FD.Drops) != int(drops)) {
						t.Errorf("drops: sparse %d, dense %d (want equal and > 0)", drops, len(dn.FD.Drops))
					}
					if skips := c.config().Precond == Delta || c.skip > 0; sp.skips != dn.Skips || skips && c.t > 100 && sp.skips == 0 {
						t.Errorf("gradients kept out of the sketch: sparse %d, dense %d (want equal, and > 0 in the δ form or with Config.Skip)", sp.skips, dn.Skips)
					}
					if r := sp.escapedMass() - dn.Rho - c.eps; c.config().Precond == Escaped && !(math.Abs(r) <= 1e-9*(1+dn.Rho)) {
						t.Errorf("escaped mass: sparse − dense = %.3g", r)
					}
				})
			}
		}
	}
}

// TestGatedBounds checks, step by step on the gated dense reference (the
// sparse learner's twin by TestGatedOracle), what the gate claims
// (gate.go): every dropped E′ is below the limit of its update — (εδ)² in
// the δ form, so the dropped direction's H⁻¹ changes by a factor within
// [1/(1+ε), 1]; ε·r in the escaped form — and the sketch under-approximates
// the gradients' Gram matrix within FD's escaped mass and the drops:
// 0 ⪯ GᵀG − SᵀS ⪯ (ρ_{1:t} + ΣE′)·I.
func TestGatedBounds(t *testing.T) {
	for _, c := range skipVariants(func(v variant) gatedCase {
		c := oracleCase{v: v, d: 30, s: 4, t: 200, tau: 4, lossName: "logistic", eta: 0.5, seed: 9}.gated(3)
		if c.config().Precond == Delta {
			c = c.oracleCase.gated(1)
		}
		return c
	}) {
		t.Run(c.String(), func(t *testing.T) {
			t.Parallel()
			data := c.data()
			sp, err := New(c.config(), dense.Loss(c.lossName))
			if err != nil {
				t.Fatal(err)
			}
			var tries int
			dn := dense.NewGatedADA(c.denseConfig(), dense.Loss(c.lossName), c.gate, func() int { return tries })
			dn.SkipK = c.skip
			d := c.d
			checked := 0
			for i := range data {
				before := sp.Sketch().Counts().Drops
				sp.Learn(&data[i])
				tries = int(sp.Sketch().Counts().Drops - before)
				n := len(dn.FD.Drops)
				dn.Learn(&data[i])
				lim := dn.Limits[len(dn.Limits)-1]
				for _, e := range dn.FD.Drops[n:] {
					if !(e < lim) {
						t.Fatalf("example %d: dropped E′ = %v, limit %v", i, e, lim)
					}
					if c.config().Precond == Delta {
						if f := c.config().Delta / (c.config().Delta + math.Sqrt(e)); !(f >= 1/(1+c.gate)) {
							t.Fatalf("example %d: H⁻¹ along a dropped direction changes by %v", i, f)
						}
					}
					checked++
				}
				diff := mat.NewSymDense(d, nil)
				SS := dn.SketchMatrix()
				var gn float64
				for a := 0; a < d; a++ {
					gn = math.Max(gn, dn.Gram[a*d+a])
					for b := a; b < d; b++ {
						diff.SetSym(a, b, dn.Gram[a*d+b]-SS.At(a, b))
					}
				}
				lo, hi := symExtremes(diff)
				if slack := dn.FD.SumRho + dn.DropMass + dn.SkipMass; lo < -1e-9*(1+gn) || hi > slack+1e-9*(1+gn) {
					t.Fatalf("example %d: GᵀG − SᵀS has eigenvalues in [%v, %v], want [0, ρ + ΣE′ = %v]", i, lo, hi, slack)
				}
			}
			if checked == 0 {
				t.Fatal("no direction dropped: the case checks nothing")
			}
		})
	}
}

// skipVariants is mk's case for every per-step learner and, for the
// escaped form, the same with Config.Skip = 1.
func skipVariants(mk func(variant) gatedCase) []gatedCase {
	var out []gatedCase
	for _, v := range perStep() {
		c := mk(v)
		out = append(out, c)
		if c.config().Precond == Escaped {
			c.skip = 1
			out = append(out, c)
		}
	}
	return out
}

func symExtremes(a *mat.SymDense) (lo, hi float64) {
	var es mat.EigenSym
	if !es.Factorize(a, false) {
		panic("eigen failed")
	}
	v := es.Values(nil)
	return v[0], v[len(v)-1]
}

// TestGatedSaveLoad: save → load → continue is bit-identical to never
// stopping for the gated learners (the drops' mass is the sketch's, saved
// with it; the limit is set again on load).
func TestGatedSaveLoad(t *testing.T) {
	data := dense.NewsLike(400, 20000, 40, 12, 4)
	for _, c := range skipVariants(func(v variant) gatedCase {
		c := oracleCase{v: v, tau: 6, lossName: "logistic", eta: 0.5}.gated(3)
		if c.config().Precond == Delta {
			c = c.oracleCase.gated(1)
		}
		return c
	}) {
		t.Run(c.String(), func(t *testing.T) {
			t.Parallel()
			cfg := c.config()
			cfg.Bits = 12
			cut := 200
			a := trainedTo(t, cfg, data, cut)
			if a.Sketch().Counts().Drops == 0 || (cfg.Precond == Delta || c.skip > 0) && a.skips == 0 {
				t.Fatalf("%d drops, %d gradients kept out of the sketch before the cut: the case checks nothing", a.Sketch().Counts().Drops, a.skips)
			}
			var rep bytes.Buffer
			a.Report(&rep)
			if want := fmt.Sprintf("gate: %d directions dropped", a.Sketch().Counts().Drops); !bytes.Contains(rep.Bytes(), []byte(want)) {
				t.Errorf("report %q lacks %q", rep.String(), want)
			}
			learnsAsReloaded(t, a, cfg, data, cut)
		})
	}
}

// TestGateConfig: the gate's and the skips' checks name the config field.
func TestGateConfig(t *testing.T) {
	base := Config{Bits: 10, Tau: 5, Eta: 1, Delta: 1}
	for _, c := range []struct {
		name    string
		buffer  Buffer
		precond Precond
		gate    float64
		skip    float64
		project float64
		ok      bool
		field   string
	}{
		{"exact", Single, Delta, 0, 0, 0, true, ""},
		{"gated", Single, Delta, 0.3, 0, 0, true, ""},
		{"doubled exact", Doubled, Delta, 0, 0, 0, true, ""},
		{"doubled δ skips", Doubled, Delta, 0.3, 0, 0, true, ""},
		{"doubled escaped skips", Doubled, Escaped, 0.3, 1, 0, true, ""},
		{"doubled escaped without κ", Doubled, Escaped, 0.3, 0, 0, false, "Config.Skip"},
		{"negative", Single, Delta, -1, 0, 0, false, "Config.Gate"},
		{"NaN", Single, Delta, math.NaN(), 0, 0, false, "Config.Gate"},
		{"Inf", Single, Delta, math.Inf(1), 0, 0, false, "Config.Gate"},
		{"escaped skip", Single, Escaped, 0.3, 1, 0, true, ""},
		{"δ form skip", Single, Delta, 0.3, 1, 0, false, "Config.Skip"},
		{"ungated skip", Single, Escaped, 0, 1, 0, false, "Config.Skip"},
		{"negative skip", Single, Escaped, 0.3, -1, 0, false, "Config.Skip"},
		{"NaN skip", Single, Escaped, 0.3, math.NaN(), 0, false, "Config.Skip"},
		{"projected", Single, Escaped, 0.3, 0, 0.01, true, ""},
		{"projected with skips", Single, Escaped, 0.3, 1, 0.01, true, ""},
		{"δ form projected", Single, Delta, 0.3, 0, 0.01, false, "Config.Project"},
		{"doubled projected", Doubled, Escaped, 0.3, 1, 0.01, false, "Config.Project"},
		{"ungated projected", Single, Escaped, 0, 0, 0.01, false, "Config.Project"},
		{"negative projected", Single, Escaped, 0.3, 0, -1, false, "Config.Project"},
		{"NaN projected", Single, Escaped, 0.3, 0, math.NaN(), false, "Config.Project"},
		{"Inf projected", Single, Escaped, 0.3, 0, math.Inf(1), false, "Config.Project"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := base
			cfg.Buffer, cfg.Precond, cfg.Gate, cfg.Skip, cfg.Project = c.buffer, c.precond, c.gate, c.skip, c.project
			_, err := New(cfg, dense.Loss("logistic"))
			if (err == nil) != c.ok {
				t.Fatalf("New: %v, want ok = %v", err, c.ok)
			}
			if err != nil && !bytes.Contains([]byte(err.Error()), []byte(c.field)) {
				t.Errorf("error %q does not name %s", err, c.field)
			}
		})
	}
}

// weightGap is the largest |w_j − w̃_j|/(1 + max|w̃|) of the sparse learner's
// weights against the dense reference's w̃.
func weightGap(sp *Learner, want []float64) float64 {
	var scale, gap float64
	for _, v := range want {
		scale = math.Max(scale, math.Abs(v))
	}
	sp.Weights(func(slot uint32, w float64) {
		gap = max(gap, math.Abs(w-want[slot])/(1+scale))
	})
	return gap
}
