package ada

import (
	"fmt"
	"math"
	"testing"

	"github.com/sparseson/sparseson/internal/dense"
	"gonum.org/v1/gonum/mat"
)

// doubledSkipCases are the doubled-buffer learners (ADA-FFD under both
// updates, FTFSL, Fast S-ADA) with the skips acting from the first
// example: δ form at limit (εδ)² = e², escaped form at κ·ε·r with κ = 1,
// ε = e.
func doubledSkipCases(mk func(variant) oracleCase, eDelta, eEscaped float64) []gatedCase {
	var out []gatedCase
	for _, v := range variants() {
		if n, _ := Lookup(v.name); n.Buffer != Doubled {
			continue
		}
		o := mk(v)
		if o.config().Precond == Delta {
			out = append(out, o.gated(eDelta))
			continue
		}
		c := o.gated(eEscaped)
		c.skip = 1
		out = append(out, c)
	}
	return out
}

// TestDoubledSkipsOracle compares the doubled-buffer learners with skips
// (gate.go, "Small gradients") with the dense reference that skips the
// same gradients (internal/dense.GatedADA with ADAConfig.Fast), prediction
// by prediction and on the final weights, at 1e-9; each case must skip
// some gradients and append others.
func TestDoubledSkipsOracle(t *testing.T) {
	for _, lossName := range []string{"logistic", "squared"} {
		for _, c := range doubledSkipCases(func(v variant) oracleCase {
			return oracleCase{v: v, d: 40, s: 4, t: 300, tau: 5, lossName: lossName, eta: 0.5, seed: 5}
		}, 0.5, 0.3) {
			t.Run(fmt.Sprint(c), func(t *testing.T) {
				t.Parallel()
				sp, dn, worst := c.run(t, c.data())
				wworst := weightGap(sp, dn.Weights())
				if !(worst <= 1e-9) || !(wworst <= 1e-9) {
					t.Errorf("sparse vs dense: predictions %.3g, weights %.3g (tolerance 1e-9)", worst, wworst)
				}
				cn := sp.Sketch().Counts()
				if sp.skips != dn.Skips || sp.skips == 0 || cn.Appends == 0 || cn.Drops != 0 {
					t.Errorf("skips: sparse %d, dense %d (want equal and > 0); appends %d (want > 0), drops %d (want 0)", sp.skips, dn.Skips, cn.Appends, cn.Drops)
				}
				if r := sp.escapedMass() - dn.Rho - c.eps; c.config().Precond == Escaped && !(math.Abs(r) <= 1e-9*(1+dn.Rho)) {
					t.Errorf("escaped mass: sparse − dense = %.3g", r)
				}
			})
		}
	}
}

// TestDoubledSkipsBounds checks step by step on the dense reference with
// skips that the doubled buffer under-approximates the gradients' Gram
// matrix within its escaped mass and the skipped mass:
// 0 ⪯ GᵀG − VMVᵀ ⪯ (ρ_{1:t} + Σ‖ĝ_skipped‖²)·I, with ρ_{1:t} the shrinks'
// alone (the escaped form's Rho less the skips' ‖ĝ‖²/τ).
func TestDoubledSkipsBounds(t *testing.T) {
	for _, c := range doubledSkipCases(func(v variant) oracleCase {
		return oracleCase{v: v, d: 30, s: 4, t: 200, tau: 4, lossName: "logistic", eta: 0.5, seed: 9}
	}, 1, 3) {
		t.Run(fmt.Sprint(c), func(t *testing.T) {
			t.Parallel()
			dn := dense.NewGatedADA(c.denseConfig(), dense.Loss(c.lossName), c.gate, nil)
			dn.SkipK = c.skip
			d := c.d
			data := c.data()
			for i := range data {
				dn.Learn(&data[i])
				diff := mat.NewSymDense(d, nil)
				SS := dn.SketchMatrix()
				var gn float64
				for a := 0; a < d; a++ {
					gn = math.Max(gn, dn.Gram[a*d+a])
					for b := a; b < d; b++ {
						diff.SetSym(a, b, dn.Gram[a*d+b]-SS.At(a, b))
					}
				}
				var shrinks float64
				for _, r := range dn.Rhos {
					shrinks += r
				}
				lo, hi := symExtremes(diff)
				if slack := shrinks + dn.SkipMass; lo < -1e-9*(1+gn) || hi > slack+1e-9*(1+gn) {
					t.Fatalf("example %d: GᵀG − VMVᵀ has eigenvalues in [%v, %v], want [0, ρ + Σ‖ĝ_skipped‖² = %v]", i, lo, hi, slack)
				}
			}
			if dn.Skips == 0 || dn.Shrinks == 0 {
				t.Fatalf("%d skips, %d shrinks: the case checks nothing", dn.Skips, dn.Shrinks)
			}
		})
	}
}

// TestDoubledSkipsSaveLoad: save → load → continue is bit-identical to
// never stopping for the doubled buffer with skips (the escaped form's
// skipped mass is saved with the model).
func TestDoubledSkipsSaveLoad(t *testing.T) {
	data := dense.NewsLike(400, 20000, 40, 12, 4)
	for _, c := range doubledSkipCases(func(v variant) oracleCase {
		return oracleCase{v: v, tau: 6, lossName: "logistic", eta: 0.5}
	}, 1, 3) {
		t.Run(fmt.Sprint(c), func(t *testing.T) {
			t.Parallel()
			cfg := c.config()
			cfg.Bits = 12
			cut := 200
			a := trainedTo(t, cfg, data, cut)
			if a.skips == 0 || a.Sketch().Counts().Appends == 0 {
				t.Fatalf("%d skips, %d appends before the cut: the case checks nothing", a.skips, a.Sketch().Counts().Appends)
			}
			learnsAsReloaded(t, a, cfg, data, cut)
		})
	}
}
