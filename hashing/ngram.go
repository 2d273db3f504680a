package hashing

import (
	"fmt"
	"strconv"
)

// VW's n-grams (--ngram, --skips; VW's kskip_ngram_transformer): within
// one namespace, every sequence of 2…N features in input order whose gaps
// skip at most K features in all becomes a feature of value 1, hashed by
// folding the members' unmasked hashes h ← h·quadraticConstant + h_next.
// They are generated after --ignore/--keep and before the constant and
// the interactions, so interactions pair n-grams too. With L features in
// the namespace, the n-grams of n+1 members number
// Σ_{s=0..K} C(s+n−1, n−1)·max(0, L−n−s): for --ngram 2 --skips 1 on
// "a b c d" that is ab, bc, cd and the skip-grams ac, bd.

// quadraticConstant combines the hashes of an n-gram's members, as VW's.
const quadraticConstant uint32 = 27942141

// maxGram bounds N and K of --ngram and --skips.
const maxGram = 32

// compileGrams reads --ngram or --skips entries: "N" sets every namespace,
// "aN" the namespaces starting with 'a'.
func compileGrams(specs []string, dst *[256]uint8, flag string) error {
	for _, s := range specs {
		if s == "" {
			return fmt.Errorf("%s: empty value", flag)
		}
		num, all := s, true
		if c := s[0]; c < '0' || c > '9' {
			num, all = s[1:], false
		}
		n, err := strconv.Atoi(num)
		if err != nil || n < 0 || n > maxGram {
			return fmt.Errorf("%s %q: want N or a namespace character followed by N, N in 0..%d", flag, s, maxGram)
		}
		if all {
			for i := range dst {
				dst[i] = uint8(n)
			}
		} else {
			dst[s[0]] = uint8(n)
		}
	}
	return nil
}

// gramString describes a compiled table canonically (for fingerprints).
func gramString(t *[256]uint8) string {
	var b []byte
	for c, n := range t {
		if n != 0 {
			b = strconv.AppendInt(append(b, byte(c)), int64(n), 10)
		}
	}
	return string(b)
}

// GramCount is the number of n-gram features VW generates from L features
// with --ngram n and --skips k (n ≥ 2; n ≤ 1 gives none).
func GramCount(L, n, k int) float64 {
	var total float64
	for m := 1; m < n; m++ { // grams of m+1 members
		for s := 0; s <= k; s++ {
			if L-m-s <= 0 {
				break
			}
			total += binom(s+m-1, m-1) * float64(L-m-s)
		}
	}
	return total
}

func binom(n, k int) float64 {
	c := 1.0
	for r := 1; r <= k; r++ {
		c = c * float64(n-k+r) / float64(r)
	}
	return c
}

// addGrams appends the n-grams of every namespace that has them to the
// example's features (before the constant and the interactions).
func (b *Builder) addGrams() error {
	n := len(b.h)
	var extra float64
	for _, c := range b.present {
		if N := b.cfg.ngram[c]; N >= 2 {
			extra += GramCount(int(b.count[c]), int(N), int(b.cfg.skips[c]))
		}
	}
	if extra == 0 {
		return nil
	}
	total := float64(n) + extra
	if !b.cfg.cfg.NoConstant {
		total++
	}
	if total > float64(b.maxFeat) {
		return b.tooMany(total)
	}
	for _, c := range b.present {
		N := int(b.cfg.ngram[c])
		if N < 2 {
			continue
		}
		b.gpos = b.gpos[:0]
		for i, g := range b.g[:n] {
			if g == c {
				b.gpos = append(b.gpos, int32(i))
			}
		}
		var mask [maxGram + 1]int
		for m := 1; m < N; m++ {
			b.grams(c, m, int(b.cfg.skips[c]), mask[:1], 0)
		}
	}
	return nil
}

// grams is VW's recursion: mask holds the offsets of the members chosen so
// far (from the first); it adds the next member after `skips` skipped
// features while members remain, or spends one more skip on this gap.
// Unlike VW's, it gives up on a branch as soon as the members still to
// come cannot fit in the namespace: every descendant places its last
// member at least left+skips past the current one, so when that is off the
// end the branch would emit nothing, and exploring it anyway costs
// 2^(left+budget) calls (--ngram 24 --skips 24 on three words never
// finished). The grams emitted, and their order, are VW's.
func (b *Builder) grams(c byte, left, budget int, mask []int, skips int) {
	L := len(b.gpos)
	last := mask[len(mask)-1]
	if last+skips+left >= L {
		return
	}
	if left == 0 {
		for i := 0; i < L-last; i++ {
			h := b.h[b.gpos[i]]
			for _, off := range mask[1:] {
				h = h*quadraticConstant + b.h[b.gpos[i+off]]
			}
			if b.aud != nil {
				b.aud.gram(b.gpos, i, mask)
			}
			b.h = append(b.h, h)
			b.v = append(b.v, 1)
			b.g = append(b.g, c)
			b.count[c]++
		}
	}
	if left > 0 {
		b.grams(c, left-1, budget, append(mask, last+1+skips), 0)
	}
	if budget > 0 && left > 0 {
		b.grams(c, left, budget-1, mask, skips+1)
	}
}
