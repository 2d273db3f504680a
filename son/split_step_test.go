package son

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sparseson/sparseson/fd"
	"github.com/sparseson/sparseson/sparse"
)

// TestSplitStepRange: Split.Step's range check, which skips the rows
// while Σ_I β̄_j² bounds the step (trialBound), accepts and refuses
// exactly the steps trial does — well inside the range, near its edge
// (where the bound fails and the rows are read), beyond it through a
// weight or through b, and NaN — and an accepted step leaves the fold
// guard the sum wbarSq would form, bit for bit. The split has RMS and
// auxiliary columns, so that the offsets point past the row's start.
func TestSplitStepRange(t *testing.T) {
	for _, c := range []struct {
		name   string
		f, fb  float64
		wantOK bool
	}{
		{"small", 0.1, -0.05, true},
		{"near the edge", 4e139, 0, true},
		{"a weight beyond", 2e140, 0, false},
		{"b beyond", 0.1, 1e141, false},
		{"NaN", math.NaN(), 0, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			sk, err := fd.New(fd.Config{M: 4, Alpha: 1})
			if err != nil {
				t.Fatal(err)
			}
			sp, err := NewSplitWith(12, sk, SplitOptions{RMS: true, Aux: 2})
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(3, 7))
			ex := func() *sparse.Example {
				e := &sparse.Example{Weight: 1}
				for _, j := range rng.Perm(40)[:2+rng.IntN(6)] {
					e.Idx = append(e.Idx, uint32(j))
					e.Val = append(e.Val, float64(2*rng.IntN(2)-1))
				}
				return e
			}
			for range 60 {
				bx, _, _ := sp.Begin(ex(), true)
				zt := sp.Sketch(0.3 * math.Tanh(bx+1))
				sp.Step(0.1*math.Tanh(bx), -0.05, zt)
				sp.Finish()
			}
			s := sp.s
			sp.Begin(ex(), true)
			v := sp.Sketch(0.2)
			want := s.trial(c.f, c.fb, v)
			refused := s.rejected
			if got := sp.Step(c.f, c.fb, v); got != want || got != c.wantOK {
				t.Fatalf("Step = %v, trial %v, want %v", got, want, c.wantOK)
			}
			if !c.wantOK {
				if s.rejected != refused+1 {
					t.Fatalf("refusals %d → %d", refused, s.rejected)
				}
				return
			}
			if !s.sqOK || math.Float64bits(s.sqI) != math.Float64bits(s.wbarSq()) {
				t.Fatalf("the guard's Σ_I β̄_j² %v (kept %v), the rows' %v", s.sqI, s.sqOK, s.wbarSq())
			}
		})
	}
}
