package main

import "strings"

// settingFlags names each engine setting (a field of engine.Config, or a
// model option of package learners) that the engine's messages, warnings
// and run header mention by the flag that sets it, written as the command
// has always written it. TestSettingFlags checks that every setting the
// engine names has a row.
var settingFlags = map[string]string{
	// engine.Config
	"Options":        "the learner flags",
	"Passes":         "--passes",
	"HoldoutPeriod":  "--holdout_period",
	"EarlyTerminate": "--early_terminate",
	"Format":         "--format",
	"Progress":       "-P",
	"Cache":          "-c",
	"CacheFile":      "--cache_file",
	"Strict":         "--strict",
	"TestOnly":       "-t",
	"Final":          "-f",
	"Readable":       "--readable_model",
	"InvertHash":     "--invert_hash",
	"Predictions":    "-p",
	"Raw":            "-r",
	"Audit":          "--audit",
	"PidFile":        "--pid_file",
	"PortFile":       "--port_file",
	"ProfileFile":    "--profile",
	"MinPrediction":  "--min_prediction",
	"MaxPrediction":  "--max_prediction",
	"Decay":          "--decay_learning_rate",
	"MaxMemory":      "--max_memory",
	"Shards":         "--shards",
	"Initial":        "-i",
	"total":          "--total",
	"ShardMix":       "--shard_mix",
	"ShardWarmup":    "--shard_warmup",
	"NumChildren":    "--num_children",
	"MaxLine":        "--daemon_max_line",
	"IdleTimeout":    "--daemon_idle_timeout",
	// Serve's errors
	"serve": "--daemon",
	// model options
	"probabilities":      "--probabilities",
	"oaa":                "--oaa",
	"softmax":            "--softmax",
	"binary":             "--binary",
	"link":               "--link",
	"loss":               "--loss_function",
	"bits":               "-b",
	"learning_rate":      "-l",
	"alpha":              "--alpha",
	"diag":               "--diag",
	"diag_sketch":        "--diag_sketch",
	"diag_init":          "--diag_init",
	"ada_scale":          "--ada_scale",
	"feature_scale":      "--feature_scale",
	"normalized":         "--normalized",
	"no learner setting": "no learner flag",
	// learner settings (learners.Check*) that are not --NAME
	"sketch_size":    "-m",
	"bit_precision":  "-b",
	"nasa_L":         "--nasa_L",
	"SON's settings": "SON's flags",
}

// flagName is engine.Config.Name for the command: a setting's flag.
func flagName(setting string) string {
	if f, ok := settingFlags[setting]; ok {
		return f
	}
	if setting != "" && setting[0] >= 'A' && setting[0] <= 'Z' {
		return "Config." + setting
	}
	return "--" + strings.ToLower(setting)
}

// libraryFields are the fields of the learner packages' configurations
// (gd.Config, ada.Config, ada.ShampooConfig, son.Config; oja.Config's
// Rate qualified, as son's Rate is another flag) that their errors name, with
// the flags that set them; fail writes them as flags.
var libraryFields = []string{
	"ShampooConfig.Bits", "-b", "ShampooConfig.Epsilon", "--epsilon", "ShampooConfig.Tau", "-m", "ShampooConfig.Eta", "-l",
	"Config.Bits", "-b", "Config.Eta", "-l", "Config.Tau", "-m", "Config.PowerT", "--power_t", "Config.InitialT", "--initial_t",
	"Config.L1", "--l1", "Config.L2", "--l2", "Config.Delta", "--delta", "Config.Epsilon", "--epsilon",
	"Config.NasaC", "--nasa_c", "Config.NasaL", "--nasa_L", "Config.Adaptive", "--adaptive", "Config.Normalized", "--normalized",
	"Config.Dual", "--dual_averaging", "Config.Step", "the step", "Config.Gate", "--fd_gate", "Config.Buffer", "the learner (--ada_ffd, --ftfsl, --sada_fast: the doubled buffer)",
	"Config.RowCap", "the model option row_cap (2·-m of a doubled-buffer model)",
	"Config.Skip", "the model option ada_skip (S-ADA's skips, on with --fd_gate)",
	"Config.Project", "the model option ada_project (FTSL's projected steps, on with --fd_gate)",
	"Config.DualCache", "the model option ada_dual_cache (FTSL's and FTFSL's carried product, on with --fd_gate)",
	"oja.Config.Rate", "--oja_rate", "Config.Scaled", "--diag_sketch scaled", "Config.Diag", "--diag", "Config.UnitRMS", "--diag_init auto", "Config.Unit", "--diag_init auto or max", "Config.Total", "--total",
	"Config.RMS", "--ada_scale auto", "Config.Aux", "the model option ada_diag (the completion's columns, --ada_scale auto)",
	"Config.Grow", "the model option ada_grow (ADA-FD's and ADA-FFD's growing δ, --ada_scale auto)",
	"Config.AuxDot", "the model option ada_diag (the mirror-descent completion's column, --ada_scale auto)",
}

var libraryFlags = strings.NewReplacer(libraryFields...)
