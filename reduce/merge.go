package reduce

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/sparseson/sparseson/sparse"
)

// Merge implements sparse.Merger: class k of the merge is the merge of the
// parts' class-k bases (each base learner's own rules, sparse/merge.go).
// Each part numbers the slots it has met in its own order (OAA's
// numbering), so the parts' bases are first renumbered (sparse.Rekeyer)
// into one numbering of the union of the parts' slots — the parts are
// changed by the merge and must not be used after it. Bases that cannot
// be renumbered or merged are refused with the base's reason.
func (o *OAA) Merge(a *sparse.MergeArgs) error {
	defer runtime.KeepAlive(o)
	defer runtime.KeepAlive(a) // the parts: their tables are read to the end
	if o.ids.Len() != 0 {
		return errors.New("merge: the receiving OAA model is not new")
	}
	if len(a.Parts) == 0 {
		return errors.New("merge: no models to merge")
	}
	k := len(o.bases)
	parts := make([]*OAA, 0, len(a.Parts)+1)
	for i, l := range a.Parts {
		p, ok := l.(*OAA)
		if !ok || len(p.bases) != k {
			return fmt.Errorf("model %d: not an OAA model of %d classes (%T)", i+1, k, l)
		}
		parts = append(parts, p)
	}
	var base *OAA
	if a.Base != nil {
		b, ok := a.Base.(*OAA)
		if !ok || len(b.bases) != k {
			return fmt.Errorf("base model: not an OAA model of %d classes (%T)", k, a.Base)
		}
		base = b
	}
	all := parts
	if base != nil {
		all = append(all, base)
	}
	tabs := make([]*sparse.Table, len(all))
	for i, p := range all {
		tabs[i] = p.ids
	}
	o.ids.AddRows(sparse.NewUnion(tabs...))
	// The classes are independent learners: each is renumbered and merged
	// on its own, on as many cores as there are, with the same result as
	// one after the other (every class writes only its own bases).
	errs := make([]error, k)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range max(1, min(k, runtime.GOMAXPROCS(0))) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := int(next.Add(1)) - 1; c < k; c = int(next.Add(1)) - 1 {
				errs[c] = o.mergeClass(c, parts, base, all, a.Weighting)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// mergeClass renumbers class c's base in every part (and the base) into
// o's numbering and merges them into o's class c.
func (o *OAA) mergeClass(c int, parts []*OAA, base *OAA, all []*OAA, w sparse.Weighting) error {
	for i, p := range all {
		renumber := func(n uint32) uint32 { return uint32(o.ids.Find(p.ids.Keys[n])) }
		rk, ok := p.bases[c].(sparse.Rekeyer)
		if !ok {
			return fmt.Errorf("model %d, class %d: a %T cannot be renumbered for merging", i+1, c+1, p.bases[c])
		}
		if err := rk.Rekey(renumber); err != nil {
			return fmt.Errorf("model %d, class %d: %w", i+1, c+1, err)
		}
	}
	m, ok := o.bases[c].(sparse.Merger)
	if !ok {
		return fmt.Errorf("class %d: a %T cannot be merged", c+1, o.bases[c])
	}
	args := &sparse.MergeArgs{Parts: make([]sparse.Learner, len(parts)), Weighting: w}
	for i, p := range parts {
		args.Parts[i] = p.bases[c]
	}
	if base != nil {
		args.Base = base.bases[c]
	}
	if err := m.Merge(args); err != nil {
		return fmt.Errorf("class %d: %w", c+1, err)
	}
	return nil
}
