package sparse

import (
	"cmp"
	"fmt"
	"math"
	"runtime"
	"slices"
)

// Merging models trained on disjoint shards of the data (sparseson merge,
// issue 18). The CLI loads every shard's model, checks that their options
// agree, builds a new untrained learner with those options and asks it,
// through the optional Merger interface, to become the merge of the parts.
// A learner that does not implement Merger cannot be merged (full ONS,
// whose A_t is a dense d×d matrix; NASA's per-feature variation state).
//
// The rules every implementation follows, and what they guarantee:
//
//   - Weights are averaged. VW's model merger (merge.cc) weights each model
//     by its weighted example count; for adaptive models (gd.cc,
//     merge_weights_with_save_resume) it weights each feature of each model
//     by the share of that feature's AdaGrad accumulator instead (do_weighting
//     in accumulate.cc). Both are offered (Weighting); ByEvidence is the
//     default, and with a base each part's weight counts with the base's
//     evidence and its own (EvidenceAverage). An average of weights is not
//     the model one stream would have trained — no rule of this kind has
//     that guarantee for online learners — but it is exact on features
//     only one part has seen without a base (ByEvidence) and on any model
//     whose parts agree.
//   - Sums stay sums. Counters and accumulators that add up over examples
//     (example counts, AdaGrad's Σg², SON's pre-scaling D, normalisation
//     sums) are added, so that the merged model's learning rates are those
//     of a model that has seen every part's examples: exact.
//   - With a base (iterative parameter mixing: every part was trained from
//     the same model), what the parts share through the base is counted
//     once: a sum becomes base + Σ(part − base), exact for accumulators,
//     which only grow; for sketches, whose shared part cannot be subtracted,
//     see son.Learner.Merge.
//   - merge(one part) is the part as a function — same predictions and
//     weights, to rounding — and the merged model trains on (it is an
//     ordinary model of its kind); order of the parts changes only rounding.
//
// Implementing Merger for a new learner (ada/ and friends): build nothing
// in Merge but from the receiver's own configuration; type-assert the parts
// (and the base) to the receiver's type and refuse any other type or
// configuration with an error; read the parts without changing what they
// predict; use Union for the feature slots (it gives an order that does not
// depend on the parts' order), MergedSum for counters, and for weights
// EvidenceAverage (ByEvidence) or Weigh (ByExamples). A learner whose curvature
// is an FD sketch merges it through SketchMerger (fd.Sketch implements it:
// stack the parts' rows S_i = C_i·Z_i, hand their Gram matrix to the
// sketch's Merge, write the Z it asks for), as son.Learner.Merge does. Implement
// Rekeyer too (usually one line, Table.Rekey) so that the learner can be a
// base of --oaa. The CLI needs nothing more: it finds Merger by type
// assertion on the learner its family builds.

// Weighting says how the parts' weights are averaged.
type Weighting int

const (
	// ByEvidence weights each part's weight for a feature by the part's
	// evidence for that feature, its sum of squared gradients on it
	// (AdaGrad's accumulator, SON's pre-scaling D), as VW's merger does for
	// adaptive models; with a base, by the base's evidence and the part's
	// own (EvidenceAverage). Without a base, a feature only one part has
	// seen keeps that part's weight. Where a learner keeps no such sum, or
	// every part's is 0, the weights are averaged ByExamples.
	ByEvidence Weighting = iota
	// ByExamples weights each part's weights by its weighted example count
	// (VW's per_model_weighting); a part that has never seen a feature
	// counts with weight 0 for it.
	ByExamples
	// ByNewEvidence is ByEvidence for a round whose examples are new to
	// the base (a first pass of --shards): a first-order learner's parts
	// then add up their moves from the base, as one pass over all their
	// examples would, within the parts' range (AddedMoves); a learner
	// whose parts each reach the optimum of their data (SON) averages as
	// ByEvidence. Without a base it is ByEvidence.
	ByNewEvidence
)

// Evidence reports whether w averages by evidence (ByEvidence or
// ByNewEvidence).
func (w Weighting) Evidence() bool { return w == ByEvidence || w == ByNewEvidence }

// String is the flag value of w.
func (w Weighting) String() string {
	if w == ByExamples {
		return "examples"
	}
	return "evidence"
}

// MergeArgs is what a Merger merges.
type MergeArgs struct {
	// Parts are the models to merge, at least one, of the receiver's type
	// and configuration. Merge may change them (reduce.OAA renumbers its
	// parts' slots): they are loaded for the merge only.
	Parts []Learner
	// Base, if not nil, is the model every part was trained from (a round
	// of iterative parameter mixing); what it holds is counted once.
	Base Learner
	// Weighting is the averaging rule for weights.
	Weighting Weighting
}

// Merger is implemented by learners whose models can be merged.
type Merger interface {
	Learner
	// Merge sets the receiver — a new, untrained learner built from the
	// parts' options — to the merge of a.Parts (see the rules above). It
	// refuses parts of another type or configuration with an error.
	Merge(a *MergeArgs) error
}

// Rekeyer is implemented by learners whose feature slots can be
// renumbered: a reduction that numbers slots itself (reduce.OAA) maps each
// part's numbers to the merged model's before merging its base learners.
type Rekeyer interface {
	// Rekey replaces every slot k the learner holds state for by f(k); f
	// must be one-to-one on those slots and map into the hash space. On
	// error the learner is unusable.
	Rekey(f func(slot uint32) uint32) error
}

// Rekey renumbers the table's slots by f (see Rekeyer): rows do not move,
// only their keys and the index change, O(rows).
func (t *Table) Rekey(f func(slot uint32) uint32) error {
	defer runtime.KeepAlive(t)
	t.clearIndex()
	for r, k := range t.Keys {
		n := f(k)
		if n > t.mask {
			return fmt.Errorf("rekey: slot %d outside the %d-slot hash space", n, t.mask+1)
		}
		if t.lookup(n) != 0 {
			return fmt.Errorf("rekey: two features map to slot %d", n)
		}
		t.Keys[r] = n
		t.setIndex(n, int32(r+1))
	}
	return nil
}

// Union is the union of the feature slots of several tables, with each
// slot's row in each table.
type Union struct {
	// Keys are the slots, ordered by their earliest relative position in
	// any table (row/len: a table's rows are in first-seen order, so the
	// frequent features come first, as they do in a trained table), ties by
	// slot. The order does not depend on the order of the tables, and for
	// one table it is that table's.
	Keys []uint32
	rows [][]int32
}

// NewUnion returns the union of the tables' slots. Each table's rows are
// looked up on a core of their own; the result does not depend on how
// many there are.
func NewUnion(tabs ...*Table) *Union {
	es := unionEntries(tabs)
	slices.SortFunc(es, func(a, b unionEntry) int {
		if c := cmp.Compare(a.rank, b.rank); c != 0 {
			return c
		}
		return cmp.Compare(a.slot, b.slot)
	})
	u := &Union{Keys: make([]uint32, len(es)), rows: make([][]int32, len(tabs))}
	for i, e := range es {
		u.Keys[i] = e.slot
	}
	ForBlocks(len(tabs), 1, func(i, _, _ int) {
		t := tabs[i]
		rows := make([]int32, len(es))
		for j, k := range u.Keys {
			rows[j] = int32(t.Find(k))
		}
		u.rows[i] = rows
	})
	return u
}

// unionEntry is a slot of the union and its earliest relative position.
type unionEntry struct {
	rank float64
	slot uint32
}

// unionDenseBits is the largest hash space whose slots unionEntries
// deduplicates through an array (4 bytes a slot, 16 MiB at most) rather
// than a map: on news20 (-b 18, four shards of 100k features) the map was
// most of a merge's union.
const unionDenseBits = 22

// unionEntries returns each slot of the tables once, with its smallest
// row/len over the tables, in first-met order.
func unionEntries(tabs []*Table) []unionEntry {
	var mask uint32
	total := 0
	for _, t := range tabs {
		mask = max(mask, t.mask)
		total += t.Len()
	}
	var es []unionEntry
	each := func(f func(k uint32, rank float64)) {
		for _, t := range tabs {
			n := float64(t.Len())
			for r, k := range t.Keys {
				f(k, float64(r)/n)
			}
		}
	}
	if uint64(mask) < 1<<unionDenseBits {
		pos := make([]int32, uint64(mask)+1) // index+1, 0 for unseen
		each(func(k uint32, rank float64) {
			if i := pos[k] - 1; i >= 0 {
				es[i].rank = min(es[i].rank, rank)
				return
			}
			pos[k] = int32(len(es)) + 1
			es = append(es, unionEntry{rank, k})
		})
		return es
	}
	pos := make(map[uint32]int, total/max(1, len(tabs)))
	each(func(k uint32, rank float64) {
		if i, ok := pos[k]; ok {
			es[i].rank = min(es[i].rank, rank)
			return
		}
		pos[k] = len(es)
		es = append(es, unionEntry{rank, k})
	})
	return es
}

// AddRows gives each key of u a row of t, row j for u.Keys[j], in that
// order, before a merge fills the rows on several cores (ForBlocks): each
// feature then writes only its own row, and the rows are in the order a
// serial merge would add them. t must be the merge's new, empty table.
func (t *Table) AddRows(u *Union) {
	defer runtime.KeepAlive(t)
	if t.Len() != 0 {
		panic("sparse: AddRows into a table that is not new")
	}
	for _, key := range u.Keys {
		t.Row(key)
	}
}

// Row returns the row of Keys[j] in table i, or -1 if that table has none.
func (u *Union) Row(i, j int) int { return int(u.rows[i][j]) }

// MergedSum combines a counter that adds up over examples: base + Σ(part −
// base), i.e. Σ parts without a base (base 0).
func MergedSum(parts []float64, base float64) float64 {
	s := base
	for _, v := range parts {
		s += v - base
	}
	return s
}

// Weigh averages the parts' values v_i of one weight with weights a_i:
// Σa_i v_i / Σa_i, or 0 if Σa_i is not positive (ByExamples).
func Weigh(a, v []float64) float64 {
	var den float64
	for _, ai := range a {
		den += ai
	}
	if !(den > 0) {
		return 0
	}
	// Shares first, so that one part's weight comes back exactly.
	var w float64
	for i, ai := range a {
		w += ai / den * v[i]
	}
	return w
}

// AddedMoves is ByNewEvidence's combination of one weight for a
// first-order learner: the parts' moves from the base's weight w₀ added
// up, each feature's by the share the base's evidence P₀ has of the whole
// (the rest is the evidence average of the parts' weights),
//
//	w = (P₀·(w₀ + Σ_i(w_i − w₀)) + Σ_i ΔP_i·w_i) / (P₀ + Σ_i ΔP_i),
//
// then kept within the parts' range [min w_i, max w_i]. On examples new to
// the base, a first-order learner's moves are partial steps on disjoint
// data, whose sum is what one sequential pass would have taken to first
// order; the average of K such moves is a K-th of it (one pass of
// AdaGrad in --shards 16 on 12,000 generated examples: 87.9% test
// accuracy by EvidenceAverage, 91.4% by this rule, 92.2% for one stream).
// But parts that see one distribution each move most of the way to one
// optimum, and then the sum overshoots (news20 ×4: 93.2% by the sum
// unbounded, 94.2% kept in range); the range keeps it. It is the
// consensus of Gaussian posteriors with the base's counted once (Scott et
// al., "Bayes and big data: the consensus Monte Carlo algorithm", 2016),
// clipped. ok is false where there is no evidence at all.
func AddedMoves(p0, w0 float64, dp, w []float64) (v float64, ok bool) {
	den, moved := p0, w0
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, d := range dp {
		den += d
		moved += w[i] - w0
		lo, hi = min(lo, w[i]), max(hi, w[i])
	}
	if !(den > 0) {
		return 0, false
	}
	// Shares first, so that one part's weight comes back exactly.
	if p0 > 0 {
		v = p0 / den * moved
	}
	for i, d := range dp {
		if d > 0 {
			v += d / den * w[i]
		}
	}
	return min(max(v, lo), hi), true
}

// EvidenceAverage is ByEvidence's combination of one weight: the parts'
// weights w_i averaged by the whole evidence each stands on, the base's
// P₀ (0 without a base) and what the part added to it, ΔP_i (a part that
// never saw the feature passes ΔP_i = 0 and its weight, the base's w₀):
//
//	w = Σ_i (P₀ + ΔP_i)·w_i / Σ_i (P₀ + ΔP_i).
//
// Without a base it is VW's rule for adaptive models, the evidence-weighted
// average. With one it stays a convex combination of the parts' weights.
// It is the rule for rounds whose examples the base has already seen
// (later passes, merge --base over the same shards) and for SON at every
// round: there each part moves towards the optimum of data the others
// share, and adding the moves up (AddedMoves without its range, the rule
// this replaced) overshot by up to K times — news20 ×4 (80k examples,
// squared loss) in --shards 16 reached 46.9% test accuracy after three
// passes, against 94.3% with this average and 94.0% for one stream
// (docs/algorithms.md §22). ok is false where there is no evidence at
// all.
func EvidenceAverage(p0 float64, dp, w []float64) (v float64, ok bool) {
	var den float64
	for _, d := range dp {
		den += p0 + d
	}
	if !(den > 0) {
		return 0, false
	}
	// Shares first, so that one part's weight comes back exactly.
	for i, d := range dp {
		if a := p0 + d; a > 0 {
			v += a / den * w[i]
		}
	}
	return v, true
}
