package learners

import (
	"errors"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sparseson/sparseson/fd"
	"github.com/sparseson/sparseson/model"
	"github.com/sparseson/sparseson/sparse"
)

// baseSettings are the command's defaults; given names the settings
// chosen explicitly (switches among them are on).
func baseSettings(given ...string) *Settings {
	set := map[string]bool{}
	for _, g := range given {
		set[g] = true
	}
	s := &Settings{
		Bits: 18, Hash: "strings", Loss: "squared", QuantileTau: 0.5, Link: "identity", Total: 1,
		LearningRate: 0.5, PowerT: 0.5, NasaC: DefaultNasaC, Delta: "auto",
		SketchSize: 10, Alpha: DefaultAlpha, Projection: DefaultProjection, Sigma: "auto", Eta0: DefaultEta0,
		EtaPower: 0.5, OjaRate: 1, FDGate: fd.DefaultGate, Diag: true, DiagSketch: "scaled", ADAScale: "auto",
		Given: func(n string) bool { return set[n] },
		On:    func(n string) bool { return set[n] },
	}
	return s
}

// checkAll runs the checks in the command's order, then Choose.
func checkAll(s *Settings) (*Family, error) {
	s.Select()
	for _, check := range []func(*Settings) error{CheckSON, CheckADA, CheckStep, CheckFirstOrder, CheckMulticlass, CheckShampoo} {
		if err := check(s); err != nil {
			return nil, err
		}
	}
	return Choose(s)
}

// TestChecks: the settings choose the family, and the checks refuse
// values out of range and conflicts, naming the settings.
func TestChecks(t *testing.T) {
	dashes := func(n string) string { return "--" + n }
	for _, tc := range []struct {
		name  string
		given []string
		edit  func(s *Settings)
		fam   *Family
		err   string // a part of the error; "" for none
	}{
		{name: "default", fam: GD},
		{name: "sketch", given: []string{"rfd"}, fam: SON},
		{name: "sketch size alone", given: []string{"sketch_size"}, fam: SON},
		{name: "full", given: []string{"full"}, fam: Full},
		{name: "ada", given: []string{"ftsl"}, fam: ADA},
		{name: "softmax", given: []string{"softmax"}, edit: func(s *Settings) { s.Classes = 3 }, fam: Softmax},
		{name: "shampoo", given: []string{"softmax", "shampoo"}, edit: func(s *Settings) { s.Classes = 3 }, fam: Shampoo},
		{name: "two sketches", given: []string{"oja", "fd"}, err: "choose one sketch, not oja and fd"},
		{name: "two ada", given: []string{"ada_fd", "sada"}, err: "choose one FD-adaptive learner, not ada_fd and sada"},
		{name: "ada tau", given: []string{"ada_fd", "sketch_size"}, edit: func(s *Settings) { s.SketchSize = 600 }, err: "sketch_size 600: the sketch size τ of ada_fd must be in 1..512"},
		{name: "ada scale", given: []string{"ada_scale"}, edit: func(s *Settings) { s.ADAScale = "bad" }, err: `ada_scale "bad": want auto or paper`},
		{name: "ada with son", given: []string{"ada_fd", "alpha"}, err: "alpha does not apply to ada_fd"},
		{name: "fixed update", given: []string{"ftsl", "dual_averaging"}, edit: func(s *Settings) { s.Dual = true }, err: "ftsl has a fixed update (its mirror-descent form is sada)"},
		{name: "son first-order", given: []string{"fd", "power_t"}, err: "power_t is an option of the first-order learner; it does not apply to SON (fd)"},
		{name: "two steps", given: []string{"nasa", "nasa_strong"}, edit: func(s *Settings) { s.NasaH = 1 }, err: "choose one step size, not nasa and nasa_strong"},
		{name: "step H", given: []string{"sadagrad"}, edit: func(s *Settings) { s.NasaH = math.Inf(1) }, err: "sadagrad +Inf: H must be positive and finite"},
		{name: "softmax son", given: []string{"softmax", "fd"}, edit: func(s *Settings) { s.Classes = 3 }, err: "softmax is a first-order K-class model: it does not combine with SON's settings"},
		{name: "shampoo alone", given: []string{"shampoo"}, err: "shampoo trains the softmax K model: give softmax K"},
		{name: "oaa and softmax", given: []string{"oaa", "softmax"}, edit: func(s *Settings) { s.OAA, s.Classes = 3, 3 }, err: "choose oaa or softmax, not both"},
		{name: "named", given: []string{"oja", "fd"}, edit: func(s *Settings) { s.Name = dashes }, err: "choose one sketch, not --oja and --fd"},
	} {
		s := baseSettings(tc.given...)
		if tc.edit != nil {
			tc.edit(s)
		}
		fam, err := checkAll(s)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.err)
		case tc.err == "" && fam != tc.fam:
			t.Errorf("%s: family %v, want %s", tc.name, fam, tc.fam.Name)
		}
	}
}

// TestResume: a resumed run may change a rate, not what shapes the model,
// and may not give a setting of another learner.
func TestResume(t *testing.T) {
	stored := NewOptions(GD, baseSettings())
	for _, tc := range []struct {
		name  string
		fam   *Family
		given []string
		edit  func(s *Settings)
		want  *ResumeError // nil: accepted
		key   string       // with want nil: the option the run changes
		value string
	}{
		{name: "rate", fam: GD, given: []string{"power_t"}, edit: func(s *Settings) { s.PowerT = 0.25 }, key: "power_t", value: "0.25"},
		{name: "bits", fam: GD, given: []string{"bit_precision"}, edit: func(s *Settings) { s.Bits = 20 },
			want: &ResumeError{Setting: "bit_precision", Key: "bits", Stored: "18", Want: "20"}},
		{name: "same bits", fam: GD, given: []string{"bit_precision"}, key: "bits", value: "18"},
		{name: "foreign", fam: GD, given: []string{"alpha"}, want: &ResumeError{Setting: "alpha", Key: "alpha", Foreign: true}},
		{name: "output", fam: GD, given: []string{"link"}, edit: func(s *Settings) { s.Link = "logistic" }, key: "link", value: "logistic"},
	} {
		s := baseSettings(tc.given...)
		s.Resume = true
		if tc.edit != nil {
			tc.edit(s)
		}
		out, err := Resume(tc.fam, stored, s)
		var re *ResumeError
		switch {
		case tc.want == nil && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want == nil && out[tc.key] != tc.value:
			t.Errorf("%s: %s = %q, want %q", tc.name, tc.key, out[tc.key], tc.value)
		case tc.want != nil && (!errors.As(err, &re) || *re != *tc.want):
			t.Errorf("%s: error %#v, want %#v", tc.name, err, tc.want)
		}
	}
}

// TestMergeFiles: parts with the same options merge; parts that differ,
// and a learner without a merge, are refused with typed errors.
func TestMergeFiles(t *testing.T) {
	dir := t.TempDir()
	ex := sparse.Example{Idx: []uint32{1, 7}, Val: []float64{1, 0.5}, Label: 1, Weight: 1, HasLabel: true}
	save := func(name string, o model.Options) string {
		l, err := FromModel(o, nil)
		if err != nil {
			t.Fatal(err)
		}
		l.Learn(&ex)
		path := filepath.Join(dir, name)
		if err := model.Save(path, o, l.Save); err != nil {
			t.Fatal(err)
		}
		return path
	}
	a, b := save("a", options("gd", 8)), save("b", options("gd", 8))
	c := save("c", options("gd", 9))
	full := save("full", options("full", 6))

	m, err := MergeFiles(MergeRequest{Parts: []string{a, b}})
	if err != nil || m.Family != GD || m.Weighting != sparse.ByEvidence || m.Options["bits"] != "8" {
		t.Errorf("merge a b: %+v, %v", m, err)
	}
	var me *MismatchError
	if _, err := MergeFiles(MergeRequest{Parts: []string{a, c}}); !errors.As(err, &me) || me.Row.Key != "bits" || me.A != "8" || me.B != "9" {
		t.Errorf("merge a c: %v, want a MismatchError in bits", err)
	}
	var ne *NotMergeableError
	if _, err := MergeFiles(MergeRequest{Parts: []string{full, full}}); !errors.As(err, &ne) || ne.Family != Full || !errors.Is(err, ErrNotMergeable) {
		t.Errorf("merge full: %v, want a NotMergeableError", err)
	}
}
