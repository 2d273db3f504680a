package ada

import (
	"fmt"
	"testing"

	"github.com/sparseson/sparseson/internal/dense"
	"github.com/sparseson/sparseson/loss"
)

// BenchmarkLearn times Learner.Learn for the eight learners at τ = 10 and
// 20 on the shared news20-like stream (dense.News: 4096 examples, ≈130
// words each, -b 18, logistic loss), one op per example, after one warm-up
// pass (steady state: the feature table no longer grows). -benchmem must
// show 0 allocs/op.
func BenchmarkLearn(b *testing.B) {
	data := dense.News(18)
	for _, v := range variants() {
		for _, tau := range []int{10, 20} {
			c := oracleCase{v: v, tau: tau, eta: 0.25}
			b.Run(fmt.Sprintf("%v/tau=%d", v, tau), func(b *testing.B) {
				cfg := c.config()
				cfg.Bits = 18
				a, err := New(cfg, loss.Logistic{})
				if err != nil {
					b.Fatal(err)
				}
				dense.Steady(b, a, data)
			})
		}
	}
}

// BenchmarkPredict times Predict (test-time scoring) the same way.
func BenchmarkPredict(b *testing.B) {
	data := dense.News(18)
	for _, v := range variants() {
		c := oracleCase{v: v, tau: 20, eta: 0.25}
		b.Run(v.String(), func(b *testing.B) {
			cfg := c.config()
			cfg.Bits = 18
			a, err := New(cfg, loss.Logistic{})
			if err != nil {
				b.Fatal(err)
			}
			dense.Warm(a, data)
			b.ReportAllocs()
			b.ResetTimer()
			var sink float64
			for i := 0; i < b.N; i++ {
				sink += a.Predict(&data[i%len(data)])
			}
			_ = sink
		})
	}
}
