package main

import (
	"bufio"
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// scaleVW multiplies every feature value of VW text by k (a bare feature,
// value 1, becomes name:k), as scripts/scale_vw.sh does.
func scaleVW(text []byte, k float64) []byte {
	var out bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(text))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		bar := strings.IndexByte(line, '|')
		if bar < 0 {
			out.WriteString(line + "\n")
			continue
		}
		out.WriteString(line[:bar])
		for i, tok := range strings.Fields(line[bar:]) {
			if i > 0 {
				out.WriteByte(' ')
			}
			if !strings.HasPrefix(tok, "|") {
				v := 1.0
				if c := strings.LastIndexByte(tok, ':'); c >= 0 {
					if f, err := strconv.ParseFloat(tok[c+1:], 64); err == nil {
						tok, v = tok[:c], f
					}
				}
				tok += ":" + strconv.FormatFloat(v*k, 'g', -1, 64)
			}
			out.WriteString(tok)
		}
		out.WriteByte('\n')
	}
	return out.Bytes()
}

// unitsAccuracy trains one pass on train with args and returns the
// percentage of test examples whose predicted sign (or class) is right.
func unitsAccuracy(t *testing.T, dir string, train, test []byte, args []string, multiclass bool) float64 {
	t.Helper()
	tr, te := write(t, filepath.Join(dir, "train.vw"), train), write(t, filepath.Join(dir, "test.vw"), test)
	m, p := filepath.Join(dir, "m.model"), filepath.Join(dir, "p.txt")
	mustRun(t, nil, append([]string{"-d", tr, "-f", m, "--quiet"}, args...)...)
	mustRun(t, nil, "-t", "-i", m, "-d", te, "-p", p, "--quiet")
	preds := strings.Fields(read(t, p))
	lines := strings.Split(strings.TrimSpace(string(test)), "\n")
	if len(preds) != len(lines) {
		t.Fatalf("%d predictions for %d examples", len(preds), len(lines))
	}
	right := 0
	for i, l := range lines {
		y, _ := strconv.ParseFloat(strings.Fields(l)[0], 64)
		q, _ := strconv.ParseFloat(preds[i], 64)
		if multiclass && q == y || !multiclass && (q > 0) == (y > 0) {
			right++
		}
	}
	return 100 * float64(right) / float64(len(lines))
}

// toClasses relabels ±1 examples as classes 1 and 2 (of registryClasses).
func toClasses(text []byte) []byte {
	var b bytes.Buffer
	for _, l := range strings.SplitAfter(string(text), "\n") {
		switch {
		case strings.HasPrefix(l, "-1 "):
			l = "1 " + l[3:]
		case strings.HasPrefix(l, "1 "):
			l = "2 " + l[2:]
		}
		b.WriteString(l)
	}
	return b.Bytes()
}

// notUnitFree are the learners of the registry that are not unit-free at
// their defaults, with the reason; every other learner passes
// TestUnitFreeDefaults. None is today: SON and full ONS are unit-free by
// --diag_init auto, the un-normalized first-order updates by
// --feature_scale auto, the FD-adaptive learners by --ada_scale auto
// (docs/algorithms.md §6, §19).
var notUnitFree = map[string]string{}

// sonLearners are the registry's SON learners, whose D₁ --diag_init sets.
var sonLearners = []string{"oja", "fd", "fd_fast", "rfd", "rfd_fast", "rp", "son_m0", "full"}

// TestUnitFreeDefaults: every learner of the registry at its defaults,
// one pass, logistic loss, on the bundled splice with every feature ×1,
// ×255 and ×1/255: the test accuracies differ by at most 0.5 pp from the
// ×1 figure — unless the learner is in notUnitFree.
func TestUnitFreeDefaults(t *testing.T) {
	if testing.Short() {
		t.Skip("81 one-pass runs over splice")
	}
	unitFree(t, func(t *testing.T, l learnerSpec) []string {
		if reason, exempt := notUnitFree[l.name]; exempt {
			t.Skipf("not unit-free at its defaults: %s", reason)
		}
		return l.flags
	})
}

// TestUnitFreeDiagInitMax: TestUnitFreeDefaults for the SON learners of
// the registry with --diag_init max (u_j the largest |x_j|), unit-free
// too.
func TestUnitFreeDiagInitMax(t *testing.T) {
	if testing.Short() {
		t.Skip("24 one-pass runs over splice")
	}
	unitFree(t, func(t *testing.T, l learnerSpec) []string {
		if !slices.Contains(sonLearners, l.name) {
			t.Skip("not a SON learner")
		}
		return append(append([]string{}, l.flags...), "--diag_init", "max")
	})
}

// unitFree runs every learner of the registry with the flags that flags
// returns (it may skip the subtest t), one pass, logistic loss, on the
// bundled splice with every feature ×1, ×255 and ×1/255, and requires the
// test accuracies to differ by at most 0.5 pp from the ×1 figure.
func unitFree(t *testing.T, flags func(t *testing.T, l learnerSpec) []string) {
	train, test := plain(t, "splice.train.vw.gz"), plain(t, "splice.test.vw.gz")
	for _, l := range registry() {
		t.Run(l.name, func(t *testing.T) {
			fl := flags(t, l)
			t.Parallel()
			args := append([]string{"--loss_function", "logistic"}, fl...)
			tr, te := train, test
			if hasFlag(fl, "--ada_full") {
				// Dense, O(k·r²) per example: the first 600 examples.
				tr = []byte(strings.Join(strings.SplitAfter(string(tr), "\n")[:600], ""))
			}
			if l.multiclass {
				args = fl // softmax: its own loss
				tr, te = toClasses(train), toClasses(test)
			}
			var base float64
			for i, k := range []float64{1, 255, 1.0 / 255} {
				dir := t.TempDir()
				acc := unitsAccuracy(t, dir, scaleVW(tr, k), scaleVW(te, k), args, l.multiclass)
				if i == 0 {
					base = acc
					continue
				}
				if d := acc - base; d > 0.5 || d < -0.5 {
					t.Errorf("features ×%s: test accuracy %.2f%%, ×1: %.2f%% (%+.2f pp)", fmt.Sprint(k), acc, base, d)
				}
			}
			t.Logf("×1: %.2f%%", base)
		})
	}
}

func TestScaleVW(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"1 |f a b:2\n", "1 |f a:3 b:6\n"},
		{"-1 tag|x c:-0.5 |y d\n", "-1 tag|x c:-1.5 |y d:3\n"},
		{"no features\n", "no features\n"},
	} {
		if got := string(scaleVW([]byte(tc.in), 3)); got != tc.want {
			t.Errorf("scaleVW(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestDiagInitModels: --diag_init (auto by default) is saved with a SON
// or full ONS model and applies when it is loaded; on binary features
// auto and paper predict the same (u_j = 1; not full ONS at -b 8, where
// colliding features add up to values of 2 and more), on features ×255
// they do not; a command line contradicting the model's D₁ is refused,
// and resuming keeps it. (A model without diag_init, from before the
// option, reads as paper: learners' TestDiagInitOption.)
func TestDiagInitModels(t *testing.T) {
	dir := t.TempDir()
	bin := write(t, filepath.Join(dir, "bin.vw"), plain(t, "splice.train.vw.gz"))
	train := write(t, filepath.Join(dir, "train.vw"), scaleVW(plain(t, "splice.train.vw.gz"), 255))
	test := write(t, filepath.Join(dir, "test.vw"), scaleVW(plain(t, "splice.test.vw.gz"), 255))
	for _, learner := range [][]string{{"--fd"}, {"-m", "0"}, {"--full", "-b", "8"}} {
		t.Run(learner[0], func(t *testing.T) {
			auto, paper := filepath.Join(dir, "auto"), filepath.Join(dir, "paper")
			predict := func(m, data string, extra ...string) string {
				p := filepath.Join(dir, "p")
				mustRun(t, nil, append([]string{"--quiet", "-t", "-i", m, "-p", p, data}, extra...)...)
				return read(t, p)
			}
			trainBoth := func(data string) {
				mustRun(t, nil, append([]string{"--quiet", "--loss_function", "logistic", "-f", auto, data}, learner...)...)
				mustRun(t, nil, append([]string{"--quiet", "--loss_function", "logistic", "-f", paper, "--diag_init", "paper", data}, learner...)...)
			}
			states := func() bool {
				return strings.Contains(read(t, auto), "diag_init=auto") && strings.Contains(read(t, paper), "diag_init=paper")
			}
			trainBoth(bin)
			if learner[0] != "--full" && predict(auto, bin) != predict(paper, bin) {
				t.Fatal("on binary features auto and paper predict differently")
			}
			trainBoth(train)
			if !states() {
				t.Fatal("a model does not state its D₁")
			}
			pa, pp := predict(auto, test), predict(paper, test)
			if pa == pp {
				t.Fatal("auto and paper predict the same on features ×255: the option was not applied")
			}
			mustRun(t, nil, "--quiet", "-i", auto, "-f", auto, train)
			mustRun(t, nil, "--quiet", "-i", paper, "-f", paper, train)
			if !states() {
				t.Fatal("resuming changed D₁")
			}
			pa, pp = predict(auto, test), predict(paper, test)
			if learner[0] == "--full" {
				// Given with -i, SON's settings ask for a SON learner, which
				// a full ONS model is not: nothing more to check.
				return
			}
			if predict(auto, test, "--diag_init", "auto") != pa || predict(paper, test, "--diag_init", "paper") != pp {
				t.Fatal("an explicit --diag_init matching the model changed its predictions")
			}
			for _, c := range []struct{ model, flag string }{{paper, "auto"}, {auto, "paper"}, {auto, "max"}} {
				_, stderr, code := sparseson(t, nil, "--quiet", "-t", "-i", c.model, "--diag_init", c.flag, test)
				if code == 0 || !strings.Contains(stderr, "diag_init") {
					t.Fatalf("--diag_init %s on a model of another D₁: exit %d, %q", c.flag, code, stderr)
				}
			}
		})
	}
}
