package ada

import (
	"fmt"
	"math"
	"testing"

	"github.com/sparseson/sparseson/internal/dense"
	"github.com/sparseson/sparseson/sparse"
)

// fullCase is ADA-FULL with δ > 0 or δ = 0 (pseudo-inverse) on a random
// stream, and its dense reference.
type fullCase struct {
	update   Update
	delta    float64
	lossName string
	d, s, t  int
	seed     uint64
}

func (c fullCase) String() string {
	return fmt.Sprintf("update%d_delta%g_%s_d%d_seed%d", c.update, c.delta, c.lossName, c.d, c.seed)
}

func (c fullCase) config() Config {
	return Config{Bits: 9, Precond: Delta, Update: c.update, Eta: 0.5, Delta: c.delta}
}

func (c fullCase) reference() *dense.ADA {
	dc := dense.ADAConfig{D: c.d, Dual: c.update == Dual, Eta: 0.5, Delta: c.delta}
	if c.delta == 0 {
		dc.Escaped = true // ρ = ε = 0: the pseudo-inverse G^{†1/2}
	}
	return dense.NewADA(dc, dense.Loss(c.lossName))
}

// TestFull compares the dense ADA-FULL learner (rank-one eigen-updates)
// with the reference that eigendecomposes G_t every round, for both
// updates, δ > 0 and δ = 0, past the point where G_t has full rank.
func TestFull(t *testing.T) {
	for _, update := range []Update{Mirror, Dual} {
		for _, delta := range []float64{1, 0} {
			for _, lossName := range []string{"logistic", "squared"} {
				c := fullCase{update: update, delta: delta, lossName: lossName, d: 15, s: 4, t: 250, seed: 2}
				t.Run(c.String(), func(t *testing.T) {
					t.Parallel()
					data := dense.Problem{D: c.d, S: c.s, T: c.t, Loss: c.lossName, Seed: c.seed}.Examples()
					sens := dense.Sensitivity(func() interface{ Learn(*sparse.Example) float64 } { return c.reference() }, data, 5)
					f, err := NewFull(c.config(), dense.Loss(c.lossName))
					if err != nil {
						t.Fatal(err)
					}
					dn := c.reference()
					var worst float64
					for i := range data {
						a, b := f.Learn(&data[i]), dn.Learn(&data[i])
						worst = max(worst, dense.Rel(a, b))
					}
					want := dn.Weights()
					var scale float64
					for _, v := range want {
						scale = math.Max(scale, math.Abs(v))
					}
					f.Weights(func(slot uint32, w float64) {
						worst = max(worst, math.Abs(w-want[slot])/(1+scale))
					})
					t.Logf("ADA-FULL vs reference %.3g (reference's 1e-15 sensitivity %.3g), rank %d", worst, sens, f.rank())
					if !(sens < 1e-10) {
						t.Fatalf("the reference moves by %.3g under a 1e-15 perturbation: not a well-posed case", sens)
					}
					if !(worst <= 1e-9) {
						t.Errorf("differs from the reference by %.3g", worst)
					}
					if f.rank() != c.d {
						t.Errorf("rank %d, want %d", f.rank(), c.d)
					}
					// Save → load → continue is bit-identical.
					r, _ := encodeParse(t, f.Save)
					g, err := LoadFull(r, c.config(), dense.Loss(c.lossName))
					if err != nil {
						t.Fatal(err)
					}
					more := dense.Problem{D: c.d, S: c.s, T: 50, Loss: c.lossName, Seed: c.seed + 100}.Examples()
					for i := range more {
						if a, b := f.Learn(&more[i]), g.Learn(&more[i]); a != b {
							t.Fatalf("after reload, example %d: %v vs %v", i, b, a)
						}
					}
				})
			}
		}
	}
}
