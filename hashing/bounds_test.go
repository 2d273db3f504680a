package hashing

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// guard fails the test if f has not returned within a generous time: the
// cases below were hangs (minutes, or never finishing) before their
// expansion was bounded, and a test must not hang when they come back.
func guard(t *testing.T, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		t.Fatal("did not finish within 2 minutes")
	}
}

// oneFeatureNamespaces is a line of n namespaces with one feature each,
// named by the bytes from '!' on (n ≤ 200 stays clear of ':' and '|' by
// skipping them).
func oneFeatureNamespaces(n int) (string, []byte) {
	var sb strings.Builder
	var names []byte
	for c := 33; len(names) < n; c++ {
		if c == ':' || c == '|' || c == ' ' || c == '\t' {
			continue
		}
		names = append(names, byte(c))
		sb.WriteByte('|')
		sb.WriteByte(byte(c)) // a byte, not the rune %c would write
		sb.WriteString(" x ")
	}
	return sb.String(), names
}

// TestWildcardExpansionBounded: --cubic ::: on one line of 200 one-feature
// namespaces took over a minute (duplicate check by linear scan); it now
// expands to its C(202, 3) terms, and with a lower limit it is refused
// before the expansion with the number of features counted.
func TestWildcardExpansionBounded(t *testing.T) {
	line, _ := oneFeatureNamespaces(200)
	for _, tc := range []struct {
		name  string
		inter []string
		max   int
		terms int    // distinct terms, one feature each, when accepted
		err   string // message suffix, when refused
	}{
		{"cubic", []string{":::"}, 0, 1353400, ""},
		{"quadratic and cubic", []string{"::", ":::"}, 0, 20100 + 1353400, ""},
		{"cubic twice", []string{":::", "::a", ":::"}, 0, 1353400, ""},
		{"cubic over a lowered limit", []string{":::"}, 1 << 20, 0, ": at least 1353601 features with interactions (limit 1048576)"},
		{"quartic", []string{"::::"}, 0, 0, ": at least 68685251 features with interactions (limit 4194304)"},
		// Each term alone within the limit, together over it.
		{"two terms", []string{"::", ":!:"}, 30000, 0, ": more than 30000 interaction terms"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			guard(t, func() {
				b, err := NewBuilder(Config{Interactions: tc.inter, MaxFeatures: tc.max})
				if err != nil {
					t.Fatal(err)
				}
				feed(t, b, line)
				err = b.Finish(newEx())
				switch {
				case tc.err != "":
					if !errors.Is(err, ErrTooManyFeatures) || !strings.HasSuffix(err.Error(), tc.err) {
						t.Errorf("error %v, want one ending %q", err, tc.err)
					}
				case err != nil:
					t.Errorf("refused: %v", err)
				case len(b.terms) != tc.terms:
					t.Errorf("%d terms, want %d", len(b.terms), tc.terms)
				}
			})
		})
	}
}

// refExpand is the wildcard expansion as it was before the hash set: a
// linear scan for an earlier term of the same namespaces. A wildcard term
// naming a namespace absent from the example is left out, as now: all its
// expansions generate nothing, and any later term they would have made a
// duplicate of names the same absent namespace.
func refExpand(inter [][]byte, ns []byte) [][]byte {
	var out, keys [][]byte
	emit := func(t []byte) {
		nt := append([]byte(nil), t...)
		canonicalInPlace(nt)
		key := append([]byte(nil), nt...)
		insertionSort(key)
		for _, k := range keys {
			if string(k) == string(key) {
				return
			}
		}
		keys = append(keys, key)
		out = append(out, nt)
	}
	for _, t := range inter {
		var wpos []int
		absent := false
		for i, c := range t {
			if c == Wildcard {
				wpos = append(wpos, i)
			} else if !slices.Contains(ns, c) {
				absent = true
			}
		}
		if len(wpos) == 0 {
			emit(t)
			continue
		}
		if absent {
			continue
		}
		var rec func(p, from int, cur []byte)
		rec = func(p, from int, cur []byte) {
			if p == len(wpos) {
				emit(cur)
				return
			}
			for k := from; k < len(ns); k++ {
				cur[wpos[p]] = ns[k]
				rec(p+1, k, cur)
			}
		}
		rec(0, 0, append([]byte(nil), t...))
	}
	return out
}

// TestWildcardDedupMatchesScan: the terms kept, and their order, are those
// the linear scan kept.
func TestWildcardDedupMatchesScan(t *testing.T) {
	line := "|a x |b y z |c w |e v"
	present := []byte("abce")
	for _, inter := range [][]string{
		{"::"},
		{"a:", ":a", "::"},
		{"ab", "::", "ba:", ":::"},
		{"d:", "a:", ":d:", "ad"},
		{"aab", ":a:", "::a", "b::"},
		{"::", "::::"},
		{":::", "a::", "ab", ":b"},
	} {
		b, err := NewBuilder(Config{Interactions: inter})
		if err != nil {
			t.Fatal(err)
		}
		feed(t, b, line)
		if err := b.Finish(newEx()); err != nil {
			t.Fatalf("%v: %v", inter, err)
		}
		want := refExpand(b.cfg.inter, present)
		if !reflect.DeepEqual(b.terms, want) {
			t.Errorf("%v: terms %q, want %q", inter, b.terms, want)
		}
	}
}

// TestFeatureCapWhileAdding: features past the limit are counted, not
// kept, so a line of 10^8 words costs no more memory than the limit; the
// message still gives the count.
func TestFeatureCapWhileAdding(t *testing.T) {
	for _, tc := range []struct {
		name   string
		cfg    Config
		n      int
		want   string
		audit  bool
		refuse bool
	}{
		{"at the limit", Config{MaxFeatures: 1000}, 999, "", false, false},
		{"one over", Config{MaxFeatures: 1000}, 1000, ": 1001 features (limit 1000)", false, true},
		{"far over", Config{MaxFeatures: 1000}, 200000, ": 200001 features (limit 1000)", false, true},
		{"far over, no constant", Config{MaxFeatures: 1000, NoConstant: true}, 200000, ": 200000 features (limit 1000)", false, true},
		{"far over, audited", Config{MaxFeatures: 1000}, 200000, ": 200001 features (limit 1000)", true, true},
		{"far over, n-grams", Config{MaxFeatures: 1000, Ngrams: []string{"3"}}, 200000, ": 200001 features (limit 1000)", false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := NewBuilder(tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			b.SetAudit(tc.audit)
			b.Begin()
			b.Namespace([]byte("f"), 1)
			name := []byte("x")
			for i := 0; i < tc.n; i++ {
				b.Feature(name, 1)
			}
			if cap(b.h) > 2*tc.cfg.MaxFeatures || cap(b.v) > 2*tc.cfg.MaxFeatures {
				t.Errorf("kept room for %d features under a limit of %d", cap(b.h), tc.cfg.MaxFeatures)
			}
			if b.aud != nil && len(b.aud.name) > tc.cfg.MaxFeatures {
				t.Errorf("audit kept %d names", len(b.aud.name))
			}
			err = b.Finish(newEx())
			switch {
			case !tc.refuse && err != nil:
				t.Errorf("refused: %v", err)
			case tc.refuse && (!errors.Is(err, ErrTooManyFeatures) || !strings.HasSuffix(err.Error(), tc.want)):
				t.Errorf("error %v, want one ending %q", err, tc.want)
			}
			// The builder is usable again at once.
			feed(t, b, "|f a b")
			if ex := newEx(); b.Finish(ex) != nil || len(ex.Idx) < 2 {
				t.Errorf("next example: %v", ex.Idx)
			}
		})
	}
}

// gramsUnpruned is VW's recursion without the feasibility cut, the
// reference the pruned one must reproduce exactly, order included.
func gramsUnpruned(hs []uint32, left, budget int, mask []int, skips int, out *[]uint32) {
	L := len(hs)
	last := mask[len(mask)-1]
	if left == 0 && last < L {
		for i := 0; i < L-last; i++ {
			h := hs[i]
			for _, off := range mask[1:] {
				h = h*quadraticConstant + hs[i+off]
			}
			*out = append(*out, h)
		}
	}
	if left > 0 {
		gramsUnpruned(hs, left-1, budget, append(mask, last+1+skips), 0, out)
	}
	if budget > 0 && left > 0 {
		gramsUnpruned(hs, left, budget-1, mask, skips+1, out)
	}
}

// TestNgramPruningExact: the grams, in order, are those of the unpruned
// recursion for every small shape, and the count is GramCount's.
func TestNgramPruningExact(t *testing.T) {
	for L := 1; L <= 7; L++ {
		for N := 2; N <= 6; N++ {
			for K := 0; K <= 5; K++ {
				words := make([]string, L)
				for i := range words {
					words[i] = fmt.Sprintf("w%d", i)
				}
				b, err := NewBuilder(Config{Bits: 30, NoConstant: true,
					Ngrams: []string{fmt.Sprint(N)}, Skips: []string{fmt.Sprint(K)}})
				if err != nil {
					t.Fatal(err)
				}
				feed(t, b, "|t "+strings.Join(words, " "))
				if err := b.addGrams(); err != nil {
					t.Fatal(err)
				}
				hs := append([]uint32(nil), b.h[:L]...)
				var want []uint32
				for m := 1; m < N; m++ {
					gramsUnpruned(hs, m, K, []int{0}, 0, &want)
				}
				got := b.h[L:]
				if !slices.Equal(got, want) {
					t.Fatalf("L=%d N=%d K=%d: grams differ from VW's recursion", L, N, K)
				}
				if float64(len(got)) != GramCount(L, N, K) {
					t.Fatalf("L=%d N=%d K=%d: %d grams, GramCount %v", L, N, K, len(got), GramCount(L, N, K))
				}
			}
		}
	}
}

// TestNgramHugeSkips: --ngram 24 --skips 24 on three words never finished
// (2^48 calls to emit 3 grams); the largest settings are answered at once,
// with grams or a refusal that gives the count.
func TestNgramHugeSkips(t *testing.T) {
	for _, tc := range []struct {
		name       string
		words      int
		ngram, sk  string
		max        int
		wantGrams  float64
		wantSuffix string
	}{
		{"24/24 on three words", 3, "24", "24", 0, 4, ""}, // ab bc ac abc
		{"32/32 on three words", 3, "32", "32", 0, 4, ""},
		{"16/16 on ten words", 10, "16", "16", 0, GramCount(10, 16, 16), ""},
		{"32/32 on 40 words", 40, "32", "32", 0, 0, " features with n-grams (limit 4194304)"},
		{"24/24 on 20 words, lowered limit", 20, "24", "24", 1000, 0, " features with n-grams (limit 1000)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			words := make([]string, tc.words)
			for i := range words {
				words[i] = fmt.Sprintf("w%d", i)
			}
			guard(t, func() {
				ex, err := build(t, Config{Bits: 30, NoConstant: true, MaxFeatures: tc.max,
					Ngrams: []string{tc.ngram}, Skips: []string{tc.sk}}, "|t "+strings.Join(words, " "))
				if tc.wantSuffix != "" {
					if !errors.Is(err, ErrTooManyFeatures) || !strings.HasSuffix(err.Error(), tc.wantSuffix) {
						t.Errorf("error %v, want one ending %q", err, tc.wantSuffix)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if got := float64(len(ex.Idx)); got != float64(tc.words)+tc.wantGrams {
					t.Errorf("%v features, want %v", got, float64(tc.words)+tc.wantGrams)
				}
			})
		})
	}
}

// BenchmarkWildcardCubic is one line of 200 one-feature namespaces under
// --cubic ::: (1,353,400 terms), at -b 18.
func BenchmarkWildcardCubic(b *testing.B) {
	line, _ := oneFeatureNamespaces(200)
	bd, err := NewBuilder(Config{Interactions: []string{":::"}})
	if err != nil {
		b.Fatal(err)
	}
	ex := newEx()
	b.ReportAllocs()
	for b.Loop() {
		feed(b, bd, line)
		if err := bd.Finish(ex); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNgramSkips is --ngram 8 --skips 8 on a line of 12 words.
func BenchmarkNgramSkips(b *testing.B) {
	bd, err := NewBuilder(Config{Ngrams: []string{"8"}, Skips: []string{"8"}})
	if err != nil {
		b.Fatal(err)
	}
	ex := newEx()
	b.ReportAllocs()
	for b.Loop() {
		feed(b, bd, "|t a b c d e f g h i j k l")
		if err := bd.Finish(ex); err != nil {
			b.Fatal(err)
		}
	}
}
