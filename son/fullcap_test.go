package son_test

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/sparseson/sparseson/internal/dense"
	"github.com/sparseson/sparseson/model"
	"github.com/sparseson/sparseson/son"
)

// TestFullSlotCap: a full ONS learner that keeps at most n slots learns
// exactly what the uncapped learner learns on the stream without the
// slots met after the first n (dense.FirstSlots, the oracle), predicts
// as it does where refused slots occur, counts the refused occurrences
// and slots, reports them, and resumes from a saved model with the same
// behaviour.
func TestFullSlotCap(t *testing.T) {
	const n = 16
	for _, c := range []struct {
		diag, unit bool
		lossName   string
		spread     float64
	}{
		{false, false, "logistic", 0},
		{true, false, "logistic", 0},
		{true, true, "logistic", 3},
		{true, true, "squared", 1},
		{false, false, "squared", 0},
	} {
		t.Run(fmt.Sprintf("diag%v_unit%v_%s_spread%g", c.diag, c.unit, c.lossName, c.spread), func(t *testing.T) {
			sigma := 0.0
			if c.lossName == "squared" {
				sigma = 1.0 / 8
			}
			cfg := son.Config{Bits: 18, C: 2, Sigma: sigma, Eta0: 1, Diag: c.diag, Unit: c.unit}
			l := dense.Loss(c.lossName)
			mk := func() *son.Full {
				f, err := son.NewFull(cfg, 0.5, l)
				if err != nil {
					t.Fatal(err)
				}
				return f
			}
			data := dense.Problem{D: 64, S: 6, T: 400, Loss: c.lossName, Spread: c.spread, Seed: 3}.Examples()
			kept, occ, slots := dense.FirstSlots(data, n)
			if occ == 0 || slots != 64-n {
				t.Fatalf("the stream does not pass the cap: %d occurrences of %d slots refused", occ, slots)
			}
			capped, oracle := mk(), mk()
			son.SetFullSlots(capped, n)
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
			if capped.Seen() != n {
				t.Errorf("keeps %d slots, want %d", capped.Seen(), n)
			}
			if ig := capped.Ignored(); ig.Occurrences != occ || ig.Slots != slots || ig.Cap != n {
				t.Errorf("Ignored() = %+v, want %d occurrences of %d slots, cap %d", ig, occ, slots, n)
			}
			// Unseen and refused slots alike contribute nothing.
			test := dense.Problem{D: 64, S: 6, T: 50, Loss: c.lossName, Spread: c.spread, Seed: 4}.Examples()
			for i := range test {
				a, b := capped.Predict(&test[i]), oracle.Predict(&test[i])
				if !(math.Abs(a-b) <= 1e-12*(1+math.Abs(b))) {
					t.Fatalf("held-out example %d: capped %v, oracle %v", i, a, b)
				}
			}
			ws := map[uint32]float64{}
			oracle.Weights(func(s uint32, w float64) { ws[s] = w })
			capped.Weights(func(s uint32, w float64) {
				if v, ok := ws[s]; !ok || math.Abs(v-w) > 1e-12*(1+math.Abs(v)) {
					t.Errorf("w[%d]: capped %v, oracle %v (%v)", s, w, v, ok)
				}
			})
			var rep, none bytes.Buffer
			capped.Report(&rep)
			oracle.Report(&none)
			if want := fmt.Sprintf("keeps the first %d features seen: %d occurrences of %d later features were ignored", n, occ, slots); !strings.Contains(rep.String(), want) {
				t.Errorf("report %q lacks %q", rep.String(), want)
			}
			if none.Len() != 0 {
				t.Errorf("a learner under its cap reports %q", none.String())
			}
			// The saved model keeps the slots kept: resumed, it refuses the
			// same slots and learns the same.
			_, r, err := model.Parse(saved.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			resumed, err := son.LoadFull(r, cfg, 0.5, l)
			if err != nil {
				t.Fatal(err)
			}
			son.SetFullSlots(resumed, n)
			again := mk()
			son.SetFullSlots(again, n)
			for i := range data[:half] {
				again.Learn(&data[i])
			}
			before := again.Ignored().Occurrences
			for i := range data[half:] {
				ex := &data[half+i]
				if a, b := resumed.Learn(ex), again.Learn(ex); a != b {
					t.Fatalf("resumed, example %d: %v vs %v", half+i, a, b)
				}
			}
			if got, want := resumed.Ignored().Occurrences, again.Ignored().Occurrences-before; got != want || got == 0 {
				t.Errorf("resumed learner ignored %d occurrences, want %d (> 0)", got, want)
			}
		})
	}
}
