// Command sparseson is an online learner in the spirit of Vowpal Wabbit:
// it streams VW or LIBSVM text (plain, gzip or zstd; files or stdin) through
// a first-order or sketched second-order learner, prints VW's
// progressive-validation table on stderr, and reads and writes model files.
// This package is the command line only: flags, subcommands, messages and
// signals; the run itself is package engine's, the learners' table
// package learners'.
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
		return fail(stderr, usage(err))
	}
	if cfg.profile != "" {
		if err := checkProfile(cfg); err != nil {
			return fail(stderr, err)
		}
		if stop := startProfile(cfg.profile, cfg.profilePath); stop != nil {
			defer stop()
		}
	}
	return fail(stderr, runEngine(ctx, cfg, stdin, stdout, stderr))
}

// The exit status, one convention for the whole command (--help; docs/usage.md,
// "Exit status"):
const (
	exitOK    = 0 // success
	exitError = 1 // the run failed: a file, the data (--strict), a model
	exitUsage = 2 // the command line is refused; nothing was read or written
	// 128 + n: stopped by signal n after saving (--save_on_signal)
)

// usageError marks an error of the command line itself: an unknown
// option, a bad value, options that conflict with each other or with the
// model of -i, an output that is also an input. Like Go's flag package
// and pflag, the command exits 2 for these.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// usage marks err (nil stays nil) as a usage error.
func usage(err error) error {
	if err == nil {
		return nil
	}
	var ue *usageError
	if errors.As(err, &ue) {
		return err
	}
	return &usageError{err}
}

// usagef is fmt.Errorf for a usage error.
func usagef(format string, args ...any) error { return usage(fmt.Errorf(format, args...)) }

// fail prints err (if any) as the command's error line and returns the
// exit status it stands for.
func fail(stderr io.Writer, err error) int {
	if err == nil {
		return exitOK
	}
	fmt.Fprintf(stderr, "sparseson: %s\n", libraryFlags.Replace(err.Error()))
	var ue *usageError
	var ie *interruptError
	switch {
	case errors.As(err, &ie):
		return ie.status()
	case errors.As(err, &ue):
		fmt.Fprintln(stderr, "Try 'sparseson --help' for the list of options.")
		return exitUsage
	}
	return exitError
}
