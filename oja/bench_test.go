package oja

import (
	"fmt"
	"math"
	"testing"

	"github.com/sparseson/sparseson/gd"
	"github.com/sparseson/sparseson/internal/dense"
	"github.com/sparseson/sparseson/loss"
	"github.com/sparseson/sparseson/son"
	"github.com/sparseson/sparseson/sparse"
)

func newOjaSON(b *testing.B, m int, bits uint) *son.Learner {
	var sk sparse.Sketch = &son.NoSketch{A: 16}
	if m > 0 {
		o, err := New(Config{M: m, Alpha: 16, Rate: 1})
		if err != nil {
			b.Fatal(err)
		}
		sk = o
	}
	sp, err := son.New(son.Config{Bits: bits, C: math.Inf(1), Eta0: 1, Diag: true}, loss.Logistic{}, sk)
	if err != nil {
		b.Fatal(err)
	}
	return sp
}

// BenchmarkOjaSON: ns/example of Oja-SON (the CLI's defaults: pre-scaling,
// α = 16, C = ∞, logistic loss) against AdaGrad on the same stream.
func BenchmarkOjaSON(b *testing.B) {
	b.Run("AdaGrad", func(b *testing.B) {
		g, err := gd.New(gd.Config{Bits: 18, Adaptive: true, Normalized: true, Eta: 0.5, PowerT: 0.5}, loss.Logistic{})
		if err != nil {
			b.Fatal(err)
		}
		dense.Steady(b, g, dense.News(18))
	})
	for _, m := range []int{0, 5, 10, 20} {
		b.Run(fmt.Sprintf("m=%d", m), func(b *testing.B) { dense.Steady(b, newOjaSON(b, m, 18), dense.News(18)) })
	}
}

// BenchmarkOjaSONUnits: Oja m = 10 in the CLI's scaled-space form with
// each D₁ of --diag_init (son/units.go) on the news-like stream of word
// counts, whose units move on most occurrences under auto.
func BenchmarkOjaSONUnits(b *testing.B) {
	for _, u := range []struct {
		name      string
		unit, rms bool
	}{{"paper", false, false}, {"max", true, false}, {"auto", true, true}} {
		b.Run(u.name, func(b *testing.B) {
			o, err := New(Config{M: 10, Alpha: 1, Rate: 1})
			if err != nil {
				b.Fatal(err)
			}
			cfg := son.Config{Bits: 18, C: math.Inf(1), Diag: true, Scaled: true, Unit: u.unit, UnitRMS: u.rms}
			sp, err := son.New(cfg, loss.Logistic{}, o)
			if err != nil {
				b.Fatal(err)
			}
			dense.Steady(b, sp, dense.News(18))
		})
	}
}

// BenchmarkOjaSONBits: Oja m = 10 across hash sizes; the per-example cost
// must not grow with -b.
func BenchmarkOjaSONBits(b *testing.B) {
	for _, bits := range []uint{16, 18, 20, 22, 24} {
		b.Run(fmt.Sprintf("b=%d", bits), func(b *testing.B) { dense.Steady(b, newOjaSON(b, 10, bits), dense.News(bits)) })
	}
}
