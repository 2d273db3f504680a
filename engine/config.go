package engine

import (
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/sparseson/sparseson/model"
)

// Config is everything a run needs besides the model's own options. Its
// zero value is not a run: start from Defaults, which holds VW's defaults
// (one pass, holdout every 10th example, progress at doubling weights).
type Config struct {
	// Options are the model's options (the keys learners decodes: learner,
	// bits, loss, learning_rate, …): those of a new model, or, with
	// Resume, those a loaded model runs with (its stored options, with the
	// rates a resumed run changes). Nil with Initial set: the model file's.
	Options model.Options
	// Initial is the model file to start from (VW's -i); "" trains a new
	// model. Resume, when set, is its content, already read (Options must
	// then be given too).
	Initial string
	Resume  *model.Reader

	// Data are the input files ("-": Stdin); none reads Stdin.
	Data   []string
	Stdin  io.Reader
	Stdout io.Writer // the audit lines
	Stderr io.Writer // the progress table, the summary and warnings
	// Format is auto, vw or libsvm: auto sniffs each input.
	Format string
	// Strict stops at the first malformed line instead of skipping it.
	Strict bool
	// TestOnly predicts without learning (VW's -t).
	TestOnly bool
	// Quiet prints no progress table or summary.
	Quiet bool
	// Progress is the table's schedule: an integer adds, a number with a
	// '.' multiplies (VW's -P).
	Progress string
	// SketchReport prints the sketch's report at the end (SON).
	SketchReport bool

	// Passes over the data; more than one needs a cache.
	Passes int
	// Cache names the cache after the first data file (+ ".cache");
	// CacheFile names it; KillCache rebuilds it even when it is valid.
	Cache     bool
	CacheFile string
	KillCache bool
	// HoldoutOff trains on every example of a multi-pass run; otherwise
	// every HoldoutPeriod-th example is held out, or with HoldoutAfter > 0
	// every example after the first HoldoutAfter of each pass.
	HoldoutOff     bool
	HoldoutPeriod  int
	HoldoutAfter   int
	EarlyTerminate int     // passes without holdout improvement that stop the run
	Decay          float64 // multiplies the learning rate after each pass (1 keeps it)

	// Shards trains that many learners of the model's kind in one process,
	// each on a round-robin share of the stream (example i to shard
	// i mod Shards), mixed into one model by the learners' merge at the
	// end of every pass and every ShardMix examples (0: pass ends only):
	// iterative parameter mixing. 0 or 1: one learner, as without it. A
	// test-only run predicts with the one model whatever Shards is.
	Shards   int
	ShardMix int64
	// ShardWarmup is the number of examples at the start of the run that
	// one learner of the whole stream learns before the Shards learners
	// start from its state (DefaultShardWarmup; 0: they start at once).
	ShardWarmup int64

	// MinPrediction and MaxPrediction fix the ends of the label range
	// predictions are clipped to (NaN: learned from the labels).
	MinPrediction, MaxPrediction float64
	// MaxMemory bounds the model's estimated memory (ParseBytes' format);
	// "" bounds a multiclass model by half the machine's RAM only.
	MaxMemory string

	// The outputs, "" for none: the model file (written atomically), the
	// predictions ("-": standard output), the raw scores, the readable
	// model, the readable model with feature names; Audit prints every
	// example's features and weights on Stdout.
	Final       string
	Predictions string
	Raw         string
	Readable    string
	InvertHash  string
	Audit       bool
	// ProfileFile is a file another part of the program writes during the
	// run: it is checked like the outputs (writable, not an input).
	ProfileFile string

	// Serving (Serve): the address to listen on, the connections served
	// at once, the longest line, how long a connection may idle (0:
	// forever), and files to write the process id and the port into.
	Host        string
	Port        int
	NumChildren int
	MaxLine     int
	IdleTimeout time.Duration
	PidFile     string
	PortFile    string

	// Version is the program's version, written on the readable model's
	// first line.
	Version string

	// ChunkBytes is the text the parser hands a worker at a time (0: its
	// default).
	ChunkBytes int

	// Name returns how messages, warnings and the run header name a
	// setting: a field of Config ("Passes") or a model option
	// ("learning_rate"). Nil: "Config.Passes" and the option's key; the
	// command passes its flag names.
	Name func(setting string) string
}

// DefaultShardWarmup is Config.ShardWarmup's default: 2^14 examples by
// one learner before the shards start. A stream that short trains as one
// stream whatever Shards is — on the small shared sets K = 2 learners
// from the first example cost up to 3 points of test accuracy (sonar,
// heart_scale, breast_cancer, pima; averaged over five orders) and save a
// fraction of a second — while on a stream of millions of examples the
// warm-up is a few per cent of one core's work (docs/scaling.md).
const DefaultShardWarmup = 1 << 14

// Defaults returns the configuration of a plain run: VW's defaults, the
// process's stdin, stdout and stderr, and no model yet (set Options or
// Initial).
func Defaults() Config {
	return Config{
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
		Format: "auto", Progress: "2.0",
		Passes: 1, Shards: 1, ShardWarmup: DefaultShardWarmup, HoldoutPeriod: 10, EarlyTerminate: 3, Decay: 1,
		MinPrediction: math.NaN(), MaxPrediction: math.NaN(),
		Host: "127.0.0.1", Port: DefaultPort, NumChildren: 10, MaxLine: 1 << 20, IdleTimeout: time.Minute,
	}
}

// DefaultPort is VW's daemon port.
const DefaultPort = 26542

// name is how messages name a setting (Config.Name).
func (c *Config) name(setting string) string {
	if c.Name != nil {
		return c.Name(setting)
	}
	if setting != "" && setting[0] >= 'A' && setting[0] <= 'Z' {
		return "Config." + setting
	}
	return setting
}

// A SettingError is an error of the configuration itself, or of its
// conflict with the model loaded: nothing was read or written. (The
// command exits 2 for these.)
type SettingError struct{ Err error }

func (e *SettingError) Error() string { return e.Err.Error() }
func (e *SettingError) Unwrap() error { return e.Err }

// setting marks err (nil stays nil) as a SettingError.
func setting(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := err.(*SettingError); ok {
		return err
	}
	return &SettingError{err}
}

// Validate checks the settings that do not depend on the model.
func (c *Config) Validate() error {
	n := c.name
	switch {
	case c.Passes < 1:
		return fmt.Errorf("%s %d: must be ≥ 1", n("Passes"), c.Passes)
	case c.HoldoutPeriod < 1:
		return fmt.Errorf("%s %d: must be ≥ 1", n("HoldoutPeriod"), c.HoldoutPeriod)
	case c.EarlyTerminate < 1:
		return fmt.Errorf("%s %d: must be ≥ 1", n("EarlyTerminate"), c.EarlyTerminate)
	case c.Shards < 0:
		return fmt.Errorf("%s %d: must be ≥ 1", n("Shards"), c.Shards)
	case c.ShardMix < 0:
		return fmt.Errorf("%s %d: must be ≥ 0 (0: mix at the end of each pass only)", n("ShardMix"), c.ShardMix)
	case c.ShardWarmup < 0:
		return fmt.Errorf("%s %d: must be ≥ 0", n("ShardWarmup"), c.ShardWarmup)
	case c.Format != "auto" && c.Format != "vw" && c.Format != "libsvm":
		return fmt.Errorf("%s %q: want auto, vw or libsvm", n("Format"), c.Format)
	}
	_, _, err := c.progressSchedule()
	return err
}

// progressSchedule decodes Progress: VW reads an integer as "every N
// examples" and a number with a decimal point as "multiply by".
func (c *Config) progressSchedule() (add bool, v float64, err error) {
	v, err = strconv.ParseFloat(c.Progress, 64)
	if err != nil || !(v > 0) {
		return false, 0, fmt.Errorf("%s %q: want a positive number", c.name("Progress"), c.Progress)
	}
	add = !strings.ContainsAny(c.Progress, ".eE")
	if !add && v <= 1 {
		return false, 0, fmt.Errorf("%s %q: a multiplicative schedule needs a factor > 1", c.name("Progress"), c.Progress)
	}
	return add, v, nil
}
