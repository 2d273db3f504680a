package hashing

import (
	"fmt"
	"math"

	"github.com/sparseson/sparseson/sparse"
)

// A Builder hashes the features of one example at a time. Call Begin,
// then Namespace and Feature in input order, then Finish. A Builder is not
// safe for concurrent use; give each goroutine its own. It keeps and reuses
// all of its buffers, so in steady state it allocates nothing.
type Builder struct {
	cfg     *normalized
	mask    uint32
	hashAll bool
	inter   bool // interactions configured
	needG   bool // g is filled: interactions or n-grams configured
	maxFeat int
	// --hash_seed: the seed of namespace hashes and the default
	// namespace's hash (0 without a seed, as in VW).
	seed, defaultNS uint32

	// The namespace features are currently going to.
	nsHash  uint32
	nsChar  byte
	nsScale float64
	nsDrop  bool
	anon    uint32
	err     error
	// over counts the features past maxFeat, which are not kept: the
	// example is refused anyway, and keeping them would let one line of
	// 10^8 words take gigabytes before the limit is checked.
	over int
	// nfeat counts the features of a direct example kept so far, merged
	// or not: the limit and its message count features, not slots. (Of
	// an example not direct, h holds one entry per feature; kept.)
	nfeat int

	// direct is set once ScanVW takes an example built without
	// interactions, n-grams or audit (canDirect), which read the features
	// one by one in input order: each feature then goes straight into the
	// slot table as it is added, and h and v hold the example's slots
	// (masked) and merged values in the order of first occurrence, which
	// Finish only has to copy. A second pass over the features cost a
	// sixth of the VW parser's instructions on news20. Without ScanVW
	// (the LIBSVM parser, other callers of Feature) the features are
	// appended as they come and merged in Finish (putBase), which costs
	// those callers less than a probe per call.
	direct, canDirect bool
	// zeroed is set when a merge in a direct example left a value at 0,
	// which Finish then drops (dropZeros).
	zeroed bool
	// room is how many distinct slots the slot table takes before it
	// grows (half its size); h and v have at least that capacity.
	room int
	// hint is the number of features of the last example, which sizes
	// the table of the next.
	hint int

	// Features of the example in input order; g (namespace character) is
	// filled only when interactions need it.
	h []uint32
	v []float64
	g []byte

	// Per-namespace feature counts and the namespaces with any features.
	count   [256]int32
	present []byte

	// Features regrouped by namespace for interactions: the features of
	// namespace c are gh/gv[start[c] : start[c]+count[c]].
	start [256]int32
	gh    []uint32
	gv    []float64

	// Interactions of this example when wildcards must be expanded.
	terms   [][]byte
	termBuf []byte
	keyBuf  []byte
	sorted  []byte
	spans   []termSpan
	seen    termSet

	tab    slotTable
	aud    *auditRec // names of the features, when recording (audit.go)
	gpos   []int32   // scratch: a namespace's features in order (ngram.go)
	out    *sparse.Example
	merged bool
	// Scratch for generic interaction generation (interactN): per
	// position of the term, its namespace's features, its index, and the
	// hash and value of the product up to it.
	idxStep [maxTerm]int32
	termH   [maxTerm][]uint32
	termV   [maxTerm][]float64
	prodH   [maxTerm]uint32
	prodV   [maxTerm]float64
}

// maxTerm bounds the length of one interaction after expansion.
const maxTerm = 32

// NewBuilder returns a Builder for cfg.
func NewBuilder(cfg Config) (*Builder, error) {
	n, err := cfg.normalize()
	if err != nil {
		return nil, err
	}
	b := &Builder{
		needG:   len(n.inter) > 0 || n.grams,
		cfg:     n,
		mask:    n.mask,
		hashAll: n.cfg.HashAll,
		inter:   len(n.inter) > 0,
		maxFeat: n.cfg.MaxFeatures,
		seed:    n.cfg.Seed,
	}
	if n.cfg.Seed != 0 {
		b.defaultNS = Murmur3(nil, n.cfg.Seed)
	}
	b.Begin()
	return b, nil
}

// Config returns the configuration b hashes with, with defaults filled in.
func (b *Builder) Config() Config { return b.cfg.cfg }

// Mask returns 2^Bits − 1.
func (b *Builder) Mask() uint32 { return b.mask }

// Begin starts a new example. Features before the first Namespace call go
// to the default namespace.
func (b *Builder) Begin() {
	b.hint = max(b.kept(), 8) // the last example's features
	for _, c := range b.present {
		b.count[c] = 0
	}
	b.present = b.present[:0]
	b.h = b.h[:0]
	b.v = b.v[:0]
	b.g = b.g[:0]
	b.anon = 0
	b.over = 0
	b.err = nil
	if b.aud != nil {
		b.aud.begin()
	}
	b.direct, b.canDirect, b.zeroed = false, !b.needG && b.aud == nil, false
	b.nfeat = 0
	b.setNamespace(b.defaultNS, DefaultNamespace, 1)
}

// resetTable empties the slot table and sizes it for n distinct slots of
// a direct example, with h and v able to hold them.
func (b *Builder) resetTable(n int) {
	b.tab.reset(n)
	b.room = int(b.tab.mask+1) / 2
	if cap(b.h) < b.room || cap(b.v) < b.room {
		b.h = append(make([]uint32, 0, b.room), b.h...)
		b.v = append(make([]float64, 0, b.room), b.v...)
	}
}

// kept is the number of features kept so far.
func (b *Builder) kept() int {
	if b.direct {
		return b.nfeat
	}
	return len(b.h)
}

// toDirect makes the example direct, sized for n distinct slots, merging
// the features added so far.
func (b *Builder) toDirect(n int) {
	b.direct, b.nfeat = true, len(b.h)
	hs, vs := b.h, b.v
	b.h, b.v = b.h[:0], b.v[:0]
	b.resetTable(max(n, b.hint, len(hs)))
	// In place: a feature's entry never lands after it.
	for r, h := range hs {
		b.insert(h&b.mask, vs[r])
	}
}

// grow doubles the slot table of a direct example when it holds room
// slots.
func (b *Builder) grow() { b.reserve(2 * len(b.h)) }

// reserve sizes the slot table of a direct example for n distinct slots,
// entering those it holds again at their positions.
func (b *Builder) reserve(n int) {
	b.resetTable(n)
	t := &b.tab
	for pos, slot := range b.h {
		j := (slot * 0x9e3779b1) >> (t.shift & 31)
		for t.ent[j&t.mask].stamp == t.stamp {
			j++
		}
		t.ent[j&t.mask] = slotEntry{stamp: t.stamp, slot: slot, pos: uint32(pos)}
	}
}

// insert merges (slot, v) into the example of a direct build.
func (b *Builder) insert(slot uint32, v float64) {
	if len(b.h) >= b.room {
		b.grow()
	}
	t := &b.tab
	j := (slot * 0x9e3779b1) >> (t.shift & 31)
	for {
		e := &t.ent[j&t.mask]
		if e.stamp != t.stamp {
			*e = slotEntry{stamp: t.stamp, slot: slot, pos: uint32(len(b.h))}
			b.h = append(b.h, slot)
			b.v = append(b.v, v)
			return
		}
		if e.slot == slot {
			b.v[e.pos] += v
			b.zeroed = b.zeroed || b.v[e.pos] == 0
			return
		}
		j++
	}
}

func (b *Builder) setNamespace(hash uint32, c byte, scale float64) {
	b.nsHash, b.nsChar, b.nsScale = hash, c, scale
	b.nsDrop = b.cfg.dropped[c]
}

// Namespace directs the following features to the namespace called name,
// their values multiplied by scale. An empty name is the default namespace.
func (b *Builder) Namespace(name []byte, scale float64) {
	if !finite(scale) {
		b.fail(fmt.Errorf("namespace scale %v is not finite", scale))
	}
	if b.aud != nil {
		b.aud.namespace(name)
	}
	if len(name) == 0 {
		b.setNamespace(b.defaultNS, DefaultNamespace, scale)
		return
	}
	b.setNamespace(b.hashName(name, b.seed), name[0], scale)
}

// Feature adds the feature called name with the given value to the current
// namespace. An empty name is an anonymous feature: it takes the namespace
// hash plus the number of anonymous features before it in the example.
// Zero values (after scaling) are dropped.
func (b *Builder) Feature(name []byte, value float64) {
	if b.nsDrop {
		return
	}
	var h uint32
	if len(name) == 0 {
		h = b.nsHash + b.anon
		b.anon++
	} else {
		h = b.hashName(name, b.nsHash)
	}
	if b.aud != nil && value*b.nsScale != 0 && len(b.h) < b.maxFeat {
		b.aud.feature(name)
	}
	b.add(h, value)
}

// FeatureHash adds a feature whose (unmasked) hash is already known to the
// current namespace; value is scaled like Feature's.
func (b *Builder) FeatureHash(h uint32, value float64) {
	if b.nsDrop {
		return
	}
	if b.aud != nil && value*b.nsScale != 0 && len(b.h) < b.maxFeat {
		b.aud.feature(nil)
	}
	b.add(h, value)
}

func (b *Builder) add(h uint32, value float64) {
	v := value * b.nsScale
	// One test for the usual case, so that add inlines into the
	// per-feature path of Feature's callers; v-v is 0 unless v is NaN or
	// ±Inf.
	if v == 0 || v-v != 0 || len(b.h) >= b.maxFeat || b.needG || b.direct {
		b.addSlow(h, v)
		return
	}
	b.h = append(b.h, h)
	b.v = append(b.v, v)
}

// addSlow is add for a zero or non-finite value, a feature past the limit,
// a direct example, or a configuration that groups features by namespace
// (interactions, n-grams): only those read count, present and g.
func (b *Builder) addSlow(h uint32, v float64) {
	if v == 0 {
		return
	}
	if v-v != 0 {
		b.fail(fmt.Errorf("feature value %v is not finite", v))
		return
	}
	if b.kept() >= b.maxFeat {
		b.over++
		return
	}
	if b.direct {
		b.nfeat++
		b.insert(h&b.mask, v)
		return
	}
	b.h = append(b.h, h)
	b.v = append(b.v, v)
	c := b.nsChar
	if b.count[c] == 0 {
		b.present = append(b.present, c)
	}
	b.count[c]++
	b.g = append(b.g, c)
}

func (b *Builder) fail(err error) {
	if b.err == nil {
		b.err = err
	}
}

// hashName is HashString or Murmur3, by configuration; it is written out
// here because it runs once per feature.
func (b *Builder) hashName(name []byte, seed uint32) uint32 {
	if b.hashAll {
		return murmurName(name, seed)
	}
	var d uint64
	for _, c := range name {
		c -= '0'
		if c > 9 {
			return murmurName(name, seed)
		}
		d = d*10 + uint64(c)
	}
	return uint32(d + uint64(seed))
}

// Finish writes the example's features into ex.Idx and ex.Val (replacing
// what was there; the other fields of ex are left alone): the features in
// input order, the constant, then the interactions, each slot once.
func (b *Builder) Finish(ex *sparse.Example) error {
	ex.Idx = ex.Idx[:0]
	ex.Val = ex.Val[:0]
	if b.err != nil {
		return b.err
	}
	if b.over > 0 {
		total := b.kept() + b.over
		if !b.cfg.cfg.NoConstant {
			total++
		}
		return fmt.Errorf("%w: %d features (limit %d)", ErrTooManyFeatures, total, b.maxFeat)
	}
	if b.direct {
		return b.finishDirect(ex)
	}
	if b.cfg.grams {
		if err := b.addGrams(); err != nil {
			return err
		}
	}
	total := float64(len(b.h))
	if !b.cfg.cfg.NoConstant {
		total++
	}
	if b.inter {
		n, err := b.planInteractions()
		if err != nil {
			return err
		}
		total += n
	}
	if total > float64(b.maxFeat) {
		return b.tooMany(total)
	}
	// Slots are merged, so an example has at most 2^Bits of them however
	// many features it generates: sized for those, the slot table of one
	// line of a million interactions at -b 18 stays in cache.
	distinct := int(min(total, float64(b.mask)+1))
	if need := distinct; cap(ex.Idx) < need || cap(ex.Val) < need {
		// Round up to a power of two: examples are reused for lines of
		// varying length, and exact sizing would keep reallocating as
		// ever-longer lines come by.
		c := roundPow2(need)
		ex.Idx = make([]uint32, 0, c)
		ex.Val = make([]float64, 0, c)
	}
	b.out = ex
	b.merged = false
	b.tab.reset(distinct)
	b.putBase()
	if !b.cfg.cfg.NoConstant {
		b.put(ConstantHash&b.mask, 1)
	}
	if b.inter {
		if err := b.interact(); err != nil {
			ex.Idx, ex.Val = ex.Idx[:0], ex.Val[:0]
			b.out = nil
			return err
		}
	}
	b.out = nil
	if b.merged {
		dropZeros(ex)
	}
	if b.aud != nil {
		b.aud.finish(b)
	}
	return nil
}

// finishDirect is Finish for a direct example, whose slots are already
// merged in h and v.
func (b *Builder) finishDirect(ex *sparse.Example) error {
	total := b.nfeat
	if !b.cfg.cfg.NoConstant {
		total++
	}
	if total > b.maxFeat {
		return b.tooMany(float64(total))
	}
	if need := len(b.h) + 1; cap(ex.Idx) < need || cap(ex.Val) < need {
		c := roundPow2(need) // as in Finish
		ex.Idx = make([]uint32, 0, c)
		ex.Val = make([]float64, 0, c)
	}
	ex.Idx = append(ex.Idx, b.h...)
	ex.Val = append(ex.Val, b.v...)
	b.out = ex
	b.merged = false
	if !b.cfg.cfg.NoConstant {
		b.put(ConstantHash&b.mask, 1)
	}
	b.out = nil
	// Only a merge can leave a 0: one of the features (zeroed), or the
	// constant's (merged, rare).
	if b.zeroed || b.merged {
		dropZeros(ex)
	}
	return nil
}

// tooMany is the error of an example above the feature limit, worded by
// what made it so large.
func (b *Builder) tooMany(total float64) error {
	cause := ""
	switch {
	case b.inter && b.cfg.grams:
		cause = " with n-grams and interactions"
	case b.inter:
		cause = " with interactions"
	case b.cfg.grams:
		cause = " with n-grams"
	}
	return fmt.Errorf("%w: %.0f features%s (limit %d)", ErrTooManyFeatures, total, cause, b.maxFeat)
}

// put adds v to slot in the output, merging with an earlier entry of the
// same slot.
func (b *Builder) put(slot uint32, v float64) {
	t := &b.tab
	i := (slot * 0x9e3779b1) >> t.shift
	for {
		e := &t.ent[i&t.mask]
		if e.stamp != t.stamp {
			e.stamp, e.slot, e.pos = t.stamp, slot, uint32(len(b.out.Idx))
			b.out.Idx = append(b.out.Idx, slot)
			b.out.Val = append(b.out.Val, v)
			return
		}
		if e.slot == slot {
			b.out.Val[e.pos] += v
			b.merged = true
			return
		}
		i++
	}
}

// putBase is put for every feature of the example, written out with the
// table state in locals: this loop runs once per feature of every example.
// It runs first in Finish, on an empty output that Finish made room for
// (distinct entries), so it writes by position rather than appending; a
// feature merges into an earlier entry exactly when it writes none, so
// merged needs no flag of its own.
func (b *Builder) putBase() {
	t := &b.tab
	ent := t.ent
	tmask, shift, stamp := t.mask, t.shift&31, t.stamp
	mask := b.mask
	hs := b.h
	vs := b.v[:len(hs)]
	idx := b.out.Idx[:cap(b.out.Idx)]
	val := b.out.Val[:cap(b.out.Val)]
	k := 0
	for i, h := range hs {
		slot := h & mask
		j := (slot * 0x9e3779b1) >> shift
		for {
			e := &ent[j&tmask]
			if e.stamp != stamp {
				*e = slotEntry{stamp: stamp, slot: slot, pos: uint32(k)}
				idx[k] = slot
				val[k] = vs[i]
				k++
				break
			}
			if e.slot == slot {
				val[e.pos] += vs[i]
				break
			}
			j++
		}
	}
	b.out.Idx, b.out.Val = idx[:k], val[:k]
	b.merged = b.merged || k < len(hs)
}

// dropZeros removes entries whose merged value cancelled out exactly,
// keeping order.
func dropZeros(ex *sparse.Example) {
	j := 0
	for i, v := range ex.Val {
		if v != 0 {
			ex.Idx[j], ex.Val[j] = ex.Idx[i], v
			j++
		}
	}
	ex.Idx, ex.Val = ex.Idx[:j], ex.Val[:j]
}

// roundPow2 returns the smallest power of two ≥ n, at least 16.
func roundPow2(n int) int {
	c := 16
	for c < n {
		c <<= 1
	}
	return c
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
