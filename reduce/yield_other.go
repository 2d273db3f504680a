//go:build !linux

package reduce

// osYield: without sched_yield, yield's runtime.Gosched is all there is.
func osYield() {}
