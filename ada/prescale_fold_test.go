package ada

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sparseson/sparseson/internal/dense"
	"github.com/sparseson/sparseson/model"
	"github.com/sparseson/sparseson/sparse"
)

// foldStream draws examples that exercise every rule of the pre-scaling:
// slots repeated within an example, values of every magnitude (10^±4),
// zeros of both signs, values whose square underflows to 0 (1e-170) or
// overflows (1e200, on slot 0 only, which never gets a scale: a scale
// from it would carry x̃ = 1e200/s into the learner), weight-0 examples,
// and a slot (1) first seen with value 0 before others get their first
// value — the case where the order of the features' first values differs
// from the order their rows were made in. Slots ≥ d appear only in the
// held-out examples (unseen features at prediction).
func foldStream(seed uint64, n, d int, heldOut bool) []sparse.Example {
	rng := rand.New(rand.NewPCG(seed, 0xf01d))
	out := make([]sparse.Example, n)
	for t := range out {
		ex := sparse.Example{Label: float64(2*rng.IntN(2) - 1), HasLabel: true, Weight: 1}
		if rng.IntN(8) == 0 {
			ex.Weight = 0
		}
		if t == 0 {
			ex.Idx, ex.Val = []uint32{1, 0}, []float64{0, 1e200}
		}
		for range 1 + rng.IntN(8) {
			slot := uint32(2 + rng.IntN(d-2))
			v := rng.NormFloat64() * math.Pow(10, 4*(2*rng.Float64()-1))
			switch rng.IntN(12) {
			case 0:
				v = 0
			case 1:
				v = math.Copysign(0, -1)
			case 2:
				v = 1e-170
			case 3:
				slot, v = 0, 1e200
			case 4:
				slot = 1
			}
			if heldOut && rng.IntN(3) == 0 {
				slot = uint32(d + rng.IntN(d))
			}
			ex.Idx, ex.Val = append(ex.Idx, slot), append(ex.Val, v)
			if rng.IntN(4) == 0 { // the slot again in this example
				ex.Idx, ex.Val = append(ex.Idx, slot), append(ex.Val, -0.5*v)
			}
		}
		out[t] = ex
	}
	return out
}

// sameBits is == that also tells −0 from 0 and matches NaN with NaN.
func sameBits(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }

// foldPair is the folded learner and its wrapper form (NewPrescaled around
// New: the reference) of one configuration.
func foldPair(t testing.TB, cfg Config) (folded, wrapped *Prescaled) {
	t.Helper()
	folded, err := NewPrescaledLearner(cfg, dense.Loss("logistic"))
	if err != nil {
		t.Fatal(err)
	}
	in, err := New(cfg, dense.Loss("logistic"))
	if err != nil {
		t.Fatal(err)
	}
	return folded, NewPrescaled(in, cfg.Bits)
}

// foldConfigs are every learner of Learners (both updates where there is
// a choice) at a small τ, without and with the CLI's gate and skips, and
// the escaped form's with the completion (Config.Diag, the CLI's default
// under --ada_scale auto) as well: its columns then sit after the scales'
// in the folded form's rows, in the wrapper form's rows without them.
func foldConfigs() []Config {
	var out []Config
	for _, v := range variants() {
		c := oracleCase{v: v, tau: 3, eta: 0.5}
		cfg := c.config()
		out = append(out, cfg)
		n, _ := Lookup(v.name)
		switch {
		case n.Buffer == Single:
			cfg.Gate = 2
		case v.name == "ada_ffd":
			cfg.Gate = 2
		default:
			cfg.Gate, cfg.Skip = 0.3, 0.1
		}
		out = append(out, cfg)
		if n.Precond == Escaped {
			cfg.Diag, cfg.Epsilon = true, 1
			out = append(out, cfg)
		}
	}
	return out
}

func cfgName(c Config) string {
	return fmt.Sprintf("%s_gate%g_skip%g_diag%t", c.Name(), c.Gate, c.Skip, c.Diag)
}

// checkSame fails unless a and b predict the held-out examples with the
// same bits, and have the same weights and scales.
func checkSame(t *testing.T, a, b *Prescaled, test []sparse.Example) {
	t.Helper()
	for i := range test {
		if pa, pb := a.Predict(&test[i]), b.Predict(&test[i]); !sameBits(pa, pb) {
			t.Fatalf("held-out example %d: predicts %v, the reference %v", i, pa, pb)
		}
	}
	wb := map[uint32]float64{}
	b.Weights(func(slot uint32, w float64) { wb[slot] = w })
	na := 0
	a.Weights(func(slot uint32, w float64) {
		na++
		if !sameBits(w, wb[slot]) || !sameBits(a.Scale(slot), b.Scale(slot)) {
			t.Fatalf("slot %d: weight %v scale %v, the reference %v and %v", slot, w, a.Scale(slot), wb[slot], b.Scale(slot))
		}
	})
	if na != len(wb) {
		t.Fatalf("%d weights, the reference %d", na, len(wb))
	}
}

func saved(t *testing.T, l sparse.Learner) []byte {
	t.Helper()
	_, b := encodeParse(t, l.Save)
	return b
}

// TestPrescaledFolded: the scales kept in the split's rows
// (NewPrescaledLearner) learn, predict, weigh and save exactly as the
// wrapper around the same learner — every prediction and weight the same
// bits, the saved models the same bytes — on foldStream's edge cases.
func TestPrescaledFolded(t *testing.T) {
	train := foldStream(7, 300, 24, false)
	test := foldStream(8, 60, 24, true)
	for _, cfg := range foldConfigs() {
		t.Run(cfgName(cfg), func(t *testing.T) {
			t.Parallel()
			a, b := foldPair(t, cfg)
			for i := range train {
				if pa, pb := a.Learn(&train[i]), b.Learn(&train[i]); !sameBits(pa, pb) {
					t.Fatalf("example %d: learns with prediction %v, the reference %v", i, pa, pb)
				}
			}
			checkSame(t, a, b, test)
			if a.fold.Scaled() != b.pre.tab.Len() {
				t.Errorf("%d features with a scale, the reference %d", a.fold.Scaled(), b.pre.tab.Len())
			}
			if !bytes.Equal(saved(t, a), saved(t, b)) {
				t.Error("the saved models differ")
			}
			if cfg.Diag && completionActs(a.inner.(*Learner)) == 0 {
				t.Error("the completion does not act: no feature with e_j > 0 and u_j ≠ 0")
			}
		})
	}
}

// completionActs counts the features whose completion column has a say:
// e_j > 0 and u_j ≠ 0.
func completionActs(a *Learner) (n int) {
	a.sp.AuxRows(func(_ uint32, aux []float64) {
		if a.diagExtra(aux[0]) > 0 && aux[1] != 0 {
			n++
		}
	})
	return n
}

// TestPrescaledFoldedSaveLoad: a model saved by either form (the same
// bytes, TestPrescaledFolded) loads into the folded form and goes on
// predicting and learning as the original; damaged scales are refused.
func TestPrescaledFoldedSaveLoad(t *testing.T) {
	train := foldStream(9, 200, 24, false)
	test := foldStream(10, 60, 24, true)
	load := func(t *testing.T, cfg Config, b []byte) (*Prescaled, error) {
		_, r, err := model.Parse(b)
		if err != nil {
			t.Fatal(err)
		}
		return LoadPrescaledLearner(r, cfg, dense.Loss("logistic"))
	}
	for _, cfg := range foldConfigs() {
		t.Run(cfgName(cfg), func(t *testing.T) {
			t.Parallel()
			a, b := foldPair(t, cfg)
			for i := range train[:100] {
				a.Learn(&train[i])
				b.Learn(&train[i])
			}
			for form, l := range map[string]*Prescaled{"folded": a, "wrapper": b} {
				c, err := load(t, cfg, saved(t, l))
				if err != nil {
					t.Fatalf("%s: %v", form, err)
				}
				for i := range train[100:] {
					ex := &train[100+i]
					if pl, pc := l.Learn(ex), c.Learn(ex); !sameBits(pl, pc) {
						t.Fatalf("%s, example %d: learns %v after loading, %v before", form, 100+i, pc, pl)
					}
				}
				checkSame(t, c, l, test)
				if !bytes.Equal(saved(t, c), saved(t, l)) {
					t.Errorf("%s: saved again after loading and learning, the model differs", form)
				}
			}
		})
	}
}

// TestPrescaledFoldedCorrupt: scales that no learner writes are refused
// by the folded loader (written by a wrapper whose table was damaged).
func TestPrescaledFoldedCorrupt(t *testing.T) {
	cfg := foldConfigs()[0]
	train := foldStream(11, 50, 24, false)
	for _, c := range []struct {
		name   string
		damage func(tab *sparse.Table)
	}{
		{"negative sum", func(tab *sparse.Table) { tab.Rows[0] = -1 }},
		{"infinite sum", func(tab *sparse.Table) { tab.Rows[0] = math.Inf(1) }},
		{"no value", func(tab *sparse.Table) { tab.Rows[1] = 0 }},
		{"slot without state", func(tab *sparse.Table) { tab.Keys[0] = 500 }},
		{"slot twice", func(tab *sparse.Table) { tab.Keys[1] = tab.Keys[0] }},
		// Find masks a key: one beyond the hash space names another slot's row.
		{"slot beyond the hash space", func(tab *sparse.Table) { tab.Keys[0] += 1 << cfg.Bits }},
		{"sums cut short", func(tab *sparse.Table) { tab.Rows = tab.Rows[:len(tab.Rows)-1] }},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, b := foldPair(t, cfg)
			for i := range train {
				b.Learn(&train[i])
			}
			c.damage(b.pre.tab)
			_, r, err := model.Parse(saved(t, b))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := LoadPrescaledLearner(r, cfg, dense.Loss("logistic")); err == nil {
				t.Error("loaded")
			}
		})
	}
}

// BenchmarkPrescaledLearn times Learn under --ada_scale auto on the
// news20-like stream (as BenchmarkLearn, τ = 10): the scales folded into
// the split's rows against the wrapper with its own table. 0 allocs/op.
func BenchmarkPrescaledLearn(b *testing.B) {
	data := dense.News(18)
	for _, name := range []string{"ada_fd", "sada", "ftsl"} {
		n, _ := Lookup(name)
		c := oracleCase{v: variant{name, n.Update}, tau: 10, eta: 0.25}
		cfg := c.config()
		cfg.Bits = 18
		b.Run(name+"/folded", func(b *testing.B) {
			a, _ := foldPair(b, cfg)
			dense.Steady(b, a, data)
		})
		b.Run(name+"/wrapper", func(b *testing.B) {
			_, w := foldPair(b, cfg)
			dense.Steady(b, w, data)
		})
	}
}
