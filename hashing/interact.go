package hashing

import (
	"fmt"
	"math"
)

// planInteractions decides which interaction terms apply to the current
// example (expanding wildcards), regroups the features by namespace and
// returns how many features the terms will generate.
func (b *Builder) planInteractions() (float64, error) {
	if b.cfg.wildcard {
		if err := b.expandTerms(); err != nil {
			return 0, err
		}
	} else {
		b.terms = b.cfg.inter
	}
	var total float64
	for _, t := range b.terms {
		total += b.termCount(t)
	}
	if total > 0 {
		b.group()
	}
	return total, nil
}

// termCount is the number of features term t generates: the product over
// its runs of equal namespaces of the number of multisets of the run's
// length drawn from that namespace (pairs with j ≥ i for a run of two).
func (b *Builder) termCount(t []byte) float64 {
	n := 1.0
	for i := 0; i < len(t); {
		j := i + 1
		for j < len(t) && t[j] == t[i] {
			j++
		}
		m := float64(b.count[t[i]])
		if m == 0 {
			return 0
		}
		k := j - i
		// C(m+k−1, k)
		c := 1.0
		for r := 1; r <= k; r++ {
			c = c * (m + float64(r) - 1) / float64(r)
		}
		n *= c
		i = j
	}
	return n
}

// group copies the features into gh/gv ordered by namespace (stable), so
// each namespace's features are contiguous.
func (b *Builder) group() {
	var off int32
	for _, c := range b.present {
		b.start[c] = off
		off += b.count[c]
	}
	n := len(b.h)
	if cap(b.gh) < n {
		b.gh = make([]uint32, roundPow2(n))
		b.gv = make([]float64, roundPow2(n))
	}
	b.gh, b.gv = b.gh[:n], b.gv[:n]
	var next [256]int32
	for _, c := range b.present {
		next[c] = b.start[c]
	}
	g := b.g[:n]
	v := b.v[:n]
	for i, h := range b.h {
		c := g[i]
		p := next[c]
		b.gh[p], b.gv[p] = h, v[i]
		next[c] = p + 1
	}
}

func (b *Builder) ns(c byte) ([]uint32, []float64) {
	s := b.start[c]
	e := s + b.count[c]
	return b.gh[s:e:e], b.gv[s:e:e]
}

// interact generates the interaction features of b.terms into the output.
func (b *Builder) interact() error {
	mask := b.mask
	for _, t := range b.terms {
		if b.termCount(t) == 0 {
			continue
		}
		if len(t) == 2 {
			h1, v1 := b.ns(t[0])
			h2, v2 := b.ns(t[1])
			self := t[0] == t[1]
			for i, a := range h1 {
				ha := a * fnvPrime
				va := v1[i]
				j0 := 0
				if self {
					j0 = i
				}
				for j := j0; j < len(h2); j++ {
					v := va * v2[j]
					if v != 0 {
						b.put((ha^h2[j])&mask, v)
					}
				}
			}
			continue
		}
		if err := b.interactN(t); err != nil {
			return err
		}
	}
	return nil
}

// interactN handles terms of three or more namespaces with an odometer
// over the positions, folding hashes left: ((h1·P)^h2)·P^h3 ….
func (b *Builder) interactN(t []byte) error {
	L := len(t)
	// Scratch kept in the Builder: zeroing two kilobytes of arrays per
	// call took about a tenth of the time of a wildcard expanding to a
	// million terms of one feature each.
	hs, vs := &b.termH, &b.termV
	ph, pv := &b.prodH, &b.prodV
	idx := b.idxStep[:L]
	for p := 0; p < L; p++ {
		hs[p], vs[p] = b.ns(t[p])
	}
	first := func(p int) int32 {
		if p > 0 && t[p] == t[p-1] {
			return idx[p-1]
		}
		return 0
	}
	// Fill positions from p on with their first index and partial products.
	fill := func(p int) {
		for ; p < L; p++ {
			idx[p] = first(p)
			h, v := hs[p][idx[p]], vs[p][idx[p]]
			if p > 0 {
				h ^= ph[p-1] * fnvPrime
				v *= pv[p-1]
			}
			ph[p], pv[p] = h, v
		}
	}
	fill(0)
	mask := b.mask
	for {
		v := pv[L-1]
		if v != 0 {
			if math.IsInf(v, 0) {
				return fmt.Errorf("interaction %q value overflows", t)
			}
			b.put(ph[L-1]&mask, v)
		}
		// Advance the odometer from the last position.
		p := L - 1
		for ; p >= 0; p-- {
			idx[p]++
			if int(idx[p]) < len(hs[p]) {
				break
			}
		}
		if p < 0 {
			return nil
		}
		h, v2 := hs[p][idx[p]], vs[p][idx[p]]
		if p > 0 {
			h ^= ph[p-1] * fnvPrime
			v2 *= pv[p-1]
		}
		ph[p], pv[p] = h, v2
		fill(p + 1)
	}
}

// expandTerms builds b.terms for an example when some interaction has a
// wildcard: each ':' takes every namespace present, wildcard positions in
// non-decreasing namespace order (combinations, not permutations), and
// terms that only permute an earlier one are dropped, as VW does.
//
// The expansion is sized before it is done (expansionBound), so that an
// example it would take over the feature limit is refused without the
// work; duplicates are found with a hash set of the terms' sorted
// namespaces, so the expansion costs time in proportion to the terms it
// yields (a linear scan made 100 one-feature namespaces under --cubic :::
// take a minute), and only looked for where two interactions have the same
// length (normalized.sameLen).
func (b *Builder) expandTerms() error {
	b.terms = b.terms[:0]
	b.termBuf = b.termBuf[:0]
	b.keyBuf = b.keyBuf[:0]
	// Sorted namespaces present in this example.
	b.sorted = append(b.sorted[:0], b.present...)
	insertionSort(b.sorted)
	ns := b.sorted
	raw, least := b.expansionBound()
	if least > float64(b.maxFeat) {
		return fmt.Errorf("%w: at least %.0f features with interactions (limit %d)", ErrTooManyFeatures, least, b.maxFeat)
	}
	// Each term kept generates a feature at least, so more than maxFeat of
	// them are refused (in emit) and the set never holds more.
	most := int(min(raw, float64(b.maxFeat)+1))
	dedup := b.cfg.sameLen
	if dedup {
		b.seen.reset(most)
	}
	// Room for the terms up front: growing by doubling copies the lists
	// over and over when an example expands to millions of terms.
	if n := most; n > cap(b.spans) {
		b.spans = make([]termSpan, 0, n)
		b.terms = make([][]byte, 0, n)
	}
	// Terms are first collected as offsets into termBuf (which may move
	// while growing) and turned into slices at the end. keyBuf holds each
	// kept term's namespaces sorted, at the same offsets as in termBuf.
	b.spans = b.spans[:0]
	emit := func(t []byte) error {
		start := len(b.termBuf)
		b.termBuf = append(b.termBuf, t...)
		nt := b.termBuf[start:]
		canonicalInPlace(nt)
		b.keyBuf = append(b.keyBuf, nt...)
		key := b.keyBuf[start:]
		insertionSort(key)
		if dedup && !b.seen.add(key, b.keyBuf, b.spans) {
			b.termBuf = b.termBuf[:start]
			b.keyBuf = b.keyBuf[:start]
			return nil
		}
		b.spans = append(b.spans, termSpan{int32(start), int32(len(b.termBuf))})
		if len(b.spans) > b.maxFeat {
			return fmt.Errorf("%w: more than %d interaction terms", ErrTooManyFeatures, b.maxFeat)
		}
		return nil
	}
	var tmp [maxTerm]byte
	var choice [maxTerm]int
	for _, t := range b.cfg.inter {
		if !bytesContain(t, Wildcard) {
			if err := emit(t); err != nil {
				return err
			}
			continue
		}
		if len(ns) == 0 || !b.namedPresent(t) {
			// Every expansion would name an absent namespace and generate
			// nothing; nor could it stand in for a later term, since a
			// duplicate names the same namespaces.
			continue
		}
		// Odometer over the wildcard positions, non-decreasing.
		var wpos [maxTerm]int
		nw := 0
		for i, c := range t {
			if c == Wildcard {
				wpos[nw] = i
				nw++
			}
		}
		for i := 0; i < nw; i++ {
			choice[i] = 0
		}
		for {
			copy(tmp[:], t)
			for i := 0; i < nw; i++ {
				tmp[wpos[i]] = ns[choice[i]]
			}
			if err := emit(tmp[:len(t)]); err != nil {
				return err
			}
			i := nw - 1
			for ; i >= 0; i-- {
				choice[i]++
				if choice[i] < len(ns) {
					break
				}
			}
			if i < 0 {
				break
			}
			for j := i + 1; j < nw; j++ {
				choice[j] = choice[i]
			}
		}
	}
	for _, sp := range b.spans {
		b.terms = append(b.terms, b.termBuf[sp.s:sp.e])
	}
	return nil
}

// expansionBound counts, before expanding, the terms the configured
// interactions expand to on this example (raw, duplicates included: C(P+w−1,
// w) for a term of w wildcards over P namespaces present) and a lower bound
// on the features they generate with the base features and the constant.
// The bound rests on each term alone: its own expansions are distinct
// multisets of namespaces, so none is dropped as a duplicate of another of
// them; a term of wildcards only generates every multiset of w features,
// C(F+w−1, w) of F; a term with named namespaces, all present, at least
// one feature per expansion (a term naming an absent one yields nothing).
func (b *Builder) expansionBound() (raw, least float64) {
	P := float64(len(b.present))
	F := float64(len(b.h))
	var most float64
	for _, t := range b.cfg.inter {
		if !b.namedPresent(t) {
			raw++ // emitted as is if it has no wildcard, else skipped
			continue
		}
		w := 0
		for _, c := range t {
			if c == Wildcard {
				w++
			}
		}
		terms := multisets(P, w)
		raw += terms
		if w == len(t) {
			most = max(most, multisets(F, w))
		} else {
			most = max(most, terms)
		}
	}
	least = F + most
	if !b.cfg.cfg.NoConstant {
		least++
	}
	return raw, least
}

// namedPresent reports whether every namespace t names (its positions other
// than wildcards) has features in this example.
func (b *Builder) namedPresent(t []byte) bool {
	for _, c := range t {
		if c != Wildcard && b.count[c] == 0 {
			return false
		}
	}
	return true
}

// multisets is C(n+k−1, k), the number of multisets of k drawn from n.
func multisets(n float64, k int) float64 {
	c := 1.0
	for r := 1; r <= k; r++ {
		c = c * (n + float64(r) - 1) / float64(r)
	}
	return c
}

// termSet is an open-addressing set of interaction terms for expandTerms'
// de-duplication. Its slots hold a term's index in spans plus one (0 is
// empty); the term's sorted namespaces are compared in keyBuf. It keeps its
// array across examples and clears only the part an example uses.
type termSet struct {
	slot []int32
	mask uint32
}

// reset empties the set and sizes it for n terms at load ≤ 1/2.
func (s *termSet) reset(n int) {
	size := 16
	for size < 2*n {
		size <<= 1
	}
	// Shrink after an example that needed a huge set, as slotTable does.
	if cap(s.slot) < size || (cap(s.slot) > 1<<16 && cap(s.slot) > 64*size) {
		s.slot = make([]int32, size)
	}
	s.slot = s.slot[:size]
	clear(s.slot)
	s.mask = uint32(size - 1)
}

// add inserts key (the sorted namespaces of the term about to become
// spans[len(spans)]) and reports whether it was new.
func (s *termSet) add(key, keyBuf []byte, spans []termSpan) bool {
	h := uint32(2166136261) // FNV-1a
	for _, c := range key {
		h = (h ^ uint32(c)) * fnvPrime
	}
	for i := h & s.mask; ; i = (i + 1) & s.mask {
		e := s.slot[i]
		if e == 0 {
			s.slot[i] = int32(len(spans) + 1)
			return true
		}
		sp := spans[e-1]
		if string(keyBuf[sp.s:sp.e]) == string(key) {
			return false
		}
	}
}

type termSpan struct{ s, e int32 }

// canonicalInPlace sorts t if it names a namespace twice (see
// canonicalTerm).
func canonicalInPlace(t []byte) {
	for i := 1; i < len(t); i++ {
		for j := 0; j < i; j++ {
			if t[i] == t[j] {
				insertionSort(t)
				return
			}
		}
	}
}

func insertionSort(a []byte) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j] < a[j-1]; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}
