package gd

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sparseson/sparseson/loss"
)

// TestADADiag checks --adaptive alone with δ against ADA-DIAG written out
// (Wan & Zhang (TPAMI 2022), Eq. 2 with H_t = δI + diag(G_t)^{1/2}, G_t including g_t):
// β_{t+1,j} = β_{t,j} − η·g_{t,j}/(δ + √G_{t,j}), on a random stream,
// for δ = 0 (plain AdaGrad) and δ > 0.
func TestADADiag(t *testing.T) {
	for _, delta := range []float64{0, 1e-8, 0.5, 3} {
		rng := rand.New(rand.NewPCG(4, 5))
		data := separable(rng, 300, 30, 5)
		const eta = 0.3
		g, err := New(Config{Bits: 8, Adaptive: true, Eta: eta, PowerT: 0.5, Delta: delta}, loss.Logistic{})
		if err != nil {
			t.Fatal(err)
		}
		beta := make([]float64, 256)
		G := make([]float64, 256)
		var worst float64
		for i := range data {
			ex := &data[i]
			var p float64
			for k, j := range ex.Idx {
				p += beta[j] * ex.Val[k]
			}
			got := g.Learn(ex)
			worst = max(worst, math.Abs(got-p))
			d := loss.Logistic{}.Deriv(p, ex.Label)
			for k, j := range ex.Idx {
				gj := d * ex.Val[k]
				G[j] += gj * gj
				beta[j] -= eta * gj / (delta + math.Sqrt(G[j]))
			}
		}
		if worst > 1e-12 {
			t.Errorf("δ = %v: AdaGrad differs from ADA-DIAG by %.3g", delta, worst)
		}
	}
}

// TestADADiagDual checks Config.Dual against ADA-DIAG's dual averaging
// written out (Wan & Zhang (TPAMI 2022), Eq. 1, diagonal H_t = δI + diag(G_t)^{1/2}):
// β_{t+1,j} = −η·ḡ_{t,j}/(δ + √G_{t,j}).
func TestADADiagDual(t *testing.T) {
	for _, delta := range []float64{0, 1e-8, 2} {
		rng := rand.New(rand.NewPCG(6, 7))
		data := separable(rng, 300, 30, 5)
		const eta = 0.7
		g, err := New(Config{Bits: 8, Adaptive: true, Dual: true, Eta: eta, PowerT: 0.5, Delta: delta}, loss.Logistic{})
		if err != nil {
			t.Fatal(err)
		}
		gbar := make([]float64, 256)
		G := make([]float64, 256)
		var worst float64
		for i := range data {
			ex := &data[i]
			var p float64
			for k, j := range ex.Idx {
				if G[j] > 0 {
					p += -eta * gbar[j] / (delta + math.Sqrt(G[j])) * ex.Val[k]
				}
			}
			worst = max(worst, math.Abs(g.Learn(ex)-p))
			d := loss.Logistic{}.Deriv(p, ex.Label)
			for k, j := range ex.Idx {
				gj := d * ex.Val[k]
				G[j] += gj * gj
				gbar[j] += gj
			}
		}
		if worst > 1e-12 {
			t.Errorf("δ = %v: dual averaging differs from ADA-DIAG by %.3g", delta, worst)
		}
	}
}
