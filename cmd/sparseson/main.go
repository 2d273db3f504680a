// Command sparseson is an online learner in the spirit of Vowpal Wabbit:
// it streams VW or LIBSVM text (plain, gzip or zstd; files or stdin) through
// a first-order or sketched second-order learner, prints VW's
// progressive-validation table on stderr, and reads and writes model files.
// This package is wiring only: flags, the pass/holdout/cache driver, and
// output; the algorithms live in the library packages.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is main without the process: it returns the exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runContext(nil, args, stdin, stdout, stderr)
}

// runContext is run with a context that stops --daemon (nil: SIGINT and
// SIGTERM stop it).
func runContext(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "merge" {
		// A subcommand (merge.go); a data file named merge is ./merge.
		return runMerge(args[1:], stdout, stderr)
	}
	cfg, err := parseFlags(args, stdout)
	if err == errHelp {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "sparseson: %v\n", err)
		fmt.Fprintln(stderr, "Try 'sparseson --help' for the list of options.")
		return 2
	}
	if stop := startProfile(cfg.profile, cfg.profilePath); stop != nil {
		defer stop()
	}
	d := &driver{ctx: ctx, cfg: cfg, stdin: stdin, stdout: stdout, stderr: stderr}
	if err := d.run(); err != nil {
		fmt.Fprintf(stderr, "sparseson: %v\n", err)
		var ie *interruptError
		if errors.As(err, &ie) {
			return ie.status()
		}
		return 1
	}
	return 0
}
