package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/sparseson/sparseson/fd"
	"github.com/sparseson/sparseson/learners"
	"github.com/spf13/pflag"
)

var errHelp = errors.New("help requested")

// version is set by the release build; development builds say "dev".
var version = "dev"

// config is everything the command line says.
type config struct {
	data        []string
	final       string // -f
	initial     string // -i
	testOnly    bool
	predictions string
	readable    string
	quiet       bool
	progress    string
	strict      bool
	format      string
	profile     string
	profilePath string
	seed        uint64

	// SIGINT/SIGTERM stop training at an example boundary and the model
	// is still written (signal.go).
	saveOnSignal bool

	// hashing (model-shaping)
	bits         int
	quadratic    []string
	cubic        []string
	interactions []string
	ignore       []string
	keep         []string
	noConstant   bool
	hash         string

	// passes
	passes         int
	cache          bool
	cacheFile      string
	killCache      bool
	holdoutOff     bool
	holdoutPeriod  int
	earlyTerminate int

	// loss and output
	lossName string
	tau      float64
	binary   bool
	link     string

	// multiclass (multiclass.go)
	oaa           int
	softmax       int
	probabilities bool
	maxMemory     string

	// first-order learner
	eta        float64
	powerT     float64
	initialT   float64
	l2         float64
	sgd        bool
	adaptive   bool
	normalized bool
	nasa       nasaFlags // Ouyang & Gray (KDD 2012) step sizes (nasa.go)
	// --feature_scale: auto or raw (learners.Settings.FeatureScale)
	featureScale string

	// sketched second-order learners (SON)
	sketchSize   int
	oja          bool
	rp           bool
	full         bool
	fdSketch     bool
	fdFast       bool
	rfd          bool
	rfdFast      bool
	alpha        float64
	alphaInverse float64
	projection   float64
	sigma        string
	eta0         float64
	etaPower     float64
	sketchScale  float64
	ojaRate      float64
	fdGate       float64
	diag         bool
	diagSketch   string
	diagInit     string
	sketchReport bool

	vw      vwFlags      // VW's everyday options (vwcompat.go)
	ada     adaFlags     // FD-adaptive learners (ada.go)
	shampoo shampooFlags // FTSL-Shampoo for --softmax (shampoo.go)
	cluster clusterFlags // --total, --node (cluster.go)

	changed func(name string) bool // given on the command line
	flags   *pflag.FlagSet         // every flag, as parsed (registry_test.go enumerates them)
	on      func(name string) bool // a boolean flag given and true
}

// flagGroups orders the --help output.
var flagGroups = []struct {
	title string
	names []string
}{
	{"Input and output", []string{"data", "format", "testonly", "initial_regressor", "final_regressor", "predictions", "readable_model", "quiet", "progress", "strict", "save_on_signal", "profile", "profile_path", "help", "version"}},
	{"Hashing", []string{"bit_precision", "quadratic", "cubic", "interactions", "ignore", "keep", "noconstant", "hash"}},
	{"Passes", []string{"passes", "cache", "cache_file", "kill_cache", "holdout_off", "holdout_period", "early_terminate", "random_seed"}},
	{"Loss and prediction", []string{"loss_function", "quantile_tau", "binary", "link"}},
	{"Multiclass (labels 1..K)", []string{"oaa", "softmax", "shampoo", "shampoo_exact_left", "probabilities", "max_memory"}},
	{"First-order learner (default: AdaGrad)", []string{"learning_rate", "power_t", "initial_t", "l2", "sgd", "adaptive", "normalized", "feature_scale"}},
	{"NASA step sizes of plain gradient descent (Ouyang & Gray (KDD 2012))", []string{"nasa", "nasa_c", "nasa_strong", "nasa_accel", "nasa_L", "scalar_adagrad", "sadagrad"}},
	{"Sketched Online Newton (SON)", []string{"sketch_size", "oja", "fd", "fd_fast", "rfd", "rfd_fast", "rp", "full", "alpha", "alpha_inverse", "projection", "sigma", "eta0", "eta_power", "sketch_scale", "oja_rate", "fd_gate", "diag", "diag_sketch", "diag_init", "sketch_report"}},
	{"FD-adaptive learners (Wan & Zhang, TPAMI 2022; Yang et al., ICML 2025): τ is -m (default 10: as accurate as the papers' 20 on the shared sets at about half the time; 20 for FTSL, FTFSL and S-ADA under --ada_scale paper, which without the per-coordinate completion lose up to 3.8 pp on sparse text at 10), η is -l (default ½; ¼ for ADA-FULL, and for ADA-FD/FFD under --ada_scale paper)", append(append([]string{}, adaFlagNames...), "dual_averaging", "mirror_descent", "delta", "epsilon", "ada_scale")},
}

func parseFlags(args []string, stdout io.Writer) (*config, error) {
	c := &config{}
	fs := pflag.NewFlagSet("sparseson", pflag.ContinueOnError)
	fs.SortFlags = false
	fs.SetOutput(io.Discard)
	help := fs.BoolP("help", "h", false, "print this help and exit")
	showVersion := fs.Bool("version", false, "print the version and exit")

	addIOFlags(fs, c)
	addHashFlags(fs, c)
	addPassFlags(fs, c)
	addLossFlags(fs, c)
	addFirstOrderFlags(fs, c)
	addSketchFlags(fs, c)
	addADAFlags(fs, &c.ada)
	addShampooFlags(fs, &c.shampoo)
	addVWFlags(fs, c) // states the ranges in the help of the flags above
	addClusterFlags(fs, &c.cluster)

	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if err := applyVWAliases(fs, c); err != nil {
		return nil, err
	}
	if *help {
		printUsage(stdout, fs)
		return nil, errHelp
	}
	if *showVersion {
		fmt.Fprintln(stdout, "sparseson", buildVersion())
		return nil, errHelp
	}
	c.data = append(c.data, fs.Args()...)
	c.flags = fs
	c.changed = func(name string) bool { f := fs.Lookup(name); return f != nil && f.Changed }
	c.on = func(name string) bool {
		f := fs.Lookup(name)
		return f != nil && f.Changed && f.Value.String() == "true"
	}
	return c, c.validate()
}

// addIOFlags defines the input and output flags.
func addIOFlags(fs *pflag.FlagSet, c *config) {
	fs.StringArrayVarP(&c.data, "data", "d", nil, "input file (repeatable; '-' = stdin); also positional arguments; none = stdin")
	fs.StringVar(&c.format, "format", "auto", "input format: auto, vw or libsvm (auto sniffs each input from its first line with a '|' or index:value tokens)")
	fs.BoolVarP(&c.testOnly, "testonly", "t", false, "ignore labels for learning: predict only")
	fs.StringVarP(&c.initial, "initial_regressor", "i", "", "load the model from this file")
	fs.StringVarP(&c.final, "final_regressor", "f", "", "save the model to this file (atomically; see Outputs below)")
	fs.StringVarP(&c.predictions, "predictions", "p", "", "write one prediction per example to this file ('-' or /dev/stdout for stdout)")
	fs.StringVar(&c.readable, "readable_model", "", "write the model as text (slot:weight) to this file")
	fs.BoolVar(&c.quiet, "quiet", false, "no progress table or summary on stderr")
	fs.StringVarP(&c.progress, "progress", "P", "2.0", "progress table schedule: an integer adds, a number with '.' multiplies")
	fs.BoolVar(&c.strict, "strict", false, "stop at the first malformed line instead of skipping it")
	fs.BoolVar(&c.saveOnSignal, "save_on_signal", true, "on SIGINT or SIGTERM stop training at an example boundary and still write -f and the other outputs (exit status 128 + the signal); a second signal stops at once. --save_on_signal=false: stop at once, writing nothing (the previous model file stays intact either way)")
	fs.StringVar(&c.profile, "profile", "", "write a cpu, mem or trace profile (cpu.pprof, mem.pprof, trace.out; github.com/pkg/profile) into --profile_path; flushed on a --save_on_signal stop too (go tool pprof -top sparseson cpu.pprof)")
	fs.StringVar(&c.profilePath, "profile_path", ".", "directory --profile writes into")
}

// addHashFlags defines the hashing flags.
func addHashFlags(fs *pflag.FlagSet, c *config) {
	fs.IntVarP(&c.bits, "bit_precision", "b", 18, "hash space of 2^b feature slots (1..30)")
	fs.StringArrayVarP(&c.quadratic, "quadratic", "q", nil, "pair the namespaces starting with these two characters (':' = any), repeatable")
	fs.StringArrayVar(&c.cubic, "cubic", nil, "triple interaction of namespaces, repeatable")
	fs.StringArrayVar(&c.interactions, "interactions", nil, "interaction of any order, e.g. abc, repeatable")
	fs.StringArrayVar(&c.ignore, "ignore", nil, "drop the namespaces starting with these characters")
	fs.StringArrayVar(&c.keep, "keep", nil, "keep only the namespaces starting with these characters")
	fs.BoolVar(&c.noConstant, "noconstant", false, "do not add the constant feature")
	fs.StringVar(&c.hash, "hash", "strings", "strings: all-digit names are their own hash (VW's default); all: hash every name")
}

// addPassFlags defines the flags of the passes.
func addPassFlags(fs *pflag.FlagSet, c *config) {
	fs.IntVar(&c.passes, "passes", 1, "number of passes over the data (needs a cache: -c or --cache_file)")
	fs.BoolVarP(&c.cache, "cache", "c", false, "use a binary example cache named after the first data file (+ .cache)")
	fs.StringVar(&c.cacheFile, "cache_file", "", "use this binary example cache")
	fs.BoolVarP(&c.killCache, "kill_cache", "k", false, "rebuild the cache even if a valid one exists")
	fs.BoolVar(&c.holdoutOff, "holdout_off", false, "with --passes > 1, train on every example (no holdout)")
	fs.IntVar(&c.holdoutPeriod, "holdout_period", 10, "with --passes > 1, hold out every N-th example")
	fs.IntVar(&c.earlyTerminate, "early_terminate", 3, "stop after N passes without holdout improvement")
	fs.Uint64Var(&c.seed, "random_seed", 0, "seed for every random choice (results are deterministic per seed)")
}

// addLossFlags defines the loss, prediction and multiclass flags.
func addLossFlags(fs *pflag.FlagSet, c *config) {
	fs.StringVar(&c.lossName, "loss_function", "squared", "squared, classic, logistic, hinge, quantile (or pinball, absolute), expectile or poisson")
	fs.Float64Var(&c.tau, "quantile_tau", 0.5, "τ of the quantile loss")
	fs.BoolVar(&c.binary, "binary", false, "report sign(prediction) as ±1 and 0/1 loss")
	fs.StringVar(&c.link, "link", "identity", "prediction link: identity, logistic (1/(1+e^−p)), glf1 (2/(1+e^−p) − 1) or poisson (e^p)")
	fs.IntVar(&c.oaa, "oaa", 0, "one-against-all with K classes: K binary learners of the chosen kind (any learner flags), each its own state; predicts the class with the highest score")
	fs.IntVar(&c.softmax, "softmax", 0, "multinomial logistic regression with K classes: one K×d model on the softmax loss, with the first-order update flags (default AdaGrad, normalized)")
	fs.BoolVar(&c.probabilities, "probabilities", false, "with --oaa (logistic loss) or --softmax: -p writes the K class probabilities per line, 1:p1 2:p2 … (VW's format), and the summary the average multiclass log loss")
	fs.StringVar(&c.maxMemory, "max_memory", "", "refuse to start when the model's estimated memory (if the data used every slot) exceeds this (bytes, or with a K, M, G or T suffix); default: half the machine's RAM for a multiclass model, no limit for a binary one")
}

// addFirstOrderFlags defines the first-order learner's flags.
func addFirstOrderFlags(fs *pflag.FlagSet, c *config) {
	fs.Float64VarP(&c.eta, "learning_rate", "l", 0.5, "learning rate (SON with --diag_sketch scaled: the step multiplier, default 5; FD-adaptive learners: η, default ¼ or ½)")
	fs.Float64Var(&c.powerT, "power_t", 0.5, "learning-rate decay exponent")
	fs.Float64Var(&c.initialT, "initial_t", 0, "initial value of the time counter")
	fs.Float64Var(&c.l2, "l2", 0, "L2 regularization")
	fs.BoolVar(&c.sgd, "sgd", false, "plain online gradient descent (no adaptive or normalized rates; on pre-scaled features unless --feature_scale raw)")
	fs.BoolVar(&c.adaptive, "adaptive", false, "per-feature AdaGrad rates; alone (no --normalized) it is ADA-DIAG (Duchi, Hazan & Singer 2011; Wan & Zhang (TPAMI 2022), Eq. 2): β −= η(δI + diag(Σggᵀ)^{1/2})⁻¹g with δ = --delta (default 0), and with --dual_averaging its primal-dual form β = −η(δI + diag(Σggᵀ)^{1/2})⁻¹Σg")
	fs.BoolVar(&c.normalized, "normalized", false, "per-feature scale-invariant updates")
	fs.StringVar(&c.featureScale, "feature_scale", "auto", "units of the features for the first-order updates that are not normalized (--sgd, --adaptive alone, --dual_averaging, --nasa_strong, --nasa_accel, --scalar_adagrad, --sadagrad, --oaa K with them): auto learns on x_j/s_j, s_j the root mean square of feature j's training values so far, so that -l, H and L do not depend on the features' units (Σx_j² and n_j in the feature's row: a square root and two divisions per feature; docs/algorithms.md §19); raw takes x as it comes, VW's update (and models saved before this flag). AdaGrad, --normalized and --nasa are unit-free as they are: either value leaves them unchanged. Not for --softmax")
	addNASAFlags(fs, &c.nasa)
}

// addSketchFlags defines the flags of the sketched learners.
func addSketchFlags(fs *pflag.FlagSet, c *config) {
	fs.IntVarP(&c.sketchSize, "sketch_size", "m", 10, "sketch size m of a SON learner (0 = no sketch: the scale-invariant first-order step); -m alone selects Oja-SON")
	fs.BoolVar(&c.oja, "oja", false, "Oja-SON: sketch with Oja's algorithm (Luo et al. (NIPS 2016), Alg. 3–5)")
	fs.BoolVar(&c.rp, "rp", false, "RP-SON: Gaussian random-projection sketch (Luo et al. (NIPS 2016), §3), seeded by --random_seed")
	fs.BoolVar(&c.fdSketch, "fd", false, "FD-SON: Frequent Directions sketch (Luo et al. (NIPS 2016), Alg. 2)")
	fs.BoolVar(&c.fdFast, "fd_fast", false, "FD-SON with the doubled-buffer fast FD (Luo et al. (JMLR 2019), Alg. 4–6)")
	fs.BoolVar(&c.rfd, "rfd", false, "RFD-SON: Robust FD (Luo et al. (JMLR 2019)): α grows by half of each eigenvalue FD discards, on top of the scaled form's α₀; with --diag_sketch paper or --diag=false and no --alpha, α starts at 0 (RFD₀) and C = 1")
	fs.BoolVar(&c.rfdFast, "rfd_fast", false, "RFD-SON with the doubled buffer")
	fs.BoolVar(&c.full, "full", false, "full ONS (Luo et al. (NIPS 2016), Eq. 1–2): exact dense k×k A_t over the first k ≤ 4096 features seen, at any -b (O(k²) per example; later features are ignored, with a warning); the reference for small data")
	fs.Float64Var(&c.alpha, "alpha", learners.DefaultAlpha, "α of A_t = αI + SᵀS, the regulariser outside the sketch. Default: from the data with --diag_sketch scaled (α₀ = ρ + ¼·(features seen per example)², relative to the pre-scaled curvature whose diagonal is ≈ 1); 2 with --diag_sketch paper or --diag=false")
	fs.Float64Var(&c.alphaInverse, "alpha_inverse", 0, "set α = 1/value (VW's OjaNewton option)")
	fs.Float64Var(&c.projection, "projection", learners.DefaultProjection, "C: project w onto |w·x| ≤ C before predicting (Lemma 1); inf turns it off")
	fs.StringVar(&c.sigma, "sigma", "auto", "σ of the to-sketch scale √(σ+η_t); auto: 1/(8C²) for squared loss with finite C (Luo et al. (NIPS 2016), Assumption 2), else 0")
	fs.Float64Var(&c.eta0, "eta0", learners.DefaultEta0, "η_t = eta0·t^−eta_power in the to-sketch scale √(σ+η_t)")
	fs.Float64Var(&c.etaPower, "eta_power", 0.5, "decay exponent of η_t: ½ as Luo et al. (NIPS 2016); Luo et al. (JMLR 2019) runs RFD-SON with 1 (η_t = 1/t)")
	fs.Float64Var(&c.sketchScale, "sketch_scale", 0, "use this constant instead of √(σ+η_t) (VW's OjaNewton uses 0.5)")
	fs.Float64Var(&c.ojaRate, "oja_rate", 1, "Oja step Γ_t = min(rate/t, 1) (the paper's 1/t is 1; VW uses 2)")
	fs.Float64Var(&c.fdGate, "fd_gate", fd.DefaultGate, "ε of the gated FD (--fd, --rfd; 2 unless given): where the shrunk sketch cannot be absorbed into Z's rows, drop the kept direction leaning most on the gradient with eigenvalue E′ < ε·α instead of adding a row (the regret bound gains Σ E′/α < ε per drop, over 2(σ+η); --sketch_report prints the sum), and keep a gradient with ‖ĝ‖² < ε·α/20 out of the sketch altogether (no shrink; its ‖ĝ‖²/α counts in the same sum); acts once the features seen reach 100·m; 0 = exact FD. Also --ftsl, --sada (E′ < ε·r, a drop adds E′/τ to r; the default below; --sada also keeps a gradient with ‖ĝ‖² < 0.1·ε·r out of the sketch, adding ‖ĝ‖²/τ to r; --ftsl under --ada_scale auto adds only the part p of a gradient in the sketch's span when the rest has ‖ĝ − p‖² < ε·r and ‖ĝ − p‖·‖p‖ < 0.01·ε·r, no shrink, ‖ĝ − p‖²/τ to r) and --ada_fd (E′ < (εδ_t)² with δ_t = δ + √r under --ada_scale auto, and a gradient with ‖ĝ‖² < (εδ_t)² stays out of the sketch, its ‖ĝ‖²/τ added to r; 0.2 unless given, 0 with --ada_scale paper); the doubled-buffer --ada_ffd, --sada_fast and --ftfsl take the skips only (no drops): --ada_ffd as --ada_fd, --sada_fast as --sada, --ftfsl at 0.03·ε·r")
	fs.BoolVar(&c.diag, "diag", true, "diagonal pre-scaling: learn on D^{-1/2}x with D = 0.1 + Σ g² (Luo et al. (NIPS 2016), §5.2); --diag=false for the plain, linearly invariant SON")
	fs.StringVar(&c.diagInit, "diag_init", "auto", "with --diag, D₁ of the pre-scaling D = D₁ + diag(Σ g gᵀ): auto = 0.1·u_j² per feature, u_j the root mean square of feature j's values so far (two more values per feature), which makes SON and full ONS independent of the features' units; max = the same with u_j the largest |x_j| so far (an outlier on raw counts); paper = 0.1·I, Luo et al. (NIPS 2016), §5.2, in the units of x² (features ×1/255 move SON by up to 1.1 pp on splice). On binary features all three are the paper's (docs/algorithms.md §6)")
	fs.StringVar(&c.diagSketch, "diag_sketch", "scaled", "with --diag: scaled = sketch the current pre-scaled curvature, α from the data, ONS step with rate -l (default 5; docs/algorithms.md §14); paper = Luo et al. (NIPS 2016), §5.2 as written (σ, eta0, eta_power, sketch_scale apply)")
	fs.BoolVar(&c.sketchReport, "sketch_report", false, "print the sketch's eigenvalue estimates and the share of Σ‖ĝ‖² they capture")
}

// validate checks the command line, phase by phase: the run's own
// values, SON's, then each group's flags against the others.
func (c *config) validate() error {
	s := settings(c)
	check := func(f func(*learners.Settings) error) func() error { return func() error { return f(s) } }
	for _, phase := range []func() error{
		c.validateRun, check(learners.CheckSON), check(learners.CheckADA), check(learners.CheckStep), check(learners.CheckFirstOrder),
		check(learners.CheckMulticlass), c.validateMaxMemory, check(learners.CheckShampoo), c.validateVW, c.validateCluster, c.validateInteractions,
	} {
		if err := phase(); err != nil {
			return err
		}
	}
	return nil
}

// validateRun checks the values of the run's flags (the engine's settings
// among them).
func (c *config) validateRun() error {
	if c.bits < 1 || c.bits > 30 {
		return fmt.Errorf("-b %d: must be in 1..30", c.bits)
	}
	cfg := engineConfig(c, nil, nil, nil)
	if err := cfg.Validate(); err != nil {
		return err
	}
	switch {
	case c.link != "identity" && c.link != "logistic" && c.link != "glf1" && c.link != "poisson":
		return fmt.Errorf("--link %q: want identity, logistic, glf1 or poisson", c.link)
	case c.hash != "strings" && c.hash != "all":
		return fmt.Errorf("--hash %q: want strings or all", c.hash)
	case c.profile != "" && c.profile != "cpu" && c.profile != "mem" && c.profile != "trace":
		return fmt.Errorf("--profile %q: want cpu, mem or trace", c.profile)
	case c.sgd && (c.adaptive || c.normalized):
		return errors.New("--sgd excludes --adaptive and --normalized")
	}
	return nil
}

// validateInteractions checks -q, --cubic and --interactions.
func (c *config) validateInteractions() error {
	for _, q := range c.quadratic {
		if len(q) != 2 {
			return fmt.Errorf("-q %q: want two namespace characters", q)
		}
	}
	for _, q := range c.cubic {
		if len(q) != 3 {
			return fmt.Errorf("--cubic %q: want three namespace characters", q)
		}
	}
	for _, q := range c.interactions {
		if len(q) < 2 {
			return fmt.Errorf("--interactions %q: want at least two namespace characters", q)
		}
	}
	return nil
}

func printUsage(w io.Writer, fs *pflag.FlagSet) {
	fmt.Fprintln(w, "Usage: sparseson [options] [data files]")
	fmt.Fprintln(w, "       sparseson merge -o OUT MODEL...   (merge models trained on shards; sparseson merge --help)")
	fmt.Fprintln(w, "Online learning on sparse, hashed features with VW's command line and progress output.")
	fmt.Fprintln(w, "Reads VW or LIBSVM text, plain, gzip or zstd, from files or stdin.")
	for _, g := range flagGroups {
		sub := pflag.NewFlagSet(g.title, pflag.ContinueOnError)
		sub.SortFlags = false
		for _, n := range g.names {
			if f := fs.Lookup(n); f != nil {
				sub.AddFlag(f)
			}
		}
		fmt.Fprintf(w, "\n%s:\n%s", g.title, sub.FlagUsages())
	}
	fmt.Fprint(w, usageTrailer)
}

// usageTrailer states the rules of outputs and exit status (docs/usage.md,
// "Outputs" and "Exit status").
const usageTrailer = `
Outputs (-f, --cache_file, -p, -r, --readable_model, --invert_hash, profiles):
  a symbolic link is written through (its target gets the content, the link stays);
  -f and --cache_file replace a regular file atomically (a temporary file
  .NAME.tmpXXXX in its directory, renamed; one left by a killed save is removed
  by the next save); a FIFO or character device (/dev/stdout, /dev/null) is
  written into, except by --cache_file; a directory, socket or block device is
  refused; so is an output that is a data file, the file on stdin, or another
  output (compared by device and inode). -i m -f m saves over the model read.

Exit status:
  0        success
  1        the run failed: a file cannot be read or written, a malformed line
           under --strict, no valid examples, a damaged or foreign model
  2        the command line is refused (nothing is trained or written): an
           unknown option, a bad value, options that conflict with each other
           or with the model of -i, an output that is one of the inputs
  128 + n  stopped by signal n (130 SIGINT, 143 SIGTERM) after saving
           (--save_on_signal), also when the signal comes during the save
`
