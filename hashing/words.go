package hashing

import (
	"fmt"
	"math/bits"
)

// The VW parser's per-feature path. Go keeps no value in a register across
// a call, so a call per feature made the parser reload its whole loop
// state (line, position, builder, example) after every feature, and
// appends through the builder's fields reload and store their lengths:
// on news20 that, and FeatureWord's checks, cost more than the hash.
// Instead the parser writes a run of short names of one namespace into a
// buffer by position (WordBuf), with no call in its loop, and hands the
// run over in one call (AddWords), whose loop hashes and writes with the
// builder's state in locals.

// A Word is a feature name of N bytes, 1 ≤ N ≤ 8, held in the low N bytes
// of the little-endian word W (the bytes above are ignored), with value V.
type Word struct {
	W uint64
	V float64
	N int
}

// wordBufLen is the length of WordBuf's buffer: long enough that the call
// per run is amortized, short enough to stay in L1 (6 KiB).
const wordBufLen = 256

// WordBuf returns a buffer for the caller to fill with a run of short
// names, in input order, and pass (the filled part) to AddWords. It
// returns nil while the builder records names (SetAudit): a Word holds no
// name bytes past the word, so names are then added one by one.
func (b *Builder) WordBuf() []Word {
	if b.aud != nil {
		return nil
	}
	if b.words == nil {
		b.words = make([]Word, wordBufLen)
	}
	return b.words
}

// AddWords is FeatureWord(name_i, q[i].W, q[i].V) for each Word in order.
func (b *Builder) AddWords(q []Word) {
	if b.nsDrop || len(q) == 0 {
		return
	}
	if b.aud != nil || b.needG || len(b.h)+len(q) > b.maxFeat {
		var buf [8]byte
		for _, x := range q {
			for j := range buf {
				buf[j] = byte(x.W >> (8 * j))
			}
			b.FeatureWord(buf[:x.N], x.W, x.V)
		}
		return
	}
	n0 := len(b.h)
	if n := n0 + len(q); n > cap(b.h) || n > cap(b.v) {
		b.h = append(make([]uint32, 0, 2*n), b.h...)
		b.v = append(make([]float64, 0, 2*n), b.v...)
	}
	hs := b.h[n0 : n0+len(q)]
	vs := b.v[n0 : n0+len(q)]
	seed, scale, hashAll := b.nsHash, b.nsScale, b.hashAll
	k := 0
	for _, x := range q {
		w, n := x.W, x.N
		var h uint32
		if !hashAll && byte(w)-'0' <= 9 {
			h = wordNumber(w, n, seed)
		} else {
			// murmurWord, written out: a call here would cost the loop
			// its registers.
			lo := uint32(w)
			h1 := mixBlock(seed, lo)
			hh, kk, t := seed, lo, n
			if n >= 4 {
				hh, kk, t = h1, uint32(w>>32), n-4
			}
			hh ^= scramble(kk & wordMask[t&7])
			if t == 4 {
				hh = bits.RotateLeft32(hh, 13)*5 + 0xe6546b64
			}
			h = fmix32(hh ^ uint32(n))
		}
		v := x.V * scale
		if v == 0 || v-v != 0 {
			// add drops a zero; a NaN or ±Inf fails the example.
			if v != 0 {
				b.fail(fmt.Errorf("feature value %v is not finite", v))
			}
			continue
		}
		hs[k], vs[k] = h, v
		k++
	}
	b.h, b.v = b.h[:n0+k], b.v[:n0+k]
}

// wordNumber is hashName of a name of k ≤ 8 bytes held in the low bytes
// of w: its decimal value plus seed if it is all digits, else its
// MurmurHash3.
func wordNumber(w uint64, k int, seed uint32) uint32 {
	var d uint64
	for j := 0; j < k; j++ {
		c := byte(w>>(8*j)) - '0'
		if c > 9 {
			return murmurWord(w, k, seed)
		}
		d = d*10 + uint64(c)
	}
	return uint32(d + uint64(seed))
}
