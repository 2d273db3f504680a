package son

import (
	"fmt"
	"runtime"

	"github.com/sparseson/sparseson/internal/linalg"
	"github.com/sparseson/sparseson/loss"
	"github.com/sparseson/sparseson/model"
	"github.com/sparseson/sparseson/sparse"
)

// Save implements sparse.Learner: the whole SON state (w̄, Z, D, b, counters) and
// the sketch's, so a loaded model predicts and trains on exactly as if it
// had never stopped.
func (s *Learner) Save(w *model.Writer) error {
	defer runtime.KeepAlive(s)
	w.Float64(s.t)
	w.Float64(s.sumG2)
	w.Float64(s.wsq)
	w.Float64(s.w0sq)
	w.Uint64(uint64(s.folds))
	w.Float64(s.w)
	w.Float64(s.alphaSk)
	w.Float64(s.alpha0)
	w.Float64(s.wOwn)
	w.Uint32(uint32(len(s.st.Z)))
	w.Float64s(s.b)
	w.Uint32s(s.tab.Keys)
	w.Float64s(s.savedRows())
	s.saveLazy(w)
	s.sk.Save(w)
	return nil
}

// Load restores a SON learner saved by Save. cfg and the (empty) sketch
// must be configured as the saved model was; the CLI takes both from the
// model header.
func Load(r *model.Reader, cfg Config, l loss.Loss, sk sparse.Sketch) (*Learner, error) {
	s, err := New(cfg, l, sk)
	if err != nil {
		return nil, err
	}
	s.t = r.Float64()
	s.sumG2 = r.Float64()
	s.wsq = r.Float64()
	s.w0sq = r.Float64()
	s.folds = int(r.Uint64())
	s.w = r.Float64()
	s.alphaSk = r.Float64()
	s.alpha0 = r.Float64()
	s.wOwn = r.Float64()
	p := int(r.Uint32())
	b := r.Float64s(nil)
	s.tab.Keys = r.Uint32s(nil)
	s.tab.Rows = r.Float64s(nil)
	if r.Err() != nil {
		return nil, r.Err()
	}
	if err := s.loadLazy(r, p); err != nil {
		return nil, err
	}
	if err := sk.Load(r); err != nil {
		return nil, err
	}
	if err := r.Done(); err != nil {
		return nil, err
	}
	if len(b) != s.pmax || p > s.pmax || p != sk.Rows() || !(s.t >= 0) || !(s.w >= 0) || !(s.alphaSk >= 0) || !(s.alpha0 >= 0) || !(s.wOwn >= 0 && s.wOwn <= s.w) {
		return nil, fmt.Errorf("%w: SON state does not fit the sketch (%d rows of %d)", model.ErrCorrupt, p, s.pmax)
	}
	s.widenRows()
	if err := s.tab.Rebuild(); err != nil {
		return nil, fmt.Errorf("%w: %v", model.ErrCorrupt, err)
	}
	copy(s.b, b)
	parts := [][]float64{b, s.tab.Rows, s.y, {s.t, s.sumG2, s.wsq, s.w0sq, s.w, s.alphaSk, s.alpha0, s.wOwn}}
	if l := &s.lz; len(l.ring) > 0 {
		parts = append(parts, l.blk)
	}
	for _, part := range parts {
		if !linalg.AllFinite(part) {
			return nil, fmt.Errorf("%w: non-finite value in the SON state", model.ErrCorrupt)
		}
	}
	s.st.Z = s.z[:p]
	if cfg.Total <= 1 {
		// Resumed as the whole stream: what it saw as a shard counts as
		// the stream's from now on (setAlpha).
		s.wOwn = 0
	}
	if _, saved := sk.(sparse.AlphaSaver); cfg.Scaled && s.alphaSk > 0 && !saved {
		sk.SetAlpha(s.alphaSk) // the α the projection of the next round uses
	}
	return s, nil
}

// saveLazy writes the deferred steps (lazy.go) as they are, so that a
// loaded model continues exactly as the saved learner would.
func (s *Learner) saveLazy(w *model.Writer) {
	l := &s.lz
	w.Uint32(l.gen)
	t := uint32(0)
	if l.touched {
		t = 1
	}
	w.Uint32(t)
	w.Uint32s(l.stamp)
	w.Float64s(s.y)
	w.Uint32(uint32(len(l.ring)))
	m, beta := make([]float64, s.pmax*s.pmax), make([]float64, s.pmax)
	for k := range l.ring {
		e := &l.ring[k]
		l.entryMaps(e, m, beta)
		w.Uint32(uint32(e.p))
		w.Uint32(uint32(e.rows))
		w.Float64s(m[:e.rows*e.p])
		w.Float64s(beta[:e.p])
	}
}

func (s *Learner) loadLazy(r *model.Reader, p int) error {
	l := &s.lz
	bad := func(what string) error {
		return fmt.Errorf("%w: deferred sketch steps: %s", model.ErrCorrupt, what)
	}
	l.gen = r.Uint32()
	t := r.Uint32()
	l.touched = t == 1
	l.stamp = r.Uint32s(nil)
	y := r.Float64s(nil)
	n := int(r.Uint32())
	if r.Err() != nil {
		return r.Err()
	}
	if !l.on {
		if l.gen != 0 || t != 0 || len(l.stamp) != 0 || len(y) != 0 || n != 0 {
			return bad("present for a sketch that has none")
		}
		return nil
	}
	if t > 1 || len(l.stamp) != len(s.tab.Keys) || len(y) != s.pmax || n > maxRing {
		return bad("wrong shape")
	}
	copy(s.y, y)
	for k := 0; k < n; k++ {
		ep, er := int(r.Uint32()), int(r.Uint32())
		M := r.Float64s(nil)
		beta := r.Float64s(nil)
		if r.Err() != nil {
			return r.Err()
		}
		if ep > s.pmax || er > p || len(M) != er*ep || len(beta) != ep {
			return bad("wrong shape")
		}
		l.add(ep, s.pmax)
		e := &l.ring[len(l.ring)-1]
		e.rows = er
		copy(l.blk[e.off:e.off+ep], beta)
		for i := 0; i < er; i++ {
			o := (1+i)*l.ld + e.off
			copy(l.blk[o:o+ep], M[i*ep:i*ep+ep])
		}
	}
	for _, st := range l.stamp {
		if st != l.gen && (l.gen-st > uint32(n) || st > l.gen) {
			return bad("a feature refers to a step that is not stored")
		}
	}
	return nil
}
