package loss

import (
	"math"
	"testing"
)

func TestDerivMatchesValue(t *testing.T) {
	wide := LabelRange{Min: -100, Max: 100}
	losses := []Loss{&Squared{Range: wide}, Logistic{}, &Hinge{Range: wide}, &Quantile{Tau: 0.3, Range: wide}}
	for _, l := range losses {
		for _, y := range []float64{-1, 1, 0.5, 3} {
			if l.Name() == "logistic" && math.Abs(y) != 1 {
				continue
			}
			for _, p := range []float64{-2.3, -0.7, 0.1, 0.45, 1.9} {
				const h = 1e-6
				num := (l.Value(p+h, y) - l.Value(p-h, y)) / (2 * h)
				if got := l.Deriv(p, y); math.Abs(got-num) > 1e-5 {
					t.Errorf("%s: ℓ'(%v, %v) = %v, numeric %v", l.Name(), p, y, got, num)
				}
			}
		}
	}
}

func TestLogisticExtremes(t *testing.T) {
	var l Logistic
	for _, p := range []float64{-1e4, -800, 800, 1e4} {
		v, d := l.Value(p, 1), l.Deriv(p, 1)
		if math.IsNaN(v) || math.IsInf(v, 0) || math.IsNaN(d) {
			t.Errorf("p=%v: value %v deriv %v", p, v, d)
		}
	}
}

func TestSquaredClampsToLabelRange(t *testing.T) {
	s := &Squared{}
	s.Observe(1)
	s.Observe(29)
	if s.Clamp(40) != 29 || s.Clamp(-3) != 0 || s.Clamp(7) != 7 {
		t.Fatal("clamp to [0, 29] failed")
	}
	// Derivative at the clipped prediction, as VW.
	if d := s.Deriv(40, 10); d != 2*(29-10) {
		t.Fatalf("deriv %v", d)
	}
}

func TestBestConstant(t *testing.T) {
	cases := []struct {
		loss   Loss
		labels []float64
		c, cl  float64
	}{
		{&Squared{}, []float64{1, 2, 3, 6}, 3, math.NaN()},
		{&Squared{Range: LabelRange{Min: -1, Max: 1}}, []float64{1, 1, 1, -1}, 0.5, 0.75},
		{Logistic{}, []float64{1, 1, 1, -1}, math.Log(3), 0.75*math.Log1p(1.0/3) + 0.25*math.Log1p(3)},
		{&Hinge{}, []float64{1, -1, -1}, -1, 2.0 / 3},
		{&Quantile{Tau: 0.5}, []float64{0, 1, 1}, 1, 1.0 / 6},
	}
	for _, c := range cases {
		var s LabelStats
		for _, y := range c.labels {
			s.Add(y, 1)
		}
		got, gl, ok := BestConstant(c.loss, &s)
		if !ok || math.Abs(got-c.c) > 1e-12 {
			t.Errorf("%s %v: best constant %v (ok=%v), want %v", c.loss.Name(), c.labels, got, ok, c.c)
		}
		if math.IsNaN(c.cl) != math.IsNaN(gl) || (!math.IsNaN(c.cl) && math.Abs(gl-c.cl) > 1e-12) {
			t.Errorf("%s %v: best constant's loss %v, want %v", c.loss.Name(), c.labels, gl, c.cl)
		}
	}
}
