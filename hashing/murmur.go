package hashing

import (
	"encoding/binary"
	"math/bits"
)

const (
	murmurC1 = 0xcc9e2d51
	murmurC2 = 0x1b873593
)

// Murmur3 returns the 32-bit x86 MurmurHash3 of data with the given seed.
func Murmur3(data []byte, seed uint32) uint32 {
	h := seed
	n := len(data)
	p := data
	for len(p) >= 4 {
		k := binary.LittleEndian.Uint32(p)
		p = p[4:]
		h = mixBlock(h, k)
	}
	var k uint32
	switch len(p) {
	case 3:
		k = uint32(p[2])<<16 | uint32(p[1])<<8 | uint32(p[0])
	case 2:
		k = uint32(p[1])<<8 | uint32(p[0])
	case 1:
		k = uint32(p[0])
	}
	if len(p) > 0 {
		h ^= scramble(k)
	}
	return fmix32(h ^ uint32(n))
}

// Murmur3String is Murmur3 for a string; it exists so that callers holding
// a string need not convert it to a byte slice (which would allocate).
func Murmur3String(s string, seed uint32) uint32 {
	h := seed
	n := len(s)
	i := 0
	for ; i+4 <= n; i += 4 {
		k := uint32(s[i]) | uint32(s[i+1])<<8 | uint32(s[i+2])<<16 | uint32(s[i+3])<<24
		h = mixBlock(h, k)
	}
	var k uint32
	switch n - i {
	case 3:
		k = uint32(s[i+2])<<16 | uint32(s[i+1])<<8 | uint32(s[i])
	case 2:
		k = uint32(s[i+1])<<8 | uint32(s[i])
	case 1:
		k = uint32(s[i])
	}
	if n-i > 0 {
		h ^= scramble(k)
	}
	return fmix32(h ^ uint32(n))
}

func fmix32(h uint32) uint32 {
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	h ^= h >> 16
	return h
}

// HashString is VW's default name hash (--hash strings): a non-empty name
// made only of ASCII digits hashes to its decimal value plus seed (computed
// in 64 bits with wraparound, then truncated), any other name to its
// MurmurHash3. The digit rule keeps numeric feature ids (LIBSVM indices)
// spread over consecutive slots, as VW does.
func HashString(name []byte, seed uint32) uint32 {
	if len(name) == 0 {
		return Murmur3(name, seed)
	}
	var d uint64
	for _, c := range name {
		c -= '0'
		if c > 9 {
			return Murmur3(name, seed)
		}
		d = d*10 + uint64(c)
	}
	return uint32(d + uint64(seed))
}

// tailMask[n] keeps the low n bytes of a little-endian word.
var tailMask = [4]uint32{0, 0xff, 0xffff, 0xffffff}

// murmurName is Murmur3 for the hot path of the Builder. Names are short
// and of random length, so the byte-by-byte tail of Murmur3 mispredicts
// often; when the slice's capacity allows, the tail is read as one word
// and masked instead. The bytes read past len(data) are inside the same
// backing array (a parser's line buffer) and do not affect the result.
func murmurName(data []byte, seed uint32) uint32 {
	h := seed
	n := len(data)
	p := data
	for len(p) >= 4 {
		k := binary.LittleEndian.Uint32(p)
		p = p[4:]
		h = mixBlock(h, k)
	}
	if len(p) > 0 {
		var k uint32
		if cap(p) >= 4 {
			k = binary.LittleEndian.Uint32(p[:4]) & tailMask[len(p)&3]
		} else {
			for i := len(p) - 1; i >= 0; i-- {
				k = k<<8 | uint32(p[i])
			}
		}
		h ^= scramble(k)
	}
	return fmix32(h ^ uint32(n))
}

// murmurWord is murmurName of a name of n ≤ 8 bytes held in the low n
// bytes of the little-endian word w (the bytes above are ignored). The
// parser has already loaded that word to find where the name ends;
// hashing it from the register saves reloading the bytes and the loop.
func murmurWord(w uint64, n int, seed uint32) uint32 {
	return fmix32(wordState(seed, w, n) ^ uint32(n))
}

// wordMask[t] keeps the low t ≤ 4 bytes of a block.
var wordMask = [8]uint32{0, 0xff, 0xffff, 0xffffff, 0xffffffff}

// scramble is MurmurHash3's mixing of one 32-bit block before it enters
// the state.
func scramble(k uint32) uint32 {
	k *= murmurC1
	k = bits.RotateLeft32(k, 15)
	return k * murmurC2
}

// mixBlock folds one full 32-bit block into the state h.
func mixBlock(h, k uint32) uint32 {
	h ^= scramble(k)
	h = bits.RotateLeft32(h, 13)
	return h*5 + 0xe6546b64
}
