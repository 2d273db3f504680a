package son

import (
	"fmt"
	"runtime"

	"github.com/sparseson/sparseson/internal/linalg"
	"github.com/sparseson/sparseson/loss"
	"github.com/sparseson/sparseson/model"
	"github.com/sparseson/sparseson/sparse"
)

// Pre-scaling by the root mean square (Config.RMS), for package ada's
// FD-adaptive learners under --ada_scale auto: the learner runs on
// x̃_j = x_j/s_j, s_j = √(Σx_j²/n_j) over feature j's training values so
// far, the example being learned included (why: package ada's Prescaled,
// docs/algorithms.md §19). The sums Σx_j² and n_j are two columns of the
// feature's row, before w̄_j (Learner.setLayout), so x̃ comes from the
// row the core fetches for the example anyway: as a wrapper with a table of its own the
// pre-scaling cost a second slot lookup and a second row per feature and
// a copy of the example, 0.17 of ADA-FD's 0.75 CPU-s on news20 ×10.
//
// The rules are the wrapper's, bit for bit: a learned example with a
// positive importance weight adds every value whose square is in
// (0, MaxFloat64] to its feature's sums (none whose sum would overflow),
// all of them before any x̃ is computed, so that a slot repeated in the
// example is scaled as its other occurrences; a feature without a value
// in its sums counts as 0, as does a feature never seen in training at
// prediction.
//
// The saved model is the wrapper's too: Scales gives its table of
// scales (the features with a value, in the order they got their first,
// with their sums), and Save writes the rows without the two columns, so
// that models written before and after the fold are the same bytes.

// rmsLearn adds the example's values to their features' sums (add) and
// then sets xt to x̃ (linalg.RMSScale); the rows are the example's offsets
// s.offs.
//
// The sums' pass waits on the rows' lines, x̃'s on two divisions and a
// square root per feature, which linalg.RMSScale takes two features at a time
// (FTSL on news20 ×10 from the cache spent 0.12 of rmsLearn's 0.58 s of
// CPU profile in the sums and 0.32 s in x̃, one feature at a time).
// Against one pass that scaled each value as it added it (overlapping
// the two, which had taken FTSL from 0.87 to 0.82 CPU-s), the paired pass
// ran FTSL in 0.76 against 0.79 CPU-s, S-ADA in 0.80 against 0.83 and
// FTFSL in 0.99 against 1.07 (news20 ×10 from the cache, one pass, least
// of 7 alternated rounds at load 1.3–1.9).
func (s *Learner) rmsLearn(val []float64, add bool) {
	rows := s.tab.Rows
	offs := s.offs
	val = val[:len(offs)]
	r := s.rOff
	if add {
		s.first = linalg.RMSAdd(rows, val, offs, r, s.first[:0])
		for _, o := range s.first {
			s.rmsOrder = append(s.rmsOrder, uint32(s.rowOf(o)))
		}
	}
	s.dot = linalg.RMSScale(s.xt[:len(offs)], val, rows, offs, r, s.dotOff)
}

// rmsPredict sets xt to x̃ for a prediction (resolve's offsets, −1 for an
// unseen feature) and returns ‖x̃‖².
func (s *Learner) rmsPredict(val []float64) (n float64) {
	offs := s.offs
	if cap(s.xt) < len(offs) {
		s.xt = make([]float64, len(offs), 2*len(offs))
	}
	xt := s.xt[:len(offs)]
	s.dot = linalg.RMSScaleSeen(xt, val, s.tab.Rows, offs, s.rOff, s.dotOff)
	for _, x := range xt {
		n += x * x
	}
	s.xt = xt
	return n
}

// rmsScale is s_j of table row r (0 for none, or no value yet).
func (s *Learner) rmsScale(r int) float64 {
	if r < 0 || s.rOff == 0 {
		return 0
	}
	row := s.tab.Rows[s.wOff(r)+s.rOff:]
	return linalg.RMSOf(row[0], row[1])
}

// savedRows is the table's rows as Save writes them: without the RMS
// columns, whose sums the owner saves in its own form (Scales), nor the
// caller's auxiliary ones (aux.go) — the columns from w̄_j on, the same
// values in the same order wherever the others sit in the row.
func (s *Learner) savedRows() []float64 {
	return sparse.NarrowRows(s.tab.Rows, len(s.tab.Keys), s.stride, s.lead, s.saved)
}

// widenRows gives rows read as savedRows wrote them their RMS and
// auxiliary columns (zero until SetScales, SetAux); rows of another
// length are left to Rebuild's check.
func (s *Learner) widenRows() {
	t := s.tab
	t.Rows = sparse.WidenRows(t.Rows, len(t.Keys), s.stride, s.lead, s.saved)
}

// NewRMSSplit is NewSplit on x̃_j = x_j/s_j, s_j the root mean square of
// feature j's training values so far (Config.RMS): Begin, Sketch and Step
// take x̃ for x, and Begin(ex, true) adds ex's values to the sums first
// when ex.Weight > 0.
func NewRMSSplit(bits uint, sk sparse.Sketch) (*Split, error) {
	cfg := splitConfig(bits)
	cfg.RMS = true
	s, err := New(cfg, loss.Logistic{}, sk)
	if err != nil {
		return nil, err
	}
	return &Split{s: s}, nil
}

// LoadRMSSplit restores an RMS split saved by Save; its scales, saved
// apart (Scales), are given back by SetScales.
func LoadRMSSplit(r *model.Reader, bits uint, sk sparse.Sketch) (*Split, error) {
	cfg := splitConfig(bits)
	cfg.RMS = true
	s, err := Load(r, cfg, loss.Logistic{}, sk)
	if err != nil {
		return nil, err
	}
	return &Split{s: s}, nil
}

// Scale is s_j of slot: 0 for a feature without a training value (or a
// split without RMS).
func (p *Split) Scale(slot uint32) float64 {
	defer runtime.KeepAlive(p)
	return p.s.rmsScale(p.s.tab.Find(slot))
}

// Scaled is the number of features with a scale.
func (p *Split) Scaled() int { return len(p.s.rmsOrder) }

// Scales returns the features with a scale, in the order they got their
// first training value, and their sums [Σx_j², n_j] one pair each: the
// table package ada's Prescaled keeps as a wrapper, and saves.
func (p *Split) Scales() (keys []uint32, sums []float64) {
	defer runtime.KeepAlive(p)
	s := p.s
	return sparse.ScaleSums(s.tab, s.rmsOrder, func(r int) int { return s.wOff(r) + s.rOff })
}

// SetScales installs the sums Scales returned (a loaded model's) into a
// split without any: every slot must have state, and appear once, with
// Σx² > 0 and n ≥ 1 finite.
func (p *Split) SetScales(keys []uint32, sums []float64) error {
	defer runtime.KeepAlive(p)
	s := p.s
	if s.rOff == 0 || len(s.rmsOrder) > 0 {
		return fmt.Errorf("son: SetScales on a split that is not RMS or has scales")
	}
	order, err := sparse.SetScaleSums(s.tab, keys, sums, func(r int) int { return s.wOff(r) + s.rOff })
	if err != nil {
		return err
	}
	s.rmsOrder = order
	return nil
}
