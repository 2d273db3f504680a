package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/sparseson/sparseson/internal/outfile"
	"github.com/sparseson/sparseson/learners"
	"github.com/sparseson/sparseson/model"
	"github.com/sparseson/sparseson/sparse"
	"github.com/spf13/pflag"
)

// `sparseson merge -o out.model a.model b.model …` merges models trained
// with the same options on disjoint shards of the data (issue 18;
// docs/scaling.md): learners.MergeFiles does it, this file maps its flags
// and its refusals. The merged model is written atomically, as -f writes
// one, and trains on with -i.

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

func mergeModels(c *mergeConfig, stderr io.Writer) error {
	if _, err := outfile.Check(c.out, outfile.Model); err != nil {
		return fmt.Errorf("-o %s: %w", c.out, err)
	}
	m, err := learners.MergeFiles(learners.MergeRequest{Parts: c.parts, Base: c.base, Weighting: c.weighting, WeightingGiven: c.weighed})
	if err != nil {
		return mergeMessage(err)
	}
	if err := model.Save(c.out, m.Options, m.Learner.Save); err != nil {
		return err
	}
	if !c.quiet {
		note := ""
		if c.base != "" {
			note = ", base " + c.base
		}
		fmt.Fprintf(stderr, "merged %d model(s) into %s (%s; weights averaged by %s%s)\n",
			len(c.parts), c.out, strings.Join(m.Family.Describe(m.Options), "; "), m.Weighting, note)
	}
	return nil
}

// mergeMessage writes learners.MergeFiles' refusals with the flags.
func mergeMessage(err error) error {
	var ne *learners.NotMergeableError
	var me *learners.MismatchError
	switch {
	case errors.As(err, &ne) && ne.Family == learners.Full:
		return fmt.Errorf("%s cannot be merged: full ONS keeps a dense 2^b×2^b matrix A_t, which has no meaningful average; train the shards with a sketch (--oja, --fd, --rfd, --rp)", ne.Learner)
	case errors.As(err, &me):
		what := "it shapes the model"
		switch me.Row.Class {
		case learners.TunableOption:
			what = "a rate: train every shard with the same rates"
		case learners.OutputOption:
			what = "an output option: train every shard with the same"
		}
		flags := ""
		if len(me.Row.Settings) > 0 {
			flags = " (--" + strings.Join(me.Row.Settings, ", --") + ")"
		}
		a, b := me.Values()
		return fmt.Errorf("the models in %s and %s differ in %s%s: %s against %s; only models trained with the same options can be merged (%s)",
			me.PathA, me.PathB, me.Row.Key, flags, a, b, what)
	}
	return err
}
