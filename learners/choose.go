package learners

import (
	"fmt"

	"github.com/sparseson/sparseson/gd"
)

// StepNames are the settings that choose a step size of the first-order
// learner (Ouyang & Gray (KDD 2012)), in the order a conflict is reported.
var StepNames = []string{"nasa", "nasa_strong", "nasa_accel", "scalar_adagrad", "sadagrad"}

// ADANames are the settings that choose an FD-adaptive learner (the names
// of ada.Lookup, and ADAFull), in the order a conflict is reported.
var ADANames = []string{"ada_fd", "ada_ffd", "ftsl", "ftfsl", "sada", "sada_fast", ADAFull}

// sonSettings are the settings that, given, ask for a SON learner (the
// default Oja sketch unless a sketch is chosen).
var sonSettings = []string{"sketch_size", "alpha", "alpha_inverse", "projection", "sigma", "eta0", "sketch_scale", "oja_rate", "diag", "diag_sketch", "diag_init"}

// SONSelected reports whether the settings ask for a SON learner (or full
// ONS), and which sketch ("" for the default Oja; "full" for full ONS).
func SONSelected(s *Settings) (bool, string, error) {
	var chosen []string
	for _, k := range append(Sketches(), "full") {
		if s.on(k) {
			chosen = append(chosen, k)
		}
	}
	if len(chosen) > 1 {
		return false, "", fmt.Errorf("choose one sketch, not %s and %s", s.name(chosen[0]), s.name(chosen[1]))
	}
	son := len(chosen) > 0
	for _, f := range sonSettings {
		son = son || s.given(f)
	}
	if len(chosen) == 1 {
		return true, chosen[0], nil
	}
	return son, "", nil
}

// adaOn reports whether a setting chooses an FD-adaptive learner (one or
// more: CheckADA refuses more).
func adaOn(s *Settings) bool {
	for _, n := range ADANames {
		if s.on(n) {
			return true
		}
	}
	return false
}

// ADASelected returns the FD-adaptive learner the settings choose (""
// for none).
func ADASelected(s *Settings) (string, error) {
	var chosen []string
	for _, n := range ADANames {
		if s.on(n) {
			chosen = append(chosen, n)
		}
	}
	if len(chosen) > 1 {
		return "", fmt.Errorf("choose one FD-adaptive learner, not %s and %s", s.name(chosen[0]), s.name(chosen[1]))
	}
	if len(chosen) == 0 {
		return "", nil
	}
	return chosen[0], nil
}

// SelectedStep returns the step the settings choose (StepSchedule for
// none).
func SelectedStep(s *Settings) gd.Step {
	switch {
	case s.on("nasa"):
		return gd.StepNASA
	case s.given("nasa_strong"):
		return gd.StepNASAStrong
	case s.on("nasa_accel"):
		return gd.StepNASAAccel
	case s.on("scalar_adagrad"):
		return gd.StepScalarAdaGrad
	case s.given("sadagrad"):
		return gd.StepSAdaGrad
	}
	return gd.StepSchedule
}

// Select sets the learner the selecting settings (On, Given) choose:
// Sketch, ADA and Step. Two sketches or two FD-adaptive learners leave
// Sketch or ADA empty: the conflict is Choose's and CheckADA's error.
func (s *Settings) Select() {
	_, s.Sketch, _ = SONSelected(s)
	s.ADA, _ = ADASelected(s)
	s.Step = SelectedStep(s)
}

// Choose returns the family the selecting settings choose (Default for
// none).
func Choose(s *Settings) (*Family, error) {
	if s.on("shampoo") {
		return Shampoo, nil
	}
	if adaOn(s) {
		return ADA, nil
	}
	son, kind, err := SONSelected(s)
	if err != nil {
		return nil, err
	}
	if s.Classes > 0 {
		if son || kind != "" {
			return nil, fmt.Errorf("%s is a first-order K-class model: it does not combine with %s", s.name("softmax"), s.name("SON's settings"))
		}
		return Softmax, nil
	}
	if kind == "full" {
		return Full, nil
	}
	if son {
		return SON, nil
	}
	return Default, nil
}

// firstOrderSettings tune the first-order learner's update (gd). One rule
// for every learner that has no such update: a setting of another learner
// is refused, never silently ignored. The FD-adaptive learners and
// FTSL-Shampoo list what they refuse in CheckADA and CheckShampoo, the
// NASA steps in CheckStep; SON's Newton step (and full ONS) has none of
// these.
var firstOrderSettings = []string{"sgd", "adaptive", "normalized", "power_t", "initial_t", "l2"}

// CheckFirstOrder refuses first-order settings given with SON, and
// feature_scale with any learner but the first-order one.
func CheckFirstOrder(s *Settings) error {
	if err := checkFeatureScale(s); err != nil {
		return err
	}
	if adaOn(s) || s.on("shampoo") {
		return nil // their own lists
	}
	son, kind, err := SONSelected(s)
	if err != nil || !son {
		return err
	}
	if kind == "" {
		kind = "oja"
	}
	for i, f := range firstOrderSettings {
		// sgd, adaptive, normalized are switches; the rest values
		if s.on(f) || (i >= 3 && s.given(f)) {
			return fmt.Errorf("%s is an option of the first-order learner; it does not apply to SON (%s)", s.name(f), s.name(kind))
		}
	}
	return nil
}

// checkFeatureScale checks feature_scale: a value of its own, and given
// only to the first-order learner (gd, with oaa too), the one it acts on.
// The FD-adaptive learners and FTSL-Shampoo have ada_scale, SON pre-scales
// by its own D, and the softmax model learns on x as given.
func checkFeatureScale(s *Settings) error {
	n := s.name
	if s.FeatureScale != "auto" && s.FeatureScale != "raw" && s.FeatureScale != "" {
		return fmt.Errorf("%s %q: want auto or raw", n("feature_scale"), s.FeatureScale)
	}
	if !s.given("feature_scale") || s.Resume {
		return nil // a resumed model's family decides (Resume)
	}
	son, kind, err := SONSelected(s)
	if err != nil {
		return err
	}
	if adaOn(s) || s.on("shampoo") || son || kind != "" || s.Classes > 0 {
		return fmt.Errorf("%s applies to the first-order learner (%s, %s, the NASA steps; with %s too), not to SON, %s or the FD-adaptive learners (see %s)", n("feature_scale"), n("sgd"), n("adaptive"), n("oaa"), n("softmax"), n("ada_scale"))
	}
	return nil
}

// CheckMulticlass checks oaa and softmax (the classes) against the other
// settings.
func CheckMulticlass(s *Settings) error {
	n := s.name
	switch {
	// 0 is "not given"; given, it would train a binary model.
	case s.OAA < 0 || s.OAA == 1 || s.OAA > gd.MaxClasses || s.given("oaa") && s.OAA == 0:
		return fmt.Errorf("%s %d: want 2..%d classes", n("oaa"), s.OAA, gd.MaxClasses)
	case s.Classes < 0 || s.Classes == 1 || s.Classes > gd.MaxClasses || s.given("softmax") && s.Classes == 0:
		return fmt.Errorf("%s %d: want 2..%d classes", n("softmax"), s.Classes, gd.MaxClasses)
	case s.OAA > 0 && s.Classes > 0:
		return fmt.Errorf("choose %s or %s, not both", n("oaa"), n("softmax"))
	case (s.OAA > 0 || s.Classes > 0) && (s.Binary || s.Link != "identity"):
		return fmt.Errorf("%s and %s report scalar predictions; a multiclass model reports classes (and %s its class probabilities)", n("binary"), n("link"), n("probabilities"))
	case s.Classes > 0 && s.given("loss_function") && s.Loss != "logistic":
		return fmt.Errorf("%s trains the multinomial logistic loss; %s %s does not apply", n("softmax"), n("loss_function"), s.Loss)
	case s.Classes > 0 && SelectedStep(s) != gd.StepSchedule:
		return fmt.Errorf("%s takes the AdaGrad, normalized or %s updates, not NASA's steps", n("softmax"), n("sgd"))
	}
	return nil
}
