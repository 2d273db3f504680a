package ada

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/sparseson/sparseson/internal/dense"
	"github.com/sparseson/sparseson/sparse"
)

// BenchmarkShampoo: FTSL-Shampoo with K = 20 on the news20-like stream of
// every package (dense.News: ≈130 words per example, Bits 18) with random
// classes — gd's BenchmarkSoftmax's stream — after one warm pass (steady
// state: no new features); one op is one example. Sketched (τ_L = τ_R = m),
// exact left factor, and sketched with the completion (Diag), m = 5, 10, 20.
func BenchmarkShampoo(b *testing.B) {
	data := dense.News(18)
	rng := rand.New(rand.NewPCG(4, 5))
	cls := make([]sparse.Example, len(data))
	for i := range data {
		cls[i].CopyFrom(&data[i])
		cls[i].Label = float64(1 + rng.IntN(20))
	}
	for _, m := range []int{5, 10, 20} {
		for _, v := range []string{"", "/exact_left", "/diag"} {
			name := fmt.Sprintf("m=%d", m) + v
			cfg := ShampooConfig{Bits: 18, Classes: 20, Tau: m, LeftTau: m, Eta: 1, Epsilon: 1, Diag: v == "/diag"}
			if v == "/exact_left" {
				cfg.LeftTau = 0
			}
			b.Run(name, func(b *testing.B) {
				s, err := NewShampoo(cfg)
				if err != nil {
					b.Fatal(err)
				}
				dense.Steady(b, s, cls)
			})
		}
	}
}
