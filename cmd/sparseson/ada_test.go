package main

import (
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestADAFlags: the FD-adaptive learners' flags are checked against each
// other and the rest of the command line, each refusal naming the flags.
func TestADAFlags(t *testing.T) {
	train := filepath.Join("..", "..", "testdata", "splice.train.vw.gz")
	for _, c := range []struct {
		args []string
		want string // part of the error
	}{
		{[]string{"--ada_fd", "--ftsl"}, "choose one FD-adaptive learner"},
		{[]string{"--ada_fd", "--fd"}, "--fd does not apply to --ada_fd"},
		{[]string{"--sada", "--oja"}, "--oja does not apply"},
		{[]string{"--ftsl", "--mirror_descent"}, "fixed update"},
		{[]string{"--sada", "--dual_averaging"}, "its dual-averaging form is --ftsl"},
		{[]string{"--ftsl", "--delta", "1"}, "--delta does not apply to --ftsl"},
		{[]string{"--ada_fd", "--epsilon", "1"}, "--epsilon applies to the escaped-mass learners"},
		{[]string{"--ada_fd", "--delta", "0"}, "needs δ > 0"},
		{[]string{"--ada_fd", "--delta", "-1"}, "want auto or a number ≥ 0"},
		{[]string{"--ada_fd", "--l2", "0.1"}, "--l1 and --l2 break the closed form"},
		{[]string{"--ftsl", "--l1", "0.1"}, "--l1 and --l2 break the closed form"},
		{[]string{"--ada_fd", "-m", "0"}, "must be in 1..512"},
		{[]string{"--ada_fd", "-m", "513"}, "must be in 1..512"},
		{[]string{"--ada_full", "-m", "5", "-b", "8"}, "no sketch"},
		{[]string{"--ada_fd", "--softmax", "3"}, "not --softmax"},
		{[]string{"--ada_fd", "--dual_averaging", "--mirror_descent"}, "choose one update"},
		{[]string{"--dual_averaging"}, "--adaptive alone"},
		{[]string{"--adaptive", "--normalized", "--delta", "1"}, "--delta applies"},
		{[]string{"--epsilon", "1"}, "--epsilon applies"},
		{[]string{"--ada_fd", "--nasa"}, "does not apply to --ada_fd"},
		{[]string{"--ada_fd", "--power_t", "1"}, "--power_t does not apply"},
		{[]string{"--ada_full", "-b", "8", "--fd_gate", "0.3"}, "--fd_gate applies to --fd, --rfd and the FD-adaptive learners with a sketch"},
		{[]string{"--ftsl", "--fd_gate", "-1"}, "--fd_gate -1: must be ≥ 0"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			_, stderr, code := sparseson(t, nil, append(append([]string{"--quiet"}, c.args...), train)...)
			if code == 0 || !strings.Contains(stderr, c.want) {
				t.Fatalf("exit %d, stderr %q; want an error with %q", code, stderr, c.want)
			}
		})
	}
}

// TestADAModelOptions: a saved FD-adaptive model keeps its learner,
// update, τ and δ (or ε): a command line contradicting them is refused,
// -l may change, and the run header names the learner.
func TestADAModelOptions(t *testing.T) {
	dir := t.TempDir()
	train := filepath.Join("..", "..", "testdata", "splice.train.vw.gz")
	m := filepath.Join(dir, "m")
	_, stderr, code := sparseson(t, nil, "--ada_fd", "-m", "6", "--dual_averaging", "--loss_function", "logistic", "-f", m, train)
	if code != 0 || !strings.Contains(stderr, "learner = ADA-FD (dual averaging), τ = 6, η = ") || !strings.Contains(stderr, "δ = 10") {
		t.Fatalf("exit %d, header:\n%s", code, stderr)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--ftsl"}, "ada="},
		{[]string{"--mirror_descent"}, "update="},
		{[]string{"-m", "7"}, "asks for son"},
		{[]string{"--delta", "2"}, "delta="},
		{[]string{"--adaptive"}, "does not apply"},
	} {
		_, stderr, code := sparseson(t, nil, append([]string{"--quiet", "-i", m}, append(c.args, train)...)...)
		if code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want %q", c.args, code, stderr, c.want)
		}
	}
	mustRun(t, nil, "--quiet", "-i", m, "-l", "0.1", train)
	_, stderr, code = sparseson(t, nil, "--sada", "--epsilon", "0.5", "-f", m, train)
	if code != 0 || !strings.Contains(stderr, "learner = S-ADA, τ = 10") || !strings.Contains(stderr, "ε = 0.5") {
		t.Fatalf("exit %d, header:\n%s", code, stderr)
	}
}

// TestADAExtremeScales: on features spanning 1e0…1e11, with absurd rates
// and δ, every FD-adaptive learner trains, writes a model that loads, and
// predicts finite values (the split core refuses steps that would leave
// the weight range; see son/step.go).
func TestADAExtremeScales(t *testing.T) {
	dir := t.TempDir()
	data := write(t, filepath.Join(dir, "ill.vw"), illScaled(600))
	for _, learner := range [][]string{{"--ada_fd"}, {"--ada_fd", "--dual_averaging"}, {"--ada_ffd"}, {"--ftsl"}, {"--ftfsl"}, {"--sada"}, {"--sada_fast"}, {"--ada_full", "-b", "8"}, {"--adaptive", "--dual_averaging"}} {
		for _, mode := range [][]string{{"-l", "1e300"}, {"-l", "1e-300"}, {"--loss_function", "squared", "-l", "1e30"}} {
			name := strings.ReplaceAll(strings.Join(append(learner, mode...), ""), "-", "_")
			t.Run(name, func(t *testing.T) {
				m := filepath.Join(dir, name+".model")
				args := append(append([]string{"--quiet", "--loss_function", "logistic", "-f", m}, learner...), mode...)
				if strings.HasPrefix(learner[0], "--ada_f") && learner[0] != "--ada_full" || learner[0] == "--ftsl" || learner[0] == "--ftfsl" || learner[0] == "--sada" || learner[0] == "--sada_fast" {
					args = append(args, "-m", "6")
				}
				mustRun(t, nil, append(args, data)...)
				p := filepath.Join(dir, name+".pred")
				mustRun(t, nil, "--quiet", "-t", "-i", m, "-p", p, data)
				for i, line := range strings.Split(strings.TrimSpace(read(t, p)), "\n") {
					v, err := strconv.ParseFloat(strings.Fields(line)[0], 64)
					if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
						t.Fatalf("prediction %d: %q", i+1, line)
					}
				}
			})
		}
	}
}

// TestADAScaleModels: --ada_scale auto (the default) is saved with the
// model and applies when it is loaded; a model without the option — any
// FD-adaptive model written before it existed, and every --ada_scale
// paper model, which is written byte for byte as those were — loads as
// the paper form and predicts as it did; a command line contradicting
// the model's form is refused.
func TestADAScaleModels(t *testing.T) {
	dir := t.TempDir()
	// splice's features are 0/1, where both forms agree: ×255.
	train := write(t, filepath.Join(dir, "train.vw"), scaleVW(plain(t, "splice.train.vw.gz"), 255))
	test := write(t, filepath.Join(dir, "test.vw"), scaleVW(plain(t, "splice.test.vw.gz"), 255))
	for _, learner := range [][]string{{"--ada_fd"}, {"--ftsl"}, {"--ada_full", "-b", "8"}} {
		t.Run(learner[0], func(t *testing.T) {
			auto, paper := filepath.Join(dir, "auto"), filepath.Join(dir, "paper")
			stderr := mustRun(t, nil, append([]string{"--loss_function", "logistic", "-f", auto, train}, learner...)...)
			if !strings.Contains(stderr, "(--ada_scale auto)") {
				t.Fatalf("header does not name the scale:\n%s", stderr)
			}
			stderr = mustRun(t, nil, append([]string{"--loss_function", "logistic", "-f", paper, "--ada_scale", "paper", train}, learner...)...)
			if !strings.Contains(stderr, "(--ada_scale paper)") {
				t.Fatalf("header does not name the scale:\n%s", stderr)
			}
			if strings.Contains(read(t, paper), "ada_scale") {
				t.Fatal("a paper-form model names ada_scale: it would not be what older builds wrote")
			}
			if !strings.Contains(read(t, auto), "ada_scale=auto") {
				t.Fatal("an auto model does not say so")
			}
			predict := func(m string, extra ...string) string {
				p := filepath.Join(dir, "p")
				mustRun(t, nil, append([]string{"--quiet", "-t", "-i", m, "-p", p, test}, extra...)...)
				return read(t, p)
			}
			pa, pp := predict(auto), predict(paper)
			if pa == pp {
				t.Fatal("auto and paper predict the same: the option was not applied")
			}
			// Loading states the form explicitly or not at all.
			if predict(paper, "--ada_scale", "paper") != pp || predict(auto, "--ada_scale", "auto") != pa {
				t.Fatal("an explicit --ada_scale matching the model changed its predictions")
			}
			_, stderr, code := sparseson(t, nil, "--quiet", "-t", "-i", paper, "--ada_scale", "auto", test)
			if code == 0 || !strings.Contains(stderr, "ada_scale") {
				t.Fatalf("--ada_scale auto on a paper model: exit %d, %q", code, stderr)
			}
			// Resuming keeps the form (and the auto model its scales).
			mustRun(t, nil, "--quiet", "-i", auto, "-f", auto, train)
			mustRun(t, nil, "--quiet", "-i", paper, "-f", paper, train)
			if strings.Contains(read(t, paper), "ada_scale") || !strings.Contains(read(t, auto), "ada_scale=auto") {
				t.Fatal("resuming changed the form")
			}
		})
	}
}

// TestADAGateModels: the gate's ε is saved with every FD-adaptive model
// with a sketch (--fd_gate, default on: 0.3, and 0.2 for ADA-FD and
// ADA-FFD under --ada_scale auto, whose limit follows the growing δ_t), and not with --fd_gate 0 or the δ form at
// --ada_scale paper, which are written as before the gate; a resumed run
// may restate the model's ε but not change it. A gated S-ADA, Fast S-ADA
// or FTFSL model also states its skips (ada_skip), a gated FTSL model
// under --ada_scale auto its projected steps (ada_project), and a gated
// FTSL or FTFSL model under --ada_scale auto its carried product
// (ada_dual_cache).
func TestADAGateModels(t *testing.T) {
	dir := t.TempDir()
	train := filepath.Join("..", "..", "testdata", "splice.train.vw.gz")
	for _, c := range []struct {
		args   []string
		stored bool
		refuse []string // resumed with these, each refused
		accept []string
	}{
		{[]string{"--ada_fd", "--fd_gate", "0.3"}, true, []string{"0", "1"}, []string{"0.3"}},
		{[]string{"--ada_fd"}, true, []string{"2", "0"}, []string{"0.2"}},
		{[]string{"--ada_fd", "--fd_gate", "0"}, false, []string{"2"}, []string{"0"}},
		{[]string{"--ada_fd", "--ada_scale", "paper"}, false, []string{"2"}, []string{"0"}},
		{[]string{"--sada"}, true, []string{"0"}, []string{"0.3"}},
		{[]string{"--ftsl", "--fd_gate", "2"}, true, []string{"0.3"}, []string{"2"}},
		{[]string{"--ftsl", "--ada_scale", "paper"}, true, []string{"0"}, []string{"0.3"}},
		{[]string{"--ftsl", "--fd_gate", "0"}, false, []string{"0.3"}, []string{"0"}},
		{[]string{"--sada", "--fd_gate", "0"}, false, []string{"0.3"}, []string{"0"}},
		{[]string{"--ada_ffd"}, true, []string{"2", "0"}, []string{"0.2"}},
		{[]string{"--ada_ffd", "--ada_scale", "paper"}, false, []string{"2"}, []string{"0"}},
		{[]string{"--sada_fast"}, true, []string{"0"}, []string{"0.3"}},
		{[]string{"--ftfsl"}, true, []string{"0"}, []string{"0.3"}},
		{[]string{"--ftfsl", "--fd_gate", "0"}, false, []string{"0.3"}, []string{"0"}},
		{[]string{"--ftfsl", "--ada_scale", "paper"}, true, []string{"0"}, []string{"0.3"}},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			m := filepath.Join(dir, strings.ReplaceAll(strings.Join(c.args, ""), "-", "_"))
			mustRun(t, nil, append(append([]string{"--quiet", "-f", m}, c.args...), train)...)
			if got := strings.Contains(read(t, m), "fd_gate"); got != c.stored {
				t.Fatalf("fd_gate in the model: %v, want %v", got, c.stored)
			}
			// The escaped form's skips (ada.Config.Skip) go with its gate.
			if got, want := strings.Contains(read(t, m), "ada_skip"), c.stored && c.args[0] != "--ada_fd" && c.args[0] != "--ada_ffd" && c.args[0] != "--ftsl"; got != want {
				t.Fatalf("ada_skip in the model: %v, want %v", got, want)
			}
			// FTSL's projected steps (ada.Config.Project) go with its gate
			// under --ada_scale auto.
			paper := strings.Contains(strings.Join(c.args, " "), "paper")
			if got, want := strings.Contains(read(t, m), "ada_project"), c.stored && c.args[0] == "--ftsl" && !paper; got != want {
				t.Fatalf("ada_project in the model: %v, want %v", got, want)
			}
			// So does their carried dual-averaging product (ada.Config.DualCache).
			dual := c.args[0] == "--ftsl" || c.args[0] == "--ftfsl"
			if got, want := strings.Contains(read(t, m), "ada_dual_cache"), c.stored && dual && !paper; got != want {
				t.Fatalf("ada_dual_cache in the model: %v, want %v", got, want)
			}
			for _, g := range c.refuse {
				_, stderr, code := sparseson(t, nil, "--quiet", "-i", m, "--fd_gate", g, train)
				if code == 0 || !strings.Contains(stderr, "fd_gate") {
					t.Errorf("resumed with --fd_gate %s: exit %d, stderr %q; want refused", g, code, stderr)
				}
			}
			for _, g := range c.accept {
				mustRun(t, nil, "--quiet", "-i", m, "--fd_gate", g, train)
			}
		})
	}
}

// TestDualAveragingEpsilonFloor: FTSL and FTFSL default to ε = 1 under
// --ada_scale auto (learners.ADADefaultEpsilon). On the bundled
// heart_scale (13 features, fewer than τ = 20, so ρ stays 0 and the
// papers' ε = 0 takes the pseudo-inverse all run) they stay within 3
// points of AdaGrad's test accuracy at their defaults, and fall more than
// 3 below it in the papers' form (--ada_scale paper, ε = 0). Under
// --ada_scale auto ε = 0 stays within too: the step η/√N of the escaped
// form's completion (ada.Config.Diag; N the mean ‖x‖², about 13 here)
// bounds the pseudo-inverse phase's weights as the floor does.
func TestDualAveragingEpsilonFloor(t *testing.T) {
	dir := t.TempDir()
	train, test := filepath.Join("..", "..", "testdata", "heart_scale.train.vw.gz"), filepath.Join("..", "..", "testdata", "heart_scale.test.vw.gz")
	labels := plain(t, "heart_scale.test.vw.gz")
	accuracy := func(flags ...string) float64 {
		m, p := filepath.Join(dir, "m"), filepath.Join(dir, "p")
		mustRun(t, nil, append(append([]string{"--quiet", "--loss_function", "logistic", "-f", m}, flags...), train)...)
		mustRun(t, nil, "--quiet", "-t", "-i", m, "-p", p, test)
		return 100 * (1 - shardErrorRate(t, read(t, p), labels))
	}
	base := accuracy()
	for _, tc := range []struct {
		flags  []string
		within bool
	}{
		{[]string{"--ftsl"}, true},
		{[]string{"--ftfsl"}, true},
		{[]string{"--ftsl", "--epsilon", "0"}, true},
		{[]string{"--ftfsl", "--epsilon", "0"}, true},
		{[]string{"--ftsl", "--ada_scale", "paper"}, false},
		{[]string{"--ftfsl", "--ada_scale", "paper"}, false},
	} {
		acc := accuracy(tc.flags...)
		if ok := acc >= base-3; ok != tc.within {
			t.Errorf("%v: %.2f%% against AdaGrad's %.2f%%: want within 3 points %v", tc.flags, acc, base, tc.within)
		}
	}
}
