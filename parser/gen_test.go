package parser

import (
	"math/rand/v2"
	"strconv"
)

// newsLike generates deterministic text shaped like news20: about 130
// distinct words per line drawn with Zipf-like frequencies from a 100k
// vocabulary, with small integer counts, and a ±1 label. It returns the
// VW text and its LIBSVM twin (word i is index i+1).
func newsLike(lines int, seed uint64) (vw, svm []byte) {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	vocab := vocabulary(100000)
	z := rand.NewZipf(r, 1.1, 8, uint64(len(vocab)-1))
	counts := make(map[uint64]int)
	var order []uint64
	for l := 0; l < lines; l++ {
		clear(counts)
		order = order[:0]
		want := 90 + r.IntN(80)
		for len(order) < want {
			w := z.Uint64()
			if counts[w] == 0 {
				order = append(order, w)
			}
			counts[w]++
		}
		label := "1"
		if r.IntN(2) == 0 {
			label = "-1"
		}
		vw = append(vw, label...)
		vw = append(vw, " |f"...)
		svm = append(svm, label...)
		for _, w := range order {
			vw = append(vw, ' ')
			vw = append(vw, vocab[w]...)
			if c := counts[w]; c > 1 {
				vw = append(vw, ':')
				vw = strconv.AppendInt(vw, int64(c), 10)
			}
		}
		// LIBSVM lists indices in increasing order.
		sortU64(order)
		for _, w := range order {
			svm = append(svm, ' ')
			svm = strconv.AppendUint(svm, w+1, 10)
			svm = append(svm, ':')
			svm = strconv.AppendInt(svm, int64(counts[w]), 10)
		}
		vw = append(vw, '\n')
		svm = append(svm, '\n')
	}
	return vw, svm
}

func vocabulary(n int) []string {
	r := rand.New(rand.NewPCG(42, 43))
	const letters = "etaoinshrdlucmfwypvbgkjqxz"
	seen := make(map[string]bool, n)
	out := make([]string, 0, n)
	for len(out) < n {
		l := 2 + r.IntN(4) + r.IntN(5)
		b := make([]byte, l)
		for i := range b {
			// Skewed towards common letters, like words.
			b[i] = letters[min(r.IntN(26), r.IntN(26))]
		}
		if s := string(b); !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

func sortU64(a []uint64) {
	// Insertion sort is plenty for ~130 elements.
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j] < a[j-1]; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}
