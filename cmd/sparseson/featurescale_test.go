package main

import (
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// unnormalized are the registry's first-order learners whose update is not
// normalized: --feature_scale auto (the default) runs them on features
// pre-scaled to unit root mean square, --feature_scale raw as VW does.
// testdata/feature_scale/NAME.model is each one's model of heart_scale
// (logistic loss, one pass) written by the build before --feature_scale.
var unnormalized = []string{"sgd", "adaptive", "ada_diag_dual", "nasa_strong", "nasa_accel", "scalar_adagrad", "sadagrad"}

// registryFlags returns the flags that select the registry's learner name.
func registryFlags(t *testing.T, name string) []string {
	t.Helper()
	for _, l := range registry() {
		if l.name == name {
			return l.flags
		}
	}
	t.Fatalf("no learner %s in the registry", name)
	return nil
}

// scaleVWBy multiplies the value of every feature of VW text by k(name),
// name its namespace and feature ("f^f3"; a bare feature has value 1).
func scaleVWBy(text []byte, k func(name string) float64) []byte {
	var out strings.Builder
	for _, line := range strings.SplitAfter(string(text), "\n") {
		bar := strings.IndexByte(line, '|')
		if bar < 0 {
			out.WriteString(line)
			continue
		}
		out.WriteString(line[:bar])
		ns := ""
		for i, tok := range strings.Fields(line[bar:]) {
			if i > 0 {
				out.WriteByte(' ')
			}
			if strings.HasPrefix(tok, "|") {
				ns = tok[1:]
				out.WriteString(tok)
				continue
			}
			v := 1.0
			if c := strings.LastIndexByte(tok, ':'); c >= 0 {
				if f, err := strconv.ParseFloat(tok[c+1:], 64); err == nil {
					tok, v = tok[:c], f
				}
			}
			out.WriteString(tok + ":" + strconv.FormatFloat(v*k(ns+"^"+tok), 'g', -1, 64))
		}
		out.WriteByte('\n')
	}
	return []byte(out.String())
}

// perFeature is a factor k_j > 0 for each feature of heart_scale, of very
// different sizes.
func perFeature(name string) float64 {
	factors := []float64{255, 1.0 / 255, 3.7, 1000, 0.01, 1, 42}
	n, _ := strconv.Atoi(strings.TrimPrefix(name, "f^f"))
	return factors[n%len(factors)]
}

// numbers parses a file of one number a line (predictions, by line) or of
// key:weight lines (--invert_hash's name:slot:weight, by name:slot).
func numbers(t *testing.T, path string) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	for i, l := range strings.Split(strings.TrimSpace(read(t, path)), "\n") {
		key, val := strconv.Itoa(i), l
		if c := strings.LastIndexByte(l, ':'); c >= 0 {
			key, val = l[:c], l[c+1:]
		}
		if v, err := strconv.ParseFloat(val, 64); err == nil {
			out[key] = v
		}
	}
	return out
}

// TestFeatureScaleRawModels: --feature_scale raw writes, byte for byte, the
// model the build before the flag wrote for each update that is not
// normalized; those models load, predict and resume as before (raw), and
// refuse --feature_scale auto. The normalized updates write the same model
// under either value, without the option.
func TestFeatureScaleRawModels(t *testing.T) {
	dir := t.TempDir()
	train := filepath.Join("..", "..", "testdata", "heart_scale.train.vw.gz")
	test := filepath.Join("..", "..", "testdata", "heart_scale.test.vw.gz")
	logistic := []string{"--quiet", "--loss_function", "logistic"}
	for _, name := range unnormalized {
		t.Run(name, func(t *testing.T) {
			flags := append(append([]string{}, logistic...), registryFlags(t, name)...)
			old := filepath.Join("..", "..", "testdata", "feature_scale", name+".model")
			raw, auto := filepath.Join(dir, name+".raw"), filepath.Join(dir, name+".auto")
			mustRun(t, nil, append([]string{"-d", train, "-f", raw, "--feature_scale", "raw"}, flags...)...)
			mustRun(t, nil, append([]string{"-d", train, "-f", auto}, flags...)...)
			// Go fuses multiply-adds on some architectures (arm64, ppc64,
			// s390x), not on amd64, where the models were written.
			if runtime.GOARCH == "amd64" && read(t, raw) != read(t, old) {
				t.Errorf("--feature_scale raw: the model differs from the one written before the flag")
			}
			if strings.Contains(read(t, raw), "feature_scale") || !strings.Contains(read(t, auto), "feature_scale=auto") {
				t.Errorf("the raw model names feature_scale, or the auto one does not")
			}
			p := func(m string, extra ...string) string {
				out := filepath.Join(dir, name+".p")
				mustRun(t, nil, append([]string{"--quiet", "-t", "-i", m, "-d", test, "-p", out}, extra...)...)
				return read(t, out)
			}
			if p(old) != p(raw) {
				t.Error("the old model predicts otherwise than --feature_scale raw's")
			}
			// Resumed without the flag, an old model goes on as raw.
			r1, r2 := filepath.Join(dir, name+".r1"), filepath.Join(dir, name+".r2")
			mustRun(t, nil, "--quiet", "-i", old, "-d", test, "-f", r1)
			mustRun(t, nil, "--quiet", "-i", raw, "-d", test, "-f", r2, "--feature_scale", "raw")
			if read(t, r1) != read(t, r2) {
				t.Error("resuming the old model differs from resuming --feature_scale raw's")
			}
			_, stderr, code := sparseson(t, nil, "--quiet", "-i", old, "-d", test, "--feature_scale", "auto")
			if code == 0 || !strings.Contains(stderr, "feature_scale") {
				t.Errorf("--feature_scale auto on a raw model: exit %d, %q", code, stderr)
			}
		})
	}
	for _, flags := range [][]string{nil, {"--normalized"}, {"--nasa"}, {"--adaptive", "--normalized"}} {
		a, b := filepath.Join(dir, "norm.a"), filepath.Join(dir, "norm.b")
		mustRun(t, nil, append([]string{"--quiet", "-d", train, "-f", a}, flags...)...)
		mustRun(t, nil, append([]string{"--quiet", "-d", train, "-f", b, "--feature_scale", "raw"}, flags...)...)
		if read(t, a) != read(t, b) || strings.Contains(read(t, a), "feature_scale") {
			t.Errorf("%v: --feature_scale changed a normalized update's model", flags)
		}
	}
}

// TestFeatureScaleUnits: at --feature_scale auto, each update that is not
// normalized (and --oaa with one) predicts on heart_scale with every
// feature j multiplied by its own k_j as on heart_scale itself, and its
// --invert_hash model (the learner's Weights, as --readable_model's)
// holds the weights of the run on x divided by k_j: the raw features'
// units.
func TestFeatureScaleUnits(t *testing.T) {
	dir := t.TempDir()
	train, test := plain(t, "heart_scale.train.vw.gz"), plain(t, "heart_scale.test.vw.gz")
	cases := map[string][]string{"oaa_sgd": {"--oaa", "3", "--sgd"}}
	for _, name := range unnormalized {
		cases[name] = append([]string{"--loss_function", "logistic"}, registryFlags(t, name)...)
	}
	for name, flags := range cases {
		t.Run(name, func(t *testing.T) {
			tr, te := train, test
			if hasFlag(flags, "--oaa") {
				tr, te = toClasses(tr), toClasses(te)
			}
			run := func(tag string, k func(string) float64) (preds, weights map[string]float64) {
				d := filepath.Join(dir, name+tag)
				if err := os.Mkdir(d, 0o755); err != nil {
					t.Fatal(err)
				}
				trf := write(t, filepath.Join(d, "train.vw"), scaleVWBy(tr, k))
				tef := write(t, filepath.Join(d, "test.vw"), scaleVWBy(te, k))
				m, p, rm := filepath.Join(d, "m"), filepath.Join(d, "p"), filepath.Join(d, "rm")
				mustRun(t, nil, append([]string{"--quiet", "-d", trf, "-f", m, "--invert_hash", rm}, flags...)...)
				mustRun(t, nil, "--quiet", "-t", "-i", m, "-d", tef, "-p", p)
				return numbers(t, p), numbers(t, rm)
			}
			p1, w1 := run("x1", func(string) float64 { return 1 })
			pk, wk := run("xk", perFeature)
			if len(p1) == 0 || len(p1) != len(pk) {
				t.Fatalf("%d and %d predictions", len(p1), len(pk))
			}
			for i, v := range p1 {
				if math.Abs(pk[i]-v) > 2e-6 { // -p prints 6 decimals
					t.Errorf("example %s: %v on x, %v on ×k_j", i, v, pk[i])
				}
			}
			if hasFlag(flags, "--oaa") {
				return
			}
			var checked int
			for key, a := range w1 {
				name, _, _ := strings.Cut(key, ":")
				if !strings.HasPrefix(name, "f^") {
					continue // the constant, whose value stays 1
				}
				checked++
				if k := perFeature(name); math.Abs(wk[key]*k-a) > 1e-6*math.Max(1, math.Abs(a)) {
					t.Errorf("%s: weight %v on x, %v on ×%v", key, a, wk[key], k)
				}
			}
			if checked < 10 {
				t.Fatalf("only %d of heart_scale's weights found in the readable model", checked)
			}
		})
	}
}

// TestFeatureScaleResume: a model of --feature_scale auto, saved halfway
// and resumed with -i, goes on as the run that was never saved (the
// scales are in the model), and -t -i predicts with it.
func TestFeatureScaleResume(t *testing.T) {
	dir := t.TempDir()
	train := plain(t, "heart_scale.train.vw.gz")
	lines := strings.SplitAfter(string(train), "\n")
	// The second half with its values ×255: a resumed run takes the
	// scales of the first half and goes on adding to them.
	first := write(t, filepath.Join(dir, "a.vw"), []byte(strings.Join(lines[:100], "")))
	second := write(t, filepath.Join(dir, "b.vw"), scaleVW([]byte(strings.Join(lines[100:], "")), 255))
	test := write(t, filepath.Join(dir, "test.vw"), plain(t, "heart_scale.test.vw.gz"))
	cases := map[string][]string{"oaa_sgd": {"--oaa", "3", "--sgd"}}
	for _, name := range unnormalized {
		cases[name] = append([]string{"--loss_function", "logistic"}, registryFlags(t, name)...)
	}
	for name, flags := range cases {
		t.Run(name, func(t *testing.T) {
			a, b, tst := first, second, test
			if hasFlag(flags, "--oaa") {
				a = write(t, filepath.Join(dir, name+".a"), toClasses([]byte(read(t, first))))
				b = write(t, filepath.Join(dir, name+".b"), toClasses([]byte(read(t, second))))
				tst = write(t, filepath.Join(dir, name+".t"), toClasses([]byte(read(t, test))))
			}
			one, half, resumed := filepath.Join(dir, name+".one"), filepath.Join(dir, name+".half"), filepath.Join(dir, name+".res")
			mustRun(t, nil, append([]string{"--quiet", "-d", a, "-d", b, "-f", one}, flags...)...)
			mustRun(t, nil, append([]string{"--quiet", "-d", a, "-f", half}, flags...)...)
			mustRun(t, nil, "--quiet", "-i", half, "-d", b, "-f", resumed)
			p := func(m string) string {
				out := filepath.Join(dir, name+".p")
				mustRun(t, nil, "--quiet", "-t", "-i", m, "-d", tst, "-p", out)
				return read(t, out)
			}
			if !strings.Contains(read(t, resumed), "feature_scale=auto") {
				t.Fatal("the resumed model lost feature_scale=auto")
			}
			if p(one) != p(resumed) {
				t.Error("the resumed run predicts otherwise than the run never saved")
			}
		})
	}
}

// TestFeatureScaleRefusals: --feature_scale takes auto or raw, only for the
// first-order learner; a model of --feature_scale auto is not merged, and
// the message names --feature_scale raw, whose models merge.
func TestFeatureScaleRefusals(t *testing.T) {
	dir := t.TempDir()
	train := filepath.Join("..", "..", "testdata", "heart_scale.train.vw.gz")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--sgd", "--feature_scale", "units"}, `--feature_scale "units": want auto or raw`},
		{[]string{"--fd", "--feature_scale", "raw"}, "--feature_scale applies to the first-order learner"},
		{[]string{"--ada_fd", "--feature_scale", "auto"}, "--feature_scale applies to the first-order learner"},
		{[]string{"--softmax", "3", "--sgd", "--feature_scale", "auto"}, "--feature_scale applies to the first-order learner"},
		{[]string{"--sgd", "--shards", "2"}, "--feature_scale raw"},
		{[]string{"--oaa", "3", "--sgd", "--shards", "2"}, "--feature_scale raw"},
	} {
		_, stderr, code := sparseson(t, nil, append([]string{"--quiet", "-d", train}, c.args...)...)
		if code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, want %q in\n%s", c.args, code, c.want, stderr)
		}
	}
	for _, scale := range []string{"auto", "raw"} {
		a, b := filepath.Join(dir, scale+".a"), filepath.Join(dir, scale+".b")
		mustRun(t, nil, "--quiet", "--sgd", "--feature_scale", scale, "-d", train, "-f", a)
		mustRun(t, nil, "--quiet", "--sgd", "--feature_scale", scale, "-d", train, "-f", b)
		_, stderr, code := sparseson(t, nil, "merge", "--quiet", "-o", filepath.Join(dir, scale+".m"), a, b)
		if fails := scale == "auto"; (code != 0) != fails || fails && !strings.Contains(stderr, "--feature_scale raw") {
			t.Errorf("merge of two --feature_scale %s models: exit %d\n%s", scale, code, stderr)
		}
	}
}
