package hashing

import (
	"encoding/binary"
	"math/bits"
)

// The VW parser's per-feature path. Go keeps no value in a register across
// a call, so a call per feature makes a parser reload its whole loop state
// (line, position, builder, table) after every feature; and hashing the
// features in one pass and merging their slots in a second stores and
// reloads every feature in between. On news20 those costs were most of
// the parser's instructions. ScanVW instead tokenises, hashes and merges
// the usual features in one loop with the builder's state in locals, and
// leaves the rest (values other than one digit, anonymous features, what
// is near the end of the line) to the parser, which adds them one by one.

// SWAR constants: each byte of a word tested at once.
const (
	swarLo = 0x0101010101010101
	swarHi = 0x8080808080808080
)

// delimMask sets the high bit of the lowest byte of w that is a space,
// tab, '|' or ':'. Higher bytes may be flagged spuriously (a borrow from
// the real match ripples up), but the lowest flag is always exact, which is
// all its callers read.
func delimMask(w uint64) uint64 {
	s := w ^ (swarLo * ' ')
	t := w ^ (swarLo * '\t')
	p := w ^ (swarLo * '|')
	c := w ^ (swarLo * ':')
	return (((s - swarLo) &^ s) | ((t - swarLo) &^ t) | ((p - swarLo) &^ p) | ((c - swarLo) &^ c)) & swarHi
}

// wordEnd returns the index of the first space, tab, '|' or ':' in line at
// or after i, or len(line). Testing eight bytes per step finishes most
// names in one or two steps.
func wordEnd(line []byte, i int) int {
	for i+8 <= len(line) {
		if m := delimMask(binary.LittleEndian.Uint64(line[i:])); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
		i += 8
	}
	for i < len(line) && !isDelim(line[i]) {
		i++
	}
	return i
}

// pow10 holds the powers of ten that are exact in float64 and that a
// short decimal needs.
var pow10 = [16]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15}

func isDelim(c byte) bool { return c == ' ' || c == '\t' || c == '|' || c == ':' }

// ScanVW adds to the current namespace the features of VW text that start
// at line[i], for as long as they take the usual form — a name of one or
// more bytes other than space, tab, '|' and ':', then nothing or ':' and
// one digit 1–9 followed by a space or tab — and returns the index where
// it stopped: at a '|', at a feature of another form (which the caller
// parses and adds with Feature, then calls ScanVW again), or within the
// last eight bytes of the line. The features are those Feature would add,
// in the same order, with the same limit; ScanVW adds none (and returns
// i) for an example built in two passes (interactions, n-grams, audit)
// or an ignored namespace, where Feature does all.
func (b *Builder) ScanVW(line []byte, i int) int {
	if !b.canDirect || b.nsDrop {
		return i
	}
	// A feature takes two bytes at least, and six or more in most text:
	// sizing the table for the text ahead spares most of the growing
	// (news20 at one per eight bytes grew a table a tenth of the lines,
	// each growth entering the slots again). The estimate is capped by
	// the slots and features there can be, and at 2^16, past which
	// growing costs little next to the line: a long line of long names
	// must not reserve for more features than it has.
	est := min((len(line)-i)/6, b.maxFeat-b.kept(), int(b.mask)+1, 1<<16)
	if n := len(b.h) + max(est, 0); !b.direct {
		b.toDirect(n)
	} else if n > b.room {
		b.reserve(n)
	}
	for {
		var stop scanStop
		i, stop = b.scanRun(line, i)
		switch stop {
		case stopFull:
			if b.nfeat >= b.maxFeat {
				return i // Feature counts what is over the limit
			}
			b.grow()
		case stopName:
			// A name that may be a number: hashName's digit rule is
			// left out of scanRun's loop.
			end := wordEnd(line, i)
			if end+1 >= len(line) || b.nfeat >= b.maxFeat {
				return i // Feature counts what is over the limit
			}
			v, next, ok := scanValue(line, end, b.nsScale)
			if !ok {
				return i
			}
			b.nfeat++
			b.insert(b.hashName(line[i:end], b.nsHash)&b.mask, v)
			i = next
		default:
			return i
		}
	}
}

// wordState mixes the n ≤ 8 bytes held in the low bytes of w into the
// MurmurHash3 state h: the 4-byte blocks, then a tail, if any. Name
// lengths are random, so the cases are selections rather than branches:
// the low block is always mixed and kept only for n ≥ 4, and a tail of 0
// bytes scrambles to 0.
func wordState(h uint32, w uint64, n int) uint32 {
	lo := uint32(w)
	h1 := mixBlock(h, lo)
	k, t := lo, n
	if n >= 4 {
		h, k, t = h1, uint32(w>>32), n-4
	}
	h ^= scramble(k & wordMask[t&7])
	if t == 4 {
		// The tail is a whole block: finish mixBlock.
		h = bits.RotateLeft32(h, 13)*5 + 0xe6546b64
	}
	return h
}

// scanStop says why scanRun returned.
type scanStop uint8

const (
	stopDone scanStop = iota // a feature ScanVW leaves to the caller, or the end
	stopFull                 // the table is at half load, or the features at their limit
	stopName                 // a name that may be a number
)

// scanValue reads what follows a name ending at line[i] (i+1 < len(line)):
// nothing, or ':' and one digit 1–9 followed by a space or tab. It returns
// the value times scale, the index past it, and false for another form
// or a value Feature would drop or fail on.
func scanValue(line []byte, i int, scale float64) (float64, int, bool) {
	v := scale
	if line[i] == ':' {
		if i+2 >= len(line) {
			return 0, i, false
		}
		d := line[i+1] - '1'
		if c := line[i+2]; d >= 9 || c != ' ' && c != '\t' {
			return 0, i, false
		}
		v = float64(d+1) * scale
		i += 2
	}
	return v, i, v != 0 && v-v == 0
}

// scanRun is ScanVW's loop over names that are not numbers: it hashes
// them and merges their slots into the example. It makes no call, so
// that its state stays in registers; it returns at a name that may be a
// number, or when the table must grow.
func (b *Builder) scanRun(line []byte, i int) (int, scanStop) {
	mask, seed, scale := b.mask, b.nsHash, b.nsScale
	// A value is scale times 1…9: with 9·scale finite and scale not 0,
	// none is dropped (zero) or fails the example (not finite), so the
	// loop need not test each.
	if s9 := 9 * scale; scale == 0 || s9-s9 != 0 {
		return i, stopDone
	}
	// Names starting with a digit may be numbers (hashName): below
	// numLim, byte(w)-'0' tests them for it.
	numLim := byte(10)
	if b.hashAll {
		numLim = 0
	}
	// Slots go straight into the table; the loop stops before the table
	// passes half load (room) or the features their limit.
	t := &b.tab
	ent, tmask, shift, stamp := t.ent, t.mask, t.shift&31, t.stamp
	n0 := len(b.h)
	hs := b.h[:b.room]
	vs := b.v[:b.room]
	nf, lim := 0, min(b.room-n0, b.maxFeat-b.nfeat)
	zeroed := false
	stop := stopDone
loop:
	for i+8 <= len(line) {
		w := binary.LittleEndian.Uint64(line[i:])
		m := delimMask(w)
		if m&0xff != 0 {
			// A space or tab more between features, or the '|' of
			// the next namespace or the ':' of an anonymous feature.
			if c := byte(w); c == ' ' || c == '\t' {
				i++
				continue
			}
			break
		}
		if nf >= lim {
			stop = stopFull
			break
		}
		// The name is hashed eight bytes at a time as its end is
		// looked for (murmurWord, and murmurName for longer names).
		j := i
		hh := seed
		for m == 0 {
			if byte(w)-'0' < numLim {
				stop = stopName // a long name that may be a number
				break loop
			}
			hh = mixBlock(mixBlock(hh, uint32(w)), uint32(w>>32))
			j += 8
			if j+8 > len(line) {
				break
			}
			w = binary.LittleEndian.Uint64(line[j:])
			m = delimMask(w)
		}
		if m == 0 {
			break // a long name near the end of the line
		}
		n := bits.TrailingZeros64(m) >> 3
		j += n
		// wordState(hh, w, n), written out: as a call it would cost the
		// loop its registers.
		lo := uint32(w)
		h1 := mixBlock(hh, lo)
		kk, tl := lo, n
		if n >= 4 {
			hh, kk, tl = h1, uint32(w>>32), n-4
		}
		hh ^= scramble(kk & wordMask[tl&7])
		if tl == 4 {
			hh = bits.RotateLeft32(hh, 13)*5 + 0xe6546b64
		}
		h := fmix32(hh ^ uint32(j-i))
		if byte(w)-'0' < numLim && j-i <= 8 {
			// A name of up to 8 bytes starting with a digit: if all
			// its bytes are digits, its hash is its value plus the
			// seed (hashName). Left-padded with '0' to 8 digits, it
			// is read 8 digits at a time (Lemire's SWAR parse).
			x := w<<(64-8*n) | (swarLo*'0')>>(8*n)
			if x&0xf0f0f0f0f0f0f0f0|(x+0x0606060606060606)&0xf0f0f0f0f0f0f0f0>>4 == swarLo*0x33 {
				x -= swarLo * '0'
				x = x*10 + x>>8
				x = ((x&0x000000ff000000ff)*(100+1000000<<32) + (x>>16&0x000000ff000000ff)*(1+10000<<32)) >> 32
				h = uint32(x) + seed
			}
		}
		// What ends the name is in w: a space or tab is passed over
		// with it, a '|' is left for the next round.
		v := scale
		switch byte(w >> (8 * n)) {
		case ' ', '\t':
			j++
		case ':':
			// scanValue, written out.
			if j+3 > len(line) {
				break loop
			}
			if d, c := line[j+1]-'1', line[j+2]; d < 9 && (c == ' ' || c == '\t') {
				v = float64(d+1) * scale
				j += 3
				break
			}
			// A short decimal (digits, '.', digits) followed by a space
			// or tab: exactly what parseNumber's fast path computes,
			// one exact division by an exact power of ten. Anything
			// else (a sign, an exponent, more than 15 digits, a zero)
			// is the parser's.
			var mant uint64
			nd, frac := 0, -1
			q := j + 1
			for ; q < len(line); q++ {
				c := line[q]
				if c-'0' <= 9 {
					mant = mant*10 + uint64(c-'0')
					nd++
				} else if c == '.' && frac < 0 {
					frac = q
				} else {
					break
				}
			}
			if q >= len(line) || line[q] != ' ' && line[q] != '\t' || nd == 0 || nd > 15 || mant == 0 {
				break loop
			}
			f := float64(mant)
			if frac >= 0 {
				f /= pow10[q-frac-1]
			}
			if v = f * scale; v-v != 0 || v == 0 {
				break loop
			}
			j = q + 1
		}
		i = j
		nf++
		slot := h & mask
		p := (slot * 0x9e3779b1) >> shift
		for {
			e := &ent[p&tmask]
			if e.stamp != stamp {
				*e = slotEntry{stamp: stamp, slot: slot, pos: uint32(n0)}
				hs[n0], vs[n0] = slot, v
				n0++
				break
			}
			if e.slot == slot {
				vs[e.pos] += v
				zeroed = zeroed || vs[e.pos] == 0
				break
			}
			p++
		}
	}
	b.nfeat += nf
	b.zeroed = b.zeroed || zeroed
	b.h, b.v = hs[:n0], vs[:n0]
	return i, stop
}
