package learners

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/sparseson/sparseson/model"
	"github.com/sparseson/sparseson/sparse"
)

// MergeRequest names model files to merge: models trained with the same
// options on disjoint shards of the data (docs/scaling.md,
// docs/algorithms.md §22). The options must agree — every option of the
// option table, rates and output options included, save the label range,
// which is widened to cover every part — and the learner must implement
// sparse.Merger. With Base, the parts are taken to have been trained from
// that model (a round of iterative parameter mixing), and what they share
// through it is counted once.
type MergeRequest struct {
	Parts []string
	Base  string // "": none
	// Weighting is how weights are averaged; unless WeightingGiven, SON
	// parts trained as shards of one stream (AveragesShards) are merged
	// by the average of their models.
	Weighting      sparse.Weighting
	WeightingGiven bool
}

// Merged is a merged model, ready to save (model.Save(path, Options,
// Learner.Save)) or to train on.
type Merged struct {
	Options   model.Options
	Learner   sparse.Learner
	Family    *Family
	Weighting sparse.Weighting // the weighting used
}

// partModel is one model file read for a merge.
type partModel struct {
	path string
	opts model.Options
	r    *model.Reader
}

// MergeFiles reads the models of q and merges them.
func MergeFiles(q MergeRequest) (*Merged, error) {
	var parts []partModel
	for _, path := range q.Parts {
		opts, r, err := model.Load(path)
		if err != nil {
			return nil, err
		}
		parts = append(parts, partModel{path, opts, r})
	}
	ref := parts[0]
	fam := Lookup(ref.opts["learner"])
	if fam == nil {
		return nil, fmt.Errorf("load model %s: unknown learner %q", ref.path, ref.opts["learner"])
	}
	var base *partModel
	if q.Base != "" {
		opts, r, err := model.Load(q.Base)
		if err != nil {
			return nil, err
		}
		base = &partModel{q.Base, opts, r}
	}
	others := parts[1:]
	if base != nil {
		others = append(others[:len(others):len(others)], *base)
	}
	for _, m := range others {
		if err := sameOptions(fam, ref, m); err != nil {
			return nil, err
		}
	}
	w := q.Weighting
	if !q.WeightingGiven && base == nil && AveragesShards(fam, ref.opts) {
		w = sparse.ByExamples
	}
	// The merged model's options: the parts', with the label range of all.
	opts := model.Options{}
	for k, v := range ref.opts {
		opts[k] = v
	}
	if err := widenLabelRange(opts, parts); err != nil {
		return nil, err
	}
	target, err := mergeTarget(fam, opts)
	if err != nil {
		return nil, err
	}
	args := &sparse.MergeArgs{Weighting: w}
	for _, m := range parts {
		l, err := buildPart(m.opts, m.r, "load model "+m.path)
		if err != nil {
			return nil, err
		}
		args.Parts = append(args.Parts, l)
	}
	if base != nil {
		if args.Base, err = buildPart(base.opts, base.r, "load model "+base.path); err != nil {
			return nil, err
		}
	}
	if err := target.(sparse.Merger).Merge(args); err != nil {
		return nil, fmt.Errorf("merge %s: %w", strings.Join(q.Parts, ", "), err)
	}
	return &Merged{Options: opts, Learner: target, Family: fam, Weighting: w}, nil
}

// mergeTarget builds the new learner the parts are merged into.
func mergeTarget(fam *Family, opts model.Options) (sparse.Learner, error) {
	if err := CheckMergeable(fam, opts); err != nil {
		return nil, err
	}
	target, err := buildPart(opts, nil, "merged model")
	if err != nil {
		return nil, err
	}
	if _, ok := target.(sparse.Merger); !ok {
		return nil, &NotMergeableError{Family: fam, Learner: strings.TrimPrefix(fam.Describe(opts)[0], "learner = "), Options: opts}
	}
	return target, nil
}

// CheckMergeable refuses, before any learner is built, the models of
// family fam with options o that no merge supports whatever the learner
// implements: a first-order model under feature_scale auto, whose oaa
// classes (reduce.OAA) would otherwise be refused one by one, naming a
// type.
func CheckMergeable(fam *Family, o model.Options) error {
	if fam == Default && o["feature_scale"] == "auto" {
		return &NotMergeableError{Family: fam, Learner: strings.TrimPrefix(fam.Describe(o)[0], "learner = "), Options: o}
	}
	return nil
}

func buildPart(o model.Options, r *model.Reader, what string) (sparse.Learner, error) {
	l, err := FromModel(o, r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return l, nil
}

// NotMergeableError is MergeFiles' refusal of a learner without a merge.
type NotMergeableError struct {
	Family  *Family
	Learner string        // the run header's description
	Options model.Options // the model's (nil: not known)
}

func (e *NotMergeableError) Error() string {
	why := ErrNotMergeable.Error()
	switch {
	case e.Family == Full:
		why = "full ONS keeps a dense 2^b×2^b matrix A_t, which has no meaningful average; train the shards with a sketch (oja, fd, rfd, rp)"
	case e.Family == Default && e.Options["feature_scale"] == "auto":
		// Each part's weights are in the units of its own scales s_j, its
		// accumulators in those of its own x̃: no average of the parts
		// is the model one stream would have learned.
		why = "each part learns on x_j/s_j with its own scales s_j, in whose units its weights and accumulators are; train the parts with feature_scale raw (--feature_scale raw, VW's update)"
	}
	return e.Learner + " cannot be merged: " + why
}

func (e *NotMergeableError) Unwrap() error { return ErrNotMergeable }

// AveragesShards reports whether parts with these options are merged by
// the average of their models (ByExamples) unless the weighting is given:
// SON parts whose data-derived ridge the setting total K > 1 made the
// whole stream's (son/scaled.go). Each such part is then an estimate of
// the stream's model, regularised as the stream's, and the one-shot merge
// of divide and conquer averages them (Zhang, Duchi and Wainwright,
// "Communication-efficient algorithms for statistical optimization", JMLR
// 2013; "Divide and conquer kernel ridge regression", COLT 2013: each part
// under-regularised for its own size, the parts averaged). The evidence
// average combines each feature's weight from the parts separately, which
// takes correlated features' weights from different models: news20, 4
// shards with total 4, Oja 94.00 (evidence) against 94.38% (average),
// spam 90.43 against 93.70% (one stream 93.80%); docs/algorithms.md §22.
// First-order parts keep VW's rule (evidence for adaptive models, as VW's
// AllReduce does for them), and so do rounds with a base, whose parts
// share it (EvidenceAverage).
func AveragesShards(fam *Family, o model.Options) bool {
	return fam == SON && ScaledSketch(o) && o["alpha"] == "auto" && o["total"] != "" && o["total"] != "1"
}

// MismatchError is MergeFiles' refusal of two models whose options differ.
type MismatchError struct {
	PathA, PathB string
	Row          OptionRow // the option that differs
	A, B         string    // its values
	HasA, HasB   bool      // false: the model lacks the option
}

func (e *MismatchError) Error() string {
	a, b := e.Values()
	return fmt.Sprintf("the models in %s and %s differ in %s: %s against %s; only models trained with the same options can be merged",
		e.PathA, e.PathB, e.Row.Key, a, b)
}

// Values writes the two values for a message: quoted, or "absent".
func (e *MismatchError) Values() (a, b string) {
	show := func(v string, ok bool) string {
		if !ok {
			return "absent"
		}
		return fmt.Sprintf("%q", v)
	}
	return show(e.A, e.HasA), show(e.B, e.HasB)
}

// sameOptions checks that model m was trained with ref's options: every
// option of either model must have the same value (a missing option of an
// older model counts as its default), except the label range.
func sameOptions(fam *Family, ref, m partModel) error {
	keys := map[string]bool{}
	for k := range ref.opts {
		keys[k] = true
	}
	for k := range m.opts {
		keys[k] = true
	}
	var sorted []string
	for k := range keys {
		sorted = append(sorted, k)
	}
	// The sketch first: its difference explains those of the options only
	// one sketch has (fd_gate of an FD model against an Oja model).
	sort.Slice(sorted, func(i, j int) bool {
		if a, b := sorted[i] == "sketch", sorted[j] == "sketch"; a != b {
			return a
		}
		return sorted[i] < sorted[j]
	})
	for _, k := range sorted {
		if k == "label_min" || k == "label_max" {
			continue
		}
		row := fam.Row(k)
		a, okA := row.Value(ref.opts)
		b, okB := row.Value(m.opts)
		if !okA || !okB || a != b {
			return &MismatchError{PathA: ref.path, PathB: m.path, Row: row, A: a, B: b, HasA: okA, HasB: okB}
		}
	}
	return nil
}

// widenLabelRange sets the merged label range to cover every part's.
func widenLabelRange(opts model.Options, parts []partModel) error {
	if _, ok := opts["label_min"]; !ok {
		return nil
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, m := range parts {
		a, err := Float(m.opts, "label_min")
		if err == nil {
			var b float64
			b, err = Float(m.opts, "label_max")
			hi = math.Max(hi, b)
		}
		if err != nil {
			return fmt.Errorf("load model %s: %w", m.path, err)
		}
		lo = math.Min(lo, a)
	}
	opts["label_min"], opts["label_max"] = FormatFloat(lo), FormatFloat(hi)
	return nil
}
