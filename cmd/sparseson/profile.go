package main

import "github.com/pkg/profile"

// startProfile starts --profile cpu|mem and returns its stop function.
func startProfile(kind string) func() {
	switch kind {
	case "cpu":
		return profile.Start(profile.CPUProfile, profile.ProfilePath("."), profile.Quiet).Stop
	case "mem":
		return profile.Start(profile.MemProfile, profile.ProfilePath("."), profile.Quiet).Stop
	}
	return nil
}
