package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/sparseson/sparseson/gd"
	"github.com/sparseson/sparseson/hashing"
	"github.com/sparseson/sparseson/loss"
	"github.com/sparseson/sparseson/model"
	"github.com/sparseson/sparseson/sparse"
)

// family is one kind of learner.
type family struct {
	name string
	// options returns the family's model options from the command line.
	options func(c *config) model.Options
	// tunable lists option keys (and their flags) that a resumed run may change.
	tunable map[string]string
	// build makes a learner from options; r is nil for a new model.
	build func(o model.Options, l loss.Loss, r *model.Reader) (sparse.Learner, error)
	// describe returns the lines printed under the run header.
	describe func(o model.Options) []string
	// memory returns what one learner may hold: bytes per hash slot in
	// use (beside the slot index), and bytes independent of the slots.
	memory func(o model.Options) (perSlot, fixed float64, err error)
	// fixed lists option keys (and their flags) that shape the model and
	// that a command line loading it may not contradict.
	fixed map[string]string
}

var families = map[string]*family{"gd": gdFamily, "son": sonFamily, "full": fullFamily, "softmax": softmaxFamily, "ada": adaFamily, "shampoo": shampooFamily}

// defaultFamily is used when no learner flag is given.
var defaultFamily = gdFamily

// firstOrderFlags tune the first-order learner's update (gd). One rule
// for every learner that has no such update: a flag of another learner is
// refused, never silently ignored. The FD-adaptive learners and
// FTSL-Shampoo list what they refuse in validateADA and validateShampoo,
// the NASA steps in validateNASA; SON's Newton step (and full ONS) has
// none of these.
var firstOrderFlags = []string{"sgd", "adaptive", "normalized", "power_t", "initial_t", "l2"}

// validateLearnerFlags refuses first-order flags given with SON.
func (c *config) validateLearnerFlags() error {
	if c.adaOn() || c.shampoo.on {
		return nil // their own lists
	}
	son, kind, err := sonSelected(c)
	if err != nil || !son {
		return err
	}
	if kind == "" {
		kind = "oja"
	}
	for _, f := range firstOrderFlags {
		if c.on(f) || (c.changed(f) && c.flags.Lookup(f).Value.Type() != "bool") {
			return fmt.Errorf("--%s is an option of the first-order learner; it does not apply to SON (--%s)", f, kind)
		}
	}
	return nil
}

// chooseFamily picks the learner family the flags ask for.
func chooseFamily(c *config) (*family, error) {
	if c.shampoo.on {
		return shampooFamily, nil
	}
	if c.adaOn() {
		return adaFamily, nil
	}
	son, kind, err := sonSelected(c)
	if err != nil {
		return nil, err
	}
	if c.softmax > 0 {
		if son || kind != "" {
			return nil, errors.New("--softmax is a first-order K-class model: it does not combine with SON's flags")
		}
		return softmaxFamily, nil
	}
	if kind == "full" {
		return fullFamily, nil
	}
	if son {
		return sonFamily, nil
	}
	return defaultFamily, nil
}

var gdFamily = &family{
	name: "gd",
	options: func(c *config) model.Options {
		adaptive, normalized := c.adaptive, c.normalized
		if step := c.nasaStep(); !c.sgd && !c.adaptive && !c.normalized && (step == gd.StepSchedule || step == gd.StepNASA) {
			adaptive, normalized = defaultAdaptive, defaultNormalized
		}
		o := model.Options{
			"adaptive": fmtBool(adaptive), "normalized": fmtBool(normalized),
			"learning_rate": fmtFloat(c.eta), "power_t": fmtFloat(c.powerT),
			"initial_t": fmtFloat(c.initialT), "l2": fmtFloat(c.l2), "l1": fmtFloat(c.vw.l1),
			"delta": "0", "update": "mirror",
		}
		if c.ada.dualAveraging {
			o["update"] = "dual" // ADA-DIAG's dual averaging (--adaptive alone)
		}
		if c.ada.delta != "auto" {
			o["delta"] = c.ada.delta // validated: ADA-DIAG's δ (--adaptive alone)
		}
		for k, v := range nasaOptions(c) {
			o[k] = v
		}
		return o
	},
	tunable: map[string]string{"learning_rate": "learning_rate", "power_t": "power_t", "initial_t": "initial_t", "l2": "l2", "nasa_c": "nasa_c", "nasa_L": "nasa_L"},
	build: func(o model.Options, l loss.Loss, r *model.Reader) (sparse.Learner, error) {
		cfg, err := gdConfig(o)
		if err != nil {
			return nil, err
		}
		if r == nil {
			return gd.New(cfg, l)
		}
		return gd.Load(r, cfg, l)
	},
	memory: func(o model.Options) (float64, float64, error) {
		cfg, err := gdConfig(o)
		return 8 * float64(gd.RowFloats(cfg)), 0, err
	},
	describe: func(o model.Options) []string {
		kind := "online gradient descent"
		switch {
		case o["adaptive"] == "true" && o["normalized"] == "true":
			kind = "AdaGrad, normalized"
		case o["adaptive"] == "true" && o["update"] == "dual":
			kind = "ADA-DIAG, dual averaging, δ = " + o["delta"]
		case o["adaptive"] == "true" && o["normalized"] != "true" && o["delta"] != "0" && o["delta"] != "":
			kind = "ADA-DIAG (AdaGrad), δ = " + o["delta"]
		case o["adaptive"] == "true":
			kind = "AdaGrad"
		case o["normalized"] == "true":
			kind = "normalized gradient descent"
		}
		if step := describeNASA(o); step != "" {
			return []string{"learner = " + kind, step}
		}
		return []string{
			"learner = " + kind,
			"learning rate = " + o["learning_rate"],
			"initial_t = " + o["initial_t"],
			"power_t = " + o["power_t"],
		}
	},
}

// gdConfig decodes the first-order learner's options.
func gdConfig(o model.Options) (gd.Config, error) {
	var p optParser
	cfg := gd.Config{
		Bits:       uint(p.int(o, "bits")),
		Adaptive:   p.bool(o, "adaptive"),
		Normalized: p.bool(o, "normalized"),
		Eta:        p.float(o, "learning_rate"),
		PowerT:     p.float(o, "power_t"),
		InitialT:   p.float(o, "initial_t"),
		L2:         p.float(o, "l2"),
	}
	if err := nasaConfig(&cfg, o, &p); err != nil {
		return cfg, err
	}
	if _, ok := o["delta"]; ok {
		// Models from before --delta have AdaGrad without δ.
		cfg.Delta = p.float(o, "delta")
	}
	cfg.Dual = o["update"] == "dual"
	if _, ok := o["l1"]; ok {
		// Models from before --l1 carry no gravity.
		cfg.L1, cfg.L1State = p.float(o, "l1"), true
	}
	return cfg, p.err
}

// The default first-order update when none of --sgd, --adaptive and
// --normalized is given.
const defaultAdaptive, defaultNormalized = true, true

// sharedOptions returns the shared model options from the command line.
func sharedOptions(c *config) model.Options {
	var inter []string
	inter = append(inter, c.quadratic...)
	inter = append(inter, c.cubic...)
	inter = append(inter, c.interactions...)
	o := model.Options{
		"bits":          strconv.Itoa(c.bits),
		"hash":          c.hash,
		"interactions":  strings.Join(inter, ","),
		"ignore":        strings.Join(c.ignore, ""),
		"keep":          strings.Join(c.keep, ""),
		"noconstant":    fmtBool(c.noConstant),
		"loss":          c.lossName,
		"quantile_tau":  fmtFloat(c.tau),
		"link":          c.link,
		"binary":        fmtBool(c.binary),
		"oaa":           strconv.Itoa(c.oaa),
		"probabilities": fmtBool(c.probabilities),
	}
	for k, v := range vwSharedOptions(c) {
		o[k] = v
	}
	for k, v := range clusterOptions(c) {
		o[k] = v
	}
	return o
}

// hashConfig returns the hashing configuration of a model.
func hashConfig(o model.Options) (hashing.Config, error) {
	var p optParser
	h := hashing.Config{
		Bits:       uint(p.int(o, "bits")),
		NoConstant: p.bool(o, "noconstant"),
		HashAll:    o["hash"] == "all",
		Ignore:     o["ignore"],
		Keep:       o["keep"],
	}
	if o["interactions"] != "" {
		h.Interactions = strings.Split(o["interactions"], ",")
	}
	vwHashConfig(&h, o, &p)
	if p.err != nil {
		return h, p.err
	}
	return h, h.Validate()
}

// newLoss builds the loss of a model, with its saved label range.
func newLoss(o model.Options) (loss.Loss, error) {
	var p optParser
	tau := 0.5
	switch o["loss"] {
	case "quantile":
		tau = p.float(o, "quantile_tau")
	case "expectile":
		tau = p.float(o, "expectile_q")
	}
	if p.err != nil {
		return nil, p.err
	}
	l, err := loss.New(o["loss"], tau)
	if err != nil {
		return nil, err
	}
	if _, ok := o["label_min"]; ok {
		l.Observe(p.float(o, "label_min"))
		l.Observe(p.float(o, "label_max"))
	}
	return l, p.err
}

// optParser decodes typed option values, keeping the first error.
type optParser struct{ err error }

func (p *optParser) fail(o model.Options, k, want string) {
	if p.err == nil {
		p.err = fmt.Errorf("model option %s=%q is not %s", k, o[k], want)
	}
}

func (p *optParser) int(o model.Options, k string) int {
	v, err := strconv.Atoi(o[k])
	if err != nil {
		p.fail(o, k, "an integer")
	}
	return v
}

func (p *optParser) float(o model.Options, k string) float64 {
	v, err := strconv.ParseFloat(o[k], 64)
	if err != nil {
		p.fail(o, k, "a number")
	}
	return v
}

func (p *optParser) bool(o model.Options, k string) bool {
	v, err := strconv.ParseBool(o[k])
	if err != nil {
		p.fail(o, k, "true or false")
	}
	return v
}

func fmtFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
func fmtBool(b bool) string     { return strconv.FormatBool(b) }
