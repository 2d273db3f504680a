package main

import (
	"errors"
	"fmt"
	"math"
	"net"
	"runtime/debug"
	"strings"
	"time"

	"github.com/sparseson/sparseson/engine"
	"github.com/sparseson/sparseson/gd"
	"github.com/sparseson/sparseson/learners"
	"github.com/spf13/pflag"
)

// vwFlags are the options a VW user types every day (issue 15), with VW's
// names and meanings: output (--audit, --invert_hash, -r, the prediction
// bounds), hashing (--hash_seed, --ngram, --skips), passes
// (--holdout_after, --decay_learning_rate), --l1, --expectile_q, serving
// (--daemon), and the options accepted for compatibility only.
type vwFlags struct {
	audit        bool
	invertHash   string
	raw          string
	minPred      float64
	maxPred      float64
	hashSeed     uint32
	ngram, skips []string
	holdoutAfter int
	decay        float64
	l1           float64
	expectileQ   float64

	daemon      bool
	host        string
	port        int
	numChildren int
	maxLine     int
	idleSecs    float64
	pidFile     string
	portFile    string

	// accepted for compatibility (aliases and no-ops)
	compressed, ojaNewton, saveResume, foreground, strictParse, sparseWeights bool
}

// defaultPort is VW's daemon port.
const defaultPort = engine.DefaultPort

func addVWFlags(fs *pflag.FlagSet, c *config) {
	v := &c.vw
	fs.BoolVarP(&v.audit, "audit", "a", false, "print each example's prediction and then its features as ns^feature:slot:value:weight, sorted by |weight·value| (VW's audit; for SON the effective weight w̄ + Zᵀb in the raw space)")
	fs.StringVar(&v.invertHash, "invert_hash", "", "write the readable model with the features' names (ns^feature, interactions a^x*b^y) instead of bare slots; keeps every name seen in the first pass in memory")
	fs.StringVarP(&v.raw, "raw_predictions", "r", "", "write the raw score of each example, before clamping, link or sign (--oaa: 1:s1 … K:sK)")
	fs.Float64Var(&v.minPred, "min_prediction", math.NaN(), "smallest prediction: fixes the low end of the label range that predictions (and squared loss's gradient) are clipped to")
	fs.Float64Var(&v.maxPred, "max_prediction", math.NaN(), "largest prediction: fixes the high end of the label range")
	fs.Uint32Var(&v.hashSeed, "hash_seed", 0, "seed of the feature hash (0..2^32−1; VW's --hash_seed): namespace hashes start from it")
	fs.StringArrayVar(&v.ngram, "ngram", nil, "n-grams: N (2..32) for every namespace, or aN for the namespaces starting with 'a'; repeatable")
	fs.StringArrayVar(&v.skips, "skips", nil, "with --ngram: at most K (0..32) skipped features per n-gram (skip-grams), K or aK; repeatable")
	fs.IntVar(&v.holdoutAfter, "holdout_after", 0, "hold out every example after the first N of each pass instead of every --holdout_period-th (turns the holdout on, also for one pass)")
	fs.Float64Var(&v.decay, "decay_learning_rate", 1, "multiply -l (SON: its step rate) by this factor after each pass (> 0; 1 keeps it)")
	fs.Float64Var(&v.l1, "l1", 0, "L1 regularization λ₁ ≥ 0: VW's lazy truncated gradient, for the first-order learner's --sgd, --adaptive and --normalized steps")
	fs.Float64Var(&v.expectileQ, "expectile_q", 0, "q in (0, 0.5] of --loss_function expectile (required with it)")

	fs.BoolVar(&v.daemon, "daemon", false, "serve predictions over TCP: each example line sent gets its prediction line back (VW's daemon mode); learns from labeled lines unless -t; SIGINT or SIGTERM stops it, after saving -f (exit status 128 + the signal)")
	fs.StringVar(&v.host, "host", "127.0.0.1", "with --daemon: the address to listen on; VW listens on every interface (0.0.0.0 or ::), sparseson on the loopback one unless told, so that a model server is not on the network unless asked")
	fs.IntVar(&v.port, "port", defaultPort, "with --daemon: TCP port to listen on (0: any free port; see --port_file)")
	fs.IntVar(&v.numChildren, "num_children", 10, "with --daemon: connections served at once (1..10000); more are refused with an error line (VW forks this many children; sparseson serves them concurrently)")
	fs.IntVar(&v.maxLine, "daemon_max_line", 1<<20, "with --daemon: longest line in bytes (64..256 MiB); a longer one is read to its end and dropped, with an error line, and the connection goes on")
	fs.Float64Var(&v.idleSecs, "daemon_idle_timeout", 60, "with --daemon: seconds a connection may go without sending a byte (or without reading its answers) before it gets an error line and is closed, freeing its --num_children slot (0: never; not in VW) [0..86400]")
	fs.StringVar(&v.pidFile, "pid_file", "", "with --daemon: write the process id to this file")
	fs.StringVar(&v.portFile, "port_file", "", "with --daemon: write the port listened on to this file")

	fs.BoolVar(&v.compressed, "compressed", false, "accepted for VW compatibility, no effect: compression is recognised by its magic bytes")
	fs.BoolVar(&v.ojaNewton, "OjaNewton", false, "VW's name for Oja-SON: an alias of --oja (with --sketch_size as -m)")
	fs.BoolVar(&v.saveResume, "save_resume", false, "accepted for VW compatibility, no effect: models always carry the state to resume training")
	fs.BoolVar(&v.foreground, "foreground", false, "accepted for VW compatibility, no effect: --daemon always runs in the foreground")
	fs.BoolVar(&v.strictParse, "strict_parse", false, "VW's name for --strict")
	fs.BoolVar(&v.sparseWeights, "sparse_weights", false, "accepted for VW compatibility, no effect: weights are always stored for the features seen only")
	for _, f := range []string{"min_prediction", "max_prediction"} {
		fs.Lookup(f).DefValue = "0" // NaN: unset; pflag then prints no default
	}
	finishHelp(fs)
}

// vwFlagGroups places the flags above in the --help groups of flags.go.
var vwFlagGroups = map[string][]string{
	"Input and output":                       {"audit", "invert_hash", "raw_predictions", "compressed", "save_resume", "strict_parse", "sparse_weights"},
	"Hashing":                                {"hash_seed", "ngram", "skips"},
	"Passes":                                 {"holdout_after"},
	"Loss and prediction":                    {"expectile_q", "min_prediction", "max_prediction"},
	"First-order learner (default: AdaGrad)": {"decay_learning_rate", "l1"},
	"Sketched Online Newton (SON)":           {"OjaNewton"},
}

// flagRanges states the valid values of the flags whose help does not.
var flagRanges = map[string]string{
	"passes": "≥ 1", "holdout_period": "≥ 1", "early_terminate": "≥ 1", "quantile_tau": "in (0, 1)",
	"oaa": "2..65536", "softmax": "2..65536", "learning_rate": "> 0", "power_t": "≥ 0", "initial_t": "≥ 0",
	"l2": "≥ 0", "sketch_size": "0..64; τ of the FD-adaptive learners: 1..512", "alpha": "> 0", "alpha_inverse": "> 0", "projection": "> 0, or inf",
	"sigma": "auto or ≥ 0", "eta0": "≥ 0", "eta_power": "in [0, 2]", "sketch_scale": "≥ 0", "oja_rate": "> 0",
	"nasa_c": "> 0", "nasa_strong": "> 0", "nasa_L": "> 0", "sadagrad": "> 0", "random_seed": "0..2^64−1",
	"progress": "> 0; a factor > 1 with '.'", "min_prediction": "finite", "max_prediction": "finite, ≥ --min_prediction",
	"decay_learning_rate": "> 0", "l1": "≥ 0", "holdout_after": "≥ 0",
	"delta": "auto or ≥ 0", "epsilon": "≥ 0",
}

// finishHelp states ranges in every flag's help (run once the flags are
// defined).
func finishHelp(fs *pflag.FlagSet) {
	fs.VisitAll(func(f *pflag.Flag) {
		if r, ok := flagRanges[f.Name]; ok && !strings.Contains(f.Usage, r) {
			f.Usage += " [" + r + "]"
		}
	})
}

func init() {
	for i := range flagGroups {
		flagGroups[i].names = append(flagGroups[i].names, vwFlagGroups[flagGroups[i].title]...)
	}
	flagGroups = append(flagGroups, struct {
		title string
		names []string
	}{"Serving (--daemon)", []string{"daemon", "host", "port", "num_children", "daemon_max_line", "daemon_idle_timeout", "pid_file", "port_file", "foreground"}})
}

// applyVWAliases runs after parsing: --OjaNewton selects Oja-SON as --oja
// does (and so counts as given for the model checks), --strict_parse is
// --strict.
func applyVWAliases(fs *pflag.FlagSet, c *config) error {
	for alias, flag := range map[string]string{"OjaNewton": "oja", "strict_parse": "strict"} {
		if f := fs.Lookup(alias); f.Changed && f.Value.String() == "true" {
			if err := fs.Set(flag, "true"); err != nil {
				return err
			}
		}
	}
	return nil
}

func (c *config) validateVW() error {
	v, s := &c.vw, settings(c)
	switch {
	case v.holdoutAfter < 0:
		return fmt.Errorf("--holdout_after %d: must be ≥ 0", v.holdoutAfter)
	case !(v.decay > 0) || math.IsInf(v.decay, 0):
		return fmt.Errorf("--decay_learning_rate %v: must be positive and finite", v.decay)
	case !(v.l1 >= 0) || math.IsInf(v.l1, 0):
		return fmt.Errorf("--l1 %v: must be ≥ 0 and finite", v.l1)
	case math.IsInf(v.minPred, 0) || math.IsInf(v.maxPred, 0):
		return errors.New("--min_prediction and --max_prediction must be finite")
	case v.minPred > v.maxPred:
		return fmt.Errorf("--min_prediction %v exceeds --max_prediction %v", v.minPred, v.maxPred)
	case c.lossName == "expectile" && !c.changed("expectile_q") && c.initial == "":
		return errors.New("--loss_function expectile needs --expectile_q q, q in (0, 0.5]")
	case c.changed("expectile_q") && !(v.expectileQ > 0 && v.expectileQ <= 0.5):
		return fmt.Errorf("--expectile_q %v: must be in (0, 0.5]", v.expectileQ)
	case c.changed("expectile_q") && c.lossName != "expectile" && c.initial == "":
		return errors.New("--expectile_q applies to --loss_function expectile")
	case v.port < 0 || v.port > 65535:
		return fmt.Errorf("--port %d: must be in 0..65535", v.port)
	case v.numChildren < 1 || v.numChildren > 10000:
		return fmt.Errorf("--num_children %d: must be in 1..10000", v.numChildren)
	case v.maxLine < 64 || v.maxLine > 256<<20:
		return fmt.Errorf("--daemon_max_line %d: must be in 64..%d", v.maxLine, 256<<20)
	case !(v.idleSecs >= 0 && v.idleSecs <= 86400):
		return fmt.Errorf("--daemon_idle_timeout %v: must be in 0..86400 seconds (0: never)", v.idleSecs)
	case v.host == "" || (strings.Contains(v.host, ":") && net.ParseIP(v.host) == nil):
		return fmt.Errorf("--host %q: an IP address or a host name, without a port (0.0.0.0 or :: for every interface)", v.host)
	case v.l1 > 0 && (c.softmax > 0 || s.Step != gd.StepSchedule):
		return errors.New("--l1 (truncated gradient) works with the first-order --sgd, --adaptive and --normalized steps; not with --softmax or NASA's steps")
	}
	if son, _, err := learners.SONSelected(s); err == nil && son && v.l1 > 0 {
		return errors.New("--l1 is VW's truncated gradient of the first-order learner; SON's Newton step has no coordinate-wise truncation (a lazy one would need w̄ + Zᵀb per feature; an eager one an O(d) sweep per example): not supported")
	}
	if v.daemon {
		for _, f := range []string{"predictions", "raw_predictions", "audit", "invert_hash", "readable_model", "passes", "cache", "cache_file"} {
			if c.changed(f) {
				return fmt.Errorf("--daemon answers each line over its connection; --%s does not apply", f)
			}
		}
		if len(c.data) > 0 {
			return errors.New("--daemon reads its examples from connections, not from files")
		}
	} else {
		for _, f := range []string{"host", "port", "num_children", "daemon_max_line", "daemon_idle_timeout", "pid_file", "port_file"} {
			if c.changed(f) {
				return fmt.Errorf("--%s applies to --daemon", f)
			}
		}
	}
	if c.changed("ngram") || c.changed("skips") {
		if _, err := learners.HashConfig(learners.NewOptions(learners.Default, s)); err != nil {
			return err
		}
	}
	return nil
}

// idleTimeout is --daemon_idle_timeout as a duration (0: none).
func (v *vwFlags) idleTimeout() time.Duration {
	return time.Duration(v.idleSecs * float64(time.Second))
}

// buildVersion is --version's text: the release's version, or the module
// version and VCS revision Go stamped into the binary (go build in a git
// checkout records them; `go run` and tests do not).
func buildVersion() string {
	info, _ := debug.ReadBuildInfo()
	return versionString(version, info)
}

func versionString(release string, info *debug.BuildInfo) string {
	if release != "dev" || info == nil {
		return release
	}
	v := info.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, when, dirty string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			when = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = ", modified"
			}
		}
	}
	out := v
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		out += " (revision " + rev
		if when != "" {
			out += " of " + when
		}
		out += dirty + ")"
	}
	return out + ", " + info.GoVersion
}
