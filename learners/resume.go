package learners

import (
	"fmt"
	"slices"

	"github.com/sparseson/sparseson/model"
)

// A model's shape is the set of options stored in its header: how examples
// are hashed and scored, and the learner with its sketch. When a model is
// resumed, its options win. The option table says, for each option, the
// settings that set it and what a run that resumes the model may do with
// them:
//
//   - Fixed: the option shapes the model (bits, interactions, the loss,
//     the learner, the sketch and its size, α, …). A setting given
//     explicitly that would set it to another value than the model's is
//     an error — 20 bits with a model trained with 18 cannot work, and an
//     FD sketch or m = 5 on an Oja model with m = 10 cannot mean anything
//     either;
//   - Tunable: a rate (learning_rate, power_t, l1, …): the run may change
//     it (learning_rate is also SON's scaled-form step rate, a pure
//     multiplier of the step: changing it is as safe as for gd);
//   - Output: only how predictions are reported (binary, link,
//     probabilities).
//
// A setting of the table given for a model the option does not belong to
// (power_t for a SON model, learning_rate for SON's paper form, which has
// no step rate) is an error as well: it would be silently ignored. A
// family may add rows through its Tunable and Fixed lists; an option in no
// row is fixed, set by the setting of its own name if there is one (so a
// new family's options are checked by default).
type OptionClass uint8

// The classes of model options.
const (
	FixedOption OptionClass = iota
	TunableOption
	OutputOption
	StateOption // written by the engine (the label range), not by settings
)

// OptionRow is one row of the option table.
type OptionRow struct {
	Key   string
	Class OptionClass
	// Settings set the option, by Settings.Given's names.
	Settings []string
	// Old: models written before the option existed lack it; Def stands
	// for it there.
	Old bool
	Def string
	// Applies, when set, says whether the option matters for a model with
	// these options; settings of one that does not are ignored (the seed
	// of an Oja model, the τ of a non-quantile loss).
	Applies func(stored model.Options) bool
}

// Value returns the row's option in o; a missing option of an older model
// is the row's default.
func (r OptionRow) Value(o model.Options) (string, bool) {
	v, ok := o[r.Key]
	if !ok && r.Old {
		return r.Def, true
	}
	return v, ok
}

var optionTable = []OptionRow{
	// hashing and scoring (every model)
	{Key: "bits", Settings: []string{"bit_precision"}},
	{Key: "hash", Settings: []string{"hash"}},
	{Key: "hash_seed", Settings: []string{"hash_seed"}, Old: true, Def: "0"},
	{Key: "interactions", Settings: []string{"quadratic", "cubic", "interactions"}},
	{Key: "ngram", Settings: []string{"ngram"}, Old: true},
	{Key: "skips", Settings: []string{"skips"}, Old: true},
	{Key: "ignore", Settings: []string{"ignore"}},
	{Key: "keep", Settings: []string{"keep"}},
	{Key: "noconstant", Settings: []string{"noconstant"}},
	{Key: "loss", Settings: []string{"loss_function"}},
	{Key: "quantile_tau", Settings: []string{"quantile_tau"}, Applies: lossIs("quantile")},
	{Key: "expectile_q", Settings: []string{"expectile_q"}, Applies: lossIs("expectile")},
	{Key: "oaa", Settings: []string{"oaa"}, Old: true, Def: "0"},
	{Key: "classes", Settings: []string{"softmax"}},
	// Sharded training: describes the run, so a resumed run may change it
	// (total 1 to go on as the whole stream).
	{Key: "total", Class: TunableOption, Settings: []string{"total"}, Old: true, Def: "1"},
	{Key: "learner", Class: StateOption}, // checked by family
	{Key: "label_min", Class: StateOption},
	{Key: "label_max", Class: StateOption},
	{Key: "label_fixed", Class: StateOption}, // the prediction bounds given
	// output
	{Key: "link", Class: OutputOption, Settings: []string{"link"}},
	{Key: "binary", Class: OutputOption, Settings: []string{"binary"}},
	{Key: "probabilities", Class: OutputOption, Settings: []string{"probabilities"}},
	// first-order learners (gd, softmax)
	{Key: "adaptive", Settings: []string{"sgd", "adaptive", "normalized"}},
	{Key: "normalized", Settings: []string{"sgd", "adaptive", "normalized"}},
	{Key: "step", Settings: StepNames},
	{Key: "learning_rate", Class: TunableOption, Settings: []string{"learning_rate"}},
	{Key: "power_t", Class: TunableOption, Settings: []string{"power_t"}},
	{Key: "initial_t", Class: TunableOption, Settings: []string{"initial_t"}},
	{Key: "l2", Class: TunableOption, Settings: []string{"l2"}},
	{Key: "l1", Class: TunableOption, Settings: []string{"l1"}},
	{Key: "nasa_c", Class: TunableOption, Settings: []string{"nasa_c"}},
	{Key: "nasa_H", Class: TunableOption, Settings: []string{"nasa_strong", "sadagrad"}},
	{Key: "nasa_L", Class: TunableOption, Settings: []string{"nasa_L"}},
	// Models before feature_scale learned on x as given; a normalized
	// update is unit-free as it is, and takes either value.
	{Key: "feature_scale", Settings: []string{"feature_scale"}, Old: true, Def: "raw", Applies: func(o model.Options) bool {
		return o["learner"] == gdFamily.Name && o["normalized"] != "true"
	}},
	// SON and full ONS
	{Key: "sketch", Settings: []string{"oja", "rp", "fd", "fd_fast", "rfd", "rfd_fast"}},
	{Key: "m", Settings: []string{"sketch_size"}},
	{Key: "alpha", Settings: []string{"alpha", "alpha_inverse"}},
	{Key: "projection", Settings: []string{"projection"}},
	{Key: "sigma", Settings: []string{"sigma"}},
	{Key: "eta0", Settings: []string{"eta0"}},
	{Key: "eta_power", Settings: []string{"eta_power"}},
	{Key: "sketch_scale", Settings: []string{"sketch_scale"}},
	{Key: "oja_rate", Settings: []string{"oja_rate"}},
	{Key: "fd_gate", Settings: []string{"fd_gate"}, Old: true, Def: "0"},
	// S-ADA's skips (ada.Config.Skip): no setting, on with the gate;
	// models before them have none.
	{Key: "ada_skip", Class: StateOption, Old: true, Def: "0"},
	// FTSL's projected steps (ada.Config.Project): no setting, on with the
	// gate under --ada_scale auto; models before them have none.
	{Key: "ada_project", Class: StateOption, Old: true, Def: "0"},
	// FTSL's and FTFSL's carried dual-averaging product (ada.Config.DualCache):
	// no setting, on with the gate under --ada_scale auto; models before it
	// have none.
	{Key: "ada_dual_cache", Class: StateOption, Old: true, Def: "0"},
	// The per-coordinate completion (ada.Config.Diag): no
	// setting, on under --ada_scale auto in a new model; models before it
	// have none.
	{Key: "ada_diag", Class: StateOption, Old: true, Def: "0"},
	// The δ form's growing δ_t (ada.Config.Grow): no setting, on under
	// --ada_scale auto in a new model; models before it have none.
	{Key: "ada_grow", Class: StateOption, Old: true, Def: "0"},
	// FTSL-Shampoo's per-coordinate completion (ada.ShampooConfig.Diag):
	// no setting, on under --ada_scale auto in a new model; models before
	// it have none.
	{Key: "shampoo_diag", Class: StateOption, Old: true, Def: "0"},
	// FD-SON's and RFD-SON's skips (fd.Config.Skip): no setting, on with
	// the gate in a new model; models before them have none.
	{Key: "fd_skip", Class: StateOption, Old: true, Def: "0"},
	{Key: "diag", Settings: []string{"diag"}},
	{Key: "diag_sketch", Settings: []string{"diag_sketch"}},
	// Models before diag_init start D at the paper's 0.1·I.
	{Key: "diag_init", Settings: []string{"diag_init"}, Old: true, Def: "paper"},
	{Key: "random_seed", Settings: []string{"random_seed"}, Applies: func(o model.Options) bool { return o["sketch"] == "rp" }},
	// FD-adaptive learners; delta is also ADA-DIAG's (gd)
	{Key: "ada", Settings: ADANames},
	{Key: "update", Settings: []string{"dual_averaging", "mirror_descent"}, Old: true, Def: "mirror"},
	{Key: "delta", Settings: []string{"delta"}, Old: true, Def: "0"},
	{Key: "epsilon", Settings: []string{"epsilon"}},
	// The doubled buffer's Z row cap: no setting, follows τ (ada.DoubledRowCap);
	// models before it have fd's 3τ.
	{Key: "row_cap", Class: StateOption, Old: true, Def: "0"},
	// Models before ada_scale learned on x as given.
	{Key: "ada_scale", Settings: []string{"ada_scale"}, Old: true, Def: "paper"},
}

func lossIs(name string) func(model.Options) bool {
	return func(o model.Options) bool { return o["loss"] == name }
}

// OptionTable returns the rows of the option table shared by every
// family (a family's Tunable and Fixed lists add to it).
func OptionTable() []OptionRow { return slices.Clone(optionTable) }

// Row returns the row of key for the family: the family's own lists
// first, then the table, then the default (fixed, set by the setting of
// the key's name).
func (f *Family) Row(key string) OptionRow {
	row := OptionRow{Key: key, Settings: []string{key}}
	for _, r := range optionTable {
		if r.Key == key {
			row = r
		}
	}
	switch {
	case slices.Contains(f.Tunable, key):
		return OptionRow{Key: key, Class: TunableOption, Settings: familySettings(row)}
	case slices.Contains(f.Fixed, key):
		return OptionRow{Key: key, Settings: familySettings(row)}
	}
	return row
}

// familySettings are the settings of a family's own row: the table's one
// setting for the key, or the setting of the key's name.
func familySettings(row OptionRow) []string {
	if len(row.Settings) == 1 {
		return row.Settings
	}
	return []string{row.Key}
}

// ResumeError is Resume's refusal of a setting.
type ResumeError struct {
	Setting string // the setting given (by Settings.Given's name)
	Key     string // the model option it sets
	// Foreign: the model has no such option (the setting belongs to
	// another learner); else the model's value Stored is fixed and the
	// setting asks for Want.
	Foreign      bool
	Stored, Want string
}

func (e *ResumeError) Error() string {
	if e.Foreign {
		return fmt.Sprintf("setting %s does not apply to the model resumed", e.Setting)
	}
	return fmt.Sprintf("the model resumed was trained with %s=%q but setting %s asks for %q", e.Key, e.Stored, e.Setting, e.Want)
}

// Resume checks the settings given (s.Given) against the options stored
// in a model of family f that is resumed, and returns the options to run
// with: the stored ones, with the tunable and output options the settings
// change.
func Resume(f *Family, stored model.Options, s *Settings) (model.Options, error) {
	fromSettings := NewOptions(f, s)
	out := model.Options{}
	for k, v := range stored {
		out[k] = v
	}
	seen := map[string]bool{}
	check := func(r OptionRow) error {
		seen[r.Key] = true
		i := slices.IndexFunc(r.Settings, s.given)
		if i < 0 || r.Class == StateOption || (r.Applies != nil && !r.Applies(stored)) {
			return nil
		}
		setting := r.Settings[i]
		v, inModel := r.Value(stored)
		want, inSettings := fromSettings[r.Key]
		switch {
		case !inModel:
			return &ResumeError{Setting: setting, Key: r.Key, Foreign: true}
		case !inSettings:
			return nil
		case r.Class == FixedOption && want != v:
			return &ResumeError{Setting: setting, Key: r.Key, Stored: v, Want: want}
		case r.Class != FixedOption:
			out[r.Key] = want
		}
		return nil
	}
	for _, r := range optionTable {
		if err := check(f.Row(r.Key)); err != nil {
			return nil, err
		}
	}
	for _, keys := range [][]string{f.Tunable, f.Fixed} {
		for _, k := range keys {
			if !seen[k] {
				if err := check(f.Row(k)); err != nil {
					return nil, err
				}
			}
		}
	}
	for k := range stored {
		if !seen[k] {
			if err := check(f.Row(k)); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}
