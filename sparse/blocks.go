package sparse

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// MergeBlock is the number of features one worker of a merge takes at a
// time (ForBlocks). It is a constant, not a function of the cores: a merge
// that sums over features sums each block on its own and the blocks' sums
// in block order, so that the merged model is the same bytes whatever
// GOMAXPROCS is (--shards' determinism). A model with at most MergeBlock
// features is one block, summed in the order of a serial loop.
const MergeBlock = 4096

// Blocks is the number of blocks of size that cover n items.
func Blocks(n, size int) int {
	if n <= 0 {
		return 0
	}
	return (n + size - 1) / size
}

// ForBlocks calls fn(b, lo, hi) for every block b of [0, n) —
// [b·size, min((b+1)·size, n)) — on up to GOMAXPROCS goroutines, and
// returns when every call has returned. Blocks are handed out in order
// but may run in any order and at once: fn must write only what block b
// owns.
func ForBlocks(n, size int, fn func(b, lo, hi int)) {
	nb := Blocks(n, size)
	workers := min(nb, runtime.GOMAXPROCS(0))
	run := func(b int) { fn(b, b*size, min(n, (b+1)*size)) }
	if workers <= 1 {
		for b := range nb {
			run(b)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := int(next.Add(1)) - 1; b < nb; b = int(next.Add(1)) - 1 {
				run(b)
			}
		}()
	}
	wg.Wait()
}
