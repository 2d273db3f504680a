package hashing

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/sparseson/sparseson/sparse"
)

// VW's own regression test 1 (test/core.vwtest.json in VowpalWabbit/
// vowpal_wabbit: --ngram 3 --skips 1 on train-sets/0001.dat) reports, in
// train-sets/ref/0001.stderr, 290, 608 and 794 features for examples 1, 2
// and 4, whose lines have 50, 103 and 134 features in one namespace: with
// the constant that is 6L − 10 (L unigrams, 2L − 3 bigrams with at most
// one skip, 3L − 8 trigrams with at most one skip in all, 1 constant).
func TestNgramCountsMatchVW(t *testing.T) {
	for _, c := range []struct{ L, want int }{{50, 290}, {103, 608}, {134, 794}} {
		var sb strings.Builder
		sb.WriteString("|features")
		for i := 0; i < c.L; i++ {
			fmt.Fprintf(&sb, " %d:0.5", 13+7*i)
		}
		// 2^30 slots: no two of these few hundred features collide, so the
		// example's size is the number generated.
		ex := mustBuild(t, Config{Bits: 30, Ngrams: []string{"3"}, Skips: []string{"1"}}, sb.String())
		if len(ex.Idx) != c.want {
			t.Errorf("L = %d: %d features, VW reports %d", c.L, len(ex.Idx), c.want)
		}
		if got := float64(c.L) + GramCount(c.L, 3, 1) + 1; got != float64(c.want) {
			t.Errorf("GramCount(%d, 3, 1): total %v, want %d", c.L, got, c.want)
		}
	}
}

// The grams of "a b c d" with --ngram 2 --skips 1 (VW's help: "generalized
// n-skip-k-gram"): ab, bc, cd and the skip-grams ac, bd, each of value 1
// and hashed h_a·27942141 + h_b, named "a^b" in the namespace.
func TestNgramSkipGrams(t *testing.T) {
	b, _ := NewBuilder(Config{Bits: 30, NoConstant: true, Ngrams: []string{"2"}, Skips: []string{"1"}})
	b.SetAudit(true)
	feed(t, b, "|t a:2 b c d")
	ex := newEx()
	if err := b.Finish(ex); err != nil {
		t.Fatal(err)
	}
	ns := nsh("t")
	const m30 = 1<<30 - 1
	hh := func(s string) uint32 { return h(s, ns) }
	want := map[string]uint32{}
	for _, w := range []string{"a", "b", "c", "d"} {
		want["t^"+w] = hh(w) & m30
	}
	for _, g := range [][2]string{{"a", "b"}, {"b", "c"}, {"c", "d"}, {"a", "c"}, {"b", "d"}} {
		want["t^"+g[0]+"^"+g[1]] = (hh(g[0])*quadraticConstant + hh(g[1])) & m30
	}
	got := map[string]uint32{}
	for _, f := range b.Audit() {
		got[f.Name] = f.Slot
		if strings.Count(f.Name, "^") == 2 && f.Value != 1 {
			t.Errorf("%s: value %v, want 1", f.Name, f.Value)
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("grams\n got %v\nwant %v", got, want)
	}
	if len(ex.Idx) != 9 {
		t.Errorf("%d features, want 9", len(ex.Idx))
	}
}

// Per namespace (VW's "--ngram a2"), later entries win, and n-grams are
// features of their namespace for interactions.
func TestNgramPerNamespace(t *testing.T) {
	cfg := Config{Bits: 30, NoConstant: true, Ngrams: []string{"3", "b2"}, Interactions: []string{"ab"}}
	ex := mustBuild(t, cfg, "|a x y z |b u v")
	// a: 3 + 2 bigrams + 1 trigram = 6; b: 2 + 1 = 3; a×b: 18.
	if len(ex.Idx) != 6+3+18 {
		t.Errorf("%d features, want 27", len(ex.Idx))
	}
	if _, err := NewBuilder(Config{Skips: []string{"1"}}); err == nil {
		t.Error("--skips without --ngram accepted")
	}
	for _, bad := range []string{"", "a", "x-1", "99"} {
		if _, err := NewBuilder(Config{Ngrams: []string{bad}}); err == nil {
			t.Errorf("--ngram %q accepted", bad)
		}
	}
}

func TestHashSeed(t *testing.T) {
	const seed = 7
	ex := mustBuild(t, Config{Bits: 30, Seed: seed}, "| a |ns b 12")
	nsSeeded := h("ns", seed)
	want := []uint32{h("a", Murmur3(nil, seed)), h("b", nsSeeded), 12 + nsSeeded, ConstantHash}
	for i := range want {
		want[i] &= 1<<30 - 1
	}
	if fmt.Sprint(ex.Idx) != fmt.Sprint(want) {
		t.Errorf("slots %v, want %v", ex.Idx, want)
	}
	a := Config{Seed: 1}.Fingerprint()
	if a == (Config{}).Fingerprint() {
		t.Error("the seed does not change the fingerprint")
	}
}

// The audit's names and its own enumeration of the interactions reproduce
// the example exactly (after merging), for pairs, triples, self
// interactions, wildcards and n-grams.
func TestAuditMatchesExample(t *testing.T) {
	specs := []string{
		"|a x:2 y |b u v:-1 w |c p q",
		"|a x x y |b u |c p",
		"| s t |a x:0.5 |b u v",
	}
	configs := []Config{
		{Bits: 12, Interactions: []string{"ab", "abc", "aa"}},
		{Bits: 8, Interactions: []string{"::", "a:b"}},
		{Bits: 16, Interactions: []string{"aab", "ba"}, Ngrams: []string{"a2", "b3"}, Skips: []string{"1"}},
		{Bits: 6, NoConstant: true, Interactions: []string{" a"}},
	}
	for ci, cfg := range configs {
		for _, spec := range specs {
			b, err := NewBuilder(cfg)
			if err != nil {
				t.Fatal(err)
			}
			b.SetAudit(true)
			feed(t, b, spec)
			ex := newEx()
			if err := b.Finish(ex); err != nil {
				t.Fatal(err)
			}
			sum := map[uint32]float64{}
			for _, f := range b.Audit() {
				sum[f.Slot] += f.Value
			}
			want := map[uint32]float64{}
			for i, s := range ex.Idx {
				want[s] = ex.Val[i]
			}
			for s, v := range sum {
				if v == 0 {
					delete(sum, s)
				}
			}
			if fmt.Sprint(sortedMap(sum)) != fmt.Sprint(sortedMap(want)) {
				t.Errorf("config %d, %q:\naudit   %v\nexample %v", ci, spec, sortedMap(sum), sortedMap(want))
			}
		}
	}
	b, _ := NewBuilder(Config{Bits: 18, Interactions: []string{"ab"}})
	b.SetAudit(true)
	feed(t, b, "|a x |b y:3 | z")
	b.Finish(newEx())
	var names []string
	for _, f := range b.Audit() {
		names = append(names, f.Name)
	}
	if got := strings.Join(names, " "); got != "a^x b^y z Constant a^x*b^y" {
		t.Errorf("names %q", got)
	}
}

func sortedMap(m map[uint32]float64) []string {
	var out []string
	for s, v := range m {
		out = append(out, fmt.Sprintf("%d:%g", s, v))
	}
	sort.Strings(out)
	return out
}

func newEx() *sparse.Example { return &sparse.Example{} }
