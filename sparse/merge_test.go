package sparse_test

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/sparseson/sparseson/sparse"
)

func table(keys ...uint32) *sparse.Table {
	t := sparse.NewTable(8, 1)
	for _, k := range keys {
		t.Row(k)
	}
	return t
}

// TestUnion: every slot once, rows looked up right, an order that does not
// depend on the tables' order, and one table's own order for one table.
func TestUnion(t *testing.T) {
	a, b, c := table(5, 9, 1, 7), table(9, 3), table(200, 5, 3, 8, 1)
	u := sparse.NewUnion(a, b, c)
	v := sparse.NewUnion(c, a, b)
	if !slices.Equal(u.Keys, v.Keys) {
		t.Fatalf("order depends on the tables' order: %v against %v", u.Keys, v.Keys)
	}
	want := []uint32{1, 3, 5, 7, 8, 9, 200}
	got := slices.Clone(u.Keys)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("union %v, want the slots %v", u.Keys, want)
	}
	for j, k := range u.Keys {
		for i, tab := range []*sparse.Table{a, b, c} {
			if u.Row(i, j) != tab.Find(k) {
				t.Fatalf("slot %d table %d: row %d, want %d", k, i, u.Row(i, j), tab.Find(k))
			}
		}
	}
	if one := sparse.NewUnion(c); !slices.Equal(one.Keys, c.Keys) {
		t.Fatalf("one table: %v, want its order %v", one.Keys, c.Keys)
	}
}

func TestTableRekey(t *testing.T) {
	tab := table(5, 9, 1)
	if err := tab.Rekey(func(k uint32) uint32 { return 255 - k }); err != nil {
		t.Fatal(err)
	}
	for r, k := range []uint32{250, 246, 254} {
		if tab.Find(k) != r || tab.Keys[r] != k {
			t.Fatalf("slot %d: row %d, want %d", k, tab.Find(k), r)
		}
	}
	for _, old := range []uint32{5, 9, 1} {
		if tab.Find(old) != -1 {
			t.Fatalf("old slot %d still found", old)
		}
	}
	if err := table(1, 2).Rekey(func(uint32) uint32 { return 3 }); err == nil {
		t.Fatal("two slots mapped to one without an error")
	}
	if err := table(1).Rekey(func(uint32) uint32 { return 1 << 8 }); err == nil {
		t.Fatal("a slot outside the hash space without an error")
	}
}

// TestEvidenceAverage: without a base the evidence-weighted average; a
// feature one part alone has seen keeps that part's weight; parts that
// are the base give the base; with a base every part counts with the
// base's evidence and its own, so parts that each moved to one value give
// that value (the sum of their moves, the rule this replaced, gave
// w₀ + K·(v − w₀)) and the result stays within the parts' range; and no
// evidence is reported.
func TestEvidenceAverage(t *testing.T) {
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-12*(1+math.Abs(b)) }
	if v, ok := sparse.EvidenceAverage(0, []float64{1, 3}, []float64{2, 6}); !ok || !near(v, (1*2+3*6)/4.0) {
		t.Fatalf("average: %v", v)
	}
	if v, _ := sparse.EvidenceAverage(0, []float64{0, 5, 0}, []float64{0, -1.5, 0}); v != -1.5 {
		t.Fatalf("one part: %v", v)
	}
	if v, _ := sparse.EvidenceAverage(4, []float64{0, 0}, []float64{0.7, 0.7}); !near(v, 0.7) {
		t.Fatalf("copies of the base: %v", v)
	}
	for _, p0 := range []float64{1e-3, 1, 1e9} {
		if v, _ := sparse.EvidenceAverage(p0, []float64{2, 2, 2, 2}, []float64{1.5, 1.5, 1.5, 1.5}); !near(v, 1.5) {
			t.Fatalf("base evidence %g: parts that agree on 1.5 give %v", p0, v)
		}
		v, _ := sparse.EvidenceAverage(p0, []float64{1, 0, 3}, []float64{1.5, 1, 2})
		if want := ((p0+1)*1.5 + p0*1 + (p0+3)*2) / (3*p0 + 4); !near(v, want) || v < 1 || v > 2 {
			t.Fatalf("base evidence %g: %v, want %v within the parts' range [1, 2]", p0, v, want)
		}
	}
	if _, ok := sparse.EvidenceAverage(0, []float64{0, 0}, []float64{1, 2}); ok {
		t.Fatal("no evidence reported as an average")
	}
	// AddedMoves: without a base the evidence average; small moves on
	// new examples add up; moves that each reach one value stop there
	// (their sum would overshoot); a feature one part alone moved keeps
	// that part's weight.
	if v, _ := sparse.AddedMoves(0, 0, []float64{1, 3}, []float64{2, 6}); !near(v, 5) {
		t.Fatalf("AddedMoves without a base: %v", v)
	}
	if v, _ := sparse.AddedMoves(1e9, 1, []float64{1, 1, 1}, []float64{1.5, 0.5, 2}); math.Abs(v-2) > 1e-6 {
		t.Fatalf("AddedMoves, base-dominated: %v, want the sum of the moves 2", v)
	}
	if v, _ := sparse.AddedMoves(1e9, 1, []float64{1, 1, 1}, []float64{1.5, 1.5, 1.5}); v != 1.5 {
		t.Fatalf("AddedMoves, parts at one value: %v, want 1.5 (the sum 2.5 clamped)", v)
	}
	if v, _ := sparse.AddedMoves(7, 1, []float64{0, 2, 0}, []float64{1, 1.25, 1}); !near(v, 1.25) {
		t.Fatalf("AddedMoves, one part moved: %v, want its weight 1.25", v)
	}
	if got := sparse.MergedSum([]float64{5, 7}, 3); got != 9 {
		t.Fatalf("MergedSum = %v, want 3 + 2 + 4", got)
	}
}

// TestUnionWideHash: above the array's hash space the union deduplicates
// through a map, with the same keys, order and rows.
func TestUnionWideHash(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var small, wide []*sparse.Table
	for range 3 {
		a, b := sparse.NewTable(16, 1), sparse.NewTable(26, 1)
		for range 500 {
			k := uint32(r.IntN(1 << 12))
			a.Row(k)
			b.Row(k)
		}
		small, wide = append(small, a), append(wide, b)
	}
	u, v := sparse.NewUnion(small...), sparse.NewUnion(wide...)
	if !slices.Equal(u.Keys, v.Keys) {
		t.Fatalf("keys differ between a 2^16 and a 2^26 hash space")
	}
	for i := range small {
		for j := range u.Keys {
			if u.Row(i, j) != v.Row(i, j) {
				t.Fatalf("table %d key %d: row %d against %d", i, u.Keys[j], u.Row(i, j), v.Row(i, j))
			}
		}
	}
}

// TestForBlocks: every index in exactly one block, the blocks as the size
// says, at any number of cores.
func TestForBlocks(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, procs := range []int{1, 2, 8} {
		runtime.GOMAXPROCS(procs)
		for _, n := range []int{0, 1, 7, 4096, 10001} {
			seen := make([]int32, n)
			var bad atomic.Int32
			sparse.ForBlocks(n, 1000, func(b, lo, hi int) {
				if lo != b*1000 || hi != min(n, lo+1000) {
					bad.Add(1)
				}
				for i := lo; i < hi; i++ {
					seen[i]++
				}
			})
			if bad.Load() != 0 {
				t.Fatalf("GOMAXPROCS %d n %d: a block with the wrong bounds", procs, n)
			}
			for i, c := range seen {
				if c != 1 {
					t.Fatalf("GOMAXPROCS %d n %d: index %d visited %d times", procs, n, i, c)
				}
			}
			if got := sparse.Blocks(n, 1000); got != (n+999)/1000 {
				t.Fatalf("Blocks(%d, 1000) = %d", n, got)
			}
		}
	}
}

// BenchmarkNewUnion: four shards' tables of a news20-sized model (2^18
// slots, 60,000 features each, most shared).
func BenchmarkNewUnion(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	tabs := make([]*sparse.Table, 4)
	for i := range tabs {
		tabs[i] = sparse.NewTable(18, 1)
		for range 60000 {
			tabs[i].Row(uint32(r.IntN(1 << 17)))
		}
	}
	for b.Loop() {
		sparse.NewUnion(tabs...)
	}
}

// TestAddRows: row j for Keys[j], and a table that is not new refused.
func TestAddRows(t *testing.T) {
	u := sparse.NewUnion(table(5, 9, 1), table(9, 3))
	dst := sparse.NewTable(8, 1)
	dst.AddRows(u)
	for j, k := range u.Keys {
		if dst.Find(k) != j {
			t.Fatalf("slot %d: row %d, want %d", k, dst.Find(k), j)
		}
	}
	defer func() {
		if recover() == nil {
			t.Fatal("AddRows into a table with rows did not panic")
		}
	}()
	dst.AddRows(u)
}
