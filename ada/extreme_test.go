package ada

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sparseson/sparseson/internal/dense"
	"github.com/sparseson/sparseson/internal/linalg"
	"github.com/sparseson/sparseson/loss"
	"github.com/sparseson/sparseson/model"
	"github.com/sparseson/sparseson/sparse"
)

// The defects FuzzLearners found in the FD-adaptive learners (cmd/sparseson,
// testdata/fuzz/FuzzLearners), one stream each, run through every learner
// of the table under both updates: the state stays finite, predictions
// and weights are finite, and a saved model loads, saves the same bytes
// and predicts the same.

// repeated is n copies of one example.
func repeated(n int, label, weight float64, idx []uint32, val []float64) []sparse.Example {
	out := make([]sparse.Example, n)
	for i := range out {
		out[i] = sparse.Example{HasLabel: true, Label: label, Weight: weight,
			Idx: append([]uint32(nil), idx...), Val: append([]float64(nil), val...)}
	}
	return out
}

// extremeStreams are the fuzzers' findings as streams.
var extremeStreams = []struct {
	name string
	data []sparse.Example
}{
	// 8cd49779e29ddd2c: ‖ĝ‖² = h·ℓ′²·x² overflows; the sketch skips such a
	// ĝ, but the core's Σ‖ĝ‖² (saved) went to +Inf and the model did not
	// load.
	{"huge_gradient", repeated(200, 1, 1e9, []uint32{3}, []float64{1e72})},
	// Magnitudes across the float64 range (as TestShampooExtremeInputs).
	{"wild_scales", wildScales(400)},
}

// wildScales is n examples of 4 features of magnitude 1e±150 and importance
// weights of 1, 1e-200, 1e200 and 3, labels ±1.
func wildScales(n int) []sparse.Example {
	rng := rand.New(rand.NewPCG(1, 1))
	out := make([]sparse.Example, n)
	for i := range out {
		ex := sparse.Example{HasLabel: true, Label: float64(1 - 2*(i%2)), Weight: []float64{1, 1e-200, 1e200, 3}[i%4]}
		for j := 0; j < 4; j++ {
			ex.Idx = append(ex.Idx, uint32(10*j+rng.IntN(10))) // distinct, as the parser's
			ex.Val = append(ex.Val, rng.NormFloat64()*math.Pow(10, float64(rng.IntN(301)-150)))
		}
		out[i] = ex
	}
	return out
}

// encodeParse writes a model file with save and parses it back: the
// reader a Load function takes, and the file's bytes.
func encodeParse(t *testing.T, save func(*model.Writer) error) (*model.Reader, []byte) {
	t.Helper()
	var buf bytes.Buffer
	if err := model.Encode(&buf, model.Options{}, save); err != nil {
		t.Fatal(err)
	}
	_, r, err := model.Parse(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return r, buf.Bytes()
}

// saveLoad saves a, loads it back, and checks that the loaded model saves
// the same bytes and predicts the same on ex.
func saveLoad(t *testing.T, a sparse.Learner, load func(*model.Reader) (sparse.Learner, error), ex *sparse.Example) {
	t.Helper()
	r, saved := encodeParse(t, a.Save)
	b, err := load(r)
	if err != nil {
		t.Fatalf("the saved model does not load: %v", err)
	}
	var again bytes.Buffer
	if err := model.Encode(&again, model.Options{}, b.Save); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(saved, again.Bytes()) {
		t.Error("the loaded model saves other bytes")
	}
	if pa, pb := a.Predict(ex), b.Predict(ex); math.Float64bits(pa) != math.Float64bits(pb) {
		t.Errorf("the loaded model predicts %v, the model %v", pb, pa)
	}
}

// checkFinite fails if a's weights or its predictions on data are not
// finite.
func checkFinite(t *testing.T, a sparse.Learner, data []sparse.Example) {
	t.Helper()
	a.Weights(func(slot uint32, w float64) {
		if !linalg.IsFinite(w) {
			t.Fatalf("weight of slot %d is %v", slot, w)
		}
	})
	for i := range data {
		if p := a.Predict(&data[i]); !linalg.IsFinite(p) {
			t.Fatalf("predicts %v", p)
		}
	}
}

// extremeLoss is VW's classic squared loss (its derivative at the
// unclipped score, so it grows with a diverging model) or the logistic.
func extremeLoss(name string) loss.Loss {
	if name == "classic" {
		return &loss.Classic{}
	}
	return dense.Loss(name)
}

func TestExtremeInputs(t *testing.T) {
	for _, st := range extremeStreams {
		for _, v := range variants() {
			for _, lossName := range []string{"classic", "logistic"} {
				c := oracleCase{v: v, tau: 3, lossName: lossName, eta: 0.5}
				t.Run(fmt.Sprintf("%s/%v_%s", st.name, v, lossName), func(t *testing.T) {
					cfg := c.config()
					a, err := New(cfg, extremeLoss(lossName))
					if err != nil {
						t.Fatal(err)
					}
					for i := range st.data {
						if p := a.Learn(&st.data[i]); !linalg.IsFinite(p) {
							t.Fatalf("example %d: prediction %v", i, p)
						}
					}
					checkFinite(t, a, st.data)
					saveLoad(t, a, func(r *model.Reader) (sparse.Learner, error) {
						return Load(r, cfg, extremeLoss(lossName))
					}, &st.data[0])
				})
			}
		}
	}
}

// TestFullExtremeInputs: the streams through ADA-FULL under both updates
// (δ of Wan & Zhang (TPAMI 2022), §5.1 and δ = 0, the pseudo-inverse). Under dual
// averaging ḡ_j was unbounded: the classic loss's ℓ′ grows with the score,
// ḡ_j·x_j overflowed, and the next score was Inf − Inf = NaN; ḡ_j now stays
// within ±1e140 (the step is refused and counted, as the split learners').
func TestFullExtremeInputs(t *testing.T) {
	for _, st := range extremeStreams {
		for _, u := range []Update{Mirror, Dual} {
			for _, delta := range []float64{DefaultDelta(u), 0} {
				for _, lossName := range []string{"classic", "logistic"} {
					cfg := Config{Bits: 8, Precond: Delta, Update: u, Eta: 0.5, Delta: delta}
					t.Run(fmt.Sprintf("%s/%s_delta%g_%s", st.name, []string{"mirror", "dual"}[u], delta, lossName), func(t *testing.T) {
						f, err := NewFull(cfg, extremeLoss(lossName))
						if err != nil {
							t.Fatal(err)
						}
						for i := range st.data {
							if p := f.Learn(&st.data[i]); !linalg.IsFinite(p) {
								t.Fatalf("example %d: prediction %v", i, p)
							}
						}
						checkFinite(t, f, st.data)
						saveLoad(t, f, func(r *model.Reader) (sparse.Learner, error) {
							return LoadFull(r, cfg, extremeLoss(lossName))
						}, &st.data[0])
					})
				}
			}
		}
	}
}
