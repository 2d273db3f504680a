// Command launch runs one command and reports its own resource use, for
// the benchmarks' peak RSS.
//
// On Linux a process's peak RSS (ru_maxrss) survives exec: Go starts a
// child with vfork, so the child's peak starts at its parent's, and a
// sparseson run started by a bench program that holds 200 MB reports
// 200 MB whatever it used. launch is small: started by the bench program,
// it inherits the bench's peak itself, but the command it starts inherits
// only launch's few megabytes, and launch reports that command's rusage.
//
//	launch CMD ARGS...   (stdin, stdout, stderr passed through)
//
// It writes "wall_ns cpu_ns maxrss_kib" on file descriptor 3 and exits
// with the command's status.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: launch CMD ARGS...")
		os.Exit(2)
	}
	report := os.NewFile(3, "report")
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	code := 0
	if err != nil {
		code = 1
		if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() > 0 {
			code = ee.ExitCode()
		} else if !ok {
			fmt.Fprintln(os.Stderr, "launch:", err)
		}
	}
	if ps := cmd.ProcessState; ps != nil && report != nil {
		var rss int64
		if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
			rss = int64(ru.Maxrss) // int32 on 32-bit systems
		}
		fmt.Fprintf(report, "%d %d %d\n", wall.Nanoseconds(), (ps.UserTime() + ps.SystemTime()).Nanoseconds(), rss)
	}
	os.Exit(code)
}
