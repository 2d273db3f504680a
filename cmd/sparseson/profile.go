package main

import "github.com/pkg/profile"

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
