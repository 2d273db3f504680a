package main

import (
	"errors"
	"fmt"

	"github.com/sparseson/sparseson/gd"
	"github.com/sparseson/sparseson/learners"
)

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

// settings are the learner settings of the command line.
func settings(c *config) *learners.Settings {
	s := &learners.Settings{
		Bits: c.bits, Hash: c.hash, Ignore: c.ignore, Keep: c.keep, NoConstant: c.noConstant,
		HashSeed: c.vw.hashSeed, Ngram: c.vw.ngram, Skips: c.vw.skips,
		Loss: c.lossName, QuantileTau: c.tau, ExpectileQ: c.vw.expectileQ, Link: c.link,
		Binary: c.binary, Probabilities: c.probabilities, OAA: c.oaa, Total: c.cluster.total, Classes: c.softmax,
		Resume: c.initial != "", SGD: c.sgd, Adaptive: c.adaptive, Normalized: c.normalized,
		LearningRate: c.eta, PowerT: c.powerT, InitialT: c.initialT, L1: c.vw.l1, L2: c.l2,
		Step: c.nasaStep(), NasaC: c.nasa.c, NasaH: c.nasa.strongH, NasaL: c.nasa.L,
		Dual: c.ada.dualAveraging, Mirror: c.ada.mirrorDescent, Delta: c.ada.delta,
		SketchSize: c.sketchSize, Alpha: c.alpha, AlphaInverse: c.alphaInverse, Projection: c.projection,
		Sigma: c.sigma, Eta0: c.eta0, EtaPower: c.etaPower, SketchScale: c.sketchScale, OjaRate: c.ojaRate,
		FDGate: c.fdGate, Diag: c.diag, DiagSketch: c.diagSketch, Seed: c.seed,
		Epsilon: c.ada.epsilon, ADAScale: c.ada.scale, ShampooExactLeft: c.shampoo.exactLeft,
		Given: c.changed,
	}
	s.Interactions = append(append(append(s.Interactions, c.quadratic...), c.cubic...), c.interactions...)
	if s.Step == gd.StepSAdaGrad {
		s.NasaH = c.nasa.sadagradH
	}
	_, s.Sketch, _ = sonSelected(c)
	s.ADA, _ = adaSelected(c)
	return s
}
