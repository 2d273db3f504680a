package engine

import (
	"fmt"
	"testing"

	"github.com/sparseson/sparseson/learners"
	"github.com/sparseson/sparseson/sparse"
)

// newQuiet returns an engine of options o that reports nothing.
func newQuiet(tb testing.TB, o map[string]string) *Engine {
	tb.Helper()
	c := Defaults()
	c.Options, c.Quiet, c.Stderr = o, true, nil
	e, err := New(c)
	if err != nil {
		tb.Fatal(err)
	}
	return e
}

// example is a labeled example of n features.
func example(n int) *sparse.Example {
	ex := &sparse.Example{Label: 1, Weight: 1, HasLabel: true}
	for i := 0; i < n; i++ {
		ex.Idx = append(ex.Idx, uint32(7*i+1))
		ex.Val = append(ex.Val, 1/float64(i+1))
	}
	return ex
}

// TestProcessAllocs: the per-example path (accounting, the output stack,
// the learner) allocates nothing once the example's features are in the
// model, for a scalar model, under OAA and for Oja-SON.
func TestProcessAllocs(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  map[string]string
	}{
		{"adagrad", nil},
		{"logistic", map[string]string{"loss": "logistic", "link": "logistic"}},
		{"oaa", map[string]string{"oaa": "3"}},
		// Oja-SON m = 10 as --oja -m 10 sets it (the fused per-feature
		// kernels, the sketch's update).
		{"oja", map[string]string{"learner": "son", "sketch": "oja", "m": "10", "loss": "logistic", "link": "logistic",
			"learning_rate": "5", "eta0": "1", "eta_power": "0.5", "sigma": "0", "sketch_scale": "0", "projection": "+Inf",
			"random_seed": "0", "oja_rate": "1", "diag": "true", "diag_sketch": "scaled", "alpha": "auto"}},
	} {
		o := learners.DefaultOptions(12)
		for k, v := range tc.set {
			o[k] = v
		}
		e := newQuiet(t, o)
		if got, want := fmt.Sprintf("%T", e.Learner()), map[string]string{"oja": "*son.Learner"}[tc.name]; want != "" && got != want {
			t.Fatalf("%s: the learner is a %s, want %s", tc.name, got, want)
		}
		ex := example(20)
		if tc.set["oaa"] != "" {
			ex.Label = 2
		}
		e.Process(ex)
		if n := testing.AllocsPerRun(100, func() { e.Process(ex) }); n != 0 {
			t.Errorf("%s: %v allocations per example", tc.name, n)
		}
	}
}

// BenchmarkProcess is the per-example path of training, as Run takes it
// for every example of the data (parsing aside).
func BenchmarkProcess(b *testing.B) {
	e := newQuiet(b, learners.DefaultOptions(18))
	ex := example(40)
	b.ReportAllocs()
	for b.Loop() {
		e.Process(ex)
	}
}
