package linalg

import (
	"math"
	"math/bits"
)

// RowOf is the table row r of offset o = r·stride + c, 0 ≤ c < stride (a
// row's start or a column inside it), with rowMul = RowMultiplier(stride):
// o·⌈2⁶⁴/stride⌉/2⁶⁴ = o/stride + o·e/2⁶⁴ with 0 ≤ e < 1, whose integer
// part is r while o·e/2⁶⁴ < 1/stride, that is for every o below
// 2⁶⁴/stride (a table holds at most 2³⁰ rows). A multiplication where a
// 64-bit divide takes tens of cycles; PrefetchStale computes the same.
func RowOf(o int, rowMul uint64) int {
	// rowMul = 0 stands for stride 1, whose ⌈2⁶⁴/1⌉ has no uint64.
	if rowMul == 0 {
		return o
	}
	hi, _ := bits.Mul64(uint64(o), rowMul)
	return int(hi)
}

// RowMultiplier is RowOf's ⌈2⁶⁴/stride⌉ (0 for stride 1).
func RowMultiplier(stride int) uint64 {
	if stride <= 1 {
		return 0
	}
	return math.MaxUint64/uint64(stride) + 1
}

// PrefetchStale is PrefetchCols(rows, offs, n) and, in the same pass over
// offs, the deferred-step check of package son's FD learners: it writes
// to stale, in offs' order, the table row r = o·⌈2⁶⁴/n⌉/2⁶⁴ (= o/n;
// rowMul = ⌈2⁶⁴/n⌉, or 0 for n = 1 and r = o) of every offset o ≥ 0 whose
// stamp is not gen, or that has none yet (r ≥ len(stamp)), and returns how
// many. stale must hold len(offs) values. The touch value is
// PrefetchCols's.
//
// Two loops had each feature's offset loaded, tested and counted twice;
// on amd64 one loop prefetches a row's lines and then reads its stamp, the
// stamp's miss overlapping the row's as before (news20, FD-SON m = 10,
// 3 cached passes: the two loops took 125e6 instructions).
func PrefetchStale(rows []float64, offs []int, n int, stamp []uint32, gen uint32, rowMul uint64, stale []int) (cnt int, touch float64) {
	if len(stale) < len(offs) {
		panic("linalg: PrefetchStale's stale shorter than offs")
	}
	if n <= 0 {
		return staleGo(offs, stamp, gen, rowMul, stale), 0
	}
	return prefetchStale(rows, offs, n, stamp, gen, rowMul, stale)
}

// staleGo is PrefetchStale's stamp check in Go: what the kernel writes.
func staleGo(offs []int, stamp []uint32, gen uint32, rowMul uint64, stale []int) int {
	cnt := 0
	for _, o := range offs {
		if o < 0 {
			continue
		}
		r := o
		if rowMul != 0 {
			hi, _ := bits.Mul64(uint64(o), rowMul)
			r = int(hi)
		}
		if r >= len(stamp) || stamp[r] != gen {
			stale[cnt] = r
			cnt++
		}
	}
	return cnt
}
