package learners

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/sparseson/sparseson/ada"
	"github.com/sparseson/sparseson/model"
	"github.com/sparseson/sparseson/sparse"
)

// TestShampooDiagOptions: a new FTSL-Shampoo model under --ada_scale auto
// takes the completion (shampoo_diag = 1) at ShampooDiagDefaultEta; the
// paper's form and a resumed run's settings write no such option, at the
// paper form's η.
func TestShampooDiagOptions(t *testing.T) {
	for _, c := range []struct {
		name            string
		scale           string
		resume, giveEta bool
		diag, eta       string
	}{
		{name: "auto", scale: "auto", diag: "1", eta: FormatFloat(ShampooDiagDefaultEta)},
		{name: "auto, -l 2", scale: "auto", giveEta: true, diag: "1", eta: "2"},
		{name: "paper", scale: "paper", eta: FormatFloat(ShampooDefaultEta)},
		{name: "auto, resumed", scale: "auto", resume: true, eta: FormatFloat(ShampooDefaultEta)},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := &Settings{Classes: 3, ADAScale: c.scale, Resume: c.resume, LearningRate: 2,
				Given: func(n string) bool { return c.giveEta && n == "learning_rate" }}
			o := shampooOptions(s)
			if d, ok := o["shampoo_diag"]; d != c.diag || ok != (c.diag != "") || o["learning_rate"] != c.eta {
				t.Errorf("shampoo_diag %q (present %v), learning_rate %q; want %q, %q", d, ok, o["learning_rate"], c.diag, c.eta)
			}
		})
	}
}

// TestShampooDiagModels: the model option decodes to ada.ShampooConfig.Diag
// (absent: the models before it, the paper's form), values other than 0
// and 1 are refused, and each form builds, saves and loads a learner that
// predicts the same and goes on learning.
func TestShampooDiagModels(t *testing.T) {
	dir := t.TempDir()
	exs := []sparse.Example{
		{Idx: []uint32{1, 7}, Val: []float64{1, 0.5}, Label: 1, Weight: 1, HasLabel: true},
		{Idx: []uint32{2, 7, 9}, Val: []float64{2, 1, 1}, Label: 3, Weight: 1, HasLabel: true},
	}
	for _, c := range []struct {
		name string
		opt  string // "": absent
		want bool
		bad  bool
	}{
		{name: "absent", want: false},
		{name: "0", opt: "0", want: false},
		{name: "1", opt: "1", want: true},
		{name: "2", opt: "2", bad: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := options("shampoo", 8)
			if c.opt != "" {
				o["shampoo_diag"] = c.opt
			}
			cfg, err := shampooConfig(o)
			if c.bad {
				if err == nil {
					t.Fatal("accepted")
				}
				return
			}
			if err != nil || cfg.Diag != c.want {
				t.Fatalf("Diag %v, %v; want %v", cfg.Diag, err, c.want)
			}
			l, err := FromModel(o, nil)
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 20; i++ {
				l.Learn(&exs[i%2])
			}
			if got := innerShampoo(t, l).Config().Diag; got != c.want {
				t.Fatalf("the learner's Diag %v, want %v", got, c.want)
			}
			path := filepath.Join(dir, c.name)
			if err := model.Save(path, o, l.Save); err != nil {
				t.Fatal(err)
			}
			l2, o2, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := o2["shampoo_diag"]; ok != (c.opt != "") {
				t.Errorf("loaded options %v", o2)
			}
			for i := 0; i < 4; i++ {
				if a, b := l.Learn(&exs[i%2]), l2.Learn(&exs[i%2]); a != b {
					t.Fatalf("example %d after loading: %v, the trained one %v", i, b, a)
				}
			}
			var sa, sb []float64
			l.Weights(func(_ uint32, w float64) { sa = append(sa, w) })
			l2.Weights(func(_ uint32, w float64) { sb = append(sb, w) })
			if !slices.Equal(sa, sb) || len(sa) == 0 {
				t.Errorf("weights differ after loading and learning on")
			}
		})
	}
}

func innerShampoo(t *testing.T, l sparse.Learner) *ada.Shampoo {
	t.Helper()
	if p, ok := l.(*ada.PrescaledMulticlass); ok {
		l = p.Inner()
	}
	m, ok := l.(*ada.Shampoo)
	if !ok {
		t.Fatalf("%T is not FTSL-Shampoo", l)
	}
	return m
}
