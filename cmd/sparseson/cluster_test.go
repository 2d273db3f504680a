package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/sparseson/sparseson/model"
)

// checkTotal: the model in path records --total want.
func checkTotal(t *testing.T, path, want string) {
	t.Helper()
	opts, _, err := model.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if opts["total"] != want {
		t.Fatalf("%s records total=%q, want %q", path, opts["total"], want)
	}
}

// TestTotalFlag: --total is recorded in the model (1 by default), may be
// changed when a model is resumed (-i), and merge refuses parts trained
// with different values; SON parts trained with --total K > 1 are merged
// by the average of their models unless --weighting says otherwise (the
// first-order learner keeps the evidence average, and so does a merge
// with --base); --node is checked against --total.
func TestTotalFlag(t *testing.T) {
	dir := t.TempDir()
	parts, _ := shards(t, dir, 2)
	train := func(name string, flags ...string) string {
		m := filepath.Join(dir, name)
		mustRun(t, nil, append(append([]string{"--quiet", "--loss_function", "logistic", "-f", m}, flags...), parts[len(name)%2])...)
		return m
	}
	plain := train("plain.model", "--fd", "-m", "4")
	checkTotal(t, plain, "1")
	a := train("a.model", "--fd", "-m", "4", "--total", "4", "--node", "0")
	b := train("bb.model", "--fd", "-m", "4", "--total", "4", "--node", "3")
	c := train("c2.model", "--fd", "-m", "4", "--total", "2")
	checkTotal(t, a, "4")
	out := filepath.Join(dir, "out.model")
	if _, stderr, code := sparseson(t, nil, "merge", "-o", out, a, c); code != 1 || !strings.Contains(stderr, `differ in total (--total): "4" against "2"`) {
		t.Fatalf("merge of --total 4 and 2: exit %d\n%s", code, stderr)
	}
	if _, stderr, code := sparseson(t, nil, "merge", "-o", out, a, plain); code != 1 || !strings.Contains(stderr, "differ in total") {
		t.Fatalf("merge of --total 4 and 1: exit %d\n%s", code, stderr)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{a, b}, "weights averaged by examples"},
		{[]string{"--weighting", "evidence", a, b}, "weights averaged by evidence"},
		{[]string{train("g1.model", "--total", "4"), train("g22.model", "--total", "4")}, "weights averaged by evidence"},
		{[]string{train("f1.model", "--fd", "-m", "4", "--total", "4", "--alpha", "3"), train("f22.model", "--fd", "-m", "4", "--total", "4", "--alpha", "3")}, "weights averaged by evidence"},
	} {
		stderr := mustRun(t, nil, append([]string{"merge", "-o", out}, c.args...)...)
		if !strings.Contains(stderr, c.want) {
			t.Errorf("merge %v: want %q in\n%s", c.args, c.want, stderr)
		}
	}
	checkTotal(t, out, "4")
	// A later round from the merged model (--total given again) merges
	// with the base by evidence (EvidenceAverage); the merged model resumes as
	// the whole stream with --total 1.
	mustRun(t, nil, "merge", "--quiet", "-o", out, a, b)
	r2a, r2b := filepath.Join(dir, "r2a.model"), filepath.Join(dir, "r2b.model")
	mustRun(t, nil, "--quiet", "--total", "4", "-i", out, "-f", r2a, parts[0])
	mustRun(t, nil, "--quiet", "-i", out, "-f", r2b, parts[1])
	checkTotal(t, r2b, "4")
	stderr := mustRun(t, nil, "merge", "--base", out, "-o", filepath.Join(dir, "r2.model"), r2a, r2b)
	if !strings.Contains(stderr, "weights averaged by evidence") {
		t.Errorf("merge with --base: %s", stderr)
	}
	whole := filepath.Join(dir, "whole.model")
	mustRun(t, nil, "--quiet", "--total", "1", "-i", out, "-f", whole, parts[0])
	checkTotal(t, whole, "1")
	for _, bad := range [][]string{{"--total", "0"}, {"--total", "-3"}, {"--total", "4", "--node", "4"}, {"--node", "1"}, {"--total", "2000000"}} {
		if _, stderr, code := sparseson(t, nil, append([]string{"--quiet"}, append(bad, parts[0])...)...); code != 2 || !strings.Contains(stderr, "--"+strings.TrimPrefix(bad[len(bad)-2], "--")) {
			t.Errorf("%v: exit %d\n%s", bad, code, stderr)
		}
	}
}
