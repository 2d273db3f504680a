package main

import (
	"fmt"
	"slices"

	"github.com/sparseson/sparseson/learners"
	"github.com/sparseson/sparseson/model"
)

// A model's shape is the set of options stored in its header: how examples
// are hashed and scored, and the learner with its sketch. When a model is
// loaded (-i), its options win. modelOptions is the one table of them: for
// each option, the flags that set it and what a run that loads the model
// may do with them:
//
//   - fixed: the option shapes the model (-b, -q, the loss, the learner,
//     the sketch and its size, α, …). A flag given explicitly that would
//     set it to another value than the model's is an error — -b 20 with a
//     model trained at -b 18 cannot work, and --fd or -m 5 on an Oja model
//     with m = 10 cannot mean anything either;
//   - tunable: a rate (-l, --power_t, --l1, …): the command line may change
//     it for the resumed run (-l is also SON's scaled-form step rate, a
//     pure multiplier of the step: changing it is as safe as for gd);
//   - output: only how predictions are reported (--binary, --link,
//     --probabilities).
//
// A flag of the table given for a model the option does not belong to
// (--power_t for a SON model, -l for SON's paper form, which has no step
// rate) is an error as well: it would be silently ignored. A family may
// add rows through its tunable and fixed maps; an option in no row is
// fixed, set by the flag of its own name if there is one (so a new
// family's options are checked by default). TestModelOptionTable checks
// that every option every family writes has a row.
type optionClass uint8

const (
	fixedOption optionClass = iota
	tunableOption
	outputOption
	stateOption // written by the driver (the label range), not by flags
)

type modelOption struct {
	key   string
	class optionClass
	flags []string
	// old: models written before the option existed lack it; def stands
	// for it there.
	old bool
	def string
	// applies, when set, says whether the option matters for a model with
	// these options; flags of one that does not are ignored (the seed of
	// an Oja model, the τ of a non-quantile loss).
	applies func(stored model.Options) bool
}

var stepFlags = []string{"nasa", "nasa_strong", "nasa_accel", "scalar_adagrad", "sadagrad"}

var modelOptions = []modelOption{
	// hashing and scoring (every model)
	{key: "bits", flags: []string{"bit_precision"}},
	{key: "hash", flags: []string{"hash"}},
	{key: "hash_seed", flags: []string{"hash_seed"}, old: true, def: "0"},
	{key: "interactions", flags: []string{"quadratic", "cubic", "interactions"}},
	{key: "ngram", flags: []string{"ngram"}, old: true},
	{key: "skips", flags: []string{"skips"}, old: true},
	{key: "ignore", flags: []string{"ignore"}},
	{key: "keep", flags: []string{"keep"}},
	{key: "noconstant", flags: []string{"noconstant"}},
	{key: "loss", flags: []string{"loss_function"}},
	{key: "quantile_tau", flags: []string{"quantile_tau"}, applies: lossIs("quantile")},
	{key: "expectile_q", flags: []string{"expectile_q"}, applies: lossIs("expectile")},
	{key: "oaa", flags: []string{"oaa"}, old: true, def: "0"},
	{key: "classes", flags: []string{"softmax"}},
	// sharded training (cluster.go): describes the run, so a resumed run
	// may change it (--total 1 to go on as the whole stream)
	{key: "total", class: tunableOption, flags: []string{"total"}, old: true, def: "1"},
	{key: "learner", class: stateOption}, // checked by family (driver.setup)
	{key: "label_min", class: stateOption},
	{key: "label_max", class: stateOption},
	{key: "label_fixed", class: stateOption}, // --min/max_prediction given
	// output
	{key: "link", class: outputOption, flags: []string{"link"}},
	{key: "binary", class: outputOption, flags: []string{"binary"}},
	{key: "probabilities", class: outputOption, flags: []string{"probabilities"}},
	// first-order learners (gd, softmax)
	{key: "adaptive", flags: []string{"sgd", "adaptive", "normalized"}},
	{key: "normalized", flags: []string{"sgd", "adaptive", "normalized"}},
	{key: "step", flags: stepFlags},
	{key: "learning_rate", class: tunableOption, flags: []string{"learning_rate"}},
	{key: "power_t", class: tunableOption, flags: []string{"power_t"}},
	{key: "initial_t", class: tunableOption, flags: []string{"initial_t"}},
	{key: "l2", class: tunableOption, flags: []string{"l2"}},
	{key: "l1", class: tunableOption, flags: []string{"l1"}},
	{key: "nasa_c", class: tunableOption, flags: []string{"nasa_c"}},
	{key: "nasa_H", class: tunableOption, flags: []string{"nasa_strong", "sadagrad"}},
	{key: "nasa_L", class: tunableOption, flags: []string{"nasa_L"}},
	// SON and full ONS
	{key: "sketch", flags: []string{"oja", "rp", "fd", "fd_fast", "rfd", "rfd_fast"}},
	{key: "m", flags: []string{"sketch_size"}},
	{key: "alpha", flags: []string{"alpha", "alpha_inverse"}},
	{key: "projection", flags: []string{"projection"}},
	{key: "sigma", flags: []string{"sigma"}},
	{key: "eta0", flags: []string{"eta0"}},
	{key: "eta_power", flags: []string{"eta_power"}},
	{key: "sketch_scale", flags: []string{"sketch_scale"}},
	{key: "oja_rate", flags: []string{"oja_rate"}},
	{key: "fd_gate", flags: []string{"fd_gate"}, old: true, def: "0"},
	{key: "diag", flags: []string{"diag"}},
	{key: "diag_sketch", flags: []string{"diag_sketch"}},
	{key: "random_seed", flags: []string{"random_seed"}, applies: func(o model.Options) bool { return o["sketch"] == "rp" }},
	// FD-adaptive learners (ada.go); delta is also ADA-DIAG's (gd)
	{key: "ada", flags: adaFlagNames},
	{key: "update", flags: []string{"dual_averaging", "mirror_descent"}, old: true, def: "mirror"},
	{key: "delta", flags: []string{"delta"}, old: true, def: "0"},
	{key: "epsilon", flags: []string{"epsilon"}},
	// Models before --ada_scale learned on x as given.
	{key: "ada_scale", flags: []string{"ada_scale"}, old: true, def: "paper"},
}

func lossIs(name string) func(model.Options) bool {
	return func(o model.Options) bool { return o["loss"] == name }
}

// optionRow returns the row of key for a family: the family's own maps
// first, then the table, then the default (fixed, set by the flag of the
// key's name).
func optionRow(fam *learners.Family, key string) modelOption {
	row := modelOption{key: key, flags: []string{key}}
	for _, r := range modelOptions {
		if r.key == key {
			row = r
		}
	}
	switch {
	case slices.Contains(fam.Tunable, key):
		return modelOption{key: key, class: tunableOption, flags: familyFlags(row)}
	case slices.Contains(fam.Fixed, key):
		return modelOption{key: key, flags: familyFlags(row)}
	}
	return row
}

// familyFlags are the flags of a family's own row: the table's one flag
// for the key, or the flag of the key's name.
func familyFlags(row modelOption) []string {
	if len(row.flags) == 1 {
		return row.flags
	}
	return []string{row.key}
}

// mergeModelOptions checks the command line against a loaded model's
// options and returns the options to run with.
func mergeModelOptions(c *config, fam *learners.Family, stored model.Options) (model.Options, error) {
	fromFlags := learners.NewOptions(fam, settings(c))
	out := model.Options{}
	for k, v := range stored {
		out[k] = v
	}
	given := func(r modelOption) string {
		for _, f := range r.flags {
			if c.changed(f) {
				return f
			}
		}
		return ""
	}
	seen := map[string]bool{}
	check := func(r modelOption) error {
		seen[r.key] = true
		flag := given(r)
		if flag == "" || r.class == stateOption || (r.applies != nil && !r.applies(stored)) {
			return nil
		}
		v, inModel := stored[r.key]
		if !inModel && r.old {
			v, inModel = r.def, true
		}
		want, inFlags := fromFlags[r.key]
		switch {
		case !inModel:
			return fmt.Errorf("--%s does not apply to the model in %s (a %s learner%s); drop it", flag, c.initial, fam.Name, learners.FormNote(stored))
		case !inFlags:
			return nil
		case r.class == fixedOption && want != v:
			return fmt.Errorf("the model in %s was trained with %s=%q but the command line asks for %q (--%s); drop the option or train a new model", c.initial, r.key, v, want, flag)
		case r.class != fixedOption:
			out[r.key] = want
		}
		return nil
	}
	for _, r := range modelOptions {
		if err := check(optionRow(fam, r.key)); err != nil {
			return nil, err
		}
	}
	for _, keys := range [][]string{fam.Tunable, fam.Fixed} {
		for _, k := range keys {
			if !seen[k] {
				if err := check(optionRow(fam, k)); err != nil {
					return nil, err
				}
			}
		}
	}
	for k := range stored {
		if !seen[k] {
			if err := check(optionRow(fam, k)); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}
