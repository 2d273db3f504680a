package gd

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/sparseson/sparseson/loss"
	"github.com/sparseson/sparseson/model"
	"github.com/sparseson/sparseson/sparse"
)

// separable returns sparse examples labeled by the sign of a hidden linear
// rule with a margin.
func separable(rng *rand.Rand, n, d, s int) []sparse.Example {
	theta := make([]float64, d)
	for i := range theta {
		theta[i] = rng.NormFloat64()
	}
	var out []sparse.Example
	for len(out) < n {
		ex := sparse.Example{Weight: 1, HasLabel: true}
		seen := map[uint32]bool{}
		var m float64
		for len(ex.Idx) < s {
			j := uint32(rng.IntN(d))
			if seen[j] {
				continue
			}
			seen[j] = true
			v := rng.NormFloat64()
			ex.Idx = append(ex.Idx, j)
			ex.Val = append(ex.Val, v)
			m += theta[j] * v
		}
		if math.Abs(m) < 0.3 {
			continue
		}
		ex.Label = math.Copysign(1, m)
		out = append(out, ex)
	}
	return out
}

func TestAdaGradSeparable(t *testing.T) {
	for _, normalized := range []bool{false, true} {
		rng := rand.New(rand.NewPCG(1, 2))
		data := separable(rng, 40000, 200, 20)
		g, err := New(Config{Bits: 18, Adaptive: true, Normalized: normalized, Eta: 0.5, PowerT: 0.5}, loss.Logistic{})
		if err != nil {
			t.Fatal(err)
		}
		// Progressive error over the second half of one pass.
		var errs, n int
		for i := range data {
			p := g.Learn(&data[i])
			if i >= len(data)/2 {
				n++
				if p*data[i].Label <= 0 {
					errs++
				}
			}
		}
		if rate := float64(errs) / float64(n); rate > 0.01 {
			t.Errorf("normalized=%v: progressive error %.4f > 1%%", normalized, rate)
		}
	}
}

// TestOGDLeastSquares checks that squared-loss OGD converges to the
// least-squares solution of a small dense overdetermined system.
func TestOGDLeastSquares(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const d, rowsN = 4, 12
	A := make([][]float64, rowsN)
	b := make([]float64, rowsN)
	for i := range A {
		A[i] = make([]float64, d)
		for j := range A[i] {
			A[i][j] = rng.Float64()*2 - 1
		}
		b[i] = rng.NormFloat64()
	}
	want := leastSquares(A, b)
	g, err := New(Config{Bits: 10, Eta: 8, PowerT: 1, InitialT: 40}, &loss.Squared{Range: loss.LabelRange{Min: -1e9, Max: 1e9}})
	if err != nil {
		t.Fatal(err)
	}
	exs := make([]sparse.Example, rowsN)
	for i := range exs {
		exs[i] = sparse.Example{Label: b[i], HasLabel: true, Weight: 1}
		for j := 0; j < d; j++ {
			exs[i].Idx = append(exs[i].Idx, uint32(j))
			exs[i].Val = append(exs[i].Val, A[i][j])
		}
	}
	// Cyclic passes with a decaying step: the incremental-gradient
	// iterates converge to the least-squares solution.
	for step := 0; step < 1000000; step++ {
		g.Learn(&exs[step%rowsN])
	}
	got := make([]float64, d)
	g.Weights(func(slot uint32, w float64) { got[slot] = w })
	for j := range want {
		if math.Abs(got[j]-want[j]) > 1e-3 {
			t.Errorf("w[%d] = %.6f, least squares %.6f", j, got[j], want[j])
		}
	}
}

// leastSquares solves the normal equations by Gaussian elimination.
func leastSquares(A [][]float64, b []float64) []float64 {
	d := len(A[0])
	M := make([][]float64, d)
	for i := range M {
		M[i] = make([]float64, d+1)
		for j := 0; j < d; j++ {
			for k := range A {
				M[i][j] += A[k][i] * A[k][j]
			}
		}
		for k := range A {
			M[i][d] += A[k][i] * b[k]
		}
	}
	for c := 0; c < d; c++ {
		for r := c + 1; r < d; r++ {
			f := M[r][c] / M[c][c]
			for j := c; j <= d; j++ {
				M[r][j] -= f * M[c][j]
			}
		}
	}
	x := make([]float64, d)
	for r := d - 1; r >= 0; r-- {
		s := M[r][d]
		for j := r + 1; j < d; j++ {
			s -= M[r][j] * x[j]
		}
		x[r] = s / M[r][r]
	}
	return x
}

// TestNormalizedScaleInvariance: rescaling a feature by any constant does
// not change the predictions of adaptive+normalized updates.
func TestNormalizedScaleInvariance(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	data := separable(rng, 3000, 50, 10)
	scales := make([]float64, 50)
	for i := range scales {
		scales[i] = math.Pow(10, rng.Float64()*8-4)
	}
	a, _ := New(Config{Bits: 12, Adaptive: true, Normalized: true, Eta: 0.5, PowerT: 0.5}, loss.Logistic{})
	b, _ := New(Config{Bits: 12, Adaptive: true, Normalized: true, Eta: 0.5, PowerT: 0.5}, loss.Logistic{})
	var scaled sparse.Example
	for i := range data {
		scaled.CopyFrom(&data[i])
		for k, j := range scaled.Idx {
			scaled.Val[k] *= scales[j]
		}
		pa, pb := a.Learn(&data[i]), b.Learn(&scaled)
		if math.Abs(pa-pb) > 1e-9*(1+math.Abs(pa)) {
			t.Fatalf("example %d: %v vs %v after rescaling features", i, pa, pb)
		}
	}
}

func TestSaveLoadRoundTrip(t *testing.T) {
	for _, cfg := range []Config{
		{Bits: 16, Adaptive: true, Eta: 0.5, PowerT: 0.5},
		{Bits: 16, Adaptive: true, Normalized: true, Eta: 0.5, PowerT: 0.5, L2: 1e-4},
		{Bits: 16, Eta: 0.1, PowerT: 0.5, InitialT: 3},
	} {
		rng := rand.New(rand.NewPCG(7, 8))
		data := separable(rng, 2000, 300, 15)
		a, _ := New(cfg, loss.Logistic{})
		for i := range data[:1000] {
			a.Learn(&data[i])
		}
		path := filepath.Join(t.TempDir(), "m")
		if err := model.Save(path, nil, a.Save); err != nil {
			t.Fatal(err)
		}
		_, r, err := model.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		b, err := Load(r, cfg, loss.Logistic{})
		if err != nil {
			t.Fatal(err)
		}
		// Resumed training and prediction are bit-identical to uninterrupted.
		for i := range data[1000:] {
			ex := &data[1000+i]
			if pa, pb := a.Predict(ex), b.Predict(ex); pa != pb {
				t.Fatalf("%+v: predict %v vs %v", cfg, pa, pb)
			}
			if pa, pb := a.Learn(ex), b.Learn(ex); pa != pb {
				t.Fatalf("%+v: learn %v vs %v", cfg, pa, pb)
			}
		}
	}
}

func TestNoNaNFromHugeValues(t *testing.T) {
	g, _ := New(Config{Bits: 8, Eta: 10, PowerT: 0}, &loss.Squared{})
	ex := sparse.Example{Label: 1e18, HasLabel: true, Weight: 1e18, Idx: []uint32{1, 2}, Val: []float64{1e18, -1e18}}
	for i := 0; i < 100; i++ {
		g.Learn(&ex)
	}
	g.Weights(func(_ uint32, w float64) {
		if math.IsNaN(w) || math.IsInf(w, 0) {
			t.Fatalf("non-finite weight %v", w)
		}
	})
}

func BenchmarkAdaGrad(b *testing.B) {
	for _, norm := range []bool{false, true} {
		name := "adaptive"
		if norm {
			name = "adaptive+normalized"
		}
		b.Run(name, func(b *testing.B) {
			rng := rand.New(rand.NewPCG(9, 10))
			data := separable(rng, 4096, 100000, 130)
			g, _ := New(Config{Bits: 18, Adaptive: true, Normalized: norm, Eta: 0.5, PowerT: 0.5}, loss.Logistic{})
			for i := range data {
				g.Learn(&data[i]) // every feature seen: steady state
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				g.Learn(&data[i%len(data)])
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "examples/s")
		})
	}
}
