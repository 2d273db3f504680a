package son

import (
	"fmt"
	"runtime"

	"github.com/sparseson/sparseson/loss"
	"github.com/sparseson/sparseson/model"
	"github.com/sparseson/sparseson/sparse"
)

// Auxiliary columns (Config.Aux): a learner on the split that keeps state
// per feature (package ada's per-coordinate completion of the escaped
// form, G_jj and u_j) keeps it in the feature's row of the core's table,
// just before w̄_j (Learner.setLayout), instead of in a table of its own: the
// core has looked the example's rows up and fetched their lines already
// (Begin), so the state costs no second slot lookup and no second random
// row per feature. As a table of its own, the completion's state cost
// FTSL 1.45 → 1.80 CPU-s and S-ADA 1.14 → 1.52 on news20 ×10, one pass,
// Table.Offsets alone 23 % of S-ADA's profile.
//
// The core never reads or writes these columns; a new row has them zero.
// Save leaves them out (the owner saves them in its own form, so that its
// model format need not change with where the state lives), and Load
// gives them back zero until SetAux.

// maxAux bounds Config.Aux: a row is fetched whole, so wide state belongs
// elsewhere.
const maxAux = 8

// SplitOptions are a split's optional columns.
type SplitOptions struct {
	RMS bool // learn on x̃ (Config.RMS, rms.go)
	Aux int  // the caller's columns per feature (Config.Aux)
	// AuxDot, with RMS, is 1 + the auxiliary column whose dot product
	// with x̃ Begin forms (AuxDot; Config.AuxDot); 0 for none.
	AuxDot int
}

func (o SplitOptions) config(bits uint) Config {
	cfg := splitConfig(bits)
	cfg.RMS, cfg.Aux, cfg.AuxDot = o.RMS, o.Aux, o.AuxDot
	return cfg
}

// NewSplitWith is NewSplit, or NewRMSSplit with o.RMS, with o.Aux
// auxiliary columns per feature.
func NewSplitWith(bits uint, sk sparse.Sketch, o SplitOptions) (*Split, error) {
	s, err := New(o.config(bits), loss.Logistic{}, sk)
	if err != nil {
		return nil, err
	}
	return &Split{s: s}, nil
}

// LoadSplitWith restores a split of options o saved by Save; the
// auxiliary columns, saved apart, are given back by SetAux.
func LoadSplitWith(r *model.Reader, bits uint, sk sparse.Sketch, o SplitOptions) (*Split, error) {
	s, err := Load(r, o.config(bits), loss.Logistic{}, sk)
	if err != nil {
		return nil, err
	}
	return &Split{s: s}, nil
}

// Aux returns the state of the example of the last Begin: the table's
// rows, the example's row offsets in them (−1 for a feature without
// state, which only a prediction has), the values the core learns on (x̃
// in an RMS split, else x) and the auxiliary columns' offset from an
// offset in offs (negative: they precede w̄_j in the row; column k of
// feature i is rows[offs[i]+col+k]). All are valid until the next Begin,
// and rows only while p is reachable: it may be memory the table unmaps
// when collected (sparse.Table).
func (p *Split) Aux() (rows []float64, offs []int, xt []float64, col int) {
	s := p.s
	return s.tab.Rows, s.offs, s.xt[:len(s.offs)], s.aOff
}

// AuxDot returns Σ_i a_i·x̃_i over the example of the last Begin, a_i
// its feature's auxiliary column SplitOptions.AuxDot − 1 (a feature
// without state counts 0), summed in the example's order — the sum a
// caller's loop over Aux's rows would form, bit for bit — and true; or
// false for a split without SplitOptions.AuxDot. Begin forms it in the
// RMS pass that computes x̃ (linalg.RMSScale), so the caller's state in the
// row costs no pass of its own.
func (p *Split) AuxDot() (float64, bool) {
	s := p.s
	return s.dot, s.dotOff != 0
}

// AuxOf is slot's auxiliary columns (nil for a slot without state), a
// slice of the table's rows: valid while p is reachable (sparse.Table).
func (p *Split) AuxOf(slot uint32) []float64 {
	defer runtime.KeepAlive(p)
	s := p.s
	r := s.tab.Find(slot)
	if r < 0 || s.aOff == 0 {
		return nil
	}
	o := s.wOff(r) + s.aOff
	return s.tab.Rows[o : o+s.cfg.Aux : o+s.cfg.Aux]
}

// AuxRows calls fn for every slot with state, in first-seen order (the
// order Columns and Save use), with its auxiliary columns.
func (p *Split) AuxRows(fn func(slot uint32, aux []float64)) {
	defer runtime.KeepAlive(p)
	s := p.s
	if s.aOff == 0 {
		return
	}
	for r, key := range s.tab.Keys {
		o := s.wOff(r) + s.aOff
		fn(key, s.tab.Rows[o:o+s.cfg.Aux:o+s.cfg.Aux])
	}
}

// SetAux installs auxiliary columns saved apart (a loaded model's):
// vals holds Config.Aux values for each of keys, which must name every
// slot with state once, in any order.
func (p *Split) SetAux(keys []uint32, vals []float64) error {
	defer runtime.KeepAlive(p)
	s := p.s
	na := s.cfg.Aux
	if na == 0 {
		return fmt.Errorf("son: SetAux on a split without auxiliary columns")
	}
	if len(keys) != s.tab.Len() || len(vals) != na*len(keys) {
		return fmt.Errorf("%w: %d values of auxiliary state for %d features, the split has %d", model.ErrCorrupt, len(vals), len(keys), s.tab.Len())
	}
	set := make([]bool, len(keys))
	for i, k := range keys {
		r := s.tab.Find(k)
		if r < 0 {
			return fmt.Errorf("%w: auxiliary state for slot %d, which has no state", model.ErrCorrupt, k)
		}
		if set[r] {
			return fmt.Errorf("%w: slot %d has auxiliary state twice", model.ErrCorrupt, k)
		}
		set[r] = true
		copy(s.tab.Rows[s.wOff(r)+s.aOff:], vals[na*i:na*(i+1)])
	}
	return nil
}
