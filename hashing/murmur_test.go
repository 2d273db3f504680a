package hashing

import (
	"math/rand/v2"
	"testing"
)

func TestMurmur3KnownAnswers(t *testing.T) {
	tests := []struct {
		in   string
		seed uint32
		want uint32
	}{
		{"test", 0, 3127628307},
		{"t", 0, 3397902157},
		{"test", 25436347, 1661171760},
		{"", 0, 0},
	}
	for _, tc := range tests {
		if got := Murmur3([]byte(tc.in), tc.seed); got != tc.want {
			t.Errorf("Murmur3(%q, %d) = %d, want %d", tc.in, tc.seed, got, tc.want)
		}
		if got := Murmur3String(tc.in, tc.seed); got != tc.want {
			t.Errorf("Murmur3String(%q, %d) = %d, want %d", tc.in, tc.seed, got, tc.want)
		}
	}
}

func TestMurmur3StringMatchesBytes(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 40; n++ {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		seed := r.Uint32()
		if x, y := Murmur3(b, seed), Murmur3String(string(b), seed); x != y {
			t.Fatalf("len %d: bytes %d != string %d", n, x, y)
		}
		// murmurName, with and without spare capacity after the name.
		padded := append(append([]byte(nil), b...), 0xAA, 0xBB, 0xCC, 0xDD)
		for _, in := range [][]byte{b[:n:n], padded[:n]} {
			if x, y := Murmur3(b, seed), murmurName(in, seed); x != y {
				t.Fatalf("len %d cap %d: murmurName %d, want %d", n, cap(in), y, x)
			}
		}
	}
}

func TestHashString(t *testing.T) {
	tests := []struct {
		in   string
		seed uint32
		want uint32
	}{
		{"0", 0, 0},
		{"123", 0, 123},
		{"123", 7, 130},
		{"007", 1, 8},
		{"4294967296", 5, 5},           // 2^32 truncates away
		{"18446744073709551617", 3, 4}, // 2^64+1 wraps in 64 bits
		{"4294967295", 1, 0},           // seed addition wraps too
		{"12a", 0, Murmur3([]byte("12a"), 0)},
		{"-1", 0, Murmur3([]byte("-1"), 0)},
		{"1.5", 9, Murmur3([]byte("1.5"), 9)},
		{"", 4, Murmur3(nil, 4)},
		{"a", 0, Murmur3([]byte("a"), 0)},
	}
	for _, tc := range tests {
		if got := HashString([]byte(tc.in), tc.seed); got != tc.want {
			t.Errorf("HashString(%q, %d) = %d, want %d", tc.in, tc.seed, got, tc.want)
		}
	}
}

var sink uint32

func BenchmarkMurmur3(b *testing.B) {
	for _, n := range []int{4, 7, 16, 64} {
		data := make([]byte, n)
		for i := range data {
			data[i] = byte('a' + i%26)
		}
		b.Run(itoa(n), func(b *testing.B) {
			b.SetBytes(int64(n))
			for i := 0; i < b.N; i++ {
				sink += Murmur3(data, uint32(i))
			}
		})
	}
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}
