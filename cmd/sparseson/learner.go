package main

import (
	"github.com/sparseson/sparseson/gd"
	"github.com/sparseson/sparseson/learners"
)

var fmtFloat, fmtBool = learners.FormatFloat, learners.FormatBool

// defaultFamily is used when no learner flag is given.
var defaultFamily = learners.Default

// chooseFamily picks the learner family the flags ask for.
func chooseFamily(c *config) (*learners.Family, error) { return learners.Choose(settings(c)) }

// settings are the learner settings of the command line.
func settings(c *config) *learners.Settings {
	s := &learners.Settings{
		Bits: c.bits, Hash: c.hash, Ignore: c.ignore, Keep: c.keep, NoConstant: c.noConstant,
		HashSeed: c.vw.hashSeed, Ngram: c.vw.ngram, Skips: c.vw.skips,
		Loss: c.lossName, QuantileTau: c.tau, ExpectileQ: c.vw.expectileQ, Link: c.link,
		Binary: c.binary, Probabilities: c.probabilities, OAA: c.oaa, Total: c.cluster.total, Classes: c.softmax,
		Resume: c.initial != "", SGD: c.sgd, Adaptive: c.adaptive, Normalized: c.normalized,
		LearningRate: c.eta, PowerT: c.powerT, InitialT: c.initialT, L1: c.vw.l1, L2: c.l2,
		NasaC: c.nasa.c, NasaH: c.nasa.strongH, NasaL: c.nasa.L,
		Dual: c.ada.dualAveraging, Mirror: c.ada.mirrorDescent, Delta: c.ada.delta, FeatureScale: c.featureScale,
		SketchSize: c.sketchSize, Alpha: c.alpha, AlphaInverse: c.alphaInverse, Projection: c.projection,
		Sigma: c.sigma, Eta0: c.eta0, EtaPower: c.etaPower, SketchScale: c.sketchScale, OjaRate: c.ojaRate,
		FDGate: c.fdGate, Diag: c.diag, DiagSketch: c.diagSketch, DiagInit: c.diagInit, Seed: c.seed,
		Epsilon: c.ada.epsilon, ADAScale: c.ada.scale, ShampooExactLeft: c.shampoo.exactLeft,
		Given: c.changed, On: c.on, Name: flagName,
	}
	s.Interactions = append(append(append(s.Interactions, c.quadratic...), c.cubic...), c.interactions...)
	s.Select()
	if s.Step == gd.StepSAdaGrad {
		s.NasaH = c.nasa.sadagradH
	}
	return s
}
