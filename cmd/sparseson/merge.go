package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"github.com/sparseson/sparseson/internal/outfile"
	"github.com/sparseson/sparseson/learners"
	"github.com/sparseson/sparseson/model"
	"github.com/sparseson/sparseson/sparse"
	"github.com/spf13/pflag"
)

// `sparseson merge -o out.model a.model b.model …` merges models trained
// with the same options on disjoint shards of the data (issue 18; docs/scaling.md,
// docs/algorithms.md §22). The options must agree — every
// option of the model-option table (shape.go), rates and output options
// included, save the label range, which is widened to cover every part —
// and the learner must implement sparse.Merger (sparse/merge.go states the
// rules). The merged model is written atomically, as -f writes one, and
// trains on with -i. With --base, the parts are taken to have been trained
// from that model (a round of iterative parameter mixing), and what they
// share through it is counted once.

// mergeConfig is the merge command line.
type mergeConfig struct {
	out       string
	base      string
	weighting sparse.Weighting
	weighed   bool // --weighting given
	quiet     bool
	parts     []string
}

func parseMergeFlags(args []string, stdout io.Writer) (*mergeConfig, error) {
	c := &mergeConfig{}
	fs := pflag.NewFlagSet("sparseson merge", pflag.ContinueOnError)
	fs.SortFlags = false
	fs.SetOutput(io.Discard)
	help := fs.BoolP("help", "h", false, "print this help and exit")
	fs.StringVarP(&c.out, "output", "o", "", "write the merged model to this file (atomically; required)")
	fs.StringVar(&c.base, "base", "", "the model every part was trained from (-i), for iterative parameter mixing: what it holds is counted once")
	weighting := fs.String("weighting", "evidence", "how weights are averaged: evidence (by each part's per-feature Σg², VW's rule for adaptive models; example counts where a learner keeps none) or examples (by each part's weighted example count: the average of the parts' models, the default for SON parts trained with --total K > 1 and merged without --base)")
	fs.BoolVar(&c.quiet, "quiet", false, "print nothing on success")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if *help {
		fmt.Fprintln(stdout, "Usage: sparseson merge -o OUT [--base MODEL] [--weighting evidence|examples] MODEL...")
		fmt.Fprintln(stdout, "Merges models trained with the same options on disjoint shards of the data into one model that")
		fmt.Fprintln(stdout, "predicts and trains on (-i). Weights are averaged, accumulators and counts added, sketches merged")
		fmt.Fprintln(stdout, "(FD/RFD: stacked and shrunk once; Oja: the same shrink of its weighted eigen-directions; RP: summed).")
		fmt.Fprintf(stdout, "\n%s", fs.FlagUsages())
		return nil, errHelp
	}
	switch *weighting {
	case "evidence":
		c.weighting = sparse.ByEvidence
	case "examples":
		c.weighting = sparse.ByExamples
	default:
		return nil, fmt.Errorf("--weighting %q: want evidence or examples", *weighting)
	}
	c.weighed = fs.Changed("weighting")
	c.parts = fs.Args()
	switch {
	case c.out == "":
		return nil, errors.New("merge needs -o FILE for the merged model")
	case len(c.parts) == 0:
		return nil, errors.New("merge needs at least one model to merge")
	}
	return c, nil
}

// runMerge is `sparseson merge`; it returns the exit status.
func runMerge(args []string, stdout, stderr io.Writer) int {
	c, err := parseMergeFlags(args, stdout)
	if err == errHelp {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "sparseson merge: %v\n", err)
		fmt.Fprintln(stderr, "Try 'sparseson merge --help'.")
		return 2
	}
	if err := mergeModels(c, stderr); err != nil {
		fmt.Fprintf(stderr, "sparseson merge: %s\n", libraryFlags.Replace(err.Error()))
		return 1
	}
	return 0
}

// loadedModel is one model file read for a merge.
type loadedModel struct {
	path string
	opts model.Options
	r    *model.Reader
}

func mergeModels(c *mergeConfig, stderr io.Writer) error {
	if _, err := outfile.Check(c.out, outfile.Model); err != nil {
		return fmt.Errorf("-o %s: %w", c.out, err)
	}
	var parts []loadedModel
	for _, path := range c.parts {
		opts, r, err := model.Load(path)
		if err != nil {
			return err
		}
		parts = append(parts, loadedModel{path, opts, r})
	}
	ref := parts[0]
	fam := learners.Lookup(ref.opts["learner"])
	if fam == nil {
		return fmt.Errorf("load model %s: unknown learner %q", ref.path, ref.opts["learner"])
	}
	var base *loadedModel
	if c.base != "" {
		opts, r, err := model.Load(c.base)
		if err != nil {
			return err
		}
		base = &loadedModel{c.base, opts, r}
	}
	others := parts[1:]
	if base != nil {
		others = append(others[:len(others):len(others)], *base)
	}
	for _, m := range others {
		if err := sameModelOptions(fam, ref, m); err != nil {
			return err
		}
	}

	if !c.weighed && base == nil && averagesShards(fam, ref.opts) {
		c.weighting = sparse.ByExamples
	}

	// The merged model's options: the parts', with the label range of all.
	opts := model.Options{}
	for k, v := range ref.opts {
		opts[k] = v
	}
	if err := widenLabelRange(opts, parts); err != nil {
		return err
	}
	build := func(o model.Options, r *model.Reader, what string) (sparse.Learner, error) {
		l, err := learners.FromModel(o, r)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		return l, nil
	}
	target, err := build(opts, nil, "merged model")
	if err != nil {
		return err
	}
	merger, ok := target.(sparse.Merger)
	if !ok {
		return fmt.Errorf("%s cannot be merged: %s", strings.TrimPrefix(fam.Describe(opts)[0], "learner = "), mergeRefusal(fam))
	}
	args := &sparse.MergeArgs{Weighting: c.weighting}
	for _, m := range parts {
		l, err := build(m.opts, m.r, "load model "+m.path)
		if err != nil {
			return err
		}
		args.Parts = append(args.Parts, l)
	}
	if base != nil {
		if args.Base, err = build(base.opts, base.r, "load model "+base.path); err != nil {
			return err
		}
	}
	if err := merger.Merge(args); err != nil {
		return fmt.Errorf("merge %s: %w", strings.Join(c.parts, ", "), err)
	}
	if err := model.Save(c.out, opts, target.Save); err != nil {
		return err
	}
	if !c.quiet {
		note := ""
		if base != nil {
			note = ", base " + base.path
		}
		fmt.Fprintf(stderr, "merged %d model(s) into %s (%s; weights averaged by %s%s)\n",
			len(parts), c.out, strings.Join(fam.Describe(opts), "; "), c.weighting, note)
	}
	return nil
}

// averagesShards reports whether parts with these options are merged by
// the average of their models (ByExamples) unless --weighting says
// otherwise: SON parts whose data-derived ridge --total K > 1 made the whole
// stream's (son/scaled.go). Each such part is then an estimate of the
// stream's model, regularised as the stream's, and the one-shot merge of
// divide and conquer averages them (Zhang, Duchi and Wainwright,
// "Communication-efficient algorithms for statistical optimization", JMLR
// 2013; "Divide and conquer kernel ridge regression", COLT 2013: each part
// under-regularised for its own size, the parts averaged). The evidence
// average combines each feature's weight from the parts separately, which
// takes correlated features' weights from different models: news20, 4
// shards with --total 4, Oja 94.00 (evidence) against 94.38% (average),
// spam 90.43 against 93.70% (one stream 93.80%); docs/algorithms.md
// §22. First-order parts keep VW's rule (evidence for
// adaptive models, as VW's AllReduce does for them), and so
// do rounds with a base, whose parts share it (Consensus).
func averagesShards(fam *learners.Family, o model.Options) bool {
	return fam == learners.SON && learners.ScaledSketch(o) && o["alpha"] == "auto" && o["total"] != "" && o["total"] != "1"
}

// mergeRefusal says why a family's learners have no merge.
func mergeRefusal(fam *learners.Family) string {
	if fam == learners.Full {
		return "full ONS keeps a dense 2^b×2^b matrix A_t, which has no meaningful average; train the shards with a sketch (--oja, --fd, --rfd, --rp)"
	}
	return "the learner does not implement merging"
}

// sameModelOptions checks that model m was trained with ref's options:
// every option of either model must have the same value (a missing option
// of an older model counts as its default), except the label range.
func sameModelOptions(fam *learners.Family, ref, m loadedModel) error {
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
		row := optionRow(fam, k)
		get := func(o model.Options) (string, bool) {
			v, ok := o[k]
			if !ok && row.old {
				return row.def, true
			}
			return v, ok
		}
		a, okA := get(ref.opts)
		b, okB := get(m.opts)
		if okA && okB && a == b {
			continue
		}
		show := func(v string, ok bool) string {
			if !ok {
				return "absent"
			}
			return fmt.Sprintf("%q", v)
		}
		what := "it shapes the model"
		switch row.class {
		case tunableOption:
			what = "a rate: train every shard with the same rates"
		case outputOption:
			what = "an output option: train every shard with the same"
		}
		flags := ""
		if len(row.flags) > 0 {
			flags = " (--" + strings.Join(row.flags, ", --") + ")"
		}
		return fmt.Errorf("the models in %s and %s differ in %s%s: %s against %s; only models trained with the same options can be merged (%s)",
			ref.path, m.path, k, flags, show(a, okA), show(b, okB), what)
	}
	return nil
}

// widenLabelRange sets the merged label range to cover every part's.
func widenLabelRange(opts model.Options, parts []loadedModel) error {
	if _, ok := opts["label_min"]; !ok {
		return nil
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, m := range parts {
		a, err := learners.Float(m.opts, "label_min")
		if err == nil {
			var b float64
			b, err = learners.Float(m.opts, "label_max")
			hi = math.Max(hi, b)
		}
		if err != nil {
			return fmt.Errorf("load model %s: %w", m.path, err)
		}
		lo = math.Min(lo, a)
	}
	opts["label_min"], opts["label_max"] = fmtFloat(lo), fmtFloat(hi)
	return nil
}
