package learners

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/sparseson/sparseson/fd"
	"github.com/sparseson/sparseson/loss"
	"github.com/sparseson/sparseson/model"
	"github.com/sparseson/sparseson/oja"
	"github.com/sparseson/sparseson/rp"
	"github.com/sparseson/sparseson/son"
	"github.com/sparseson/sparseson/sparse"
)

// SON's defaults, chosen with go run ./bench sontune (docs/algorithms.md
// §14): pre-scaling on, C = ∞ and η_t = 1/√t; α = 2 is the best mean
// test accuracy over the shared binary sets among the α that reach
// news20's target (≥ 92.8%, liblinear's batch optimum).
const (
	DefaultAlpha = 2.0
	DefaultEta0  = 1.0
)

// DefaultProjection is C = ∞: no projection.
var DefaultProjection = math.Inf(1)

// sketchKind is one sketch a SON learner can use.
type sketchKind struct {
	name string // the model option sketch's value
	new  func(o model.Options, p *optParser) (sparse.Sketch, error)
}

// sketchKinds in the order a conflicting choice is reported.
var sketchKinds = []sketchKind{
	{"oja", func(o model.Options, p *optParser) (sparse.Sketch, error) {
		return oja.New(oja.Config{M: p.int(o, "m"), Alpha: sketchAlpha(o, p), Rate: p.float(o, "oja_rate")})
	}},
	{"rp", func(o model.Options, p *optParser) (sparse.Sketch, error) {
		seed, err := strconv.ParseUint(o["random_seed"], 10, 64)
		if err != nil {
			p.fail(o, "random_seed", "an unsigned integer")
		}
		return rp.New(rp.Config{M: p.int(o, "m"), Alpha: sketchAlpha(o, p), Seed: seed, HostAlpha: ScaledSketch(o)})
	}},
	{"fd", fdKind(false, false)},
	{"fd_fast", fdKind(false, true)},
	{"rfd", fdKind(true, false)},
	{"rfd_fast", fdKind(true, true)},
}

// Sketches lists the sketches of a SON learner (the values of the model
// option sketch beside "none"), in the order a conflicting choice is
// reported.
func Sketches() []string {
	names := make([]string, len(sketchKinds))
	for i, k := range sketchKinds {
		names[i] = k.name
	}
	return names
}

func fdKind(robust, fast bool) func(o model.Options, p *optParser) (sparse.Sketch, error) {
	return func(o model.Options, p *optParser) (sparse.Sketch, error) {
		// Models without fd_gate are exact FD (as every model before it),
		// those without row_cap have fd's default cap.
		cfg := fd.Config{M: p.int(o, "m"), Alpha: sketchAlpha(o, p), Robust: robust, Fast: fast, HostAlpha: ScaledSketch(o),
			Gate: optFloat(o, "fd_gate", 0, p), Skip: optFloat(o, "fd_skip", 0, p)}
		if _, ok := o["row_cap"]; ok {
			cfg.RowCap = p.int(o, "row_cap")
		}
		return fd.New(cfg)
	}
}

// ScaledSketch reports whether a SON model uses the scaled-space form
// (son/scaled.go). Models without the option predate it: paper form.
func ScaledSketch(o model.Options) bool {
	return o["diag"] == "true" && o["diag_sketch"] == "scaled"
}

// sketchAlpha is the α a sketch starts with: the model's, or 1 when the
// scaled-space form derives it from the data (the core sets it before it
// is first used).
func sketchAlpha(o model.Options, p *optParser) float64 {
	if o["alpha"] == "auto" {
		return 1
	}
	return p.float(o, "alpha")
}

// sonConfig decodes the SON options shared by the sketched learners and
// full ONS.
func sonConfig(o model.Options, p *optParser) son.Config {
	cfg := son.Config{
		Bits:  uint(p.int(o, "bits")),
		C:     p.float(o, "projection"),
		Sigma: p.float(o, "sigma"),
		Eta0:  p.float(o, "eta0"),
		Scale: p.float(o, "sketch_scale"),
		Diag:  p.bool(o, "diag"),
		// Models written before η_t's exponent was an option used ½.
		EtaPower: optFloat(o, "eta_power", 0.5, p),
	}
	switch o["diag_init"] {
	case "", "paper": // D₁ = 0.1·I: the default, and models before diag_init
	case "auto": // D₁ = 0.1·u_j², u_j the root mean square
		cfg.Unit, cfg.UnitRMS = cfg.Diag, cfg.Diag
	case "max": // D₁ = 0.1·u_j², u_j the largest |x_j|
		cfg.Unit = cfg.Diag
	default:
		p.fail(o, "diag_init", "auto, max or paper")
	}
	if ScaledSketch(o) {
		cfg.Scaled = true
		if o["alpha"] != "auto" {
			cfg.Alpha0 = p.float(o, "alpha")
		}
		cfg.Rate = p.float(o, "learning_rate")
		cfg.Total = 1
		if _, ok := o["total"]; ok {
			cfg.Total = p.int(o, "total")
		}
	}
	return cfg
}

var fullFamily = &Family{
	Name:    "full",
	options: fullOptions,
	build: func(o model.Options, l loss.Loss, r *model.Reader) (sparse.Learner, error) {
		var p optParser
		cfg := sonConfig(o, &p)
		alpha := p.float(o, "alpha")
		if p.err != nil {
			return nil, p.err
		}
		if r == nil {
			return son.NewFull(cfg, alpha, l)
		}
		return son.LoadFull(r, cfg, alpha, l)
	},
	memory: func(o model.Options) (float64, float64, error) {
		var p optParser
		bits := p.int(o, "bits")
		if p.err != nil || bits > 30 {
			return 0, 0, p.err
		}
		// The slots refused beyond the cap: a bit each (sparse.SlotCap).
		return 0, math.Ldexp(1, bits-3), nil
	},
	capped: func(o model.Options) (int, float64) {
		// Per slot kept [u_j, D_j] (and 1/u_j with diag_init max, with
		// Σx_j² and n_j too with auto) and a row of the dense A⁻¹
		// (son/full.go), at most MaxFullSlots wide.
		w := 2.0
		switch o["diag_init"] {
		case "max":
			w = 3
		case "auto":
			w = 5
		}
		return son.MaxFullSlots, 8 * (w + float64(fullRows(o, son.MaxFullSlots)))
	},
	describe: func(o model.Options) []string {
		return []string{"learner = full ONS (dense A_t), alpha = " + o["alpha"], describeScale(o)}
	},
}

// fullRows is min(2^b, max), the most slots a dense learner with options
// o keeps (0 if bits is unreadable).
func fullRows(o model.Options, max int) int {
	var p optParser
	bits := p.int(o, "bits")
	if p.err != nil || bits < 1 || bits > 30 {
		return 0
	}
	return min(1<<bits, max)
}

// sonSketch decodes a SON model's core options and builds its sketch.
func sonSketch(o model.Options) (son.Config, sparse.Sketch, error) {
	var p optParser
	cfg := sonConfig(o, &p)
	var sk sparse.Sketch
	var err error
	switch kind := o["sketch"]; kind {
	case "none":
		sk = &son.NoSketch{A: sketchAlpha(o, &p)}
	default:
		var k *sketchKind
		for i := range sketchKinds {
			if sketchKinds[i].name == kind {
				k = &sketchKinds[i]
			}
		}
		if k == nil {
			return cfg, nil, fmt.Errorf("unknown sketch %q", kind)
		}
		if p.err == nil {
			sk, err = k.new(o, &p)
		}
	}
	if p.err != nil {
		return cfg, nil, p.err
	}
	return cfg, sk, err
}

func describeScale(o model.Options) string {
	if ScaledSketch(o) {
		return fmt.Sprintf("projection C = %s, diag = true, scaled-space sketch (to-sketch scale √W, step rate %s)", o["projection"], o["learning_rate"])
	}
	scale := "√(" + o["sigma"] + " + " + o["eta0"] + "·t^−" + o["eta_power"] + ")"
	if s, _ := strconv.ParseFloat(o["sketch_scale"], 64); s > 0 {
		scale = o["sketch_scale"]
	}
	return fmt.Sprintf("projection C = %s, to-sketch scale = %s, diag = %s", o["projection"], scale, o["diag"])
}

var sonFamily = &Family{
	Name:    "son",
	options: sonFamilyOptions,
	build: func(o model.Options, l loss.Loss, r *model.Reader) (sparse.Learner, error) {
		cfg, sk, err := sonSketch(o)
		if err != nil {
			return nil, err
		}
		if r == nil {
			return son.New(cfg, l, sk)
		}
		return son.Load(r, cfg, l, sk)
	},
	memory: func(o model.Options) (float64, float64, error) {
		cfg, sk, err := sonSketch(o)
		if err != nil {
			return 0, 0, err
		}
		// A feature's row: w̄_j, its Z column (up to MaxRows), and with
		// pre-scaling Σg² and 1/√D_j (son/learner.go).
		p := float64(sk.MaxRows())
		perSlot := 8 * (1 + p)
		if cfg.Diag {
			perSlot += 16
		}
		if cfg.Unit {
			perSlot += 8 // 1/u_j (son/units.go)
		}
		if cfg.UnitRMS {
			perSlot += 16 // Σx_j² and n_j
		}
		fixed := 8 * 4 * p * p // the sketch's p×p matrices
		if _, ok := sk.(sparse.GramSketch); ok {
			// Deferred steps (son/lazy.go): a generation stamp per
			// feature and a ring of at most 256 p×2p maps.
			perSlot += 4
			fixed += 8 * 256 * (2*p*p + p)
		}
		return perSlot, fixed, nil
	},
	describe: func(o model.Options) []string {
		return []string{
			fmt.Sprintf("learner = SON, sketch = %s, m = %s, alpha = %s", o["sketch"], o["m"], o["alpha"]),
			describeScale(o),
		}
	},
}

// FormNote names a model's sketch and form for messages: ", sketch fd,
// paper form", or "" for neither.
func FormNote(o model.Options) string {
	var parts []string
	if s := o["sketch"]; s != "" {
		parts = append(parts, "sketch "+s)
	}
	if o["diag_sketch"] == "paper" || o["diag"] == "false" {
		parts = append(parts, "paper form")
	}
	if len(parts) == 0 {
		return ""
	}
	return ", " + strings.Join(parts, ", ")
}
