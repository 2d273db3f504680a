package main

import (
	"github.com/sparseson/sparseson/learners"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sparseson/sparseson/gd"
	"github.com/sparseson/sparseson/loss"
	"github.com/sparseson/sparseson/model"
)

// nasaFlagSets are the Ouyang & Gray (KDD 2012) steps on the command line.
var nasaFlagSets = [][]string{
	{"--nasa"},
	{"--nasa", "--adaptive"},
	{"--nasa", "--sgd", "--nasa_c", "0.1"},
	{"--nasa_strong", "100", "--l2", "1e-3"},
	{"--nasa_accel", "--nasa_L", "50", "--nasa_c", "0.1"},
	{"--scalar_adagrad", "-l", "0.1"},
	{"--sadagrad", "100"},
}

// TestNASAResume: for every step, training in two runs through a model
// file predicts exactly what one run does, and -t predicts what training
// would have predicted next.
func TestNASAResume(t *testing.T) {
	dir := t.TempDir()
	lines := strings.SplitAfter(string(plain(t, "splice.train.vw.gz")), "\n")
	first := write(t, filepath.Join(dir, "a.vw"), []byte(strings.Join(lines[:1200], "")))
	second := write(t, filepath.Join(dir, "b.vw"), []byte(strings.Join(lines[1200:], "")))
	for _, flags := range nasaFlagSets {
		t.Run(strings.Join(flags, "_"), func(t *testing.T) {
			base := append([]string{"--quiet", "--loss_function", "logistic"}, flags...)
			m := filepath.Join(dir, "m")
			all := filepath.Join(dir, "all.pred")
			mustRun(t, nil, append(base, "-p", all, first, second)...)
			mustRun(t, nil, append(base, "-f", m, first)...)
			p2 := filepath.Join(dir, "p2.pred")
			mustRun(t, nil, "--quiet", "-i", m, "-p", p2, second)
			want := strings.SplitAfter(read(t, all), "\n")
			if got := read(t, p2); got != strings.Join(want[1200:], "") {
				t.Fatal("resumed predictions differ from uninterrupted training")
			}
			p3 := filepath.Join(dir, "p3.pred")
			mustRun(t, nil, "--quiet", "-t", "-i", m, "-p", p3, second)
			if got := strings.SplitN(read(t, p3), "\n", 2)[0] + "\n"; got != want[1200] {
				t.Fatalf("-t prediction %q, training predicted %q", got, want[1200])
			}
		})
	}
}

// TestNASAFlags: the header names the step, and bad combinations are
// refused with a message naming the flag.
func TestNASAFlags(t *testing.T) {
	data := filepath.Join("..", "..", "testdata", "splice.train.vw.gz")
	for _, c := range []struct {
		flags []string
		want  string
	}{
		{[]string{"--nasa"}, "step = NASA per feature"},
		{[]string{"--nasa", "--sgd"}, "step = NASA (Ouyang & Gray (KDD 2012), Eq. 10), c = 1"},
		{[]string{"--nasa_strong", "10"}, "strongly convex NASA (Ouyang & Gray (KDD 2012), Eq. 27), H = 10"},
		{[]string{"--nasa_accel", "--nasa_L", "3"}, "L = 3"},
		{[]string{"--sadagrad", "5"}, "SAdaGrad (Ouyang & Gray (KDD 2012), Eq. 34), H = 5"},
	} {
		stderr := mustRun(t, nil, append(append([]string{"-P", "1e9"}, c.flags...), data)...)
		if !strings.Contains(stderr, c.want) {
			t.Errorf("%v: header lacks %q:\n%s", c.flags, c.want, stderr)
		}
	}
	for _, c := range []struct {
		flags []string
		want  string
	}{
		{[]string{"--nasa", "--nasa_strong", "1"}, "choose one step size"},
		{[]string{"--nasa_strong", "1", "--adaptive"}, "excludes --adaptive"},
		{[]string{"--nasa", "--normalized"}, "not with --normalized alone"},
		{[]string{"--nasa_accel"}, "needs --nasa_L"},
		{[]string{"--nasa", "--nasa_c", "0"}, "--nasa_c 0"},
		{[]string{"--sadagrad", "-1"}, "H must be positive"},
		{[]string{"--nasa", "--oja"}, "does not apply to SON"},
	} {
		_, stderr, code := sparseson(t, nil, append(c.flags, data)...)
		if code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want an error with %q", c.flags, code, stderr, c.want)
		}
	}
	out, _, _ := sparseson(t, nil, "--help")
	for _, f := range nasaFlagNames {
		if !strings.Contains(out, "--"+f) {
			t.Errorf("--help lacks --%s", f)
		}
	}
}

// TestModelWithoutStep: a gd model written before the step was a model
// option loads as the schedule it was trained with.
func TestModelWithoutStep(t *testing.T) {
	dir := t.TempDir()
	c, err := parseFlags([]string{"--sgd"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	opts := learners.NewOptions(learners.GD, settings(c))
	for _, k := range []string{"step", "nasa_c", "nasa_H", "nasa_L", "l1", "feature_scale"} {
		delete(opts, k)
	}
	opts["learner"] = "gd"
	g, err := gd.New(gd.Config{Bits: 18, Eta: 0.5, PowerT: 0.5}, &loss.Squared{})
	if err != nil {
		t.Fatal(err)
	}
	m := filepath.Join(dir, "old.model")
	if err := model.Save(m, opts, g.Save); err != nil {
		t.Fatal(err)
	}
	stderr := mustRun(t, nil, "-i", m, "-P", "1e9", filepath.Join("..", "..", "testdata", "splice.train.vw.gz"))
	if !strings.Contains(stderr, "learner = online gradient descent") || strings.Contains(stderr, "step =") {
		t.Fatalf("old model header:\n%s", stderr)
	}
}
