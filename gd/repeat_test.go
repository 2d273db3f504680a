package gd

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sparseson/sparseson/internal/linalg"
	"github.com/sparseson/sparseson/loss"
	"github.com/sparseson/sparseson/model"
	"github.com/sparseson/sparseson/sparse"
)

// withRepeats is data with slots repeated within examples: about a third
// of each example's entries again, at the end or right after themselves,
// with values of their own, some of which cancel the first occurrence (a
// merged value of 0), and a few slots three times.
func withRepeats(seed uint64, data []sparse.Example) []sparse.Example {
	rng := rand.New(rand.NewPCG(seed, 3))
	out := make([]sparse.Example, len(data))
	for i, ex := range data {
		ex.Idx, ex.Val = nil, nil
		var tailIdx []uint32
		var tailVal []float64
		for k, slot := range data[i].Idx {
			v := data[i].Val[k]
			ex.Idx, ex.Val = append(ex.Idx, slot), append(ex.Val, v)
			switch rng.IntN(9) {
			case 0:
				ex.Idx, ex.Val = append(ex.Idx, slot), append(ex.Val, rng.NormFloat64())
			case 1:
				tailIdx, tailVal = append(tailIdx, slot), append(tailVal, -v)
			case 2:
				tailIdx, tailVal = append(tailIdx, slot), append(tailVal, rng.NormFloat64())
			case 3:
				tailIdx, tailVal = append(tailIdx, slot, slot), append(tailVal, rng.NormFloat64(), 0.5*v)
			}
		}
		ex.Idx, ex.Val = append(ex.Idx, tailIdx...), append(ex.Val, tailVal...)
		out[i] = ex
	}
	return out
}

// mergedCopy is data with each example's repeated slots merged as the
// CLI's hashing builder merges them: the values of a slot summed, in
// order, at the place of its first occurrence.
func mergedCopy(data []sparse.Example) []sparse.Example {
	out := make([]sparse.Example, len(data))
	for i, ex := range data {
		pos := map[uint32]int{}
		ex.Idx, ex.Val = nil, nil
		for k, slot := range data[i].Idx {
			if p, ok := pos[slot]; ok {
				ex.Val[p] += data[i].Val[k]
				continue
			}
			pos[slot] = len(ex.Idx)
			ex.Idx, ex.Val = append(ex.Idx, slot), append(ex.Val, data[i].Val[k])
		}
		out[i] = ex
	}
	return out
}

// savedBytes is l's model file.
func savedBytes(t *testing.T, l *GD) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := model.Encode(&buf, nil, l.Save); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// mergingSteps are the steps that learn an example with repeated slots
// as the merged example: those that keep ‖G‖² (tracksVariation) and
// per-feature NASA, plain and normalized.
func mergingSteps() []struct {
	rule string
	cfg  Config
} {
	var out []struct {
		rule string
		cfg  Config
	}
	for _, sc := range withDiag {
		if sc.cfg.Step.tracksVariation() {
			out = append(out, sc)
		}
	}
	return out
}

// TestRepeatedSlotsMerged: for each step that merges repeated slots, a
// stream whose examples repeat slots learns exactly as the merged stream
// — every prediction the same bits, the saved models the same bytes — and
// its model, saved midway with ‖G‖² kept across repeats, loads and goes
// on learning as the learner that was not interrupted. Before the merge,
// N lost the cross terms of a repeated slot, and Load refused the model
// as corrupt (‖G‖² disagreeing with the stored gradient sums).
func TestRepeatedSlotsMerged(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	base := separable(rng, 1200, 300, 15)
	rep := withRepeats(33, base)
	merged := mergedCopy(rep)
	test := separable(rng, 100, 300, 15)
	for _, sc := range mergingSteps() {
		for _, l2 := range []float64{0, 1e-3} {
			cfg := sc.cfg
			cfg.Bits, cfg.L2 = 12, l2
			if cfg.Eta == 0 {
				cfg.Eta = 1
			}
			a, err := New(cfg, loss.Logistic{})
			if err != nil {
				t.Fatal(err)
			}
			b, _ := New(cfg, loss.Logistic{})
			for i := range rep[:600] {
				if pa, pb := a.Learn(&rep[i]), b.Learn(&merged[i]); math.Float64bits(pa) != math.Float64bits(pb) {
					t.Fatalf("%s l2=%g, example %d: learns with prediction %v, merged %v", sc.rule, l2, i, pa, pb)
				}
			}
			saved := savedBytes(t, a)
			if !bytes.Equal(saved, savedBytes(t, b)) {
				t.Fatalf("%s l2=%g: the saved model differs from the merged stream's", sc.rule, l2)
			}
			if sc.cfg.Step.tracksVariation() && !sc.cfg.Adaptive {
				if exact := a.exactSumSq(); math.Abs(a.ns.sumSq-exact) > 1e-9*exact {
					t.Errorf("%s l2=%g: ‖G‖² = %v, Σ G_j² = %v", sc.rule, l2, a.ns.sumSq, exact)
				}
			}
			_, r, err := model.Parse(saved)
			if err != nil {
				t.Fatal(err)
			}
			c, err := Load(r, cfg, loss.Logistic{})
			if err != nil {
				t.Fatalf("%s l2=%g: the model of a stream with repeated slots is refused: %v", sc.rule, l2, err)
			}
			for i := range rep[600:] {
				ex := &rep[600+i]
				pa, pc := a.Learn(ex), c.Learn(ex)
				if math.Float64bits(pa) != math.Float64bits(pc) {
					t.Fatalf("%s l2=%g, example %d: learns %v after loading, %v before", sc.rule, l2, 600+i, pc, pa)
				}
				if pb := b.Learn(&merged[600+i]); math.Float64bits(pa) != math.Float64bits(pb) {
					t.Fatalf("%s l2=%g, example %d: learns %v, merged %v", sc.rule, l2, 600+i, pa, pb)
				}
			}
			for i := range test {
				if pa, pb, pc := a.Predict(&test[i]), b.Predict(&test[i]), c.Predict(&test[i]); pa != pb || pa != pc {
					t.Fatalf("%s l2=%g: predicts %v, merged %v, loaded %v", sc.rule, l2, pa, pb, pc)
				}
			}
			end := savedBytes(t, a)
			if !bytes.Equal(end, savedBytes(t, b)) || !bytes.Equal(end, savedBytes(t, c)) {
				t.Errorf("%s l2=%g: after 1200 examples the models differ", sc.rule, l2)
			}
		}
	}
}

// TestRepeatStamps: the row number from an offset (linalg.RowOf with the
// row width's multiplier) is the exact quotient for every
// width a learner lays out, up to the largest table; and a stamp counter
// that wraps clears the stamps, so a row stamped 4·10⁹ examples ago is no
// repeat and a true repeat still is.
func TestRepeatStamps(t *testing.T) {
	for width := 1; width <= 8; width++ {
		st := newRepeatStamps(width)
		for _, r := range []uint64{0, 1, 2, 3, 1000, 1<<sparse.MaxBits - 1} {
			o := r * uint64(width)
			if got := uint64(linalg.RowOf(int(o), st.rowMul)); got != r {
				t.Errorf("width %d: offset %d gives row %d, want %d", width, o, got, r)
			}
		}
	}
	g, err := New(Config{Bits: 4, Step: StepNASAStrong, NasaH: 1, Eta: 1}, loss.Logistic{})
	if err != nil {
		t.Fatal(err)
	}
	distinct := sparse.Example{Label: 1, HasLabel: true, Weight: 1, Idx: []uint32{1, 2}, Val: []float64{1, 2}}
	repeat := sparse.Example{Label: 1, HasLabel: true, Weight: 1, Idx: []uint32{2, 1, 2}, Val: []float64{1, 1, 1}}
	g.Learn(&distinct)
	stamp, _, _ := g.stamps.next(g.tab.Len())
	for _, c := range []struct {
		name   string
		stamp  uint32 // on every row, before the example
		cur    uint32 // the stamp counter, before the example
		ex     sparse.Example
		merged bool
	}{
		{"before the wrap", math.MaxUint32 - 1, math.MaxUint32 - 1, distinct, false},
		{"at the wrap", 1, math.MaxUint32, distinct, false},
		{"at the wrap", 1, math.MaxUint32, repeat, true},
		{"after the wrap", 1, 1, repeat, true},
	} {
		for r := range stamp {
			stamp[r] = c.stamp
		}
		g.stamps.cur = c.cur
		ex := c.ex
		g.rows = g.tab.Offsets(g.rows[:0], ex.Idx)
		if got := g.mergeRepeats(&ex) != &ex; got != c.merged {
			t.Errorf("%s, %v: merged %v, want %v", c.name, ex.Idx, got, c.merged)
		}
	}
}

// BenchmarkNASARepeats is BenchmarkNASA's steady state for the steps that
// merge repeated slots, on examples that repeat about a third of their
// entries (withRepeats): the merge's cost beside the finding of none,
// which BenchmarkNASA's distinct examples pay.
func BenchmarkNASARepeats(b *testing.B) {
	for _, sc := range mergingSteps() {
		b.Run(sc.rule, func(b *testing.B) {
			cfg := sc.cfg
			cfg.Bits = 18
			if cfg.Eta == 0 {
				cfg.Eta = 0.5
			}
			rng := rand.New(rand.NewPCG(9, 10))
			data := withRepeats(11, separable(rng, 4096, 100000, 130))
			g, _ := New(cfg, loss.Logistic{})
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
