package parser

import (
	"encoding/binary"
	"math/bits"
)

// SWAR constants: each byte of a word tested at once.
const (
	swarLo = 0x0101010101010101
	swarHi = 0x8080808080808080
)

// delimMask sets the high bit of the lowest byte of w that is a space,
// tab, '|' or ':'. Higher bytes may be flagged spuriously (a borrow from
// the real match ripples up), but the lowest flag is always exact, which is
// all wordEnd needs.
func delimMask(w uint64) uint64 {
	s := w ^ (swarLo * ' ')
	t := w ^ (swarLo * '\t')
	p := w ^ (swarLo * '|')
	c := w ^ (swarLo * ':')
	return (((s - swarLo) &^ s) | ((t - swarLo) &^ t) | ((p - swarLo) &^ p) | ((c - swarLo) &^ c)) & swarHi
}

// wordEnd returns the index of the first space, tab, '|' or ':' in line at
// or after i, or len(line). Feature names are short, so testing eight bytes
// per step finishes most of them in one or two steps.
func wordEnd(line []byte, i int) int {
	for i+8 <= len(line) {
		if m := delimMask(binary.LittleEndian.Uint64(line[i:])); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
		i += 8
	}
	for i < len(line) && byteClass[line[i]] == clsWord {
		i++
	}
	return i
}
