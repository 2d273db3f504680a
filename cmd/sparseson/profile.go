package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/pkg/profile"

	"github.com/sparseson/sparseson/internal/outfile"
)

// profileFiles are the files --profile writes, by kind (pkg/profile's
// names).
var profileFiles = map[string]string{"cpu": "cpu.pprof", "mem": "mem.pprof", "trace": "trace.out"}

// checkProfile makes sure --profile can write its file before the run
// starts: pkg/profile reports a failure with log.Fatal (a log-prefixed
// line and exit 1, past the run's deferred saves). The directory is
// created if missing, as pkg/profile would.
func checkProfile(c *config) error {
	if err := os.MkdirAll(c.profilePath, 0o777); err != nil {
		return fmt.Errorf("--profile_path %s: %w", c.profilePath, err)
	}
	path := filepath.Join(c.profilePath, profileFiles[c.profile])
	if _, err := outfile.Check(path, outfile.Stream); err != nil {
		return fmt.Errorf("--profile_path %s: %s %w", c.profilePath, path, err)
	}
	return nil
}

// startProfile starts --profile cpu|mem|trace, writing cpu.pprof,
// mem.pprof or trace.out into dir (--profile_path), and returns its stop
// function, which runContext defers: it runs on every return, the
// --save_on_signal stop included, so an interrupted run still flushes its
// profile after saving its model. profile.NoShutdownHook keeps pkg/profile
// from installing its own SIGINT handler, which would stop the profile and
// exit before the driver has written the model.
func startProfile(kind, dir string) func() {
	opts := []func(*profile.Profile){profile.ProfilePath(dir), profile.Quiet, profile.NoShutdownHook}
	switch kind {
	case "cpu":
		return profile.Start(append(opts, profile.CPUProfile)...).Stop
	case "mem":
		return profile.Start(append(opts, profile.MemProfile)...).Stop
	case "trace":
		return profile.Start(append(opts, profile.TraceProfile)...).Stop
	}
	return nil
}
