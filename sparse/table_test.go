package sparse_test

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/sparseson/sparseson/loss"
	"github.com/sparseson/sparseson/son"
	"github.com/sparseson/sparseson/sparse"
)

// withDenseBits runs f with dense slot indexes up to -b b.
func withDenseBits(b uint, f func()) {
	defer sparse.SetDenseIndexBits(sparse.SetDenseIndexBits(b))
	f()
}

// TestTableIndexes: the dense and the hash slot index give the same rows,
// against a Go map as the oracle, for slots drawn from the whole space,
// from a narrow range (consecutive numeric names) and from multiples of
// 2^k (which a poor hash would pile into one bucket), through the hash
// table's growth; Find of unseen slots, Rebuild, Rekey and their errors.
func TestTableIndexes(t *testing.T) {
	const bits = 24
	draws := []struct {
		name string
		slot func(r *rand.Rand) uint32
	}{
		{"uniform", func(r *rand.Rand) uint32 { return r.Uint32() }},
		{"consecutive", func(r *rand.Rand) uint32 { return 1000 + uint32(r.IntN(30000)) }},
		{"multiples of 2^12", func(r *rand.Rand) uint32 { return uint32(r.IntN(4096)) << 12 }},
	}
	for _, d := range draws {
		for _, dense := range []bool{true, false} {
			db := uint(bits)
			if !dense {
				db = 0
			}
			withDenseBits(db, func() {
				r := rand.New(rand.NewPCG(1, 2))
				tab := sparse.NewTable(bits, 1)
				if sparse.HashIndexed(tab) == dense {
					t.Fatalf("%s: dense=%v gave the other index", d.name, dense)
				}
				want := map[uint32]int{}
				for i := 0; i < 40000; i++ {
					s := d.slot(r) & (1<<bits - 1)
					row := tab.Row(s)
					if w, ok := want[s]; ok && w != row {
						t.Fatalf("%s dense=%v: slot %d row %d, was %d", d.name, dense, s, row, w)
					} else if !ok {
						if row != len(want) {
							t.Fatalf("%s dense=%v: new slot %d got row %d, want %d", d.name, dense, s, row, len(want))
						}
						want[s] = row
					}
					tab.Rows[row] = float64(s)
				}
				for i := 0; i < 20000; i++ {
					s := r.Uint32() & (1<<bits - 1)
					w, ok := want[s]
					if got := tab.Find(s); (ok && got != w) || (!ok && got != -1) {
						t.Fatalf("%s dense=%v: Find(%d) = %d, want %d (seen %v)", d.name, dense, s, got, w, ok)
					}
				}
				// Rebuild from the keys, and Rekey by a bijection.
				cp := sparse.NewTable(bits, 1)
				cp.Keys, cp.Rows = append([]uint32(nil), tab.Keys...), append([]float64(nil), tab.Rows...)
				// tab's rows live in memory tab owns (reserveRows): without
				// this, tab is dead once its fields are loaded, and its
				// cleanup may unmap the rows while the copy above reads
				// them (a fault seen under load).
				runtime.KeepAlive(tab)
				if err := cp.Rebuild(); err != nil {
					t.Fatal(err)
				}
				flip := func(s uint32) uint32 { return s ^ (1<<bits - 1) }
				if err := cp.Rekey(flip); err != nil {
					t.Fatal(err)
				}
				for s, w := range want {
					if cp.Find(flip(s)) != w || cp.Rows[w] != float64(s) {
						t.Fatalf("%s dense=%v: after Rekey slot %d", d.name, dense, s)
					}
					if _, also := want[flip(s)]; !also && cp.Find(s) != -1 {
						t.Fatalf("%s dense=%v: old slot %d still found after Rekey", d.name, dense, s)
					}
				}
				if err := cp.Rekey(func(uint32) uint32 { return 5 }); err == nil && len(want) > 1 {
					t.Fatalf("%s dense=%v: a many-to-one Rekey was accepted", d.name, dense)
				}
				dup := sparse.NewTable(bits, 1)
				dup.Keys, dup.Rows = []uint32{7, 9, 7}, []float64{0, 0, 0}
				if dup.Rebuild() == nil {
					t.Fatalf("dense=%v: duplicate keys accepted", dense)
				}
			})
		}
	}
}

// TestHashIndexGivesWay: filling a hash space, the hash index is replaced
// by the dense one once it would outgrow a byte per slot, without moving
// a row.
func TestHashIndexGivesWay(t *testing.T) {
	withDenseBits(0, func() {
		const bits = 16
		tab := sparse.NewTable(bits, 1)
		r := rand.New(rand.NewPCG(7, 8))
		perm := r.Perm(1 << bits)
		switched := -1
		for i, s := range perm {
			if got := tab.Row(uint32(s)); got != i {
				t.Fatalf("slot %d: row %d, want %d", s, got, i)
			}
			if switched < 0 && !sparse.HashIndexed(tab) {
				switched = i
			}
		}
		if switched < 0 {
			t.Fatal("the hash index never gave way to the dense one")
		}
		for i, s := range perm {
			if tab.Find(uint32(s)) != i {
				t.Fatalf("after the switch (at row %d) slot %d is not row %d", switched, s, i)
			}
		}
		t.Logf("switched to the dense index at %d of %d slots", switched, 1<<bits)
	})
}

// TestIndexDoesNotChangeTheModel: SON (no sketch, pre-scaling on) trained
// at -b 22 with the hash index and with the dense one makes the same
// predictions, bit for bit, over the same features: the index only finds
// rows.
func TestIndexDoesNotChangeTheModel(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	exs := make([]sparse.Example, 3000)
	for i := range exs {
		n := 1 + r.IntN(30)
		ex := sparse.Example{Label: float64(2*r.IntN(2) - 1), HasLabel: true, Weight: 1}
		for j := 0; j < n; j++ {
			ex.Idx = append(ex.Idx, uint32(r.IntN(1<<22)))
			ex.Val = append(ex.Val, r.NormFloat64())
		}
		exs[i] = ex
	}
	run := func(denseBits uint) (preds []float64, seen int) {
		withDenseBits(denseBits, func() {
			sp, err := son.New(son.Config{Bits: 22, C: 1, Eta0: 1, Diag: true}, loss.Logistic{}, &son.NoSketch{A: 1})
			if err != nil {
				t.Fatal(err)
			}
			for i := range exs {
				preds = append(preds, sp.Learn(&exs[i]))
			}
			seen = sp.Seen()
		})
		return preds, seen
	}
	ph, nh := run(0)
	pd, nd := run(30)
	if nh != nd {
		t.Fatalf("features seen: hash %d, dense %d", nh, nd)
	}
	for i := range ph {
		if ph[i] != pd[i] {
			t.Fatalf("example %d: hash index predicts %v, dense %v", i, ph[i], pd[i])
		}
	}
}

func BenchmarkTableFind(b *testing.B) {
	for _, c := range []struct {
		name  string
		dense uint
	}{{"dense", 30}, {"hash", 0}} {
		for _, bits := range []uint{18, 24} {
			withDenseBits(c.dense, func() {
				tab := sparse.NewTable(bits, 1)
				r := rand.New(rand.NewPCG(5, 6))
				slots := make([]uint32, 100000)
				for i := range slots {
					slots[i] = r.Uint32() & (1<<bits - 1)
					tab.Row(slots[i])
				}
				b.Run(fmt.Sprintf("%s/b%d", c.name, bits), func(b *testing.B) {
					var s int
					for i := 0; i < b.N; i++ {
						s += tab.Find(slots[(i*7919)%len(slots)])
					}
					if s == -1 {
						b.Log(s)
					}
				})
			})
		}
	}
}
