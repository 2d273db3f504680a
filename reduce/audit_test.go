package reduce

import (
	"math"
	"testing"

	"github.com/sparseson/sparseson/gd"
	"github.com/sparseson/sparseson/internal/dense"
	"github.com/sparseson/sparseson/loss"
	"github.com/sparseson/sparseson/oja"
	"github.com/sparseson/sparseson/son"
	"github.com/sparseson/sparseson/sparse"
)

// hidesWeigher hides a learner's SlotWeight so that the probe is tested.
type hidesWeigher struct{ sparse.Learner }

// SlotWeight agrees with Weights for every slot a learner has seen: gd's
// direct lookup, and the unit-example probe on SON — the effective weight
// (w̄_j + Z_jᵀb)/√D_j — with and without a projection bound C that clips
// the probe's score (C = 0.05 is far below the weights here).
func TestSlotWeight(t *testing.T) {
	data := dense.Problem{D: 60, S: 6, T: 400, Loss: "logistic", Seed: 9}.Examples()
	g, _ := gd.New(adagrad, loss.Logistic{})
	var learners = []sparse.Learner{g, hidesWeigher{g}}
	for _, C := range []float64{math.Inf(1), 0.05} {
		sk, err := oja.New(oja.Config{M: 4, Alpha: 1, Rate: 1})
		if err != nil {
			t.Fatal(err)
		}
		s, err := son.New(son.Config{Bits: 12, C: C, Eta0: 1, Diag: true}, loss.Logistic{}, sk)
		if err != nil {
			t.Fatal(err)
		}
		learners = append(learners, s)
	}
	for i := range data {
		for li, l := range learners {
			if li != 1 { // learners[1] is learners[0]
				l.Learn(&data[i])
			}
		}
	}
	for li, l := range learners {
		n, big := 0, 0.0
		l.Weights(func(slot uint32, w float64) {
			n++
			big = math.Max(big, math.Abs(w))
			if got := SlotWeight(l, slot); math.Abs(got-w) > 1e-12*math.Max(1, math.Abs(w)) {
				t.Errorf("learner %d, slot %d: SlotWeight %v, Weights %v", li, slot, got, w)
			}
		})
		if n < 30 || big == 0 {
			t.Fatalf("learner %d: %d weights, largest %v: nothing tested", li, n, big)
		}
		if li == 3 && big < 0.1 {
			t.Fatalf("the clipped SON's weights (largest %v) never exceed C", big)
		}
		if got := SlotWeight(l, 4095); got != 0 {
			t.Errorf("learner %d: unseen slot weighs %v", li, got)
		}
	}
}

func TestOAAClassSlotWeight(t *testing.T) {
	data := classStream(300, 3, 5)
	o, err := NewOAA(3, 12, gdFactory(t))
	if err != nil {
		t.Fatal(err)
	}
	for i := range data {
		o.Learn(&data[i])
	}
	for k := 1; k <= 3; k++ {
		n := 0
		o.ClassWeights(k, func(slot uint32, w float64) {
			n++
			if got := o.ClassSlotWeight(k, slot); got != w {
				t.Errorf("class %d slot %d: %v, want %v", k, slot, got, w)
			}
		})
		if n == 0 {
			t.Fatal("no weights")
		}
	}
}

func TestLinkNamed(t *testing.T) {
	for _, c := range []struct {
		name string
		p, v float64
	}{{"identity", 0.7, 0.7}, {"logistic", 0, 0.5}, {"glf1", 0, 0}, {"glf1", math.Log(3), 0.5}, {"poisson", math.Log(4), 4}} {
		o, err := LinkNamed(Scalar(constLearner(c.p), &loss.Squared{Range: loss.LabelRange{Min: -9, Max: 9}}), c.name)
		if err != nil {
			t.Fatal(err)
		}
		if got := o.Predict(&sparse.Example{}); math.Abs(got-c.v) > 1e-15 {
			t.Errorf("%s(%v) = %v, want %v", c.name, c.p, got, c.v)
		}
		if o.Raw() != c.p {
			t.Errorf("%s: raw %v, want %v", c.name, o.Raw(), c.p)
		}
	}
	if _, err := LinkNamed(nil, "probit"); err == nil {
		t.Error("unknown link accepted")
	}
}
