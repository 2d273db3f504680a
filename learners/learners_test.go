package learners

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sparseson/sparseson/model"
	"github.com/sparseson/sparseson/sparse"
)

// familyOptions are a new model's options for each family (beside the
// shared defaults), as the command writes them.
var familyOptions = map[string]model.Options{
	"gd":      {},
	"softmax": {"classes": "3", "loss": "logistic"},
	"son": {"sketch": "fd", "m": "4", "alpha": "auto", "projection": "+Inf", "sigma": "0", "eta0": "1", "eta_power": "0.5",
		"sketch_scale": "0", "diag": "true", "diag_sketch": "scaled", "oja_rate": "1", "random_seed": "0"},
	"full": {"sketch": "full", "alpha": "2", "projection": "+Inf", "sigma": "0", "eta0": "1", "eta_power": "0.5",
		"sketch_scale": "0", "diag": "true", "diag_sketch": "paper"},
	"ada":     {"ada": "ada_fd", "update": "mirror", "learning_rate": "0.25", "delta": "1", "m": "4", "ada_scale": "auto"},
	"shampoo": {"classes": "3", "loss": "logistic", "learning_rate": "4", "m": "4", "epsilon": "1", "shampoo_exact_left": "false", "ada_scale": "auto"},
}

func options(name string, bits int) model.Options {
	o := DefaultOptions(bits)
	o["learner"] = name
	for k, v := range familyOptions[name] {
		o[k] = v
	}
	return o
}

// TestFamilies: every family of the table builds a learner from its
// options, saves it, and Load reads back a learner that predicts the same;
// it has a memory estimate and a header line.
func TestFamilies(t *testing.T) {
	dir := t.TempDir()
	ex := sparse.Example{Idx: []uint32{1, 7}, Val: []float64{1, 0.5}, Label: 1, Weight: 1, HasLabel: true}
	if len(All()) != len(families) {
		t.Fatalf("All lists %d families, the table has %d", len(All()), len(families))
	}
	for _, fam := range All() {
		if Lookup(fam.Name) != fam {
			t.Errorf("Lookup(%q) is not the family", fam.Name)
		}
		o := options(fam.Name, 8)
		l, err := FromModel(o, nil)
		if err != nil {
			t.Errorf("%s: %v", fam.Name, err)
			continue
		}
		for i := 0; i < 5; i++ {
			l.Learn(&ex)
		}
		path := filepath.Join(dir, fam.Name)
		if err := model.Save(path, o, l.Save); err != nil {
			t.Fatal(err)
		}
		l2, o2, err := Load(path)
		if err != nil {
			t.Errorf("%s: Load: %v", fam.Name, err)
			continue
		}
		if a, b := l.Predict(&ex), l2.Predict(&ex); a != b || o2["learner"] != fam.Name {
			t.Errorf("%s: loaded model predicts %v, the trained one %v", fam.Name, b, a)
		}
		per, _, err := fam.Memory(o)
		if most, perRow := fam.Capped(o); err != nil || !(per > 0 || most > 0 && perRow > 0) {
			t.Errorf("%s: memory %v per slot, %v per kept slot (at most %d), %v", fam.Name, per, perRow, most, err)
		}
		if lines := fam.Describe(o); len(lines) == 0 || !strings.HasPrefix(lines[0], "learner = ") {
			t.Errorf("%s: header %q", fam.Name, lines)
		}
	}
}

// TestDenseMemory: the dense learners' state is bounded by the slots they
// keep (at most 4096), not by 2^b: the same rows at -b 12 and -b 18, and
// a bit per slot for the features refused.
func TestDenseMemory(t *testing.T) {
	for _, c := range []struct {
		fam             string
		extra           model.Options
		bits            int
		per, fixed, row float64
		most            int
	}{
		{"full", nil, 8, 0, 32, 8 * (2 + 256), 4096},
		{"full", nil, 12, 0, 512, 8 * (2 + 4096), 4096},
		{"full", nil, 18, 0, 32768, 8 * (2 + 4096), 4096},
		{"full", model.Options{"diag_init": "max"}, 18, 0, 32768, 8 * (3 + 4096), 4096},
		{"full", model.Options{"diag_init": "auto"}, 18, 0, 32768, 8 * (5 + 4096), 4096},
		{"ada", model.Options{"ada": ADAFull}, 12, 16, 512, 8 * (1 + 2*4096), 4096},
		{"ada", model.Options{"ada": ADAFull, "ada_scale": "paper"}, 18, 0, 32768, 8 * (1 + 2*4096), 4096},
		{"ada", nil, 18, -1, -1, 0, 0}, // ADA-FD: per slot, no cap
	} {
		o := options(c.fam, c.bits)
		for k, v := range c.extra {
			o[k] = v
		}
		fam := Lookup(c.fam)
		per, fixed, err := fam.Memory(o)
		most, row := fam.Capped(o)
		if err != nil || c.per >= 0 && (per != c.per || fixed != c.fixed) || most != c.most || row != c.row {
			t.Errorf("%s %v -b %d: %v per slot + %v, at most %d slots of %v (%v); want %v + %v, %d of %v",
				c.fam, c.extra, c.bits, per, fixed, most, row, err, c.per, c.fixed, c.most, c.row)
		}
	}
}

// TestFromModelRefuses: options that no learner can be built from are
// refused, each with what is wrong.
func TestFromModelRefuses(t *testing.T) {
	for _, tc := range []struct {
		key, value, want string
	}{
		{"learner", "svm", `unknown learner "svm"`},
		{"bits", "x", `model option bits="x" is not an integer`},
		{"loss", "cubic", "cubic"},
		{"oaa", "1", "not a number of classes"},
		{"probabilities", "true", "needs a multiclass model"},
		{"learning_rate", "fast", `model option learning_rate="fast" is not a number`},
	} {
		o := DefaultOptions(8)
		o[tc.key] = tc.value
		if _, err := FromModel(o, nil); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s=%s: %v, want an error with %q", tc.key, tc.value, err, tc.want)
		}
	}
	if _, err := Open(filepath.Join(t.TempDir(), "none")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Open of a missing file: %v", err)
	}
}

// TestMerge: two trained parts merge into a learner; full ONS has no
// merge.
func TestMerge(t *testing.T) {
	ex := sparse.Example{Idx: []uint32{3}, Val: []float64{1}, Label: 1, Weight: 1, HasLabel: true}
	var args sparse.MergeArgs
	o := options("gd", 8)
	for i := 0; i < 2; i++ {
		l, err := FromModel(o, nil)
		if err != nil {
			t.Fatal(err)
		}
		l.Learn(&ex)
		args.Parts = append(args.Parts, l)
	}
	m, err := Merge(o, &args)
	if err != nil || !(m.Predict(&ex) > 0) {
		t.Errorf("merged: %v", err)
	}
	if _, err := Merge(options("full", 8), &sparse.MergeArgs{}); err != ErrNotMergeable {
		t.Errorf("full ONS merged: %v", err)
	}
}
