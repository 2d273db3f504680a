package hashing

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/sparseson/sparseson/sparse"
)

// build hashes a tiny VW-like feature list: tokens "|ns", "|ns:scale",
// "|" (default namespace), "name" and "name:value".
func build(t testing.TB, cfg Config, spec string) (*sparse.Example, error) {
	t.Helper()
	b, err := NewBuilder(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ex := &sparse.Example{}
	feed(t, b, spec)
	err = b.Finish(ex)
	return ex, err
}

func feed(t testing.TB, b *Builder, spec string) {
	b.Begin()
	for _, tok := range strings.Fields(spec) {
		if tok[0] == '|' {
			name, scale := tok[1:], 1.0
			if i := strings.IndexByte(name, ':'); i >= 0 {
				s, err := strconv.ParseFloat(name[i+1:], 64)
				if err != nil {
					t.Fatal(err)
				}
				name, scale = name[:i], s
			}
			b.Namespace([]byte(name), scale)
			continue
		}
		name, val := tok, 1.0
		if i := strings.IndexByte(tok, ':'); i >= 0 {
			v, err := strconv.ParseFloat(tok[i+1:], 64)
			if err != nil {
				t.Fatal(err)
			}
			name, val = tok[:i], v
		}
		b.Feature([]byte(name), val)
	}
}

func mustBuild(t testing.TB, cfg Config, spec string) *sparse.Example {
	t.Helper()
	ex, err := build(t, cfg, spec)
	if err != nil {
		t.Fatalf("%q: %v", spec, err)
	}
	return ex
}

func h(name string, seed uint32) uint32 { return HashString([]byte(name), seed) }
func nsh(name string) uint32            { return h(name, 0) }

const mask18 = 1<<18 - 1

func TestKnownSlots(t *testing.T) {
	ex := mustBuild(t, Config{}, "| a b c")
	want := []uint32{92594, 163331, 185951, 116060}
	if !reflect.DeepEqual(ex.Idx, want) {
		t.Fatalf("Idx = %v, want %v", ex.Idx, want)
	}
	if !reflect.DeepEqual(ex.Val, []float64{1, 1, 1, 1}) {
		t.Fatalf("Val = %v", ex.Val)
	}
	// Features before any Namespace call are in the default namespace too.
	ex2 := mustBuild(t, Config{}, "a b c")
	if !reflect.DeepEqual(ex2.Idx, want) {
		t.Fatalf("implicit default namespace: Idx = %v, want %v", ex2.Idx, want)
	}
}

func TestNamedNamespaceAndDigits(t *testing.T) {
	fh := nsh("f")
	ex := mustBuild(t, Config{NoConstant: true}, "|f word:2 17 0042")
	want := []uint32{h("word", fh) & mask18, (fh + 17) & mask18, (fh + 42) & mask18}
	if !reflect.DeepEqual(ex.Idx, want) {
		t.Fatalf("Idx = %v, want %v", ex.Idx, want)
	}
	if !reflect.DeepEqual(ex.Val, []float64{2, 1, 1}) {
		t.Fatalf("Val = %v", ex.Val)
	}
	// Numeric namespace names follow the digit rule as well.
	ex = mustBuild(t, Config{NoConstant: true}, "|12 x")
	if ex.Idx[0] != h("x", 12)&mask18 {
		t.Fatalf("numeric namespace: got %d", ex.Idx[0])
	}
}

func TestHashAllOption(t *testing.T) {
	fh := Murmur3([]byte("f"), 0)
	ex := mustBuild(t, Config{NoConstant: true, HashAll: true}, "|f 17")
	if want := Murmur3([]byte("17"), fh) & mask18; ex.Idx[0] != want {
		t.Fatalf("got %d, want %d", ex.Idx[0], want)
	}
	ex = mustBuild(t, Config{NoConstant: true, HashAll: true}, "|12 x")
	if want := Murmur3([]byte("x"), Murmur3([]byte("12"), 0)) & mask18; ex.Idx[0] != want {
		t.Fatalf("namespace: got %d, want %d", ex.Idx[0], want)
	}
}

func TestAnonymousFeatures(t *testing.T) {
	fh, gh := nsh("f"), nsh("g")
	// ":2" style tokens reach the Builder as empty names.
	b, _ := NewBuilder(Config{NoConstant: true})
	b.Begin()
	b.Namespace([]byte("f"), 1)
	b.Feature(nil, 2)
	b.Feature(nil, 3)
	b.Namespace([]byte("g"), 1)
	b.Feature(nil, 4)
	b.Namespace(nil, 1)
	b.Feature(nil, 5)
	var ex sparse.Example
	if err := b.Finish(&ex); err != nil {
		t.Fatal(err)
	}
	want := []uint32{fh & mask18, (fh + 1) & mask18, (gh + 2) & mask18, 3}
	if !reflect.DeepEqual(ex.Idx, want) || !reflect.DeepEqual(ex.Val, []float64{2, 3, 4, 5}) {
		t.Fatalf("got %v %v, want %v", ex.Idx, ex.Val, want)
	}
	// The counter restarts with each example.
	b.Begin()
	b.Namespace([]byte("f"), 1)
	b.Feature(nil, 1)
	if err := b.Finish(&ex); err != nil {
		t.Fatal(err)
	}
	if ex.Idx[0] != fh&mask18 {
		t.Fatalf("second example: got %d, want %d", ex.Idx[0], fh&mask18)
	}
}

func TestConstant(t *testing.T) {
	ex := mustBuild(t, Config{}, "")
	if !reflect.DeepEqual(ex.Idx, []uint32{116060}) || ex.Val[0] != 1 {
		t.Fatalf("constant only: %v %v", ex.Idx, ex.Val)
	}
	ex = mustBuild(t, Config{NoConstant: true}, "")
	if len(ex.Idx) != 0 {
		t.Fatalf("NoConstant: %v", ex.Idx)
	}
	ex = mustBuild(t, Config{Bits: 24}, "")
	if ex.Idx[0] != ConstantHash&(1<<24-1) {
		t.Fatalf("24 bits: %v", ex.Idx)
	}
}

func TestMask(t *testing.T) {
	for bits := uint(1); bits <= 30; bits++ {
		ex := mustBuild(t, Config{Bits: bits, Interactions: []string{"ab"}},
			"|a x y z w |b p q r 12345678")
		for _, i := range ex.Idx {
			if i >= 1<<bits {
				t.Fatalf("bits %d: slot %d out of range", bits, i)
			}
		}
		checkInvariants(t, ex, bits)
	}
}

func TestMergeDuplicates(t *testing.T) {
	fh := nsh("f")
	a, bb, c := h("a", fh)&mask18, h("b", fh)&mask18, h("c", fh)&mask18
	tests := []struct {
		spec string
		idx  []uint32
		val  []float64
	}{
		{"|f a b a:2", []uint32{a, bb}, []float64{3, 1}},
		{"|f a b a:-1 c", []uint32{bb, c}, []float64{1, 1}}, // exact zero dropped, order kept
		{"|f a:0.5 a:0.25 b:-2 b:2 a", []uint32{a}, []float64{1.75}},
		{"|f a:0 b", []uint32{bb}, []float64{1}}, // zero value never enters
		{"|f:0 a b", nil, nil},                   // scale 0 removes the namespace
	}
	for _, tc := range tests {
		ex := mustBuild(t, Config{NoConstant: true}, tc.spec)
		if len(ex.Idx) == 0 && len(tc.idx) == 0 {
			continue
		}
		if !reflect.DeepEqual(ex.Idx, tc.idx) || !reflect.DeepEqual(ex.Val, tc.val) {
			t.Errorf("%q: got %v %v, want %v %v", tc.spec, ex.Idx, ex.Val, tc.idx, tc.val)
		}
	}
}

func TestNamespaceScale(t *testing.T) {
	ex := mustBuild(t, Config{NoConstant: true, Interactions: []string{"ab"}}, "|a:2.5 x:2 |b:-1 y:3")
	// x, y, then x·y.
	want := []float64{5, -3, -15}
	if !reflect.DeepEqual(ex.Val, want) {
		t.Fatalf("Val = %v, want %v", ex.Val, want)
	}
}

func pair(h1, h2 uint32) uint32 { return h1*fnvPrime ^ h2 }

func TestInteractionPair(t *testing.T) {
	ah, bh := nsh("alpha"), nsh("beta")
	ex := mustBuild(t, Config{NoConstant: true, Interactions: []string{"ab"}}, "|alpha x y:2 |beta z:3")
	x, y, z := h("x", ah), h("y", ah), h("z", bh)
	want := []uint32{x & mask18, y & mask18, z & mask18, pair(x, z) & mask18, pair(y, z) & mask18}
	if !reflect.DeepEqual(ex.Idx, want) {
		t.Fatalf("Idx = %v, want %v", ex.Idx, want)
	}
	if !reflect.DeepEqual(ex.Val, []float64{1, 2, 3, 3, 6}) {
		t.Fatalf("Val = %v", ex.Val)
	}
	// The default namespace is ' '.
	ex = mustBuild(t, Config{NoConstant: true, Interactions: []string{" b"}}, "| x |b z")
	if got, want := ex.Idx[2], pair(h("x", 0), h("z", nsh("b")))&mask18; got != want {
		t.Fatalf("default namespace interaction: %d, want %d", got, want)
	}
}

func TestInteractionSelfCount(t *testing.T) {
	for n := 1; n <= 12; n++ {
		var sb strings.Builder
		sb.WriteString("|a")
		for i := 0; i < n; i++ {
			fmt.Fprintf(&sb, " w%d", i)
		}
		ex := mustBuild(t, Config{NoConstant: true, Bits: 30, Interactions: []string{"aa"}}, sb.String())
		if got, want := len(ex.Idx), n+n*(n+1)/2; got != want {
			t.Fatalf("n=%d: %d features, want %d", n, got, want)
		}
		// Cubic self-interaction: multisets of size 3.
		ex = mustBuild(t, Config{NoConstant: true, Bits: 30, Interactions: []string{"aaa"}}, sb.String())
		if got, want := len(ex.Idx), n+n*(n+1)*(n+2)/6; got != want {
			t.Fatalf("n=%d cubic: %d features, want %d", n, got, want)
		}
	}
}

func TestInteractionCubic(t *testing.T) {
	ex := mustBuild(t, Config{NoConstant: true, Bits: 30, Interactions: []string{"abc"}}, "|a x:2 |b y:3 |c z:5 w")
	x, y := h("x", nsh("a")), h("y", nsh("b"))
	z, w := h("z", nsh("c")), h("w", nsh("c"))
	m := uint32(1<<30 - 1)
	got := ex.Idx[4:]
	want := []uint32{pair(pair(x, y), z) & m, pair(pair(x, y), w) & m}
	if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(ex.Val[4:], []float64{30, 6}) {
		t.Fatalf("got %v %v, want %v [30 6]", got, ex.Val[4:], want)
	}
}

func TestInteractionDedupAndCanonical(t *testing.T) {
	spec := "|a x y |b z w v"
	one := mustBuild(t, Config{Interactions: []string{"ab"}}, spec)
	two := mustBuild(t, Config{Interactions: []string{"ab", "ba"}}, spec)
	if !reflect.DeepEqual(one, two) {
		t.Fatalf("-q ab -q ba should equal -q ab:\n%v\n%v", one, two)
	}
	if a, b := (Config{Interactions: []string{"ab"}}).Fingerprint(), (Config{Interactions: []string{"ab", "ba"}}).Fingerprint(); a != b {
		t.Fatalf("fingerprints differ: %s / %s", a, b)
	}
	// "aba" is reordered to "aab" so that the self-combination rule applies.
	x := mustBuild(t, Config{Interactions: []string{"aba"}}, spec)
	y := mustBuild(t, Config{Interactions: []string{"aab"}}, spec)
	if !reflect.DeepEqual(x, y) {
		t.Fatal("aba != aab")
	}
}

func TestInteractionWildcard(t *testing.T) {
	spec := "|a x y |b z w v |c q"
	cfgs := []struct {
		wild  []string
		equiv []string
	}{
		{[]string{"a:"}, []string{"aa", "ab", "ac"}},
		{[]string{":a"}, []string{"aa", "ba", "ca"}},
		{[]string{"::"}, []string{"aa", "ab", "ac", "bb", "bc", "cc"}},
		{[]string{"ab", "::"}, []string{"ab", "aa", "ac", "bb", "bc", "cc"}},
		{[]string{"a::"}, []string{"aaa", "aab", "aac", "abb", "abc", "acc"}},
	}
	for _, tc := range cfgs {
		got := mustBuild(t, Config{Bits: 30, Interactions: tc.wild}, spec)
		want := mustBuild(t, Config{Bits: 30, Interactions: tc.equiv}, spec)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%v: got %d features, want %d (as %v)", tc.wild, len(got.Idx), len(want.Idx), tc.equiv)
		}
	}
	// Wildcards only see the namespaces of the example.
	got := mustBuild(t, Config{Interactions: []string{"::"}}, "|b z")
	want := mustBuild(t, Config{Interactions: []string{"bb"}}, "|b z")
	if !reflect.DeepEqual(got, want) {
		t.Errorf("single namespace: %v != %v", got, want)
	}
}

func TestIgnoreKeep(t *testing.T) {
	spec := "|apple x |banana y | z |cherry w"
	full := mustBuild(t, Config{NoConstant: true}, spec)
	if len(full.Idx) != 4 {
		t.Fatalf("full: %v", full.Idx)
	}
	ign := mustBuild(t, Config{NoConstant: true, Ignore: "b "}, spec)
	if !reflect.DeepEqual(ign.Idx, []uint32{full.Idx[0], full.Idx[3]}) {
		t.Fatalf("ignore: %v", ign.Idx)
	}
	keep := mustBuild(t, Config{NoConstant: true, Keep: "c"}, spec)
	if !reflect.DeepEqual(keep.Idx, []uint32{full.Idx[3]}) {
		t.Fatalf("keep: %v", keep.Idx)
	}
	// Ignored namespaces are gone before interactions; the constant stays.
	q := mustBuild(t, Config{Ignore: "a", Interactions: []string{"ab"}}, spec)
	if !reflect.DeepEqual(q.Idx, []uint32{full.Idx[1], full.Idx[2], full.Idx[3], 116060}) {
		t.Fatalf("ignore + interactions: %v", q.Idx)
	}
	k := mustBuild(t, Config{Keep: "x"}, spec)
	if !reflect.DeepEqual(k.Idx, []uint32{116060}) {
		t.Fatalf("keep nothing: %v", k.Idx)
	}
}

func TestMaxFeatures(t *testing.T) {
	var sb strings.Builder
	sb.WriteString("|a")
	for i := 0; i < 100; i++ {
		fmt.Fprintf(&sb, " w%d", i)
	}
	spec := sb.String()
	// 100 + 1 + 100·101/2 = 5151
	if _, err := build(t, Config{Interactions: []string{"aa"}, MaxFeatures: 5151}, spec); err != nil {
		t.Fatalf("at the limit: %v", err)
	}
	_, err := build(t, Config{Interactions: []string{"aa"}, MaxFeatures: 5150}, spec)
	if !errors.Is(err, ErrTooManyFeatures) || !strings.Contains(err.Error(), "5151 features with interactions (limit 5150)") {
		t.Fatalf("over the limit: %v", err)
	}
	// Without interactions the message does not blame them.
	_, err = build(t, Config{MaxFeatures: 100}, spec)
	if !errors.Is(err, ErrTooManyFeatures) || !strings.HasSuffix(err.Error(), ": 101 features (limit 100)") {
		t.Fatalf("over the limit without interactions: %v", err)
	}
	_, err = build(t, Config{Ngrams: []string{"2"}, MaxFeatures: 150}, spec)
	if !errors.Is(err, ErrTooManyFeatures) || !strings.HasSuffix(err.Error(), ": 200 features with n-grams (limit 150)") {
		t.Fatalf("over the limit with n-grams: %v", err)
	}
	// A huge wildcard expansion is caught before it is generated.
	_, err = build(t, Config{Interactions: []string{"::::"}, MaxFeatures: 1000}, spec)
	if !errors.Is(err, ErrTooManyFeatures) {
		t.Fatalf("wildcard: %v", err)
	}
}

func TestConfigValidate(t *testing.T) {
	bad := []Config{
		{Bits: 31},
		{MaxFeatures: -1},
		{Interactions: []string{"a"}},
		{Interactions: []string{""}},
		{Interactions: []string{strings.Repeat("a", 33)}},
	}
	for _, c := range bad {
		if c.Validate() == nil {
			t.Errorf("%+v: want error", c)
		}
		if _, err := NewBuilder(c); err == nil {
			t.Errorf("%+v: NewBuilder accepted it", c)
		}
	}
	if (Config{}).Fingerprint() != DefaultConfig().Fingerprint() {
		t.Error("zero config and DefaultConfig differ")
	}
	seen := map[string]Config{}
	for _, c := range []Config{
		{}, {Bits: 20}, {NoConstant: true}, {HashAll: true}, {Interactions: []string{"ab"}},
		{Interactions: []string{"abc"}}, {Ignore: "a"}, {Keep: "a"}, {MaxFeatures: 10},
	} {
		fp := c.Fingerprint()
		if prev, ok := seen[fp]; ok {
			t.Errorf("%+v and %+v share fingerprint %s", c, prev, fp)
		}
		seen[fp] = c
	}
	if (Config{Ignore: "ba"}).Fingerprint() != (Config{Ignore: "aab"}).Fingerprint() {
		t.Error("ignore sets should be canonical")
	}
}

func TestNonFinite(t *testing.T) {
	b, _ := NewBuilder(Config{})
	var ex sparse.Example
	b.Begin()
	b.Feature([]byte("x"), 1e308)
	b.Namespace([]byte("a"), 1e308)
	b.Feature([]byte("x"), 1e308) // overflows to +Inf when scaled
	if err := b.Finish(&ex); err == nil {
		t.Fatal("want error for infinite value")
	}
	// The error does not leak into the next example.
	b.Begin()
	b.Feature([]byte("x"), 1)
	if err := b.Finish(&ex); err != nil {
		t.Fatal(err)
	}
}

// reference computes what the Builder should produce, the slow and obvious
// way, for configs without wildcards.
func reference(cfg Config, spec string) *sparse.Example {
	n, _ := cfg.normalize()
	type feat struct {
		h uint32
		v float64
	}
	groups := map[byte][]feat{}
	var base []feat
	var nsHash uint32
	var nsChar byte = ' '
	scale := 1.0
	for _, tok := range strings.Fields(spec) {
		if tok[0] == '|' {
			name := tok[1:]
			scale = 1
			if i := strings.IndexByte(name, ':'); i >= 0 {
				scale, _ = strconv.ParseFloat(name[i+1:], 64)
				name = name[:i]
			}
			nsHash, nsChar = 0, ' '
			if name != "" {
				nsHash, nsChar = HashString([]byte(name), 0), name[0]
			}
			continue
		}
		name, val := tok, 1.0
		if i := strings.IndexByte(tok, ':'); i >= 0 {
			val, _ = strconv.ParseFloat(tok[i+1:], 64)
			name = tok[:i]
		}
		if n.dropped[nsChar] || val*scale == 0 {
			continue
		}
		f := feat{HashString([]byte(name), nsHash), val * scale}
		base = append(base, f)
		groups[nsChar] = append(groups[nsChar], f)
	}
	all := append([]feat(nil), base...)
	if !cfg.NoConstant {
		all = append(all, feat{ConstantHash, 1})
	}
	for _, term := range n.inter {
		var rec func(p, from int, h uint32, v float64)
		rec = func(p, from int, h uint32, v float64) {
			if p == len(term) {
				all = append(all, feat{h, v})
				return
			}
			g := groups[term[p]]
			for i := from; i < len(g); i++ {
				nh, nv := g[i].h, v*g[i].v
				if p > 0 {
					nh ^= h * fnvPrime
				}
				next := 0
				if p+1 < len(term) && term[p+1] == term[p] {
					next = i
				}
				rec(p+1, next, nh, nv)
			}
		}
		rec(0, 0, 0, 1)
	}
	ex := &sparse.Example{}
	pos := map[uint32]int{}
	for _, f := range all {
		if f.v == 0 {
			continue
		}
		s := f.h & n.mask
		if p, ok := pos[s]; ok {
			ex.Val[p] += f.v
			continue
		}
		pos[s] = len(ex.Idx)
		ex.Idx = append(ex.Idx, s)
		ex.Val = append(ex.Val, f.v)
	}
	j := 0
	for i := range ex.Idx {
		if ex.Val[i] != 0 {
			ex.Idx[j], ex.Val[j] = ex.Idx[i], ex.Val[i]
			j++
		}
	}
	ex.Idx, ex.Val = ex.Idx[:j], ex.Val[:j]
	return ex
}

func TestAgainstReference(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	b := map[string]*Builder{}
	for iter := 0; iter < 2000; iter++ {
		var sb strings.Builder
		for k := r.IntN(5); k >= 0; k-- {
			ns := []string{"|a", "|b", "|", "|c:2", "|a:-0.5", "|ab", "|7"}[r.IntN(7)]
			sb.WriteString(ns)
			for f := r.IntN(6); f > 0; f-- {
				fmt.Fprintf(&sb, " %s:%d", []string{"x", "y", "z", "1", "22", "w"}[r.IntN(6)], r.IntN(5)-2)
			}
			sb.WriteByte(' ')
		}
		spec := sb.String()
		cfg := Config{Bits: uint(1 + r.IntN(12))}
		cfg.NoConstant = r.IntN(2) == 0
		for k := r.IntN(3); k > 0; k-- {
			L := 2 + r.IntN(3)
			term := make([]byte, L)
			for i := range term {
				term[i] = "ab 7c"[r.IntN(5)]
			}
			cfg.Interactions = append(cfg.Interactions, string(term))
		}
		if r.IntN(4) == 0 {
			cfg.Ignore = "b"
		}
		want := reference(cfg, spec)
		// Reuse one Builder per config to exercise buffer reuse.
		key := cfg.Fingerprint()
		bd := b[key]
		if bd == nil {
			bd, _ = NewBuilder(cfg)
			b[key] = bd
		}
		var got sparse.Example
		feed(t, bd, spec)
		if err := bd.Finish(&got); err != nil {
			t.Fatal(err)
		}
		if len(got.Idx) == 0 && len(want.Idx) == 0 {
			continue
		}
		if !reflect.DeepEqual(got.Idx, want.Idx) || !reflect.DeepEqual(got.Val, want.Val) {
			t.Fatalf("%+v %q:\ngot  %v %v\nwant %v %v", cfg, spec, got.Idx, got.Val, want.Idx, want.Val)
		}
		checkInvariants(t, &got, cfg.Bits)
	}
}

func checkInvariants(t testing.TB, ex *sparse.Example, bits uint) {
	t.Helper()
	if len(ex.Idx) != len(ex.Val) {
		t.Fatalf("len(Idx)=%d len(Val)=%d", len(ex.Idx), len(ex.Val))
	}
	seen := map[uint32]bool{}
	for i, s := range ex.Idx {
		if s >= 1<<bits {
			t.Fatalf("slot %d ≥ 2^%d", s, bits)
		}
		if seen[s] {
			t.Fatalf("duplicate slot %d", s)
		}
		seen[s] = true
		if ex.Val[i] == 0 || !finite(ex.Val[i]) {
			t.Fatalf("bad value %v", ex.Val[i])
		}
	}
}

func newsLine() string {
	r := rand.New(rand.NewPCG(5, 6))
	var sb strings.Builder
	sb.WriteString("|f")
	for i := 0; i < 130; i++ {
		fmt.Fprintf(&sb, " w%d", r.IntN(100000))
		if r.IntN(3) == 0 {
			fmt.Fprintf(&sb, ":%d", 2+r.IntN(5))
		}
	}
	return sb.String()
}

func TestBuilderNoAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are meaningless under the race detector")
	}
	for _, cfg := range []Config{{}, {Interactions: []string{"ff"}}, {Interactions: []string{"f:", "fff"}, MaxFeatures: 1 << 24}} {
		b, _ := NewBuilder(cfg)
		spec := newsLine()
		var ex sparse.Example
		feed(t, b, spec)
		_ = b.Finish(&ex)
		toks := strings.Fields(spec)
		names := make([][]byte, len(toks))
		for i, tk := range toks {
			names[i] = []byte(strings.SplitN(tk, ":", 2)[0])
		}
		allocs := testing.AllocsPerRun(20, func() {
			b.Begin()
			b.Namespace(names[0][1:], 1)
			for _, n := range names[1:] {
				b.Feature(n, 2)
			}
			if err := b.Finish(&ex); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Errorf("%v: %v allocs per example", cfg.Interactions, allocs)
		}
	}
}

// TestScanVWNoAllocs: once its buffers have grown, the builder takes a
// line through ScanVW without allocating.
func TestScanVWNoAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are meaningless under the race detector")
	}
	b, _ := NewBuilder(Config{})
	line := []byte(newsLine()[3:])
	var ex sparse.Example
	allocs := testing.AllocsPerRun(20, func() {
		b.Begin()
		b.Namespace([]byte("f"), 1)
		if i := b.ScanVW(line, 0); i < len(line)-8 {
			t.Fatalf("ScanVW stopped at %d of %d: %q", i, len(line), line[i:])
		}
		if err := b.Finish(&ex); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 || len(ex.Idx) < 10 {
		t.Errorf("%v allocs per example, %d features", allocs, len(ex.Idx))
	}
}

// BenchmarkScanVW is the VW parser's per-feature path on a news20-like
// line: tokenising, hashing and merging slots.
func BenchmarkScanVW(b *testing.B) {
	bd, _ := NewBuilder(Config{})
	line := []byte(newsLine()[3:])
	ns := []byte("f")
	var ex sparse.Example
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for b.Loop() {
		bd.Begin()
		bd.Namespace(ns, 1)
		bd.ScanVW(line, 0)
		if err := bd.Finish(&ex); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBuilder(b *testing.B) {
	for _, bc := range []struct {
		name string
		cfg  Config
	}{
		{"plain", Config{}},
		{"q_ff", Config{Interactions: []string{"ff"}}},
		{"ngram2_skips1", Config{Ngrams: []string{"2"}, Skips: []string{"1"}}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			bd, _ := NewBuilder(bc.cfg)
			toks := strings.Fields(newsLine())[1:]
			names := make([][]byte, len(toks))
			vals := make([]float64, len(toks))
			for i, tk := range toks {
				p := strings.SplitN(tk, ":", 2)
				names[i] = []byte(p[0])
				vals[i] = 1
				if len(p) == 2 {
					vals[i], _ = strconv.ParseFloat(p[1], 64)
				}
			}
			ns := []byte("f")
			var ex sparse.Example
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				bd.Begin()
				bd.Namespace(ns, 1)
				for j, n := range names {
					bd.Feature(n, vals[j])
				}
				if err := bd.Finish(&ex); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "examples/s")
		})
	}
}
