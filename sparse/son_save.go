package sparse

import (
	"fmt"
	"math"

	"github.com/sparseson/sparseson/loss"
	"github.com/sparseson/sparseson/model"
)

// Save implements Learner: the whole SON state (w̄, Z, D, b, counters) and
// the sketch's, so a loaded model predicts and trains on exactly as if it
// had never stopped.
func (s *SON) Save(w *model.Writer) error {
	w.Float64(s.t)
	w.Float64(s.sumG2)
	w.Float64(s.wsq)
	w.Float64(s.w0sq)
	w.Uint64(uint64(s.folds))
	w.Uint32(uint32(len(s.st.Z)))
	w.Float64s(s.b)
	w.Uint32s(s.tab.Keys)
	w.Float64s(s.tab.Rows)
	s.sk.Save(w)
	return nil
}

// LoadSON restores a SON learner saved by Save. cfg and the (empty) sketch
// must be configured as the saved model was; the CLI takes both from the
// model header.
func LoadSON(r *model.Reader, cfg SONConfig, l loss.Loss, sk Sketch) (*SON, error) {
	s, err := NewSON(cfg, l, sk)
	if err != nil {
		return nil, err
	}
	s.t = r.Float64()
	s.sumG2 = r.Float64()
	s.wsq = r.Float64()
	s.w0sq = r.Float64()
	s.folds = int(r.Uint64())
	p := int(r.Uint32())
	b := r.Float64s(nil)
	s.tab.Keys = r.Uint32s(nil)
	s.tab.Rows = r.Float64s(nil)
	if r.Err() != nil {
		return nil, r.Err()
	}
	if err := sk.Load(r); err != nil {
		return nil, err
	}
	if err := r.Done(); err != nil {
		return nil, err
	}
	if len(b) != s.pmax || p > s.pmax || p != sk.Rows() || !(s.t >= 0) {
		return nil, fmt.Errorf("%w: SON state does not fit the sketch (%d rows of %d)", model.ErrCorrupt, p, s.pmax)
	}
	if err := s.tab.Rebuild(); err != nil {
		return nil, fmt.Errorf("%w: %v", model.ErrCorrupt, err)
	}
	copy(s.b, b)
	for _, part := range [][]float64{b, s.tab.Rows, {s.t, s.sumG2, s.wsq, s.w0sq}} {
		for _, v := range part {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("%w: non-finite value in the SON state", model.ErrCorrupt)
			}
		}
	}
	s.st.Z = s.z[:p]
	return s, nil
}
