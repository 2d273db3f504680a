package loss

import (
	"math"
	"testing"
)

// The gradients of VW's classic, expectile and poisson losses at hand-picked
// points (VW's loss_functions.cc: classic 2(p − y) unclipped; expectile the
// clipped squared derivative times q above the label and 1 − q below;
// poisson e^p − y with p clipped to ±44), and their prediction clamps.
func TestVWLossGradients(t *testing.T) {
	r02 := LabelRange{Min: 0, Max: 2}
	cases := []struct {
		l       Loss
		p, y, d float64
	}{
		{&Classic{Range: r02}, 5, 1, 8}, // not clipped to [0, 2]
		{&Squared{Range: r02}, 5, 1, 2}, // squared is
		{&Expectile{Q: 0.25, Range: r02}, 1.5, 1, 2 * 0.5 * 0.25},
		{&Expectile{Q: 0.25, Range: r02}, 0.5, 1, 2 * -0.5 * 0.75},
		{&Expectile{Q: 0.25, Range: r02}, 5, 1, 2 * 1 * 0.25}, // clipped to 2
		{&Expectile{Q: 0.25, Range: r02}, 1, 1, 0},
		{&Poisson{}, math.Log(3), 2, 1},
		{&Poisson{}, 0, 0, 1},
		{&Poisson{}, 1000, 1, math.Exp(44) - 1},
		{&Poisson{}, -1000, 1, math.Exp(-44) - 1},
	}
	for _, c := range cases {
		if got := c.l.Deriv(c.p, c.y); math.Abs(got-c.d) > 1e-12*math.Max(1, math.Abs(c.d)) {
			t.Errorf("%s: ℓ'(%v, %v) = %v, want %v", c.l.Name(), c.p, c.y, got, c.d)
		}
	}
}

func TestVWLossDerivMatchesValue(t *testing.T) {
	wide := LabelRange{Min: -100, Max: 100}
	for _, l := range []Loss{&Classic{Range: wide}, &Expectile{Q: 0.3, Range: wide}, &Expectile{Q: 0.5, Range: wide}, &Poisson{Range: wide}} {
		for _, y := range []float64{0, 1, 3} {
			for _, p := range []float64{-2.3, -0.7, 0.1, 0.45, 1.9} {
				const h = 1e-6
				num := (l.Value(p+h, y) - l.Value(p-h, y)) / (2 * h)
				if l.Name() == "poisson" {
					// VW reports the deviance, twice the negative
					// log-likelihood whose derivative it steps on.
					num /= 2
				}
				if got := l.Deriv(p, y); math.Abs(got-num) > 1e-5*math.Max(1, math.Abs(num)) {
					t.Errorf("%s: ℓ'(%v, %v) = %v, numeric %v", l.Name(), p, y, got, num)
				}
			}
		}
	}
}

func TestVWLossClamps(t *testing.T) {
	for _, name := range []string{"classic", "expectile", "poisson"} {
		l, err := New(name, 0.5)
		if err != nil {
			t.Fatal(err)
		}
		l.Observe(3)
		lo, hi := 0.0, 3.0
		if name == "poisson" {
			// VW starts poisson's (and logistic's) range at [−50, 50].
			lo, hi = -50, 50
			l.Observe(60)
			hi = 60
		}
		if l.Clamp(1e9) != hi || l.Clamp(-1e9) != lo || l.Clamp(0.5) != 0.5 {
			t.Errorf("%s: clamp to [%v, %v]: %v %v", name, lo, hi, l.Clamp(1e9), l.Clamp(-1e9))
		}
		v := l.Value(1e9, 1)
		if math.IsNaN(v) {
			t.Errorf("%s: value NaN at an extreme score", name)
		}
	}
	if _, err := New("expectile", 0.7); err == nil {
		t.Error("expectile q 0.7 accepted; VW wants (0, 0.5]")
	}
}

func TestFixRange(t *testing.T) {
	l, _ := New("squared", 0)
	if err := Fix(l, math.NaN(), 2); err != nil {
		t.Fatal(err)
	}
	l.Observe(5)
	l.Observe(-3)
	if l.Clamp(9) != 2 || l.Clamp(-9) != -3 {
		t.Errorf("max fixed at 2, min free: got clamp %v %v", l.Clamp(9), l.Clamp(-9))
	}
	if d := l.Deriv(9, 0); d != 4 {
		t.Errorf("squared derivative at the fixed bound: %v, want 4", d)
	}
	if err := Fix(Logistic{}, -1, 1); err != ErrNoRange {
		t.Errorf("logistic: %v, want ErrNoRange", err)
	}
}
