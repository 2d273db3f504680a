package hashing

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
