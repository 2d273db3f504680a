package main

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/sparseson/sparseson/sparse"
)

// FuzzLearners drives short example streams through every learner of the
// registry (alone and under --oaa), with every loss and a few option
// forms, and checks that every prediction is finite, the model's weights
// are finite, and a save/load round trip predicts what the model predicts
// and saves the same bytes again.
//
// The input is a small program: a byte each for the learner, the loss and
// the form, then operations that make examples from tables of the values
// the parser can produce — extreme labels, importance weights and feature
// values (up to 1e36 = a namespace scale of 1e18 times a value of 1e18,
// and 1e72, a product under -q), denormals, empty examples, many
// repetitions of one example and unlabeled ones. (Slots repeated within an
// example reach no learner: the parser merges them and the cache reader
// refuses them.)
func FuzzLearners(f *testing.F) {
	for i := range registryCases() {
		for _, prog := range [][]byte{
			{0, 0, 1, 2, 3, 0, 0, 1, 2, 7, 3, 5, 3, 2, 1, 1, 1, 0, 0, 0},
			{1, 1, 0, 3, 4, 1, 0, 2, 1, 2, 7, 8, 9, 3, 10, 4, 5, 6},
			{2, 2, 1, 6, 0, 1, 1, 4, 8, 5, 9, 6, 11, 7, 3, 3, 3, 3},
		} {
			p := append([]byte{byte(i)}, prog[1:]...)
			f.Add(p)
		}
	}
	f.Fuzz(func(t *testing.T, prog []byte) {
		fuzzLearner(t, prog)
	})
}

var (
	fuzzLosses = [][]string{
		{"--loss_function", "squared"},
		{"--loss_function", "logistic"},
		{"--loss_function", "hinge"},
		{"--loss_function", "classic"},
		{"--loss_function", "quantile", "--quantile_tau", "0.9"},
		{"--loss_function", "poisson"},
		{"--loss_function", "expectile", "--expectile_q", "0.25"},
	}
	// Option forms; one that does not apply to the learner is dropped.
	fuzzForms = [][]string{
		nil,
		{"--l1", "1e-3"},
		{"--diag=false", "--alpha", "1"},
		{"--diag_sketch", "paper"},
		{"--projection", "1"},
		{"-l", "1e6"},
		{"-l", "1e-9"},
		{"--power_t", "0"},
		{"--initial_t", "1e6"},
		{"--l2", "1e-3"},
		{"--alpha", "1e-300", "--diag=false"},
		{"--binary"},
		{"--link", "logistic"},
		{"--min_prediction", "-1", "--max_prediction", "1"},
		{"--probabilities"},
		{"-m", "1"},
		{"-m", "40"},
		{"--passes", "1", "--holdout_after", "3"},
	}
	fuzzLabels  = []float64{1, -1, 0, 0.5, 1e18, -1e18, 1e-300, 5e-324, 2, -2, 1e9, 100, -0.25}
	fuzzWeights = []float64{1, 0, 0.5, 1e18, 1e-300, 5e-324, 1e9, 2, 1e6, 100, 3}
	fuzzValues  = []float64{1, -1, 0.5, 2, -3, 1e-300, 5e-324, -5e-324, 1e18, -1e18, 1e36, -1e36, 1e-18, 1e9, 1e72, 0.1, 7, -1e-9}
	fuzzInitial = []float64{0, 0, 0, 0, 1e18, -1e18, 5, 1e-300}
)

const fuzzBits = 10

// fuzzProgram reads a fuzz input byte by byte; past the end it reads 0.
type fuzzProgram struct {
	b []byte
	i int
}

func (p *fuzzProgram) next() byte {
	if p.i >= len(p.b) {
		p.i++
		return 0
	}
	p.i++
	return p.b[p.i-1]
}

func (p *fuzzProgram) done() bool { return p.i >= len(p.b) }

func pick[T any](p *fuzzProgram, table []T) T { return table[int(p.next())%len(table)] }

func fuzzLearner(t *testing.T, data []byte) {
	p := &fuzzProgram{b: data}
	cs := registryCases()
	rc := cs[int(p.next())%len(cs)]
	lossFlags := pick(p, fuzzLosses)
	form := pick(p, fuzzForms)
	base := append([]string{"--quiet", "--random_seed", "7"}, rc.flags...)
	if !hasFlag(base, "-b", "--bit_precision") {
		base = append(base, "-b", fmt.Sprint(fuzzBits))
	}
	var d *driver
	var args []string
	for _, try := range [][]string{append(append([]string(nil), lossFlags...), form...), lossFlags, form, nil} {
		args = append(append([]string(nil), base...), try...)
		var err error
		if d, err = inproc(args, nil, nil); err == nil {
			break
		}
	}
	if d == nil {
		t.Fatalf("%s: no form builds: %v", rc.name, base)
	}
	bits := uint(fuzzBits)
	if hasFlag(args, "-b") {
		bits = 10 // the registry's full ONS
	}
	k := d.Classes()
	var ex, prev sparse.Example
	prev.Reset()
	prev.HasLabel, prev.Label = true, 1
	if k > 0 {
		prev.Label = 1
	}
	label := func() float64 {
		if k > 0 {
			return float64(1 + int(p.next())%k)
		}
		return pick(p, fuzzLabels)
	}
	slots := make([]uint32, 0, 16)
	vals := make([]float64, 0, 16)
	var log strings.Builder
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("%s %v: panic %v after\n%s", rc.name, args, r, log.String())
		}
	}()
	step := func(ex *sparse.Example) {
		fmt.Fprintf(&log, "  label %v (%v) weight %v initial %v idx %v val %v\n", ex.Label, ex.HasLabel, ex.Weight, ex.Initial, ex.Idx, ex.Val)
		out := d.Process(ex)
		if math.IsNaN(out) || math.IsInf(out, 0) || (k > 0 && (out < 1 || out > float64(k) || out != math.Trunc(out))) {
			t.Fatalf("%s %v: prediction %v after\n%s", rc.name, args, out, log.String())
		}
		if d.Probabilities() != nil {
			sum := 0.0
			for _, q := range d.Probabilities() {
				if !(q >= 0 && q <= 1) {
					t.Fatalf("%s %v: probabilities %v after\n%s", rc.name, args, d.Probabilities(), log.String())
				}
				sum += q
			}
			if math.Abs(sum-1) > 1e-9 {
				t.Fatalf("%s %v: probabilities %v sum to %v", rc.name, args, d.Probabilities(), sum)
			}
		}
	}
	for n := 0; n < 64 && !p.done(); n++ {
		switch op := p.next(); op % 8 {
		case 0, 1, 2: // a new example
			ex.Reset()
			ex.HasLabel, ex.Label = true, label()
			ex.Weight = pick(p, fuzzWeights)
			ex.Initial = pick(p, fuzzInitial)
			if k > 0 {
				ex.Initial = 0 // the parser refuses an initial prediction with K classes
			}
			slots, vals = slots[:0], vals[:0]
			for j := int(p.next()) % 9; j > 0; j-- {
				// Slots from a small range, so that examples share them.
				slots = append(slots, uint32(p.next())%64*uint32(1+int(op)*3))
				vals = append(vals, pick(p, fuzzValues))
			}
			exampleOf(&ex, bits, slots, vals)
			step(&ex)
			prev.CopyFrom(&ex)
		case 3: // the previous example again, many times
			for j := int(p.next())%48 + 1; j > 0; j-- {
				ex.CopyFrom(&prev)
				step(&ex)
			}
		case 4: // an empty example (--noconstant and no features)
			ex.Reset()
			ex.HasLabel, ex.Label = true, label()
			ex.Weight = pick(p, fuzzWeights)
			step(&ex)
		case 5: // the previous one, unlabeled: predicted only
			ex.CopyFrom(&prev)
			ex.HasLabel = false
			step(&ex)
		case 6: // the previous one with a huge importance weight
			ex.CopyFrom(&prev)
			ex.Weight = 1e18
			step(&ex)
		case 7: // the previous one with its values scaled
			ex.CopyFrom(&prev)
			s := pick(p, fuzzValues)
			for j := range ex.Val {
				if v := ex.Val[j] * s; v != 0 && !math.IsInf(v, 0) {
					ex.Val[j] = v
				}
			}
			step(&ex)
		}
	}
	if err := checkWeights(d); err != nil {
		t.Fatalf("%s %v: %v after\n%s", rc.name, args, err, log.String())
	}
	saved, err := d.encode()
	if err != nil {
		t.Fatalf("%s %v: save: %v after\n%s", rc.name, args, err, log.String())
	}
	d2, err := reload(saved)
	if err != nil {
		t.Fatalf("%s %v: load what was saved: %v after\n%s", rc.name, args, err, log.String())
	}
	again, err := d2.encode()
	if err != nil {
		t.Fatalf("%s %v: save the loaded model: %v", rc.name, args, err)
	}
	if !bytes.Equal(saved, again) {
		i := 0
		for i < len(saved) && i < len(again) && saved[i] == again[i] {
			i++
		}
		t.Fatalf("%s %v: the loaded model saves other bytes (%d vs %d, from byte %d: %x vs %x) after\n%s", rc.name, args, len(saved), len(again), i,
			saved[i:min(i+16, len(saved))], again[i:min(i+16, len(again))], log.String())
	}
	// Loading predicts what the model predicts.
	ex.CopyFrom(&prev)
	a, b := d.Predict(&ex), d2.Predict(&ex)
	if math.Float64bits(a) != math.Float64bits(b) {
		t.Fatalf("%s %v: loaded model predicts %v, the model %v", rc.name, args, b, a)
	}
}
