package ada

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/sparseson/sparseson/internal/dense"
	"github.com/sparseson/sparseson/model"
	"github.com/sparseson/sparseson/sparse"
)

// TestFullSlotCap: ADA-FULL keeping at most n slots learns exactly what
// the uncapped ADA-FULL learns on the stream without the slots met after
// the first n (dense.FirstSlots, the oracle), bare and under the
// pre-scaling wrapper (--ada_scale auto), predicts as it does where
// refused slots occur, counts and reports them, and resumes from a saved
// model with the same behaviour.
func TestFullSlotCap(t *testing.T) {
	const n = 12
	for _, c := range []struct {
		update    Update
		delta     float64
		lossName  string
		prescaled bool
	}{
		{Mirror, 1, "logistic", false},
		{Dual, 1, "logistic", false},
		{Mirror, 0, "squared", false},
		{Dual, 10, "squared", false},
		{Mirror, 1, "logistic", true},
		{Dual, 1, "logistic", true},
	} {
		t.Run(fmt.Sprintf("update%d_delta%g_%s_prescaled%v", c.update, c.delta, c.lossName, c.prescaled), func(t *testing.T) {
			cfg := Config{Bits: 18, Precond: Delta, Update: c.update, Eta: 0.5, Delta: c.delta}
			l := dense.Loss(c.lossName)
			mk := func(limit int) (sparse.Learner, *Full) {
				f, err := NewFull(cfg, l)
				if err != nil {
					t.Fatal(err)
				}
				if limit > 0 {
					f.limit.Max = limit
				}
				if c.prescaled {
					return NewPrescaled(f, cfg.Bits), f
				}
				return f, f
			}
			load := func(r *model.Reader) (sparse.Learner, *Full) {
				var f *Full
				in := func(r *model.Reader) (sparse.Learner, error) {
					g, err := LoadFull(r, cfg, l)
					f = g
					return g, err
				}
				var lr sparse.Learner
				var err error
				if c.prescaled {
					lr, err = LoadPrescaled(r, cfg.Bits, in)
				} else {
					lr, err = in(r)
				}
				if err != nil {
					t.Fatal(err)
				}
				f.limit.Max = n
				return lr, f
			}
			data := dense.Problem{D: 40, S: 5, T: 300, Loss: c.lossName, Spread: 1, Seed: 6}.Examples()
			kept, occ, slots := dense.FirstSlots(data, n)
			if occ == 0 || slots != 40-n {
				t.Fatalf("the stream does not pass the cap: %d occurrences of %d slots refused", occ, slots)
			}
			capped, inner := mk(n)
			oracle, _ := mk(0)
			half := len(data) / 2
			var saved bytes.Buffer
			for i := range data {
				if i == half {
					if err := model.Encode(&saved, model.Options{}, capped.Save); err != nil {
						t.Fatal(err)
					}
				}
				a, b := capped.Learn(&data[i]), oracle.Learn(&kept[i])
				if !(math.Abs(a-b) <= 1e-12*(1+math.Abs(b))) {
					t.Fatalf("example %d: capped %v, oracle %v", i, a, b)
				}
			}
			if inner.tab.Len() != n {
				t.Errorf("keeps %d slots, want %d", inner.tab.Len(), n)
			}
			ig := capped.(sparse.Capped).Ignored()
			if ig.Occurrences != occ || ig.Slots != slots || ig.Cap != n || ig.Learner != "ADA-FULL" {
				t.Errorf("Ignored() = %+v, want ADA-FULL, %d occurrences of %d slots, cap %d", ig, occ, slots, n)
			}
			test := dense.Problem{D: 40, S: 5, T: 50, Loss: c.lossName, Spread: 1, Seed: 7}.Examples()
			for i := range test {
				a, b := capped.Predict(&test[i]), oracle.Predict(&test[i])
				if !(math.Abs(a-b) <= 1e-12*(1+math.Abs(b))) {
					t.Fatalf("held-out example %d: capped %v, oracle %v", i, a, b)
				}
			}
			var rep, none bytes.Buffer
			capped.(sparse.Reporter).Report(&rep)
			oracle.(sparse.Reporter).Report(&none)
			want := fmt.Sprintf("ADA-FULL keeps the first %d features seen: %d occurrences of %d later features were ignored", n, occ, slots)
			if !strings.Contains(rep.String(), want) {
				t.Errorf("report %q lacks %q", rep.String(), want)
			}
			if strings.Contains(none.String(), "ignored") {
				t.Errorf("a learner under its cap reports %q", none.String())
			}
			_, r, err := model.Parse(saved.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			resumed, rf := load(r)
			again, af := mk(n)
			for i := range data[:half] {
				again.Learn(&data[i])
			}
			before := af.limit.Ignored("").Occurrences
			for i := range data[half:] {
				ex := &data[half+i]
				if a, b := resumed.Learn(ex), again.Learn(ex); a != b {
					t.Fatalf("resumed, example %d: %v vs %v", half+i, a, b)
				}
			}
			if got, want := rf.Ignored().Occurrences, af.Ignored().Occurrences-before; got != want || got == 0 {
				t.Errorf("resumed learner ignored %d occurrences, want %d (> 0)", got, want)
			}
		})
	}
}
