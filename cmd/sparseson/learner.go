package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/sparseson/sparseson/gd"
	"github.com/sparseson/sparseson/learners"
	"github.com/sparseson/sparseson/model"
)

// familyOptions returns each family's model options from the command
// line.
var familyOptions = map[*learners.Family]func(c *config) model.Options{
	learners.GD: gdOptions, learners.SON: sonFamilyOptions, learners.Full: fullOptions,
	learners.Softmax: softmaxOptions, learners.ADA: adaOptions, learners.Shampoo: shampooOptions,
}

var fmtFloat, fmtBool = learners.FormatFloat, learners.FormatBool

// defaultFamily is used when no learner flag is given.
var defaultFamily = learners.Default

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
func chooseFamily(c *config) (*learners.Family, error) {
	if c.shampoo.on {
		return learners.Shampoo, nil
	}
	if c.adaOn() {
		return learners.ADA, nil
	}
	son, kind, err := sonSelected(c)
	if err != nil {
		return nil, err
	}
	if c.softmax > 0 {
		if son || kind != "" {
			return nil, errors.New("--softmax is a first-order K-class model: it does not combine with SON's flags")
		}
		return learners.Softmax, nil
	}
	if kind == "full" {
		return learners.Full, nil
	}
	if son {
		return learners.SON, nil
	}
	return defaultFamily, nil
}

// gdOptions are the first-order learner's model options.
func gdOptions(c *config) model.Options {
	adaptive, normalized := c.adaptive, c.normalized
	if step := c.nasaStep(); !c.sgd && !c.adaptive && !c.normalized && (step == gd.StepSchedule || step == gd.StepNASA) {
		adaptive, normalized = learners.DefaultAdaptive, learners.DefaultNormalized
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
}

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
