package learners

import (
	"fmt"
	"math"
	"strconv"

	"github.com/sparseson/sparseson/ada"
	"github.com/sparseson/sparseson/gd"
)

// The checks of the settings (CheckSON, CheckADA, CheckStep,
// CheckFirstOrder, CheckMulticlass, CheckShampoo) each refuse values out
// of range and settings that conflict with the rest; their messages write
// settings through Settings.Name.

func finite(v float64) bool { return !math.IsInf(v, 0) && !math.IsNaN(v) }

// CheckSON checks the values of SON's settings.
func CheckSON(s *Settings) error {
	n := s.name
	switch {
	case s.SketchSize < 0 || s.SketchSize > 64 && !adaOn(s):
		return fmt.Errorf("%s %d: must be in 0..64", n("sketch_size"), s.SketchSize)
	case s.DiagSketch != "scaled" && s.DiagSketch != "paper":
		return fmt.Errorf("%s %q: must be scaled or paper", n("diag_sketch"), s.DiagSketch)
	case s.DiagInit != "" && s.DiagInit != "auto" && s.DiagInit != "max" && s.DiagInit != "paper":
		return fmt.Errorf("%s %q: must be auto, max or paper", n("diag_init"), s.DiagInit)
	case !(s.Alpha > 0) || math.IsInf(s.Alpha, 0):
		return fmt.Errorf("%s %v: must be positive and finite", n("alpha"), s.Alpha)
	case s.AlphaInverse < 0 || !finite(s.AlphaInverse):
		return fmt.Errorf("%s %v: must be positive", n("alpha_inverse"), s.AlphaInverse)
	case !(s.Projection > 0):
		return fmt.Errorf("%s %v: must be positive (or inf)", n("projection"), s.Projection)
	case !(s.EtaPower >= 0 && s.EtaPower <= 2):
		return fmt.Errorf("%s %v: must be in [0, 2]", n("eta_power"), s.EtaPower)
	case s.Eta0 < 0 || !finite(s.Eta0):
		return fmt.Errorf("%s %v: must be ≥ 0", n("eta0"), s.Eta0)
	case s.SketchScale < 0 || !finite(s.SketchScale):
		return fmt.Errorf("%s %v: must be ≥ 0", n("sketch_scale"), s.SketchScale)
	case !(s.FDGate >= 0) || math.IsInf(s.FDGate, 0):
		return fmt.Errorf("%s %v: must be ≥ 0 and finite", n("fd_gate"), s.FDGate)
	case s.given("fd_gate") && !s.Resume && !s.on("fd") && !s.on("rfd") && !adaGated(s):
		return fmt.Errorf("%s applies to %s, %s and the FD-adaptive learners with a sketch (not %s)", n("fd_gate"), n("fd"), n("rfd"), n("ada_full"))
	case !(s.OjaRate > 0) || math.IsInf(s.OjaRate, 0):
		return fmt.Errorf("%s %v: must be positive", n("oja_rate"), s.OjaRate)
	}
	if s.Sigma != "auto" {
		v, err := strconv.ParseFloat(s.Sigma, 64)
		if err != nil || v < 0 || math.IsInf(v, 0) {
			return fmt.Errorf("%s %q: want auto or a number ≥ 0", n("sigma"), s.Sigma)
		}
	}
	return nil
}

// CheckADA checks the FD-adaptive learners' settings against each other
// and the rest.
func CheckADA(s *Settings) error {
	n := s.name
	name, err := ADASelected(s)
	if err != nil {
		return err
	}
	delta, derr := strconv.ParseFloat(s.Delta, 64)
	switch {
	case s.Delta != "auto" && (derr != nil || !(delta >= 0) || math.IsInf(delta, 0)):
		return fmt.Errorf("%s %q: want auto or a number ≥ 0", n("delta"), s.Delta)
	case !(s.Epsilon >= 0) || math.IsInf(s.Epsilon, 0):
		return fmt.Errorf("%s %v: must be ≥ 0 and finite", n("epsilon"), s.Epsilon)
	case s.ADAScale != "auto" && s.ADAScale != "paper":
		return fmt.Errorf("%s %q: want auto or paper", n("ada_scale"), s.ADAScale)
	case s.Dual && s.Mirror:
		return fmt.Errorf("choose one update: %s or %s", n("dual_averaging"), n("mirror_descent"))
	}
	if name == "" && s.Resume {
		return nil // the resumed model decides (Resume)
	}
	if name == "" {
		return checkADADiag(s)
	}
	if err := checkADAValues(s, name, delta); err != nil {
		return err
	}
	for _, f := range []string{"sgd", "adaptive", "normalized", "power_t", "initial_t", "oja", "rp", "fd", "fd_fast", "rfd", "rfd_fast", "full", "alpha", "alpha_inverse", "projection", "sigma", "eta0", "eta_power", "sketch_scale", "oja_rate", "diag", "diag_sketch", "diag_init"} {
		if s.given(f) {
			return fmt.Errorf("%s does not apply to %s", n(f), n(name))
		}
	}
	for _, f := range StepNames {
		if s.given(f) {
			return fmt.Errorf("%s is a step size of the first-order learner; it does not apply to %s", n(f), n(name))
		}
	}
	return nil
}

// checkADADiag checks the settings of the FD-adaptive learners given
// without one: they belong to ADA-DIAG (adaptive alone) or FTSL-Shampoo.
func checkADADiag(s *Settings) error {
	n := s.name
	diag := s.Adaptive && !s.Normalized && !s.SGD
	switch {
	case (s.Dual || s.Mirror) && !diag:
		return fmt.Errorf("%s and %s choose the update of %s, %s, %s, or of %s alone (ADA-DIAG)", n("dual_averaging"), n("mirror_descent"), n("ada_fd"), n("ada_ffd"), n(ADAFull), n("adaptive"))
	case s.Dual && (s.L2 > 0 || s.L1 > 0 || SelectedStep(s) != gd.StepSchedule):
		return fmt.Errorf("ADA-DIAG's dual averaging (%s %s) has no %s, %s or NASA step", n("adaptive"), n("dual_averaging"), n("l1"), n("l2"))
	case s.given("epsilon") && !s.on("shampoo"):
		return fmt.Errorf("%s applies to %s, %s, %s, %s and %s", n("epsilon"), n("ftsl"), n("ftfsl"), n("sada"), n("sada_fast"), n("shampoo"))
	case s.given("ada_scale") && !s.on("shampoo"):
		return fmt.Errorf("%s applies to the FD-adaptive learners (%s, %s, %s, %s, %s, %s, %s) and %s", n("ada_scale"), n("ada_fd"), n("ada_ffd"), n("ftsl"), n("ftfsl"), n("sada"), n("sada_fast"), n(ADAFull), n("shampoo"))
	case s.given("delta") && !diag:
		return fmt.Errorf("%s applies to the FD-adaptive learners (%s, %s, %s) and to %s alone (ADA-DIAG)", n("delta"), n("ada_fd"), n("ada_ffd"), n(ADAFull), n("adaptive"))
	}
	return nil
}

// adaTwin names the other form of the FD-adaptive learners whose update
// is fixed.
var adaTwin = map[string]struct{ form, twin string }{
	"ftsl": {"mirror-descent", "sada"}, "ftfsl": {"mirror-descent", "sada_fast"},
	"sada": {"dual-averaging", "ftsl"}, "sada_fast": {"dual-averaging", "ftfsl"},
}

// checkADAValues checks the settings of FD-adaptive learner name.
func checkADAValues(s *Settings, name string, delta float64) error {
	n := s.name
	named, ok := ada.Lookup(name)
	escaped := ok && named.Precond == ada.Escaped
	switch {
	case ok && named.UpdateFixed && (s.Dual || s.Mirror):
		t := adaTwin[name]
		return fmt.Errorf("%s has a fixed update (its %s form is %s); drop %s/%s", n(name), t.form, n(t.twin), n("dual_averaging"), n("mirror_descent"))
	case escaped && s.given("delta"):
		return fmt.Errorf("%s does not apply to %s, whose preconditioner is (ρI + SᵀS)^{1/2} (see %s)", n("delta"), n(name), n("epsilon"))
	case !escaped && s.given("epsilon"):
		return fmt.Errorf("%s applies to the escaped-mass learners (%s, %s, %s, %s), not %s", n("epsilon"), n("ftsl"), n("ftfsl"), n("sada"), n("sada_fast"), n(name))
	case s.Delta != "auto" && delta == 0 && name != ADAFull:
		return fmt.Errorf("%s needs δ > 0 (δ = 0 is only meaningful for %s, the pseudo-inverse)", n(name), n(ADAFull))
	case name != ADAFull && (s.SketchSize < 1 || s.SketchSize > ada.MaxTau):
		return fmt.Errorf("%s %d: the sketch size τ of %s must be in 1..%d", n("sketch_size"), s.SketchSize, n(name), ada.MaxTau)
	case name == ADAFull && s.given("sketch_size"):
		return fmt.Errorf("%s has no sketch: drop %s", n(ADAFull), n("sketch_size"))
	case s.Classes > 0:
		return fmt.Errorf("%s is a binary (or regression) learner; use it with %s K, not %s", n(name), n("oaa"), n("softmax"))
	case s.L1 > 0 || s.L2 > 0:
		return fmt.Errorf("%s: %s and %s break the closed form of the update (β = −η·P·Σg, β −= η·P·g); a composite step would need a proximal map in P's metric, which has no closed form outside a diagonal P: not supported", n(name), n("l1"), n("l2"))
	}
	return nil
}

// CheckStep checks the step size settings of the first-order learner.
func CheckStep(s *Settings) error {
	n := s.name
	var chosen []string
	for _, f := range StepNames {
		if s.on(f) || ((f == "nasa_strong" || f == "sadagrad") && s.given(f)) {
			chosen = append(chosen, f)
		}
	}
	switch {
	case len(chosen) > 1:
		return fmt.Errorf("choose one step size, not %s and %s", n(chosen[0]), n(chosen[1]))
	case !(s.NasaC > 0) || math.IsInf(s.NasaC, 0):
		return fmt.Errorf("%s %v: must be positive and finite", n("nasa_c"), s.NasaC)
	case len(chosen) == 1 && (chosen[0] == "nasa_strong" || chosen[0] == "sadagrad") && (!(s.NasaH > 0) || math.IsInf(s.NasaH, 0)):
		return fmt.Errorf("%s %v: H must be positive and finite", n(chosen[0]), s.NasaH)
	case s.NasaL < 0 || !finite(s.NasaL):
		return fmt.Errorf("%s %v: must be positive and finite", n("nasa_L"), s.NasaL)
	case len(chosen) == 0:
		return nil
	case chosen[0] == "nasa" && s.Normalized && !s.Adaptive:
		return fmt.Errorf("%s works per feature with %s (and %s), or as a scalar step with %s; not with %s alone", n("nasa"), n("adaptive"), n("normalized"), n("sgd"), n("normalized"))
	case chosen[0] != "nasa" && (s.Adaptive || s.Normalized):
		return fmt.Errorf("%s is a scalar step of plain gradient descent (it implies %s): it excludes %s and %s", n(chosen[0]), n("sgd"), n("adaptive"), n("normalized"))
	case s.on("nasa_accel") && !(s.NasaL > 0) && !s.Resume:
		return fmt.Errorf("%s needs %s, the smoothness constant of the loss (it cannot be estimated online)", n("nasa_accel"), n("nasa_L"))
	}
	if son, _, err := SONSelected(s); err == nil && son {
		return fmt.Errorf("%s is a step size of the first-order learner; it does not apply to SON", n(chosen[0]))
	}
	return nil
}

// CheckShampoo checks FTSL-Shampoo's settings against the rest.
func CheckShampoo(s *Settings) error {
	n := s.name
	switch {
	case s.ShampooExactLeft && !s.on("shampoo"):
		return fmt.Errorf("%s applies to %s", n("shampoo_exact_left"), n("shampoo"))
	case !s.on("shampoo"):
		return nil
	case s.Classes == 0 && !s.Resume:
		return fmt.Errorf("%s trains the %s K model: give %s K", n("shampoo"), n("softmax"), n("softmax"))
	case s.Classes > ada.MaxShampooClasses:
		return fmt.Errorf("%s: its K×K left factor allows at most %d classes", n("shampoo"), ada.MaxShampooClasses)
	case s.given("epsilon") && !(s.Epsilon > 0):
		return fmt.Errorf("%s needs ε > 0 (%s), got %v", n("shampoo"), n("epsilon"), s.Epsilon)
	case s.given("sketch_size") && s.SketchSize < 1:
		return fmt.Errorf("%s %d: the sketch size τ of %s must be ≥ 1", n("sketch_size"), s.SketchSize, n("shampoo"))
	case s.L1 > 0 || s.L2 > 0:
		return fmt.Errorf("%s: %s and %s break the closed form W = −η·L^{−1/4}·Ḡ·R^{−1/4}; not supported", n("shampoo"), n("l1"), n("l2"))
	case s.OAA > 0:
		return fmt.Errorf("%s trains the %s model, not %s", n("shampoo"), n("softmax"), n("oaa"))
	}
	for _, f := range []string{"sgd", "adaptive", "normalized", "power_t", "initial_t", "oja", "rp", "fd", "fd_fast", "rfd", "rfd_fast", "full", "alpha", "alpha_inverse", "projection", "sigma", "eta0", "eta_power", "sketch_scale", "oja_rate", "diag", "diag_sketch", "diag_init", "dual_averaging", "mirror_descent", "delta"} {
		if s.given(f) {
			return fmt.Errorf("%s does not apply to %s", n(f), n("shampoo"))
		}
	}
	for _, f := range append(append([]string{}, StepNames...), ADANames...) {
		if s.given(f) {
			return fmt.Errorf("%s does not apply to %s", n(f), n("shampoo"))
		}
	}
	return nil
}
