package dense

import (
	"math"
	"testing"

	"github.com/sparseson/sparseson/sparse"
)

// Warm runs one pass over data, so that every feature has its row and
// every buffer its size before a benchmark times the steady state.
func Warm(l sparse.Learner, data []sparse.Example) {
	for i := range data {
		l.Learn(&data[i])
	}
}

// Time times b.N examples cycling through data (one op is one example),
// reports allocations and examples/s, and fails on a NaN prediction.
func Time(b *testing.B, l sparse.Learner, data []sparse.Example) {
	b.ReportAllocs()
	b.ResetTimer()
	var sink float64
	for i := 0; i < b.N; i++ {
		sink += l.Learn(&data[i%len(data)])
	}
	b.StopTimer()
	if math.IsNaN(sink) {
		b.Fatal("NaN prediction")
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "examples/s")
}

// Steady is Warm then Time.
func Steady(b *testing.B, l sparse.Learner, data []sparse.Example) {
	Warm(l, data)
	Time(b, l, data)
}
