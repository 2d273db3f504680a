// Package learners is the table of sparseson's learner families: for each,
// how a new model's options (the model.Options stored in its file header)
// are made from Settings, how they are decoded into the learner package's
// configuration, how a new learner is built or a saved one loaded, how
// much memory it may need, and how the run header describes it. Choosing
// a learner is a lookup in this table (Lookup, by the "learner" option); a
// new family is one more entry.
//
// The families and the papers they implement:
//
//   - gd: the first-order learner (package gd): AdaGrad, normalized and
//     plain gradient descent, and the step sizes of Hua Ouyang, Alexander
//     Gray. NASA: Achieving Lower Regrets and Faster Rates via Adaptive
//     Stepsizes. KDD 2012;
//   - softmax: the K-class multinomial logistic model of gd;
//   - son: Sketched Online Newton of Haipeng Luo, Alekh Agarwal, Nicolò
//     Cesa-Bianchi, John Langford. Efficient Second Order Online Learning
//     by Sketching. NIPS 2016 (Alg. 4), with the Oja, random-projection,
//     Frequent Directions and Robust Frequent Directions sketches (Luo Luo,
//     Cheng Chen, Zhihua Zhang, Wu-Jun Li, Tong Zhang. Robust Frequent
//     Directions with Application in Online Learning. JMLR 20, 2019);
//   - full: full ONS, the dense reference of SON;
//   - ada: the FD-adaptive learners of Yuanyu Wan, Lijun Zhang. Efficient
//     Adaptive Online Learning via Frequent Directions. IEEE TPAMI, 2022,
//     and of Sifan Yang, Yuanyu Wan, Peijia Li, Yibo Wang, Xiao Zhang,
//     Zhewei Wei, Lijun Zhang. Dimension-Free Adaptive Subgradient Methods
//     with Frequent Directions. ICML 2025;
//   - shampoo: FTSL-Shampoo of Yang et al. (ICML 2025), Alg. 5, for the
//     K-class softmax model.
//
// Open turns a model file into a ready sparse.Learner; FromModel does the
// same for options and a reader already in memory.
package learners

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/sparseson/sparseson/hashing"
	"github.com/sparseson/sparseson/loss"
	"github.com/sparseson/sparseson/model"
	"github.com/sparseson/sparseson/reduce"
	"github.com/sparseson/sparseson/sparse"
)

// Family is one kind of learner: the entry of the table.
type Family struct {
	// Name is the value of the model option "learner".
	Name string
	// Tunable lists the option keys that a run resuming the model may
	// change (rates); every other option shapes the model.
	Tunable []string
	// Fixed lists option keys beside the shared table that shape the
	// model (for Resume, the checks of a resumed run).
	Fixed []string

	options func(s *Settings) model.Options
	build   func(o model.Options, l loss.Loss, r *model.Reader) (sparse.Learner, error)
	memory  func(o model.Options) (perSlot, fixed float64, err error)
	// capped, if set, gives the rows a learner keeps for at most max
	// slots whatever 2^b (the dense learners), perRow bytes each; max 0:
	// none with these options.
	capped   func(o model.Options) (max int, perRow float64)
	describe func(o model.Options) []string
}

// New builds a new learner of the family from a model's options and its
// loss.
func (f *Family) New(o model.Options, l loss.Loss) (sparse.Learner, error) { return f.build(o, l, nil) }

// Load reads a learner of the family, saved with options o, from r.
func (f *Family) Load(o model.Options, l loss.Loss, r *model.Reader) (sparse.Learner, error) {
	return f.build(o, l, r)
}

// Memory returns what one learner with options o may hold: bytes per hash
// slot in use (beside the slot index), and bytes independent of the slots.
func (f *Family) Memory(o model.Options) (perSlot, fixed float64, err error) { return f.memory(o) }

// Capped returns the state a learner with options o keeps for at most
// max slots, however large 2^b (the dense learners): perRow bytes for each
// of them, beside Memory's per-slot bytes. max is 0 where there is none.
func (f *Family) Capped(o model.Options) (max int, perRow float64) {
	if f.capped == nil {
		return 0, 0
	}
	return f.capped(o)
}

// Describe returns the lines the run header prints for a learner with
// options o; the first is "learner = …".
func (f *Family) Describe(o model.Options) []string { return f.describe(o) }

// The families, by name.
var (
	GD      = gdFamily
	SON     = sonFamily
	Full    = fullFamily
	Softmax = softmaxFamily
	ADA     = adaFamily
	Shampoo = shampooFamily
	// Default is the family of a model no learner setting chooses.
	Default = gdFamily
)

var families = map[string]*Family{"gd": gdFamily, "son": sonFamily, "full": fullFamily, "softmax": softmaxFamily, "ada": adaFamily, "shampoo": shampooFamily}

// Lookup returns the family of a model option "learner" value (nil for an
// unknown one).
func Lookup(name string) *Family { return families[name] }

// All returns every family, in name order.
func All() []*Family {
	return []*Family{adaFamily, fullFamily, gdFamily, shampooFamily, softmaxFamily, sonFamily}
}

// Open reads the model file at path and returns its learner, ready to
// predict, to train on or to merge.
func Open(path string) (sparse.Learner, error) {
	l, _, err := Load(path)
	return l, err
}

// FromModel builds the learner that options o describe, new (r nil) or
// loaded from r: the family's learner, or under the option oaa = K, K of
// them (reduce.OAA).
func FromModel(o model.Options, r *model.Reader) (sparse.Learner, error) {
	if _, err := HashConfig(o); err != nil {
		return nil, err
	}
	l, err := NewLoss(o)
	if err != nil {
		return nil, err
	}
	k, oaa, err := Classes(o)
	if err != nil {
		return nil, err
	}
	switch {
	case o["probabilities"] == "true" && k == 0:
		return nil, fmt.Errorf("model option probabilities=true needs a multiclass model")
	case k > 0 && (o["binary"] == "true" || (o["link"] != "identity" && o["link"] != "")):
		return nil, fmt.Errorf("model options binary and link report scalar predictions; a multiclass model reports classes")
	case k > 0:
		ObserveClasses(l)
	}
	return Build(o, l, k, oaa, r)
}

// ObserveClasses widens a multiclass model's label range to ±1: the bases
// of --oaa learn ±1 labels, and squared and hinge losses clamp their
// predictions to that range.
func ObserveClasses(l loss.Loss) {
	l.Observe(-1)
	l.Observe(1)
}

// Build builds (r nil) or loads the learner of options o with loss l: the
// family's learner, or with oaa K of them. k and oaa are Classes(o)'s.
func Build(o model.Options, l loss.Loss, k int, oaa bool, r *model.Reader) (sparse.Learner, error) {
	fam := Lookup(o["learner"])
	if fam == nil {
		return nil, fmt.Errorf("unknown learner %q", o["learner"])
	}
	if !oaa {
		return fam.build(o, l, r)
	}
	var p optParser
	bits := uint(p.int(o, "bits"))
	if p.err != nil {
		return nil, p.err
	}
	newBase := func(r *model.Reader) (sparse.Learner, error) { return fam.build(o, l, r) }
	if r == nil {
		return reduce.NewOAA(k, bits, newBase)
	}
	return reduce.LoadOAA(r, k, bits, newBase)
}

// Classes returns K of a model's options: the oaa option's, the softmax
// or shampoo learner's, or 0 for a scalar model; oaa says which.
func Classes(o model.Options) (k int, oaa bool, err error) {
	if v := o["oaa"]; v != "" && v != "0" {
		k, err = strconv.Atoi(v)
		if err != nil || k < 2 {
			return 0, false, fmt.Errorf("model option oaa=%q is not a number of classes", v)
		}
		return k, true, nil
	}
	if o["learner"] == "softmax" {
		_, k, err = softmaxConfig(o)
		return k, false, err
	}
	if o["learner"] == "shampoo" {
		cfg, err := shampooConfig(o)
		return cfg.Classes, false, err
	}
	return 0, false, nil
}

// HashConfig returns the hashing configuration of a model.
func HashConfig(o model.Options) (hashing.Config, error) {
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
	// Models from before the seed and the n-grams have neither.
	if v, ok := o["hash_seed"]; ok {
		s, err := strconv.ParseUint(v, 10, 32)
		if err != nil {
			p.fail(o, "hash_seed", "an unsigned 32-bit integer")
		}
		h.Seed = uint32(s)
	}
	if o["ngram"] != "" {
		h.Ngrams = strings.Split(o["ngram"], ",")
	}
	if o["skips"] != "" {
		h.Skips = strings.Split(o["skips"], ",")
	}
	if p.err != nil {
		return h, p.err
	}
	return h, h.Validate()
}

// NewLoss builds the loss of a model, with its saved label range.
func NewLoss(o model.Options) (loss.Loss, error) {
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

// Float decodes a numeric option; the error names the option.
func Float(o model.Options, k string) (float64, error) {
	var p optParser
	v := p.float(o, k)
	return v, p.err
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

// optFloat decodes an option that older models may lack.
func optFloat(o model.Options, k string, def float64, p *optParser) float64 {
	if _, ok := o[k]; !ok {
		return def
	}
	return p.float(o, k)
}

// FormatFloat writes a number as model options store it: the shortest
// text that reads back to the same float64.
func FormatFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// FormatBool writes a boolean as model options store it.
func FormatBool(b bool) string { return strconv.FormatBool(b) }
