package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// shards writes the bundled splice training set as k round-robin shards
// and the test set as a plain file.
func shards(t *testing.T, dir string, k int) (parts []string, test string) {
	t.Helper()
	lines := strings.SplitAfter(strings.TrimSuffix(string(plain(t, "splice.train.vw.gz")), "\n"), "\n")
	bufs := make([]strings.Builder, k)
	for i, l := range lines {
		bufs[i%k].WriteString(l)
	}
	for i := range bufs {
		parts = append(parts, write(t, filepath.Join(dir, fmt.Sprintf("shard%d.vw", i)), []byte(bufs[i].String()+"\n")))
	}
	return parts, write(t, filepath.Join(dir, "test.vw"), plain(t, "splice.test.vw.gz"))
}

var lossRE = regexp.MustCompile(`(?m)^average loss = ([0-9.e+-]+)`)

// testAccuracy is 1 − the --binary loss of model on data.
func testAccuracy(t *testing.T, model, data string) float64 {
	t.Helper()
	stderr := mustRun(t, nil, "-t", "-i", model, "--binary", data)
	m := lossRE.FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("no average loss in:\n%s", stderr)
	}
	v, _ := strconv.ParseFloat(m[1], 64)
	return 1 - v
}

// TestMergeEndToEnd: for every learner that merges, three shards of splice
// trained apart and merged give a model that predicts (test accuracy
// within 3 points of one stream's, which is 93–95% here; a merge that
// scrambled slots or sketches falls to chance), loads with -i and trains
// on; the merge of one model predicts exactly what it predicts; and three
// rounds of parameter mixing (--base) end at least as accurate as one
// pass minus a point.
func TestMergeEndToEnd(t *testing.T) {
	dir := t.TempDir()
	parts, test := shards(t, dir, 3)
	all := write(t, filepath.Join(dir, "all.vw"), plain(t, "splice.train.vw.gz"))
	for _, learner := range [][]string{
		{},
		// VW's raw update: a model of --feature_scale auto does not merge
		// (TestFeatureScaleRefusals).
		{"--sgd", "--feature_scale", "raw"},
		{"--oja", "-m", "5"},
		{"--fd", "-m", "5"},
		{"--rfd", "-m", "5"},
		{"--fd_fast", "-m", "4"},
		{"--rp", "-m", "5"},
		{"-m", "0"},
		{"--oja", "-m", "5", "--diag=false", "--alpha", "10"},
		{"--fd", "-m", "5", "--diag_sketch", "paper"},
	} {
		t.Run(strings.Join(append([]string{"default"}, learner...), "_"), func(t *testing.T) {
			flags := append([]string{"--quiet", "--loss_function", "logistic"}, learner...)
			one := filepath.Join(dir, "one.model")
			mustRun(t, nil, append(flags, "-f", one, all)...)
			var models []string
			for i, p := range parts {
				m := filepath.Join(dir, fmt.Sprintf("p%d.model", i))
				mustRun(t, nil, append(flags, "-f", m, p)...)
				models = append(models, m)
			}
			merged := filepath.Join(dir, "merged.model")
			mustRun(t, nil, append([]string{"merge", "--quiet", "-o", merged}, models...)...)
			accOne, accMerged := testAccuracy(t, one, test), testAccuracy(t, merged, test)
			t.Logf("one stream %.4f, merged %.4f", accOne, accMerged)
			if accMerged < accOne-0.03 {
				t.Fatalf("merged accuracy %.4f, one stream %.4f", accMerged, accOne)
			}
			// It trains on.
			mustRun(t, nil, "--quiet", "-i", merged, "-f", filepath.Join(dir, "more.model"), parts[0])
			// The merge of one model predicts what it predicts.
			single := filepath.Join(dir, "single.model")
			mustRun(t, nil, "merge", "--quiet", "-o", single, models[1])
			pa, pb := filepath.Join(dir, "a.pred"), filepath.Join(dir, "b.pred")
			mustRun(t, nil, "--quiet", "-t", "-i", single, "-p", pa, test)
			mustRun(t, nil, "--quiet", "-t", "-i", models[1], "-p", pb, test)
			if read(t, pa) != read(t, pb) {
				t.Fatal("the merge of one model predicts differently from it")
			}
			// Parameter mixing: each round trains every shard from the last
			// merge and merges with it as the base.
			prev := merged
			for round := 2; round <= 3; round++ {
				var next []string
				for i, p := range parts {
					m := filepath.Join(dir, fmt.Sprintf("r%d_%d.model", round, i))
					mustRun(t, nil, "--quiet", "-i", prev, "-f", m, p)
					next = append(next, m)
				}
				out := filepath.Join(dir, fmt.Sprintf("r%d.model", round))
				mustRun(t, nil, append([]string{"merge", "--quiet", "--base", prev, "-o", out}, next...)...)
				prev = out
			}
			if acc := testAccuracy(t, prev, test); acc < accOne-0.01 {
				t.Fatalf("3 rounds of mixing: accuracy %.4f, one stream %.4f", acc, accOne)
			}
		})
	}
}

// TestMergeMulticlass: --oaa (over a first-order and a sketched base) and
// --softmax models of the 20-class news20 slice merge; the merge is far
// better than chance (error 0.915 for the majority class) and predicts
// classes.
func TestMergeMulticlass(t *testing.T) {
	dir := t.TempDir()
	train, test := mcFiles(t, dir, 800)
	lines := strings.SplitAfter(strings.TrimSuffix(read(t, train), "\n"), "\n")
	a := write(t, filepath.Join(dir, "a.vw"), []byte(strings.Join(lines[:400], "")+"\n"))
	b := write(t, filepath.Join(dir, "b.vw"), []byte(strings.Join(lines[400:], "")+"\n"))
	for _, learner := range [][]string{
		{"--oaa", "20", "--loss_function", "logistic"},
		{"--oaa", "20", "--loss_function", "logistic", "--fd", "-m", "3"},
		{"--softmax", "20"},
	} {
		t.Run(strings.Join(learner, "_"), func(t *testing.T) {
			ma, mb, m := filepath.Join(dir, "a.model"), filepath.Join(dir, "b.model"), filepath.Join(dir, "m.model")
			mustRun(t, nil, append([]string{"--quiet", "-f", ma, a}, learner...)...)
			mustRun(t, nil, append([]string{"--quiet", "-f", mb, b}, learner...)...)
			mustRun(t, nil, "merge", "--quiet", "-o", m, ma, mb)
			pred := filepath.Join(dir, "m.pred")
			mustRun(t, nil, "--quiet", "-t", "-i", m, "-p", pred, test)
			if e := errorRate(t, pred, test); e > 0.8 {
				t.Fatalf("merged multiclass error %.3f", e)
			}
		})
	}
}

// TestMergeRefuses: models that differ in any option, corrupt or foreign
// files, learners without a merge, and bad command lines are refused with
// a message that says why, and nothing is written.
func TestMergeRefuses(t *testing.T) {
	dir := t.TempDir()
	parts, _ := shards(t, dir, 2)
	model := func(name string, flags ...string) string {
		m := filepath.Join(dir, name)
		mustRun(t, nil, append(append([]string{"--quiet", "-f", m}, flags...), parts[0])...)
		return m
	}
	fdA, fdB := model("fd_a", "--fd", "-m", "4"), model("fd_b", "--fd", "-m", "4")
	fdBig := filepath.Join(dir, "fd_big")
	mustRun(t, nil, "--quiet", "--fd", "-m", "4", "-f", fdBig, parts[0], parts[1])
	ojaM := model("oja", "--oja", "-m", "4")
	b20 := model("b20", "--fd", "-m", "4", "-b", "20")
	rate := model("rate", "-l", "0.3")
	def := model("def")
	full := model("full", "--full", "-b", "8")
	nasa := model("nasa", "--nasa")
	corrupt := write(t, filepath.Join(dir, "corrupt"), []byte(read(t, fdB)[:200]))
	foreign := write(t, filepath.Join(dir, "foreign"), []byte("hello, world\n"))
	out := filepath.Join(dir, "out.model")
	keep := write(t, out, []byte("previous"))
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-o", out, fdA, ojaM}, 1, `differ in sketch (--oja, --rp, --fd`},
		{[]string{"-o", out, fdA, b20}, 1, `differ in bits (--bit_precision): "18" against "20"`},
		{[]string{"-o", out, def, rate}, 1, `differ in learning_rate (--learning_rate)`},
		{[]string{"-o", out, fdA, corrupt}, 1, "corrupt model file"},
		{[]string{"-o", out, fdA, foreign}, 1, "not a sparseson model file"},
		{[]string{"-o", out, fdA, filepath.Join(dir, "missing")}, 1, "no such file"},
		{[]string{"-o", out, full}, 1, "full ONS keeps a dense"},
		{[]string{"-o", out, nasa, nasa}, 1, "cannot be merged"},
		{[]string{"-o", out, "--base", ojaM, fdA, fdB}, 1, "differ in sketch"},
		{[]string{"-o", out, "--base", fdBig, fdA, fdB}, 1, "was not trained from the base"},
		{[]string{fdA, fdB}, 2, "merge needs -o FILE"},
		{[]string{"-o", out}, 2, "at least one model"},
		{[]string{"-o", out, "--weighting", "median", fdA}, 2, `--weighting "median"`},
		{[]string{"-o", filepath.Join(dir, "no", "such", "dir", "m"), fdA}, 1, "-o "},
	} {
		_, stderr, code := sparseson(t, nil, append([]string{"merge"}, c.args...)...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("merge %v: exit %d, want %d with %q; stderr:\n%s", c.args, code, c.code, c.want, stderr)
		}
		if read(t, keep) != "previous" {
			t.Fatalf("merge %v overwrote the output after failing", c.args)
		}
	}
	// And a good merge replaces it atomically, leaving no temporary file.
	mustRun(t, nil, "merge", "--quiet", "-o", out, fdA, fdB)
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".out.model") {
			t.Fatalf("temporary file %s left behind", e.Name())
		}
	}
	if _, _, code := sparseson(t, nil, "-t", "-i", out, parts[1]); code != 0 {
		t.Fatal("the merged model does not load")
	}
	if stdout, _, code := sparseson(t, nil, "merge", "--help"); code != 0 || !strings.Contains(stdout, "Usage: sparseson merge") {
		t.Fatalf("merge --help: exit %d\n%s", code, stdout)
	}
}

// TestMergeLabelRange: the merged model clips to the union of the parts'
// label ranges.
func TestMergeLabelRange(t *testing.T) {
	dir := t.TempDir()
	a := write(t, filepath.Join(dir, "a.vw"), []byte("1 |f x:1\n2 |f x:2\n"))
	b := write(t, filepath.Join(dir, "b.vw"), []byte("-3 |f y:1\n0 |f y:2\n"))
	ma, mb, m := filepath.Join(dir, "a.model"), filepath.Join(dir, "b.model"), filepath.Join(dir, "m.model")
	mustRun(t, nil, "--quiet", "-f", ma, a)
	mustRun(t, nil, "--quiet", "-f", mb, b)
	mustRun(t, nil, "merge", "--quiet", "-o", m, ma, mb)
	rm := filepath.Join(dir, "m.txt")
	mustRun(t, nil, "--quiet", "-t", "-i", m, "--readable_model", rm, a)
	txt := read(t, rm)
	if !strings.Contains(txt, "label_min:-3\n") || !strings.Contains(txt, "label_max:2\n") {
		t.Fatalf("merged label range not widened:\n%s", txt)
	}
}
