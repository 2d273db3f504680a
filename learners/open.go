package learners

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/sparseson/sparseson/model"
	"github.com/sparseson/sparseson/sparse"
)

// DefaultOptions returns the options of the command's default model with
// 2^bits feature slots: VW's AdaGrad with normalized updates, learning
// rate ½, squared loss, no interactions. Change a key to change the model
// (for example "loss" to "logistic"); the keys are those of a model file's
// header.
func DefaultOptions(bits int) model.Options {
	return model.Options{
		"learner": "gd", "bits": strconv.Itoa(bits), "hash": "strings", "hash_seed": "0",
		"interactions": "", "ignore": "", "keep": "", "ngram": "", "skips": "", "noconstant": "false",
		"loss": "squared", "quantile_tau": "0.5", "link": "identity", "binary": "false",
		"oaa": "0", "probabilities": "false", "total": "1",
		"adaptive": "true", "normalized": "true", "learning_rate": "0.5", "power_t": "0.5",
		"initial_t": "0", "l1": "0", "l2": "0", "delta": "0", "update": "mirror",
		"step": "schedule", "nasa_c": "1", "nasa_H": "0", "nasa_L": "0",
	}
}

// Load reads the model file at path and returns its learner, ready to
// predict, to train on or to merge, with the model's options.
func Load(path string) (sparse.Learner, model.Options, error) {
	o, r, err := model.Load(path)
	if err != nil {
		return nil, nil, err
	}
	l, err := FromModel(o, r)
	if err != nil {
		return nil, nil, fmt.Errorf("load model %s: %w", path, err)
	}
	return l, o, nil
}

// ErrNotMergeable is Merge's error for a learner without a merge.
var ErrNotMergeable = errors.New("the learner does not implement merging")

// Merge returns a new learner with options o that merges args.Parts (and
// args.Base), learners with the same options trained on disjoint shards of
// the data: weights averaged, accumulators and counts added, sketches
// merged (sparse.Merger states the rules).
func Merge(o model.Options, args *sparse.MergeArgs) (sparse.Learner, error) {
	target, err := FromModel(o, nil)
	if err != nil {
		return nil, err
	}
	merger, ok := target.(sparse.Merger)
	if !ok {
		return nil, ErrNotMergeable
	}
	if err := merger.Merge(args); err != nil {
		return nil, err
	}
	return target, nil
}
