package mix_test

import (
	"fmt"
	"testing"

	"github.com/sparseson/sparseson/mix"
)

// BenchmarkMixer reports ns/example (and the share spent merging and
// copying) of the default learner and Oja-SON m = 10 in K shards on a
// synthetic sparse stream, one pass and a mix at its end, batches of 512.
func BenchmarkMixer(b *testing.B) {
	exs := stream(20000, 50000, 40, 5)
	out := make([]float64, len(exs))
	for _, f := range []family{gdFamily(), sonFamily("oja", 10)} {
		for _, k := range []int{1, 2, 4} {
			b.Run(fmt.Sprintf("%s/K=%d", f.name, k), func(b *testing.B) {
				var mixT, learnT float64
				for b.Loop() {
					m, err := mix.New(f.config(k, 0))
					if err != nil {
						b.Fatal(err)
					}
					for i := 0; i < len(exs); i += 512 {
						j := min(i+512, len(exs))
						if err := m.LearnBatch(exs[i:j], out[i:j]); err != nil {
							b.Fatal(err)
						}
					}
					if err := m.Mix(); err != nil {
						b.Fatal(err)
					}
					s := m.Stats()
					learnT += float64(s.Learn.Nanoseconds())
					mixT += float64((s.Merge + s.Copy).Nanoseconds())
				}
				n := float64(b.N) * float64(len(exs))
				b.ReportMetric((learnT+mixT)/n, "ns/example")
				b.ReportMetric(learnT/n, "learn-ns/example")
				b.ReportMetric(mixT/n, "mix-ns/example")
			})
		}
	}
}
