package ada

import (
	"bytes"
	"fmt"
	"math"
	"testing"

	"github.com/sparseson/sparseson/internal/dense"
	"github.com/sparseson/sparseson/model"
)

// TestShampooDiagOracle compares FTSL-Shampoo with the per-coordinate
// completion and the per-example left factor (ShampooConfig.Diag) with
// dense.Shampoo's Diag, written from the definition with full
// eigendecompositions and R_jj kept as a d-vector: every class score of
// the progressive predictions and every final weight at 1e-9 relative,
// sketched and exact left factors, unit and spread feature scales,
// importance weights. Each case must reach the completion: features
// below r_R at the end (else it would test the paper's form only), and a
// sketch that shrank; and the last two cases keep features above r_R as
// well (e_j = 0 there).
func TestShampooDiagOracle(t *testing.T) {
	cases := []shampooCase{
		{k: 4, d: 40, s: 6, t: 600, tauL: 3, tauR: 5, eta: 0.5, eps: 1, seed: 1, diag: true},
		{k: 4, d: 40, s: 6, t: 600, tauL: 0, tauR: 5, eta: 0.5, eps: 1, seed: 2, diag: true},
		{k: 5, d: 40, s: 8, t: 600, tauL: 2, tauR: 3, eta: 1, eps: 0.1, spread: 1, seed: 3, diag: true},
		{k: 3, d: 16, s: 5, t: 600, tauL: 0, tauR: 8, eta: 0.3, eps: 0.01, spread: 0.5, seed: 4, diag: true},
		{k: 3, d: 24, s: 5, t: 600, tauL: 0, tauR: 12, eta: 0.3, eps: 1, spread: 2, seed: 5, diag: true},
	}
	if testing.Short() {
		cases = cases[:2]
	}
	mixed := false
	for _, c := range cases {
		t.Run(c.String(), func(t *testing.T) {
			sp, dn, sens, worst, wworst := c.oracle(t)
			below := sp.diagBelow()
			t.Logf("sensitivity %.3g; scores %.3g, weights %.3g; %d of %d features below r_R = %.4g, factor %.4g",
				sens, worst, wworst, below, len(sp.rjj), sp.sk.SumRho()+c.eps, sp.eta()/c.eta)
			if worst > 1e-9 || wworst > 1e-9 {
				t.Errorf("sparse FTSL-Shampoo with the completion differs from the dense reference: scores %.3g, weights %.3g", worst, wworst)
			}
			if below == 0 || !(sp.sk.SumRho() > 0) {
				t.Errorf("the completion never acted (%d features below r_R, ρR = %v)", below, sp.sk.SumRho())
			}
			mixed = mixed || below < len(sp.rjj)
			z := make([]float64, sp.sk.MaxRows())
			for j, g := range dn.Rjj {
				if r := sp.sp.Column(uint32(j), z); r >= 0 && math.Abs(sp.rjj[r]-g) > 1e-12*g {
					t.Fatalf("R_jj of feature %d: %v, dense %v", j, sp.rjj[r], g)
				}
			}
		})
	}
	if !mixed && !testing.Short() {
		t.Errorf("no case has a feature above r_R: the cut of the completion is not tested")
	}
}

// TestShampooDiagSaveLoad: a model with the completion saved, loaded and
// trained on goes on bit for bit (scores, probabilities, every weight);
// the same bytes under the paper's configuration, a paper-form model
// under Diag, and states out of range are refused.
func TestShampooDiagSaveLoad(t *testing.T) {
	const k, d = 4, 60
	data := dense.ClassStream(800, d, 8, k, 1, 31)
	cfg := ShampooConfig{Bits: 9, Classes: k, Tau: 5, LeftTau: 3, Eta: 0.5, Epsilon: 0.3, Diag: true}
	paper := cfg
	paper.Diag = false
	encode := func(m *Shampoo) []byte {
		var buf bytes.Buffer
		if err := model.Encode(&buf, model.Options{"x": "y"}, m.Save); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	load := func(b []byte, cfg ShampooConfig) (*Shampoo, error) {
		_, r, err := model.Parse(b)
		if err != nil {
			t.Fatal(err)
		}
		return LoadShampoo(r, cfg)
	}
	a := newShampooT(t, cfg)
	for i := range data[:400] {
		a.Learn(&data[i])
	}
	if a.diagBelow() == 0 {
		t.Fatal("no feature below r_R: the case does not test the completion's state")
	}
	saved := encode(a)
	b, err := load(saved, cfg)
	if err != nil {
		t.Fatal(err)
	}
	learnAlike(t, a, b, data, 400, "")
	if wa, wb := weightList(a), weightList(b); wa != wb || len(wa) < 10 {
		t.Errorf("weights differ after save → load → continue")
	}
	if !bytes.Equal(encode(a), encode(b)) {
		t.Errorf("the continued models are not the same bytes")
	}
	if _, err := load(saved, paper); err == nil {
		t.Errorf("a model with the completion loaded as the paper's form")
	}
	p := newShampooT(t, paper)
	for i := range data[:400] {
		p.Learn(&data[i])
	}
	if _, err := load(encode(p), cfg); err == nil {
		t.Errorf("a paper-form model loaded with the completion")
	}
	for _, bad := range []struct {
		name string
		set  func(m *Shampoo)
	}{
		{"R_jj NaN", func(m *Shampoo) { m.rjj[3] = math.NaN() }},
		{"R_jj negative", func(m *Shampoo) { m.rjj[0] = -1 }},
		{"R_jj infinite", func(m *Shampoo) { m.rjj[len(m.rjj)-1] = math.Inf(1) }},
		{"Σh‖x‖² negative", func(m *Shampoo) { m.nsum = -1 }},
		{"Σh‖x‖² NaN", func(m *Shampoo) { m.nsum = math.NaN() }},
		{"R_jj short", func(m *Shampoo) { m.rjj = m.rjj[:len(m.rjj)-1] }},
	} {
		m, err := load(saved, cfg)
		if err != nil {
			t.Fatal(err)
		}
		bad.set(m)
		var buf bytes.Buffer
		// Save writes R_jj up to the features seen: a short slice is
		// written short by hand.
		if err := model.Encode(&buf, model.Options{"x": "y"}, func(w *model.Writer) error { return saveRaw(m, w) }); err != nil {
			t.Fatal(err)
		}
		if _, err := load(buf.Bytes(), cfg); err == nil {
			t.Errorf("%s: loaded", bad.name)
		}
	}
}

// saveRaw is Save with R_jj written as it is (a corrupt length included).
func saveRaw(m *Shampoo, w *model.Writer) error {
	m.saveHead(w)
	w.Float64(m.nsum)
	w.Float64s(m.rjj)
	return m.sp.Save(w)
}

func weightList(m *Shampoo) string {
	var b bytes.Buffer
	m.Weights(func(s uint32, w float64) { fmt.Fprintf(&b, "%d:%v ", s, w) })
	return b.String()
}
