package main

import (
	"fmt"
	"math"
	"strconv"

	"github.com/sparseson/sparseson/fd"
	"github.com/sparseson/sparseson/loss"
	"github.com/sparseson/sparseson/model"
	"github.com/sparseson/sparseson/oja"
	"github.com/sparseson/sparseson/rp"
	"github.com/sparseson/sparseson/son"
	"github.com/sparseson/sparseson/sparse"
)

// SON defaults, chosen with go run ./bench sontune (README, "Choosing
// SON's defaults"): pre-scaling on, C = ∞ and η_t = 1/√t; α = 2 is the
// best mean test accuracy over the shared binary sets among the α that
// reach news20's target (≥ 92.8%, liblinear's batch optimum).
const (
	defaultAlpha = 2.0
	defaultEta0  = 1.0
)

// defaultProjection is C = ∞: no projection.
var defaultProjection = math.Inf(1)

// sketchKind is one sketch a SON learner can use.
type sketchKind struct {
	flag string // selects it on the command line
	new  func(o model.Options, p *optParser) (sparse.Sketch, error)
}

// sketchKinds in the order a conflicting command line is reported.
var sketchKinds = []sketchKind{
	{"oja", func(o model.Options, p *optParser) (sparse.Sketch, error) {
		return oja.New(oja.Config{M: p.int(o, "m"), Alpha: sketchAlpha(o, p), Rate: p.float(o, "oja_rate")})
	}},
	{"rp", func(o model.Options, p *optParser) (sparse.Sketch, error) {
		seed, err := strconv.ParseUint(o["random_seed"], 10, 64)
		if err != nil {
			p.fail(o, "random_seed", "an unsigned integer")
		}
		return rp.New(rp.Config{M: p.int(o, "m"), Alpha: sketchAlpha(o, p), Seed: seed, HostAlpha: scaledSketch(o)})
	}},
	{"fd", fdKind(false, false)},
	{"fd_fast", fdKind(false, true)},
	{"rfd", fdKind(true, false)},
	{"rfd_fast", fdKind(true, true)},
	{"full", nil}, // not a sketch: selects the full ONS family
}

func fdKind(robust, fast bool) func(o model.Options, p *optParser) (sparse.Sketch, error) {
	return func(o model.Options, p *optParser) (sparse.Sketch, error) {
		// Models without fd_gate are exact FD (as every model before it).
		return fd.New(fd.Config{M: p.int(o, "m"), Alpha: sketchAlpha(o, p), Robust: robust, Fast: fast, HostAlpha: scaledSketch(o),
			Gate: optFloat(o, "fd_gate", 0, p)})
	}
}

// scaledSketch reports whether a SON model uses the scaled-space form
// (son/scaled.go). Models without the option predate it: paper form.
func scaledSketch(o model.Options) bool {
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

// sonSelected reports whether the command line asks for a SON learner, and
// which sketch ("" for the default Oja).
func sonSelected(c *config) (bool, string, error) {
	var chosen []string
	for _, k := range sketchKinds {
		if c.on(k.flag) {
			chosen = append(chosen, k.flag)
		}
	}
	if len(chosen) > 1 {
		return false, "", fmt.Errorf("choose one sketch, not --%s and --%s", chosen[0], chosen[1])
	}
	son := len(chosen) > 0
	for _, f := range []string{"sketch_size", "alpha", "alpha_inverse", "projection", "sigma", "eta0", "sketch_scale", "oja_rate", "diag", "diag_sketch"} {
		son = son || c.changed(f)
	}
	if len(chosen) == 1 {
		return true, chosen[0], nil
	}
	return son, "", nil
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
	if scaledSketch(o) {
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

// optFloat decodes an option that older models may lack.
func optFloat(o model.Options, k string, def float64, p *optParser) float64 {
	if _, ok := o[k]; !ok {
		return def
	}
	return p.float(o, k)
}

// sonOptions are the model options of the flags shared by SON and full ONS.
func sonOptions(c *config) model.Options {
	alpha := c.alpha
	if c.alphaInverse > 0 {
		alpha = 1 / c.alphaInverse
	}
	sigma, _ := strconv.ParseFloat(c.sigma, 64) // validated; "auto" below
	if c.sigma == "auto" {
		sigma = 0
		if c.lossName == "squared" && !math.IsInf(c.projection, 1) {
			// Assumption 2 of seed 004: squared loss is curved with
			// σ = 1/(8C²) when predictions and labels are bounded by C.
			sigma = 1 / (8 * c.projection * c.projection)
		}
	}
	o := model.Options{
		"alpha": fmtFloat(alpha), "projection": fmtFloat(c.projection), "sigma": fmtFloat(sigma),
		"eta0": fmtFloat(c.eta0), "eta_power": fmtFloat(c.etaPower), "sketch_scale": fmtFloat(c.sketchScale), "diag": fmtBool(c.diag),
		"diag_sketch": c.diagSketch,
	}
	if c.diag && c.diagSketch == "scaled" {
		if !c.changed("alpha") && !c.changed("alpha_inverse") {
			o["alpha"] = "auto"
		}
		rate := float64(son.DefaultRate)
		if c.changed("learning_rate") {
			rate = c.eta
		}
		o["learning_rate"] = fmtFloat(rate)
	}
	return o
}

var fullFamily = &family{
	name: "full",
	options: func(c *config) model.Options {
		// Full ONS keeps seed 004's form (it is the dense reference).
		c2 := *c
		c2.diagSketch = "paper"
		o := sonOptions(&c2)
		o["sketch"] = "full"
		return o
	},
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
		// Per feature [u_j, D_j] and a row of the dense A⁻¹ (son/full.go).
		return 8 * (2 + math.Ldexp(1, bits)), 0, nil
	},
	describe: func(o model.Options) []string {
		return []string{"learner = full ONS (dense A_t), alpha = " + o["alpha"], describeScale(o)}
	},
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
			if sketchKinds[i].flag == kind && sketchKinds[i].new != nil {
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
	if scaledSketch(o) {
		return fmt.Sprintf("projection C = %s, diag = true, scaled-space sketch (to-sketch scale √W, step rate %s)", o["projection"], o["learning_rate"])
	}
	scale := "√(" + o["sigma"] + " + " + o["eta0"] + "·t^−" + o["eta_power"] + ")"
	if s, _ := strconv.ParseFloat(o["sketch_scale"], 64); s > 0 {
		scale = o["sketch_scale"]
	}
	return fmt.Sprintf("projection C = %s, to-sketch scale = %s, diag = %s", o["projection"], scale, o["diag"])
}

var sonFamily = &family{
	name: "son",
	options: func(c *config) model.Options {
		_, kind, _ := sonSelected(c)
		if kind == "" {
			kind = "oja"
		}
		if c.sketchSize == 0 {
			kind = "none"
		}
		rfd0 := (kind == "rfd" || kind == "rfd_fast") && !c.changed("alpha") && !c.changed("alpha_inverse") && !(c.diag && c.diagSketch == "scaled")
		if rfd0 && !c.changed("projection") {
			// RFD₀'s pseudo-inverse steps need the bound of seed 002's
			// experiments, K_t = {w : |wᵀx_t| ≤ 1}. (Its η_t = 1/t,
			// --eta_power 1, was less accurate than 1/√t on every shared
			// set but two.)
			c2 := *c
			c2.projection = 1
			c = &c2
		}
		o := sonOptions(c)
		if rfd0 {
			o["alpha"] = "0" // RFD₀ (seed 002): α grows from 0, nothing to tune
		}
		o["sketch"], o["m"] = kind, strconv.Itoa(c.sketchSize)
		o["oja_rate"], o["random_seed"] = fmtFloat(c.ojaRate), strconv.FormatUint(c.seed, 10)
		// Absent = exact FD, so that its models stay as they were; a run
		// that loads a model (-i, no sketch flag) states it to be checked.
		if (kind == "fd" || kind == "rfd") && c.fdGate != 0 || c.initial != "" && c.changed("fd_gate") {
			o["fd_gate"] = fmtFloat(c.fdGate)
		}
		return o
	},
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
