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
	var hs [maxTerm][]uint32
	var vs [maxTerm][]float64
	var ph [maxTerm]uint32
	var pv [maxTerm]float64
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
func (b *Builder) expandTerms() error {
	b.terms = b.terms[:0]
	b.termBuf = b.termBuf[:0]
	b.keyBuf = b.keyBuf[:0]
	b.keyOff = b.keyOff[:0]
	// Sorted namespaces present in this example.
	b.sorted = append(b.sorted[:0], b.present...)
	insertionSort(b.sorted)
	ns := b.sorted
	// Terms are first collected as offsets into termBuf (which may move
	// while growing) and turned into slices at the end.
	b.spans = b.spans[:0]
	emit := func(t []byte) error {
		start := len(b.termBuf)
		b.termBuf = append(b.termBuf, t...)
		nt := b.termBuf[start:]
		canonicalInPlace(nt)
		kstart := len(b.keyBuf)
		b.keyBuf = append(b.keyBuf, nt...)
		key := b.keyBuf[kstart:]
		insertionSort(key)
		prev := int32(0)
		for _, o := range b.keyOff {
			if string(b.keyBuf[prev:o]) == string(key) {
				b.termBuf = b.termBuf[:start]
				b.keyBuf = b.keyBuf[:kstart]
				return nil
			}
			prev = o
		}
		b.keyOff = append(b.keyOff, int32(len(b.keyBuf)))
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
		if len(ns) == 0 {
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
