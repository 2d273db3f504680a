package ada

import (
	"bytes"
	"fmt"
	"math"
	"testing"

	"github.com/sparseson/sparseson/fd"
	"github.com/sparseson/sparseson/internal/dense"
	"github.com/sparseson/sparseson/sparse"
	"gonum.org/v1/gonum/mat"
)

// projCase is a gated escaped-form case with projected steps of γ =
// project (Config.Project).
type projCase struct {
	gatedCase
	project float64
}

func (c projCase) String() string { return fmt.Sprintf("%v_project%g", c.gatedCase, c.project) }

func (c projCase) config() Config {
	cfg := c.gatedCase.config()
	cfg.Project = c.project
	return cfg
}

// projCases are the escaped per-step learners (FTSL, S-ADA) with
// projected steps on a stream where some updates take them, some fold the
// pending mass and some shrink: τ = 10 with the gate at ε = 3 keeps the
// sketch below τ − 1 live rows; at γ = 0.03 the cross-term condition
// sends some updates that would be projected at γ = ∞ to the shrink.
func projCases() []projCase {
	var out []projCase
	for _, v := range perStep() {
		if n, _ := Lookup(v.name); n.Precond != Escaped {
			continue
		}
		for _, lossName := range []string{"logistic", "squared"} {
			for _, g := range []float64{0.03, 1e6} {
				o := oracleCase{v: v, d: 60, s: 4, t: 300, tau: 10, lossName: lossName, eta: 0.5, eps: 1, seed: 11}
				out = append(out, projCase{gatedCase: o.gated(3), project: g})
			}
		}
	}
	return out
}

// runProj trains the sparse learner and the dense reference with the same
// projected steps side by side; step, if set, is called after each example.
func (c projCase) runProj(t *testing.T, data []sparse.Example, step func(i int, dn *dense.GatedADA)) (sp *Learner, dn *dense.GatedADA, worst float64) {
	t.Helper()
	return c.sideBySide(t, c.config(), c.project, data, step)
}

// TestProjectedOracle compares FTSL and S-ADA with projected steps
// (Config.Project, fd/project.go) with the dense reference that takes the
// same steps on its explicit sketch (internal/dense.GatedADA.Project),
// prediction by prediction and on the final weights, at 1e-9. Each case
// must take projected steps, fold them, and shrink too, with the same
// counts in both.
func TestProjectedOracle(t *testing.T) {
	if projectFoldDense := 0.1; fd.ProjectFold != projectFoldDense {
		t.Fatalf("fd.ProjectFold = %v, the dense reference's 0.1", fd.ProjectFold)
	}
	for _, c := range projCases() {
		t.Run(c.String(), func(t *testing.T) {
			t.Parallel()
			sp, dn, worst := c.runProj(t, c.data(), nil)
			if wworst := weightGap(sp, dn.Weights()); !(worst <= 1e-9) || !(wworst <= 1e-9) {
				t.Errorf("sparse vs dense: predictions %.3g, weights %.3g (tolerance 1e-9)", worst, wworst)
			}
			steps, mass := sp.Sketch().ProjectSums()
			if int(steps) != dn.Projected || steps == 0 || dn.Folds == 0 {
				t.Errorf("projected steps: sparse %d, dense %d, dense folds %d (want equal, > 0)", steps, dn.Projected, dn.Folds)
			}
			if sh := sp.Sketch().Counts().Shrinks; sh == 0 {
				t.Error("no shrink: the exact path is not exercised")
			}
			if !(math.Abs(mass-dn.ProjMass) <= 1e-9*(1+dn.ProjMass)) {
				t.Errorf("Σb²: sparse %v, dense %v", mass, dn.ProjMass)
			}
			if r := sp.escapedMass() - dn.Rho - c.eps; !(math.Abs(r) <= 1e-9*(1+dn.Rho)) {
				t.Errorf("escaped mass: sparse − dense = %.3g", r)
			}
			t.Logf("%d examples: %d projected steps, %d folds, %d shrinks", c.t, steps, dn.Folds, sp.Sketch().Counts().Shrinks)
		})
	}
}

// TestProjectedBounds checks, step by step on the dense reference (the
// sparse learner's twin by TestProjectedOracle), what fd/project.go
// claims: with T = SᵀS + A (A the pending in-span mass),
// −Σν_t·I ⪯ GᵀG − T ⪯ (ρ_{1:t} + ΣE′ + Σ(b_t² + b_t‖p_t‖))·I, each
// ν_t ≤ b_t‖p_t‖ < γ·L_t and each b_t² < L_t; and A ⪰ 0 with
// tr A < fd.ProjectFold·L, so the learner's SᵀS ⪯ T ⪯ SᵀS + tr A·I.
func TestProjectedBounds(t *testing.T) {
	for _, c := range projCases() {
		if c.lossName != "logistic" {
			continue
		}
		t.Run(c.String(), func(t *testing.T) {
			t.Parallel()
			d := c.d
			var prevN int
			var prevMass, prevNu float64
			checked := 0
			c.runProj(t, c.data(), func(i int, dn *dense.GatedADA) {
				lim := dn.Limits[len(dn.Limits)-1]
				if dn.Projected > prevN {
					b2, nu := dn.ProjMass-prevMass, dn.Nu-prevNu
					// ν is 0 up to rounding where p = 0.
					if !(b2 < lim) || !(nu < c.project*lim) || nu < -1e-12*lim {
						t.Fatalf("example %d: projected step with b² = %v, ν = %v, limit %v, γ = %v", i, b2, nu, lim, c.project)
					}
					checked++
				}
				prevN, prevMass, prevNu = dn.Projected, dn.ProjMass, dn.Nu
				if !(dn.PendTr < fd.ProjectFold*lim) {
					t.Fatalf("example %d: pending tr A = %v, limit %v", i, dn.PendTr, lim)
				}
				SS := dn.SketchMatrix()
				diff := mat.NewSymDense(d, nil)
				pend := mat.NewSymDense(d, nil)
				var gn float64
				for a := 0; a < d; a++ {
					gn = math.Max(gn, dn.Gram[a*d+a])
					for b := a; b < d; b++ {
						var p float64
						if dn.Pend != nil {
							p = dn.Pend[a*d+b]
						}
						pend.SetSym(a, b, p)
						diff.SetSym(a, b, dn.Gram[a*d+b]-SS.At(a, b)-p)
					}
				}
				tol := 1e-9 * (1 + gn)
				lo, hi := symExtremes(diff)
				up := dn.FD.SumRho + dn.DropMass + dn.ProjUp + dn.SkipMass
				if lo < -dn.Nu-tol || hi > up+tol {
					t.Fatalf("example %d: GᵀG − T has eigenvalues in [%v, %v], want [−Σν = %v, %v]", i, lo, hi, -dn.Nu, up)
				}
				if plo, _ := symExtremes(pend); plo < -tol {
					t.Fatalf("example %d: pending A has eigenvalue %v < 0", i, plo)
				}
			})
			if checked == 0 {
				t.Fatal("no projected step: the case checks nothing")
			}
		})
	}
}

// TestProjectedSaveLoad: save → load → continue is bit-identical to never
// stopping with projected steps, with mass pending at the cut (A is saved
// with the sketch).
func TestProjectedSaveLoad(t *testing.T) {
	for _, c := range projCases() {
		if c.lossName != "logistic" {
			continue
		}
		t.Run(c.String(), func(t *testing.T) {
			t.Parallel()
			cfg := c.config()
			a, data := trainedTo(t, cfg, nil, 0), c.data()
			cut := learnUntil(a, data, c.t/2, func(int) bool { return a.Sketch().ProjectPending() != nil })
			if cut < 0 {
				t.Fatal("no mass pending after half the stream: the case checks nothing")
			}
			var rep bytes.Buffer
			a.Report(&rep)
			steps, _ := a.Sketch().ProjectSums()
			if want := fmt.Sprintf("projected steps (γ = %g): %d", c.project, steps); !bytes.Contains(rep.Bytes(), []byte(want)) {
				t.Errorf("report %q lacks %q", rep.String(), want)
			}
			learnsAsReloaded(t, a, cfg, data, cut)
		})
	}
}
