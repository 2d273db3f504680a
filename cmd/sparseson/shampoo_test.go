package main

import (
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestShampooEndToEnd: --softmax 20 --shampoo (sketched and exact left
// factor) on the bundled 20-class news20 slice: train and save, -t with
// the saved model predicts the same classes twice and far below chance
// (the most frequent class has error 0.915), --probabilities writes K
// probabilities summing to 1 whose argmax is the -p class, and training in
// two runs (-f, then -i) predicts exactly what one run does.
func TestShampooEndToEnd(t *testing.T) {
	dir := t.TempDir()
	train, test := mcFiles(t, dir, 800)
	for _, flags := range [][]string{
		{"--softmax", "20", "--shampoo"},
		{"--softmax", "20", "--shampoo", "--shampoo_exact_left", "-m", "6", "--epsilon", "0.5", "-l", "2"},
	} {
		t.Run(strings.Join(flags[2:], "_"), func(t *testing.T) {
			base := append([]string{"--quiet"}, flags...)
			m := filepath.Join(dir, "m")
			mustRun(t, nil, append(base, "-f", m, train)...)
			p1, p2, pp := filepath.Join(dir, "p1"), filepath.Join(dir, "p2"), filepath.Join(dir, "pp")
			mustRun(t, nil, "--quiet", "-t", "-i", m, "-p", p1, test)
			mustRun(t, nil, "--quiet", "-t", "-i", m, "-p", p2, test)
			if read(t, p1) != read(t, p2) {
				t.Fatal("two -t runs of one model predict different classes")
			}
			if e := errorRate(t, p1, test); e > 0.72 {
				t.Fatalf("test error %.3f > 0.72", e)
			} else {
				t.Logf("test error %.3f", e)
			}
			mustRun(t, nil, "--quiet", "-t", "-i", m, "--probabilities", "-p", pp, test)
			classes := strings.Split(strings.TrimSpace(read(t, p1)), "\n")
			for i, line := range strings.Split(strings.TrimSpace(read(t, pp)), "\n") {
				f := strings.Fields(line)
				if len(f) != 20 {
					t.Fatalf("line %d: %d fields: %q", i, len(f), line)
				}
				var sum, best float64
				arg := 0
				for k, tok := range f {
					v, err := strconv.ParseFloat(strings.TrimPrefix(tok, strconv.Itoa(k+1)+":"), 64)
					if err != nil || v < 0 {
						t.Fatalf("line %d: %q", i, tok)
					}
					sum += v
					if v > best {
						best, arg = v, k+1
					}
				}
				if math.Abs(sum-1) > 1e-4 || strconv.Itoa(arg) != classes[i] {
					t.Fatalf("line %d: probabilities sum to %v, argmax %d, -p class %s", i, sum, arg, classes[i])
				}
			}
			lines := strings.SplitAfter(read(t, train), "\n")
			h := len(lines) / 2
			a := write(t, filepath.Join(dir, "a.vw"), []byte(strings.Join(lines[:h], "")))
			b := write(t, filepath.Join(dir, "b.vw"), []byte(strings.Join(lines[h:], "")))
			all, part := filepath.Join(dir, "all"), filepath.Join(dir, "part")
			mustRun(t, nil, append(base, "-p", all, a, b)...)
			mustRun(t, nil, append(base, "-f", m, a)...)
			mustRun(t, nil, "--quiet", "-i", m, "-p", part, b)
			want := strings.SplitAfter(read(t, all), "\n")
			if read(t, part) != strings.Join(want[h:], "") {
				t.Fatal("resumed predictions differ from uninterrupted training")
			}
		})
	}
}

// TestShampooFlags: the command lines --shampoo refuses, and the model
// options a loaded FTSL-Shampoo model does not let a command line change.
func TestShampooFlags(t *testing.T) {
	dir := t.TempDir()
	train, _ := mcFiles(t, dir, 50)
	for _, args := range [][]string{
		{"--shampoo"},
		{"--softmax", "5", "--shampoo_exact_left"},
		{"--softmax", "5", "--shampoo", "--epsilon", "0"},
		{"--softmax", "5", "--shampoo", "--adaptive"},
		{"--softmax", "5", "--shampoo", "--fd"},
		{"--softmax", "5", "--shampoo", "--ftsl"},
		{"--softmax", "5", "--shampoo", "--l2", "0.1"},
		{"--softmax", "5", "--shampoo", "-m", "0"},
		{"--oaa", "5", "--shampoo"},
		{"--softmax", "5000", "--shampoo"},
	} {
		if _, stderr, code := sparseson(t, nil, append(args, train)...); code == 0 || strings.Contains(stderr, "finished run") {
			t.Errorf("%v: exit %d\n%s", args, code, stderr)
		}
	}
	m := filepath.Join(dir, "m")
	mustRun(t, nil, "--quiet", "--softmax", "20", "--shampoo", "-m", "4", "-f", m, train)
	for _, args := range [][]string{
		{"--shampoo", "--shampoo_exact_left"},
		{"--shampoo", "-m", "5"},
		{"--epsilon", "2"},
		{"--softmax", "19", "--shampoo"},
		{"--softmax", "20"}, // the AdaGrad softmax
	} {
		if _, stderr, code := sparseson(t, nil, append(append([]string{"--quiet", "-i", m}, args...), train)...); code == 0 || !strings.Contains(stderr, "trained with") && !strings.Contains(stderr, "is a shampoo learner") {
			t.Errorf("-i shampoo model %v: exit %d\n%s", args, code, stderr)
		}
	}
	// -l is a rate: a resumed run may change it; the family's own flag and
	// its model's K are accepted as they are.
	mustRun(t, nil, "--quiet", "-i", m, "-l", "0.5", train)
	mustRun(t, nil, "--quiet", "-i", m, "--softmax", "20", "--shampoo", "-m", "4", train)
}

// TestShampooRawAndAudit: -r writes the K raw scores of an FTSL-Shampoo
// model (their argmax is the -p class) and --audit lists every class's
// weights (the model's own, not the probe of a scalar learner).
func TestShampooRawAndAudit(t *testing.T) {
	dir := t.TempDir()
	train, test := mcFiles(t, dir, 300)
	m, p, r := filepath.Join(dir, "m"), filepath.Join(dir, "p"), filepath.Join(dir, "r")
	mustRun(t, nil, "--quiet", "--softmax", "20", "--shampoo", "-m", "6", "-f", m, train)
	mustRun(t, nil, "--quiet", "-t", "-i", m, "-p", p, "-r", r, test)
	classes := strings.Split(strings.TrimSpace(read(t, p)), "\n")
	for i, line := range strings.Split(strings.TrimSpace(read(t, r)), "\n") {
		f := strings.Fields(line)
		best, arg := math.Inf(-1), 0
		for k, tok := range f {
			v, err := strconv.ParseFloat(strings.TrimPrefix(tok, strconv.Itoa(k+1)+":"), 64)
			if err != nil {
				t.Fatalf("line %d: %q", i, tok)
			}
			if v > best {
				best, arg = v, k+1
			}
		}
		if len(f) != 20 || strconv.Itoa(arg) != classes[i] {
			t.Fatalf("line %d: %d scores, argmax %d, class %s", i, len(f), arg, classes[i])
		}
	}
	lines := strings.SplitAfter(read(t, test), "\n")
	one := write(t, filepath.Join(dir, "one.vw"), []byte(lines[0]))
	out, stderr, code := sparseson(t, nil, "--quiet", "-t", "-i", m, "-a", one)
	if code != 0 {
		t.Fatalf("-a: exit %d\n%s", code, stderr)
	}
	if n := strings.Count(out, "\n"); n != 21 || !strings.Contains(out, "[19]:") {
		t.Errorf("audit of one example: %d lines, want the class and 20 feature lines:\n%s", n, out)
	}
}

// TestShampooDiagOnText: on the bundled 20-class news20 slice (800
// training posts, 400 test), --softmax 20 --shampoo at its defaults — the
// per-coordinate completion under --ada_scale auto — has a lower test
// error than softmax AdaGrad and than the paper's form (measured: 55.0 %
// against 63.5 % and 61.25 %); the header says which form a model is.
func TestShampooDiagOnText(t *testing.T) {
	dir := t.TempDir()
	train, test := mcFiles(t, dir, 800)
	m, p := filepath.Join(dir, "m"), filepath.Join(dir, "p")
	errOf := func(flags ...string) (float64, string) {
		header := mustRun(t, nil, append(append([]string{"-f", m}, flags...), train)...)
		mustRun(t, nil, "--quiet", "-t", "-i", m, "-p", p, test)
		return errorRate(t, p, test), header
	}
	const line = "R^{−1/4} completed per coordinate"
	def, header := errOf("--softmax", "20", "--shampoo")
	if !strings.Contains(header, line) {
		t.Errorf("the default model's header has no completion line:\n%s", header)
	}
	paper, header := errOf("--softmax", "20", "--shampoo", "--ada_scale", "paper")
	if strings.Contains(header, line) {
		t.Errorf("the paper form's header has the completion line:\n%s", header)
	}
	adagrad, _ := errOf("--softmax", "20")
	t.Logf("test error: FTSL-Shampoo %.4f, its paper form %.4f, softmax AdaGrad %.4f", def, paper, adagrad)
	if !(def < adagrad) || !(def < paper) {
		t.Errorf("FTSL-Shampoo's default %.4f is not below softmax AdaGrad's %.4f and the paper form's %.4f", def, adagrad, paper)
	}
}
