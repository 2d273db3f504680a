package reduce

import "syscall"

// osYield gives this thread's core to another runnable thread, of this
// process or another: runtime.Gosched only lets other goroutines run, and
// a spinning thread on an oversubscribed core would take the time slices
// of the very thread it waits for.
func osYield() { syscall.Syscall(syscall.SYS_SCHED_YIELD, 0, 0, 0) }
