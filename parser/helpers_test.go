package parser

import (
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/sparseson/sparseson/hashing"
	"github.com/sparseson/sparseson/sparse"
)

// hashSpec builds the features of an example straight through the hashing
// package from a spec of space-separated tokens: "|ns", "|ns:scale", "|"
// for the default namespace, "name", "name:value". It is the expected
// output the parsers are compared with, independent of their tokenizer.
func hashSpec(t testing.TB, cfg hashing.Config, spec string) sparse.Example {
	t.Helper()
	b, err := hashing.NewBuilder(cfg)
	if err != nil {
		t.Fatal(err)
	}
	b.Begin()
	for _, tok := range strings.Fields(spec) {
		if tok[0] == '|' {
			name, scale := tok[1:], 1.0
			if i := strings.IndexByte(name, ':'); i >= 0 {
				scale, _ = strconv.ParseFloat(name[i+1:], 64)
				name = name[:i]
			}
			b.Namespace([]byte(name), scale)
			continue
		}
		name, val := tok, 1.0
		if i := strings.IndexByte(tok, ':'); i >= 0 {
			val, _ = strconv.ParseFloat(tok[i+1:], 64)
			name = tok[:i]
		}
		b.Feature([]byte(name), val)
	}
	var ex sparse.Example
	ex.Reset()
	if err := b.Finish(&ex); err != nil {
		t.Fatal(err)
	}
	return ex
}

func parseLine(t testing.TB, f Format, cfg hashing.Config, line string) (*sparse.Example, error) {
	t.Helper()
	b, err := hashing.NewBuilder(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ex := &sparse.Example{}
	if f == LIBSVM {
		err = ParseLIBSVMLine([]byte(line), b, ex)
	} else {
		err = ParseVWLine([]byte(line), b, ex)
	}
	return ex, err
}

func sameFeatures(a, b *sparse.Example) bool {
	if len(a.Idx) == 0 && len(b.Idx) == 0 {
		return true
	}
	return reflect.DeepEqual(a.Idx, b.Idx) && reflect.DeepEqual(a.Val, b.Val)
}

func sameExample(a, b *sparse.Example) bool {
	return a.Label == b.Label && a.HasLabel == b.HasLabel && a.Weight == b.Weight &&
		a.Initial == b.Initial && string(a.Tag) == string(b.Tag) && sameFeatures(a, b)
}

// checkExample asserts the invariants every accepted example must hold.
func checkExample(t testing.TB, ex *sparse.Example, bits uint) {
	t.Helper()
	if len(ex.Idx) != len(ex.Val) {
		t.Fatalf("len(Idx)=%d len(Val)=%d", len(ex.Idx), len(ex.Val))
	}
	seen := make(map[uint32]bool, len(ex.Idx))
	for i, s := range ex.Idx {
		if s >= 1<<bits {
			t.Fatalf("slot %d ≥ 2^%d", s, bits)
		}
		if seen[s] {
			t.Fatalf("duplicate slot %d", s)
		}
		seen[s] = true
		if v := ex.Val[i]; v == 0 || v-v != 0 {
			t.Fatalf("bad value %v at slot %d", v, s)
		}
	}
	if !(ex.Weight >= 0) || ex.Weight-ex.Weight != 0 {
		t.Fatalf("bad weight %v", ex.Weight)
	}
	if ex.Label-ex.Label != 0 || ex.Initial-ex.Initial != 0 {
		t.Fatalf("bad label %v or initial %v", ex.Label, ex.Initial)
	}
}

func newEx() *sparse.Example { return &sparse.Example{} }
