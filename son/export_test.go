package son

import (
	"math"

	"github.com/sparseson/sparseson/internal/linalg"
)

// Test hooks for the deferred-step bookkeeping (lazy.go).

// PoisonLazyY makes the incremental y = Z·w̄ non-finite.
func PoisonLazyY(s *Learner) { s.y[0] = math.Inf(1) }

// LazyNorms returns the tracked ‖w̄‖² and y, and both recomputed from the
// rows' current values.
func LazyNorms(s *Learner) (wsq, exactSq float64, y, exact []float64) {
	p := len(s.st.Z)
	exact = make([]float64, p)
	wz := make([]float64, 1+s.pmax)
	for r := range s.tab.Keys {
		s.refreshed(r, wz)
		exactSq += wz[0] * wz[0]
		linalg.AxpyVec(wz[0], wz[1:1+p], exact)
	}
	return s.wsq, exactSq, append([]float64(nil), s.y[:p]...), exact
}

// MergeState returns a SON learner's counters and, with pre-scaling, each
// seen slot's Σg² (D − 0.1), for the merge tests: in the raw units of
// x with Config.Unit (Σg'²·u_j²; units.go).
func MergeState(s *Learner) (t, w float64, dd map[uint32]float64) {
	dd = map[uint32]float64{}
	if s.cfg.Diag {
		for r, k := range s.tab.Keys {
			dd[k] = s.tab.Rows[s.wOff(r)+s.dOff]
			if iu := s.unitCol(r); iu != 0 {
				dd[k] /= iu * iu
			}
		}
	}
	return s.t, s.w, dd
}

// SumG2 returns Σ‖ĝ‖² (the scaled-space form's energy, scaled.go).
func SumG2(s *Learner) float64 { return s.sumG2 }

// unitCol is row r's 1/u_j (Config.Unit), 0 without it or before the
// feature's first nonzero value.
func (s *Learner) unitCol(r int) float64 {
	if s.uOff == 0 {
		return 0
	}
	return s.tab.Rows[s.wOff(r)+s.uOff]
}

// UnitSums returns each seen slot's [1/u_j, Σx_j², n_j] under
// Config.UnitRMS, nil without it.
func UnitSums(s *Learner) map[uint32][3]float64 {
	if !s.cfg.UnitRMS {
		return nil
	}
	out := map[uint32][3]float64{}
	for r, k := range s.tab.Keys {
		o := s.wOff(r) + s.uOff
		out[k] = [3]float64{s.tab.Rows[o], s.tab.Rows[o+1], s.tab.Rows[o+2]}
	}
	return out
}

// SetFullSlots lowers the most slots a full ONS learner keeps (the cap's
// tests: a small stream can then pass it).
func SetFullSlots(f *Full, n int) { f.limit.Max = n }
