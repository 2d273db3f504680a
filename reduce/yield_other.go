//go:build !linux

package reduce

import "runtime"

// osYield: without sched_yield, only other goroutines get the core.
func osYield() { runtime.Gosched() }
