package main

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/sparseson/sparseson/learners"
	"github.com/spf13/pflag"
)

// The registry of learners: every learner the command line can build, as
// the flags that select it. Tests that must cover "every learner" — the
// determinism test, the learner and model-file fuzzers, the soak —
// enumerate it rather than a list of their own, so that a new learner
// cannot be forgotten. It is derived from what the CLI itself uses:
//
//   - the first-order family's updates and its step sizes (nasaFlagNames);
//   - one SON learner per sketch of sketchKinds, and SON without a sketch;
//   - full ONS and the softmax;
//   - and every boolean flag that, given alone, selects a learner family
//     other than the default or gives its family other model options than
//     the learners above: a new family selected by a flag of its own
//     (--ada_fd, --ftsl, …) is found without being listed here.
//
// A learner selected by a flag that takes a value must be added to
// valueSelectors; TestLearnerRegistry fails for a family that no entry
// selects.
type learnerSpec struct {
	name  string   // for test names and reports: "adagrad", "fd", …
	flags []string // selects it; the rest of the command line is free
	fam   *learners.Family
	// multiclass: the learner is itself a K-class model (its labels are
	// classes 1..registryClasses) and does not go under --oaa.
	multiclass bool
}

// registryClasses is K for the multiclass learners of the registry
// (--softmax K) and for --oaa.
const registryClasses = 3

// valueSelectors are the learners whose selecting flag takes a value, or
// that need another flag to run (the registry cannot guess either).
var valueSelectors = map[string][]string{
	"nasa_strong": {"--nasa_strong", "1"},
	"sadagrad":    {"--sadagrad", "1"},
	"nasa_accel":  {"--nasa_accel", "--nasa_L", "1"},
	"softmax":     {"--softmax", fmt.Sprint(registryClasses)},
	"shampoo":     {"--softmax", fmt.Sprint(registryClasses), "--shampoo"},
	"son_m0":      {"-m", "0"},
	// ADA-DIAG's dual averaging is --adaptive's model with another update.
	"ada_diag_dual": {"--adaptive", "--dual_averaging"},
}

// registry returns the registry, in a fixed order.
func registry() []learnerSpec {
	var specs []learnerSpec
	seen := map[string]bool{}
	add := func(name string, flags ...string) {
		if len(flags) == 0 && name != "adagrad" {
			flags = []string{"--" + name}
		}
		if v, ok := valueSelectors[name]; ok {
			flags = v
		}
		c, err := parseFlags(flags, io.Discard)
		if err != nil {
			panic(fmt.Sprintf("registry: learner %s (%s): %v", name, strings.Join(flags, " "), err))
		}
		fam, err := chooseFamily(c)
		if err != nil {
			panic(fmt.Sprintf("registry: learner %s (%s): %v", name, strings.Join(flags, " "), err))
		}
		seen[learnerSignature(c, fam)] = true
		specs = append(specs, learnerSpec{name: name, flags: flags, fam: fam, multiclass: c.softmax > 0})
	}
	// The first-order family: VW's default update, the parts of it, and
	// NASA's steps.
	add("adagrad")
	add("sgd")
	add("adaptive")
	add("normalized")
	for _, f := range nasaFlagNames {
		add(f)
	}
	// SON: each sketch, and no sketch.
	for _, k := range learners.Sketches() {
		add(k)
	}
	add("son_m0")
	add("full") // dense, at the default -b: it keeps at most 4096 slots
	add("softmax")
	add("shampoo")
	add("ada_full")
	add("ada_diag_dual")

	// Every other boolean flag that selects a learner of its own.
	for _, name := range probeSelectors(seen) {
		add(name)
	}
	return specs
}

// probeSelectors returns, in name order, the boolean flags that given
// alone select a learner whose signature is not in seen (nor the
// default's), each recorded in seen as it is found.
func probeSelectors(seen map[string]bool) []string {
	base, err := parseFlags(nil, io.Discard)
	if err != nil {
		panic(err)
	}
	var probes, found []string
	base.flags.VisitAll(func(f *pflag.Flag) {
		if f.Value.Type() == "bool" && f.DefValue == "false" {
			probes = append(probes, f.Name)
		}
	})
	// Case-insensitive: of two flags for one learner, --oja comes before
	// its VW alias --OjaNewton.
	sort.Slice(probes, func(i, j int) bool { return strings.ToLower(probes[i]) < strings.ToLower(probes[j]) })
	def := learnerSignature(base, defaultFamily)
	for _, name := range probes {
		c, err := parseFlags([]string{"--" + name}, io.Discard)
		if err != nil {
			continue // --help, --version, or a flag that needs others
		}
		fam, err := chooseFamily(c)
		if err != nil {
			continue
		}
		if sig := learnerSignature(c, fam); sig != def && !seen[sig] {
			seen[sig] = true
			found = append(found, name)
		}
	}
	return found
}

// learnerSignature identifies the learner a command line builds: its
// family and the family's model options (the shared ones — hashing, loss,
// output — are not the learner's).
func learnerSignature(c *config, fam *learners.Family) string {
	o := fam.FamilyOptions(settings(c))
	keys := make([]string, 0, len(o))
	for k := range o {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString(fam.Name)
	for _, k := range keys {
		fmt.Fprintf(&b, "|%s=%s", k, o[k])
	}
	return b.String()
}
