package learners

import (
	"math"
	"strconv"
	"strings"

	"github.com/sparseson/sparseson/ada"
	"github.com/sparseson/sparseson/fd"
	"github.com/sparseson/sparseson/gd"
	"github.com/sparseson/sparseson/model"
	"github.com/sparseson/sparseson/son"
)

// Settings are what a new model's options are made from: the values a
// user chose (the command line's, by meaning), whatever the family. Each
// family reads the fields it has; NewOptions writes the model's options.
type Settings struct {
	// Hashing and scoring, shared by every family.
	Bits                    int
	Hash                    string   // strings or all
	Interactions            []string // namespace prefixes, "ab" or "abc"
	Ignore, Keep            []string
	NoConstant              bool
	HashSeed                uint32
	Ngram, Skips            []string
	Loss                    string // squared, logistic, …; pinball and absolute are quantile
	QuantileTau, ExpectileQ float64
	Link                    string
	Binary, Probabilities   bool
	OAA                     int  // K of one-against-all; 0: none
	Classes                 int  // K of the softmax model (and FTSL-Shampoo's)
	Total                   int  // the shards the stream is cut into (1: the whole stream)
	Resume                  bool // the options are checked against a model being resumed

	// The first-order learner (gd, softmax): its update and step.
	SGD, Adaptive, Normalized              bool
	LearningRate, PowerT, InitialT, L1, L2 float64
	Step                                   gd.Step
	NasaC, NasaH, NasaL                    float64
	Dual, Mirror                           bool   // the update of ADA-DIAG and the FD-adaptive learners
	Delta                                  string // δ: "auto" or a number
	// FeatureScale is auto or raw: auto ("" too) runs an update that is
	// not normalized on x_j/s_j (gd.Config.RMS); raw on x as given.
	FeatureScale string

	// SON and full ONS: Sketch is "" (Oja), a name of Sketches(), or full.
	Sketch                                       string
	SketchSize                                   int
	Alpha, AlphaInverse, Projection              float64
	Sigma                                        string // "auto" or a number
	Eta0, EtaPower, SketchScale, OjaRate, FDGate float64
	Diag                                         bool
	DiagSketch                                   string // scaled or paper
	DiagInit                                     string // paper ("" too), max or auto: D₁ of the pre-scaling
	Seed                                         uint64

	// The FD-adaptive learners (ADA is ada.Lookup's name, or ADAFull) and
	// FTSL-Shampoo.
	ADA              string
	Epsilon          float64
	ADAScale         string // auto or paper
	ShampooExactLeft bool

	// Given reports whether a setting was chosen explicitly rather than
	// left at its default, by its name (learning_rate, sketch_size,
	// alpha, alpha_inverse, projection, epsilon, fd_gate): some defaults
	// depend on it. Nil: nothing was.
	Given func(setting string) bool
	// On reports whether a switch (a boolean setting: a sketch, an
	// FD-adaptive learner, shampoo, a step) was chosen and is on. Nil:
	// none was.
	On func(setting string) bool
	// Name is how the checks' messages (Check*, Choose) write a setting,
	// named as for Given (the command maps them to its flags). Nil: by
	// its own name.
	Name func(setting string) string
}

func (s *Settings) given(name string) bool { return s.Given != nil && s.Given(name) }

// NewOptions returns the options of a new model of family f.
func NewOptions(f *Family, s *Settings) model.Options {
	o := sharedOptions(s)
	for k, v := range f.options(s) {
		o[k] = v
	}
	o["learner"] = f.Name
	return o
}

// FamilyOptions returns the options family f adds to the shared ones.
func (f *Family) FamilyOptions(s *Settings) model.Options { return f.options(s) }

// sharedOptions are the options of every model.
func sharedOptions(s *Settings) model.Options {
	o := model.Options{
		"bits":          strconv.Itoa(s.Bits),
		"hash":          s.Hash,
		"interactions":  strings.Join(s.Interactions, ","),
		"ignore":        strings.Join(s.Ignore, ""),
		"keep":          strings.Join(s.Keep, ""),
		"noconstant":    FormatBool(s.NoConstant),
		"loss":          s.Loss,
		"quantile_tau":  FormatFloat(s.QuantileTau),
		"link":          s.Link,
		"binary":        FormatBool(s.Binary),
		"oaa":           strconv.Itoa(s.OAA),
		"probabilities": FormatBool(s.Probabilities),
		"hash_seed":     strconv.FormatUint(uint64(s.HashSeed), 10),
		"ngram":         strings.Join(s.Ngram, ","),
		"skips":         strings.Join(s.Skips, ","),
		"total":         strconv.Itoa(s.Total),
	}
	switch s.Loss {
	case "expectile":
		o["expectile_q"] = FormatFloat(s.ExpectileQ)
	case "pinball", "absolute":
		o["loss"] = "quantile" // VW's other names of the quantile loss
	}
	return o
}

// gdOptions are the first-order learner's options.
func gdOptions(s *Settings) model.Options {
	adaptive, normalized := s.Adaptive, s.Normalized
	if !s.SGD && !s.Adaptive && !s.Normalized && (s.Step == gd.StepSchedule || s.Step == gd.StepNASA) {
		adaptive, normalized = DefaultAdaptive, DefaultNormalized
	}
	o := model.Options{
		"adaptive": FormatBool(adaptive), "normalized": FormatBool(normalized),
		"learning_rate": FormatFloat(s.LearningRate), "power_t": FormatFloat(s.PowerT),
		"initial_t": FormatFloat(s.InitialT), "l2": FormatFloat(s.L2), "l1": FormatFloat(s.L1),
		"delta": "0", "update": "mirror",
		"step": s.Step.String(), "nasa_c": FormatFloat(s.NasaC), "nasa_H": FormatFloat(s.NasaH), "nasa_L": FormatFloat(s.NasaL),
	}
	if s.Dual {
		o["update"] = "dual" // ADA-DIAG's dual averaging (adaptive alone)
	}
	if s.Delta != "auto" {
		o["delta"] = s.Delta // ADA-DIAG's δ (adaptive alone)
	}
	switch {
	case s.Resume && s.given("feature_scale"):
		// Checked against the model resumed (Resume), whose update the
		// settings of a resumed run need not repeat.
		o["feature_scale"] = "auto"
		if s.FeatureScale == "raw" {
			o["feature_scale"] = "raw"
		}
	case !normalized && s.FeatureScale != "raw":
		// Only where it acts: a normalized update (the default AdaGrad,
		// normalized, NASA's) is unit-free as it is, and its models stay
		// byte for byte those of the builds before the option; absent
		// means raw.
		o["feature_scale"] = "auto"
	}
	return o
}

// softmaxOptions are the softmax model's options.
func softmaxOptions(s *Settings) model.Options {
	adaptive, normalized := s.Adaptive, s.Normalized
	if !s.SGD && !s.Adaptive && !s.Normalized {
		adaptive, normalized = DefaultAdaptive, DefaultNormalized
	}
	return model.Options{
		"classes": strconv.Itoa(s.Classes), "loss": "logistic",
		"adaptive": FormatBool(adaptive), "normalized": FormatBool(normalized),
		"learning_rate": FormatFloat(s.LearningRate), "power_t": FormatFloat(s.PowerT),
		"initial_t": FormatFloat(s.InitialT), "l2": FormatFloat(s.L2),
	}
}

// sonOptions are the options shared by SON and full ONS.
func sonOptions(s *Settings) model.Options {
	alpha := s.Alpha
	if s.AlphaInverse > 0 {
		alpha = 1 / s.AlphaInverse
	}
	sigma, _ := strconv.ParseFloat(s.Sigma, 64) // "auto" below
	if s.Sigma == "auto" {
		sigma = 0
		if s.Loss == "squared" && !math.IsInf(s.Projection, 1) {
			// Assumption 2 of Luo et al. (NIPS 2016): squared loss is
			// curved with σ = 1/(8C²) when predictions and labels are
			// bounded by C.
			sigma = 1 / (8 * s.Projection * s.Projection)
		}
	}
	o := model.Options{
		"alpha": FormatFloat(alpha), "projection": FormatFloat(s.Projection), "sigma": FormatFloat(sigma),
		"eta0": FormatFloat(s.Eta0), "eta_power": FormatFloat(s.EtaPower), "sketch_scale": FormatFloat(s.SketchScale), "diag": FormatBool(s.Diag),
		"diag_sketch": s.DiagSketch,
	}
	if s.Diag && (s.DiagInit != "" && s.DiagInit != "paper" || s.given("diag_init")) {
		// auto, max: D₁ = 0.1·u_j² (son.Config.Unit). Absent: the paper's
		// 0.1·I, as in every model before it, whose bytes stay as they
		// were; stated when given, so that resuming a model checks it.
		o["diag_init"] = s.DiagInit
	}
	if s.Diag && s.DiagSketch == "scaled" {
		if !s.given("alpha") && !s.given("alpha_inverse") {
			o["alpha"] = "auto"
		}
		rate := float64(son.DefaultRate)
		if s.given("learning_rate") {
			rate = s.LearningRate
		}
		o["learning_rate"] = FormatFloat(rate)
	}
	return o
}

// fullOptions are full ONS's options: it keeps the form of Luo et al.
// (NIPS 2016), Eq. 1–2 (it is the dense reference).
func fullOptions(s *Settings) model.Options {
	s2 := *s
	s2.DiagSketch = "paper"
	o := sonOptions(&s2)
	o["sketch"] = "full"
	return o
}

// sonFamilyOptions are a SON learner's options.
func sonFamilyOptions(s *Settings) model.Options {
	kind := s.Sketch
	if kind == "" {
		kind = "oja"
	}
	if s.SketchSize == 0 {
		kind = "none"
	}
	rfd0 := (kind == "rfd" || kind == "rfd_fast") && !s.given("alpha") && !s.given("alpha_inverse") && !(s.Diag && s.DiagSketch == "scaled")
	if rfd0 && !s.given("projection") {
		// RFD₀'s pseudo-inverse steps need the bound of the experiments
		// of Luo et al. (JMLR 2019), K_t = {w : |wᵀx_t| ≤ 1}. (Its
		// η_t = 1/t, eta_power 1, was less accurate than 1/√t on every
		// shared set but two.)
		s2 := *s
		s2.Projection = 1
		s = &s2
	}
	o := sonOptions(s)
	if rfd0 {
		o["alpha"] = "0" // RFD₀ (Luo et al. (JMLR 2019)): α grows from 0, nothing to tune
	}
	o["sketch"], o["m"] = kind, strconv.Itoa(s.SketchSize)
	o["oja_rate"], o["random_seed"] = FormatFloat(s.OjaRate), strconv.FormatUint(s.Seed, 10)
	// Absent = exact FD, so that its models stay as they were; a run that
	// resumes a model states it to be checked.
	gate := s.FDGate
	if !s.given("fd_gate") && !s.Resume {
		gate = fd.SONGate // FTSL's and S-ADA's 0.3 is --fd_gate's default
	}
	if (kind == "fd" || kind == "rfd") && gate != 0 || s.Resume && s.given("fd_gate") {
		o["fd_gate"] = FormatFloat(gate)
	}
	if (kind == "fd" || kind == "rfd") && gate != 0 && !s.Resume {
		// The gated sketch's Z row cap from the start (fd.GatedRowCap),
		// so that every feature's row is as narrow; a model without it
		// has fd's 2m (the gated models before it, and exact FD).
		o["row_cap"] = strconv.Itoa(fd.GatedRowCap(s.SketchSize))
		// The gate's skips (fd.SONSkip); absent: none, the gated models
		// before them.
		o["fd_skip"] = FormatFloat(fd.SONSkip)
	}
	return o
}

// ADAUpdate is the update of the FD-adaptive learner named (ada.Lookup's
// name, or ADAFull) under the settings.
func ADAUpdate(name string, s *Settings) ada.Update {
	if n, ok := ada.Lookup(name); ok && n.UpdateFixed {
		return n.Update
	}
	switch {
	case s.Dual:
		return ada.Dual
	case s.Mirror:
		return ada.Mirror
	}
	return ada.DefaultUpdate
}

// adaOptions are an FD-adaptive learner's options.
func adaOptions(s *Settings) model.Options {
	name := s.ADA
	n, named := ada.Lookup(name) // ADA-FULL is not one of the named learners
	u := ADAUpdate(name, s)
	eta := ADADefaultEta(name, s.ADAScale)
	if s.given("learning_rate") {
		eta = s.LearningRate
	}
	tau := ADADefaultTauOf(name, s.ADAScale)
	if s.given("sketch_size") {
		tau = s.SketchSize
	}
	update := "mirror"
	if u == ada.Dual {
		update = "dual"
	}
	o := model.Options{"ada": name, "update": update, "learning_rate": FormatFloat(eta)}
	if !named || n.Precond == ada.Delta {
		delta := ada.DefaultDelta(u)
		if s.Delta != "auto" {
			delta, _ = strconv.ParseFloat(s.Delta, 64)
		}
		o["delta"] = FormatFloat(delta)
	} else {
		eps := s.Epsilon
		if !s.given("epsilon") {
			eps = ADADefaultEpsilon(name, s.ADAScale)
		}
		o["epsilon"] = FormatFloat(eps)
	}
	if name != ADAFull {
		o["m"] = strconv.Itoa(tau)
	}
	gate := s.FDGate
	if named && n.Precond == ada.Delta && !s.given("fd_gate") {
		// The δ form's limit (εδ_t)² is in the units of g²: a default only
		// on pre-scaled features, where δ grows (ADAGrowGate);
		// --ada_scale paper stays exact.
		gate = 0
		if s.ADAScale != "paper" {
			gate = ADAGrowGate
		}
	}
	if named && n.Buffer == ada.Single && gate != 0 && (n.Precond == ada.Escaped || s.given("fd_gate") || !s.Resume) ||
		named && adaSkipsDoubled(name) && gate != 0 && (s.given("fd_gate") || !s.Resume) || s.Resume && s.given("fd_gate") {
		// Absent = exact FD (the models before the gate, and --fd_gate 0);
		// a run that resumes a model states it to be checked, and one that
		// does not takes the model's.
		o["fd_gate"] = FormatFloat(gate)
	}
	if named && !s.Resume {
		adaStateOptions(o, n, s.ADAScale)
	}
	if named && n.Buffer == ada.Doubled {
		// The doubled buffer's Z row cap (ada.DoubledRowCap); a model
		// without it has the 3τ of the models before it.
		o["row_cap"] = strconv.Itoa(ada.DoubledRowCap(tau))
	}
	if s.ADAScale != "paper" {
		// A paper-form model is written as before the option existed
		// (byte for byte); its absence means paper.
		o["ada_scale"] = s.ADAScale
	}
	return o
}

// adaStateOptions adds to a new model's options o (its gate already in
// them) the state beyond the papers' that the named learner n keeps at
// --ada_scale scale. Each is absent in the models before it, which load
// and resume without it.
func adaStateOptions(o model.Options, n ada.Named, scale string) {
	auto := scale != "paper"
	if o["fd_gate"] != "" && o["fd_gate"] != "0" {
		switch n.Name {
		case "sada", "sada_fast":
			o["ada_skip"] = FormatFloat(ADASkip) // the skips
		case "ftfsl":
			o["ada_skip"] = FormatFloat(ADADualSkip)
		case "ftsl":
			if auto {
				o["ada_project"] = FormatFloat(ADAProject) // the projected steps
			}
		}
		if (n.Name == "ftsl" || n.Name == "ftfsl") && auto {
			o["ada_dual_cache"] = "1" // the carried dual-averaging product
		}
	}
	if auto {
		// The per-coordinate completion (ada.Config.Diag) and the δ
		// form's growing δ_t (ada.Config.Grow).
		o["ada_diag"] = "1"
		if n.Precond == ada.Delta {
			o["ada_grow"] = "1"
		}
	}
}

// shampooOptions are FTSL-Shampoo's options.
func shampooOptions(s *Settings) model.Options {
	eta, tau, eps := ShampooDefaultEta, ShampooDefaultTau, ShampooDefaultEpsilon
	diag := s.ADAScale != "paper" && !s.Resume
	if diag {
		eta = ShampooDiagDefaultEta
	}
	if s.given("learning_rate") {
		eta = s.LearningRate
	}
	if s.given("sketch_size") {
		tau = s.SketchSize
	}
	if s.given("epsilon") {
		eps = s.Epsilon
	}
	o := model.Options{
		"classes": strconv.Itoa(s.Classes), "loss": "logistic",
		"learning_rate": FormatFloat(eta), "m": strconv.Itoa(tau), "epsilon": FormatFloat(eps),
		"shampoo_exact_left": FormatBool(s.ShampooExactLeft),
	}
	if s.ADAScale != "paper" {
		o["ada_scale"] = s.ADAScale // absent: paper
	}
	if diag {
		// The per-coordinate completion (ada.ShampooConfig.Diag); absent:
		// none, the models before it and --ada_scale paper.
		o["shampoo_diag"] = "1"
	}
	return o
}

func (s *Settings) on(name string) bool { return s.On != nil && s.On(name) }

// name is how a message writes a setting: through s.Name, or as itself.
func (s *Settings) name(setting string) string {
	if s.Name != nil {
		return s.Name(setting)
	}
	return setting
}
