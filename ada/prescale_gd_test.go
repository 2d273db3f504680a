package ada

import (
	"bytes"
	"math"
	"testing"

	"github.com/sparseson/sparseson/gd"
	"github.com/sparseson/sparseson/internal/dense"
	"github.com/sparseson/sparseson/model"
	"github.com/sparseson/sparseson/sparse"
)

// gdFoldCase is a first-order learner and its loss.
type gdFoldCase struct {
	name string
	cfg  gd.Config
	loss string
}

// gdFoldCases are the seven updates --feature_scale auto pre-scales
// (--sgd, --adaptive alone, --dual_averaging, --nasa_strong, --nasa_accel,
// --scalar_adagrad, --sadagrad; --nasa --sgd among --sgd's), with --l1,
// --l2, δ and power_t where the update takes them and squared loss beside
// logistic, and the unit-free updates the CLI runs raw (normalized,
// per-feature NASA), which the wrapper takes as well.
func gdFoldCases() []gdFoldCase {
	const b = 6 // 64 slots: foldStream's slots collide, as hashed features do
	return []gdFoldCase{
		{"sgd", gd.Config{Bits: b, Eta: 0.5, PowerT: 0.5}, "logistic"},
		{"sgd_squared_l2", gd.Config{Bits: b, Eta: 0.1, PowerT: 0.5, InitialT: 1, L2: 1e-3}, "squared"},
		{"sgd_l1", gd.Config{Bits: b, Eta: 0.5, PowerT: 0.5, L1: 1e-3, L1State: true}, "logistic"},
		{"adaptive", gd.Config{Bits: b, Adaptive: true, Eta: 0.5, PowerT: 0.5}, "logistic"},
		{"adaptive_delta_power", gd.Config{Bits: b, Adaptive: true, Eta: 0.5, PowerT: 0.3, Delta: 0.1}, "squared"},
		{"adaptive_l1_l2", gd.Config{Bits: b, Adaptive: true, Eta: 0.5, PowerT: 0.5, Delta: 1e-3, L1: 1e-2, L1State: true, L2: 1e-2}, "logistic"},
		{"dual_averaging", gd.Config{Bits: b, Adaptive: true, Dual: true, Eta: 0.5, PowerT: 0.5, Delta: 1e-3}, "logistic"},
		{"nasa_sgd", gd.Config{Bits: b, Eta: 0.5, Step: gd.StepNASA, NasaC: 1}, "logistic"},
		{"nasa_strong", gd.Config{Bits: b, Eta: 0.5, Step: gd.StepNASAStrong, NasaH: 1}, "logistic"},
		{"nasa_accel", gd.Config{Bits: b, Eta: 0.5, Step: gd.StepNASAAccel, NasaC: 1, NasaL: 1}, "logistic"},
		{"nasa_accel_l2", gd.Config{Bits: b, Eta: 0.5, Step: gd.StepNASAAccel, NasaC: 1, NasaL: 1, L2: 1e-2}, "squared"},
		{"scalar_adagrad", gd.Config{Bits: b, Eta: 0.5, Step: gd.StepScalarAdaGrad}, "logistic"},
		{"sadagrad", gd.Config{Bits: b, Eta: 0.5, Step: gd.StepSAdaGrad, NasaH: 1}, "logistic"},
		{"normalized", gd.Config{Bits: b, Normalized: true, Eta: 0.5, PowerT: 0.5}, "logistic"},
		{"adaptive_normalized", gd.Config{Bits: b, Adaptive: true, Normalized: true, Eta: 0.5, PowerT: 0.5}, "logistic"},
		{"nasa_per_feature", gd.Config{Bits: b, Adaptive: true, Eta: 0.5, Step: gd.StepNASA, NasaC: 1}, "logistic"},
	}
}

// gdFoldStream is foldStream with importance weights 2 as well as 1 and 0.
func gdFoldStream(seed uint64, n int, heldOut bool) []sparse.Example {
	out := foldStream(seed, n, 24, heldOut)
	for i := range out {
		if i%5 == 2 {
			out[i].Weight = 2
		}
	}
	return out
}

// gdFoldPair is the folded learner of c (gd.Config.RMS under
// NewPrescaledFolded, as the CLI builds it) and its wrapper form
// (NewPrescaled around gd.New: the reference).
func gdFoldPair(t testing.TB, c gdFoldCase) (folded, wrapped *Prescaled) {
	t.Helper()
	rms := c.cfg
	rms.RMS = true
	g, err := gd.New(rms, dense.Loss(c.loss))
	if err != nil {
		t.Fatal(err)
	}
	folded = NewPrescaledFolded(g)
	in, err := gd.New(c.cfg, dense.Loss(c.loss))
	if err != nil {
		t.Fatal(err)
	}
	return folded, NewPrescaled(in, c.cfg.Bits)
}

// TestPrescaledGDFolded: the scales kept in the first-order learner's rows
// (gd.Config.RMS under NewPrescaledFolded) learn, predict, weigh and save exactly as the wrapper
// around gd.New — every prediction and weight the same bits, the saved
// models the same bytes — on foldStream's edge cases.
func TestPrescaledGDFolded(t *testing.T) {
	train := gdFoldStream(7, 400, false)
	test := gdFoldStream(8, 80, true)
	for _, c := range gdFoldCases() {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			a, b := gdFoldPair(t, c)
			if _, ok := a.fold.(*gd.GD); !ok {
				t.Fatalf("the folded form keeps its scales in a %T", a.fold)
			}
			moved := false
			for i := range train {
				pa, pb := a.Learn(&train[i]), b.Learn(&train[i])
				if !sameBits(pa, pb) {
					t.Fatalf("example %d: learns with prediction %v, the reference %v", i, pa, pb)
				}
				moved = moved || pa != 0
			}
			if !moved {
				t.Fatal("every prediction was 0: the stream does not train the learner")
			}
			checkSame(t, a, b, test)
			if a.fold.Scaled() != b.pre.tab.Len() {
				t.Errorf("%d features with a scale, the reference %d", a.fold.Scaled(), b.pre.tab.Len())
			}
			if !bytes.Equal(saved(t, a), saved(t, b)) {
				t.Error("the saved models differ")
			}
		})
	}
}

// loadPrescaledGD loads a model of either form into the folded form.
func loadPrescaledGD(r *model.Reader, c gdFoldCase) (*Prescaled, error) {
	return LoadPrescaledFolded(r, func(r *model.Reader) (FoldedLearner, error) {
		cfg := c.cfg
		cfg.RMS = true
		g, err := gd.Load(r, cfg, dense.Loss(c.loss))
		if err != nil {
			return nil, err
		}
		return g, nil
	})
}

// TestPrescaledGDFoldedSaveLoad: a model saved by either form (the same
// bytes, TestPrescaledGDFolded) loads into either form and goes on
// predicting and learning as the original, and saves the original's bytes.
func TestPrescaledGDFoldedSaveLoad(t *testing.T) {
	train := gdFoldStream(9, 300, false)
	test := gdFoldStream(10, 60, true)
	loaders := map[string]func(r *model.Reader, c gdFoldCase) (*Prescaled, error){
		"into folded": func(r *model.Reader, c gdFoldCase) (*Prescaled, error) {
			return loadPrescaledGD(r, c)
		},
		"into wrapper": func(r *model.Reader, c gdFoldCase) (*Prescaled, error) {
			return LoadPrescaled(r, c.cfg.Bits, func(r *model.Reader) (sparse.Learner, error) {
				return gd.Load(r, c.cfg, dense.Loss(c.loss))
			})
		},
	}
	for _, c := range gdFoldCases() {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			for form := range map[string]bool{"folded": true, "wrapper": false} {
				for into, load := range loaders {
					a, b := gdFoldPair(t, c)
					l := a
					if form == "wrapper" {
						l = b
					}
					for i := range train[:150] {
						l.Learn(&train[i])
					}
					_, r, err := model.Parse(saved(t, l))
					if err != nil {
						t.Fatal(err)
					}
					m, err := load(r, c)
					if err != nil {
						t.Fatalf("%s %s: %v", form, into, err)
					}
					checkSame(t, m, l, test)
					for i := range train[150:] {
						ex := &train[150+i]
						if pl, pm := l.Learn(ex), m.Learn(ex); !sameBits(pl, pm) {
							t.Fatalf("%s %s, example %d: learns %v after loading, %v before", form, into, 150+i, pm, pl)
						}
					}
					checkSame(t, m, l, test)
					if !bytes.Equal(saved(t, m), saved(t, l)) {
						t.Errorf("%s %s: saved again after loading and learning, the model differs", form, into)
					}
				}
			}
		})
	}
}

// TestPrescaledGDFoldedCorrupt: scales that no learner writes are refused
// by the folded loader (written by a wrapper whose table was damaged).
func TestPrescaledGDFoldedCorrupt(t *testing.T) {
	c := gdFoldCases()[0]
	train := gdFoldStream(11, 50, false)
	for _, d := range []struct {
		name   string
		damage func(tab *sparse.Table)
	}{
		{"negative sum", func(tab *sparse.Table) { tab.Rows[0] = -1 }},
		{"infinite sum", func(tab *sparse.Table) { tab.Rows[0] = math.Inf(1) }},
		{"NaN count", func(tab *sparse.Table) { tab.Rows[1] = math.NaN() }},
		{"no value", func(tab *sparse.Table) { tab.Rows[1] = 0 }},
		{"slot without state", func(tab *sparse.Table) { tab.Keys[0] = 63 }},
		{"slot twice", func(tab *sparse.Table) { tab.Keys[1] = tab.Keys[0] }},
		{"slot beyond the hash space", func(tab *sparse.Table) { tab.Keys[0] += 64 }},
		{"sums cut short", func(tab *sparse.Table) { tab.Rows = tab.Rows[:len(tab.Rows)-1] }},
	} {
		t.Run(d.name, func(t *testing.T) {
			_, b := gdFoldPair(t, c)
			for i := range train {
				b.Learn(&train[i])
			}
			if b.inner.(*gd.GD).Scale(63) != 0 || b.pre.tab.Find(63) >= 0 {
				t.Fatal("slot 63 has state: the damage would not be damage")
			}
			d.damage(b.pre.tab)
			_, r, err := model.Parse(saved(t, b))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := loadPrescaledGD(r, c); err == nil {
				t.Error("loaded")
			}
		})
	}
}

// BenchmarkPrescaledGDLearn times Learn under --feature_scale auto on the
// news20-like stream: the scales folded into the first-order learner's
// rows against the wrapper with its own table, and the learner on x as
// given (raw). 0 allocs/op.
func BenchmarkPrescaledGDLearn(b *testing.B) {
	data := dense.News(18)
	for _, c := range []gdFoldCase{
		{"sgd", gd.Config{Bits: 18, Eta: 0.5, PowerT: 0.5}, "logistic"},
		{"adaptive", gd.Config{Bits: 18, Adaptive: true, Eta: 0.5, PowerT: 0.5}, "logistic"},
		{"nasa_strong", gd.Config{Bits: 18, Step: gd.StepNASAStrong, NasaH: 1, Eta: 0.5}, "logistic"},
	} {
		b.Run(c.name+"/folded", func(b *testing.B) {
			a, _ := gdFoldPair(b, c)
			dense.Steady(b, a, data)
		})
		b.Run(c.name+"/wrapper", func(b *testing.B) {
			_, w := gdFoldPair(b, c)
			dense.Steady(b, w, data)
		})
		b.Run(c.name+"/raw", func(b *testing.B) {
			g, err := gd.New(c.cfg, dense.Loss(c.loss))
			if err != nil {
				b.Fatal(err)
			}
			dense.Steady(b, g, data)
		})
	}
}
