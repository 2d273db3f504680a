package ada

import (
	"bytes"
	"math"
	"testing"

	"github.com/sparseson/sparseson/internal/dense"
	"github.com/sparseson/sparseson/model"
	"github.com/sparseson/sparseson/sparse"
)

// rmsScaled is the stream a Prescaled learner learns on, written out
// independently: x_j/s_j with s_j the root mean square of x_j over its
// occurrences up to and including the example; and the final s_j.
func rmsScaled(data []sparse.Example) ([]sparse.Example, map[uint32]float64) {
	sq, n, s := map[uint32]float64{}, map[uint32]float64{}, map[uint32]float64{}
	out := make([]sparse.Example, len(data))
	for t, ex := range data {
		out[t] = ex
		out[t].Val = make([]float64, len(ex.Val))
		for i, j := range ex.Idx {
			sq[j] += ex.Val[i] * ex.Val[i]
			n[j]++
			s[j] = math.Sqrt(sq[j] / n[j])
		}
		for i, j := range ex.Idx {
			out[t].Val[i] = ex.Val[i] / s[j]
		}
	}
	return out, s
}

// TestPrescaledOracle: every learner under --ada_scale auto against its
// dense reference run on the pre-scaled stream, at the tolerances of
// TestOracle, on features whose scales spread over 10^±2.6 — and the same
// learner on the stream with every feature multiplied by another 10^±3
// gives the same predictions to rounding.
func TestPrescaledOracle(t *testing.T) {
	for _, v := range variants() {
		for _, lossName := range []string{"logistic", "squared"} {
			c := oracleCase{v: v, d: 20, s: 5, t: 300, tau: 5, lossName: lossName, eta: 0.5, seed: 4}
			if lossName == "squared" && v.name == "ada_fd" && v.update == Mirror {
				c.t = 40 // chaotic at longer T (TestOracle)
			}
			t.Run(c.String(), func(t *testing.T) {
				t.Parallel()
				data := dense.Problem{D: c.d, S: c.s, T: c.t, Loss: c.lossName, Seed: c.seed, Spread: 6}.Examples()
				scaled, s := rmsScaled(data)
				sp := NewPrescaled(c.newSparse(t), 9)
				dn := c.newDense()
				var worst float64
				for i := range data {
					worst = max(worst, dense.Rel(sp.Learn(&data[i]), dn.Learn(&scaled[i])))
				}
				want := dn.Weights()
				var top float64
				for _, w := range want {
					top = math.Max(top, math.Abs(w))
				}
				var wworst float64
				sp.Weights(func(slot uint32, w float64) {
					wworst = max(wworst, math.Abs(w*s[slot]-want[slot])/(1+top))
					if got := sp.Scale(slot); got != s[slot] {
						t.Fatalf("slot %d: scale %v, want %v", slot, got, s[slot])
					}
				})
				if !(worst <= 1e-9) || !(wworst <= 1e-9) {
					t.Errorf("prescaled sparse vs dense on x/s: predictions %.3g, weights %.3g (tolerance 1e-9)", worst, wworst)
				}
				// Units: feature j ×k_j, k_j = 10^(3·(j mod 3 − 1)).
				units := make([]sparse.Example, len(data))
				for i, ex := range data {
					units[i] = ex
					units[i].Val = make([]float64, len(ex.Val))
					for k, j := range ex.Idx {
						units[i].Val[k] = ex.Val[k] * math.Pow(10, float64(3*(int(j)%3-1)))
					}
				}
				a, b := NewPrescaled(c.newSparse(t), 9), NewPrescaled(c.newSparse(t), 9)
				var uworst float64
				for i := range data {
					uworst = max(uworst, dense.Rel(a.Learn(&data[i]), b.Learn(&units[i])))
				}
				if !(uworst <= 1e-9) {
					t.Errorf("features in other units: predictions differ by %.3g", uworst)
				}
			})
		}
	}
}

// TestPrescaledFull: ADA-FULL under --ada_scale auto against its dense
// reference on the pre-scaled stream.
func TestPrescaledFull(t *testing.T) {
	for _, u := range []Update{Mirror, Dual} {
		cfg := Config{Bits: 9, Precond: Delta, Update: u, Eta: 0.5, Delta: DefaultDelta(u)}
		data := dense.Problem{D: 20, S: 5, T: 200, Loss: "logistic", Seed: 5, Spread: 6}.Examples()
		scaled, _ := rmsScaled(data)
		f, err := NewFull(cfg, dense.Loss("logistic"))
		if err != nil {
			t.Fatal(err)
		}
		sp := NewPrescaled(f, cfg.Bits)
		dn := dense.NewADA(dense.ADAConfig{D: 20, Dual: u == Dual, Eta: cfg.Eta, Delta: cfg.Delta}, dense.Loss("logistic"))
		var worst float64
		for i := range data {
			worst = max(worst, dense.Rel(sp.Learn(&data[i]), dn.Learn(&scaled[i])))
		}
		if !(worst <= 1e-9) {
			t.Errorf("%v: prescaled ADA-FULL vs dense on x/s: predictions differ by %.3g", u, worst)
		}
	}
}

// TestPrescaledSaveLoad: a saved and loaded Prescaled predicts and learns
// as the original; a damaged scale is refused.
func TestPrescaledSaveLoad(t *testing.T) {
	c := oracleCase{v: variant{"ftsl", Dual}, d: 20, s: 5, t: 200, tau: 5, lossName: "logistic", eta: 0.5, seed: 6}
	data := dense.Problem{D: 20, S: 5, T: 200, Loss: "logistic", Seed: 6, Spread: 6}.Examples()
	a := NewPrescaled(c.newSparse(t), 9)
	for i := range data[:100] {
		a.Learn(&data[i])
	}
	var buf bytes.Buffer
	if err := model.Encode(&buf, model.Options{}, a.Save); err != nil {
		t.Fatal(err)
	}
	load := func(b []byte) (*Prescaled, error) {
		_, r, err := model.Parse(b)
		if err != nil {
			return nil, err
		}
		return LoadPrescaled(r, 9, func(r *model.Reader) (sparse.Learner, error) { return Load(r, c.config(), dense.Loss("logistic")) })
	}
	b, err := load(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	for i := range data[100:] {
		ex := &data[100+i]
		if pa, pb := a.Predict(ex), b.Predict(ex); pa != pb {
			t.Fatalf("example %d: predict %v after loading, %v before", 100+i, pb, pa)
		}
		if pa, pb := a.Learn(ex), b.Learn(ex); pa != pb {
			t.Fatalf("example %d: learn %v after loading, %v before", 100+i, pb, pa)
		}
	}
	// A scale of −1 written in place of the first one.
	bad := NewPrescaled(c.newSparse(t), 9)
	bad.Learn(&data[0])
	bad.pre.tab.Rows[0] = -1 // Σx² of the first feature
	buf.Reset()
	if err := model.Encode(&buf, model.Options{}, bad.Save); err != nil {
		t.Fatal(err)
	}
	if _, err := load(buf.Bytes()); err == nil {
		t.Fatal("a negative feature scale loaded")
	}
}

// TestPrescalerPaths: the batch lookup (learnOffsets, every value gives a
// scale) and the per-feature loop (some value does not) give bit for bit
// the quotients written out independently — x_j over the root mean square
// of j's nonzero values so far, a slot repeated in an example counted
// twice before either is scaled — and create rows only for values that
// give a scale.
func TestPrescalerPaths(t *testing.T) {
	for _, c := range []struct {
		name string
		data [][2][]float64 // slots (as float64), values
	}{
		{"distinct", [][2][]float64{{{1, 2, 3}, {2, -4, 0.5}}, {{2, 3, 4}, {1, 1, 8}}}},
		{"repeated slot", [][2][]float64{{{1, 1, 2}, {3, 4, 1}}, {{1, 2}, {-2, 5}}}},
		{"zero value", [][2][]float64{{{1, 2}, {0, 3}}, {{1, 2}, {2, 0}}, {{1, 2}, {1, 1}}}},
		{"tiny value", [][2][]float64{{{5, 6}, {1e-170, 2}}, {{5, 6}, {3, 2}}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := newPrescaler(8)
			sq, n := map[uint32]float64{}, map[uint32]float64{}
			for k, e := range c.data {
				ex := sparse.Example{Weight: 1}
				for i, s := range e[0] {
					ex.Idx = append(ex.Idx, uint32(s))
					ex.Val = append(ex.Val, e[1][i])
				}
				for i, j := range ex.Idx {
					if q := ex.Val[i] * ex.Val[i]; q > 0 {
						sq[j] += q
						n[j]++
					}
				}
				got := p.scaled(&ex, true)
				for i, j := range ex.Idx {
					want := 0.0
					if n[j] > 0 {
						want = ex.Val[i] / math.Sqrt(sq[j]/n[j])
					}
					if got.Val[i] != want {
						t.Fatalf("example %d, slot %d: %v, want %v", k, j, got.Val[i], want)
					}
				}
			}
			if p.tab.Len() != len(n) {
				t.Errorf("%d rows, want %d (the slots with a nonzero value)", p.tab.Len(), len(n))
			}
		})
	}
}
