package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// illScaled writes n dense examples whose 30 features span eleven orders
// of magnitude (feature j ~ 10^(j mod 12)·N(0,1)), random ±1 labels.
func illScaled(n int) []byte {
	rng := rand.New(rand.NewPCG(3, 4))
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "%d |", 2*rng.IntN(2)-1)
		for j := 0; j < 30; j++ {
			fmt.Fprintf(&b, " f%d:%.6e", j, math.Pow(10, float64(j%12))*rng.NormFloat64())
		}
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

// TestExtremeScalesKeepModelsLoadable: without pre-scaling, on features
// spanning 1e0…1e11 and with α far too small for them, every SON learner
// diverges numerically. What must still hold: training succeeds, the
// model file it writes loads, and its predictions are finite. Before the
// core refused out-of-range steps (step.go), these runs wrote weights of
// 1e211 and beyond, overflowed the fold guard's ‖w̄‖², and wrote model
// files the loader rejected as corrupt.
func TestExtremeScalesKeepModelsLoadable(t *testing.T) {
	dir := t.TempDir()
	data := write(t, filepath.Join(dir, "ill.vw"), illScaled(1500))
	for _, sk := range []string{"--oja", "--rp", "--fd", "--fd_fast", "--rfd", "--rfd_fast"} {
		for _, mode := range [][]string{
			{"--alpha", "1", "--diag=false"},
			{"--alpha", "1e-300", "--diag=false"},
			// The scaled-space form: α₀ from the data, a tiny fixed α₀,
			// and an absurd step rate.
			{},
			{"--alpha", "1e-300"},
			{"-l", "1e300"},
		} {
			name := strings.TrimPrefix(sk, "--") + strings.ReplaceAll(strings.Join(mode, ""), "-", "_")
			t.Run(name, func(t *testing.T) {
				m := filepath.Join(dir, name+".model")
				args := append([]string{"--quiet", sk, "-m", "10", "--projection", "1", "--loss_function", "logistic", "-f", m}, mode...)
				stderr := mustRun(t, nil, append(args, data)...)
				if len(mode) == 3 && mode[1] == "1e-300" && !strings.Contains(stderr, "steps refused") {
					t.Errorf("α = 1e-300 refused no step:\n%s", stderr)
				}
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

// TestExtremeScalesFDAdaptive: the FD-adaptive learners and ADA-FULL with
// an absurd step size on the ill-scaled data refuse their steps, say so
// in the end-of-run warning, and write models that load and predict
// finitely.
func TestExtremeScalesFDAdaptive(t *testing.T) {
	dir := t.TempDir()
	data := write(t, filepath.Join(dir, "ill.vw"), illScaled(300))
	for _, l := range [][]string{{"--ada_fd"}, {"--ada_ffd"}, {"--sada"}, {"--sada_fast"}, {"--ada_full", "-b", "8"}} {
		name := strings.TrimPrefix(l[0], "--")
		t.Run(name, func(t *testing.T) {
			m := filepath.Join(dir, name+".model")
			stderr := mustRun(t, nil, append(append([]string{"--quiet", "-l", "1e300", "-f", m}, l...), data)...)
			if !strings.Contains(stderr, "FD-adaptive steps refused") {
				t.Errorf("no warning of refused steps:\n%s", stderr)
			}
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
