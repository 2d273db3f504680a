package ada

import (
	"fmt"
	"testing"

	"github.com/sparseson/sparseson/fd"
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

// BenchmarkLearnGated is BenchmarkLearn for the gated learners
// (Config.Gate = fd.DefaultGate, acting from fd's default GateFrom) at
// τ = 20; the doubled buffer's escaped form with its skips (Config.Skip =
// 0.1).
func BenchmarkLearnGated(b *testing.B) { benchGated(b, false) }

// benchGated runs every learner gated at τ = 20 on News(18), with diag
// the completion (Config.Diag; the δ form with Config.Grow too).
func benchGated(b *testing.B, diag bool) {
	data := dense.News(18)
	for _, v := range variants() {
		n, _ := Lookup(v.name)
		c := oracleCase{v: v, tau: 20, eta: 0.25, grow: diag && n.Precond == Delta}
		b.Run(v.String(), func(b *testing.B) {
			cfg := c.config()
			cfg.Bits, cfg.Gate, cfg.Diag = 18, fd.DefaultGate, diag
			if cfg.Buffer == Doubled && cfg.Precond == Escaped {
				cfg.Skip = 0.1
			}
			a, err := New(cfg, loss.Logistic{})
			if err != nil {
				b.Fatal(err)
			}
			dense.Steady(b, a, data)
		})
	}
}

// BenchmarkLearnCLI is BenchmarkLearnGated for FTSL and FTFSL as the CLI
// configures them under --ada_scale auto: FTSL with its projected steps
// (Config.Project = 0.01, learners.ADAProject), FTFSL with its skips
// (Config.Skip = 0.03, learners.ADADualSkip), both with the carried
// dual-averaging product (Config.DualCache); 0 allocs/op.
func BenchmarkLearnCLI(b *testing.B) {
	data := dense.News(18)
	for _, name := range []string{"ftsl", "ftfsl"} {
		c := oracleCase{v: variant{name, Dual}, tau: 20, eta: 0.5, eps: 1}
		b.Run(name, func(b *testing.B) {
			cfg := c.config()
			cfg.Bits, cfg.Gate, cfg.DualCache = 18, fd.DefaultGate, true
			if cfg.Buffer == Doubled {
				cfg.Skip = 0.03
			} else {
				cfg.Project = 0.01
			}
			a, err := New(cfg, loss.Logistic{})
			if err != nil {
				b.Fatal(err)
			}
			dense.Steady(b, a, data)
		})
	}
}

// BenchmarkPrescale times the pre-scaling of a learned example (the
// scales' lookup and update, Prescaled's cost on top of the learner) on
// the same stream, one op per example; 0 allocs/op.
func BenchmarkPrescale(b *testing.B) {
	data := dense.News(18)
	p := newPrescaler(18)
	for i := range data {
		p.scaled(&data[i], true)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p.scaled(&data[i%len(data)], true)
	}
}
