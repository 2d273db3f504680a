package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// mcFiles writes the bundled 20-class news20 slice (testdata/news20mc,
// bench/news20mc) as plain files, the training set cut to its first n
// lines.
func mcFiles(t *testing.T, dir string, n int) (train, test string) {
	t.Helper()
	lines := strings.SplitAfter(string(plain(t, "news20mc.train.vw.gz")), "\n")
	train = write(t, filepath.Join(dir, "mc.train.vw"), []byte(strings.Join(lines[:n], "")))
	test = write(t, filepath.Join(dir, "mc.test.vw"), plain(t, "news20mc.test.vw.gz"))
	return train, test
}

// errorRate compares a predictions file with the classes of a data file.
func errorRate(t *testing.T, pred, data string) float64 {
	t.Helper()
	p := strings.Split(strings.TrimSpace(read(t, pred)), "\n")
	d := strings.Split(strings.TrimSpace(read(t, data)), "\n")
	if len(p) != len(d) {
		t.Fatalf("%d predictions for %d examples", len(p), len(d))
	}
	wrong := 0
	for i := range p {
		if strings.Fields(p[i])[0] != strings.Fields(d[i])[0] {
			wrong++
		}
	}
	return float64(wrong) / float64(len(p))
}

// TestMulticlassEndToEnd: --oaa over every learner family and --softmax
// train, save, load and predict: -t with the saved model predicts the
// same classes twice, the test error is far below chance (95%), and
// training in two runs (-f, then -i) predicts exactly what one run does.
// The constant prediction of the test set's most frequent class has an
// error of 0.915 (one pass over 800 posts reaches 0.61–0.71); full ONS,
// whose dense A_t limits it to -b 8 and 200 posts here, is a smoke test.
func TestMulticlassEndToEnd(t *testing.T) {
	dir := t.TempDir()
	train, test := mcFiles(t, dir, 800)
	sub := filepath.Join(dir, "small")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	small, _ := mcFiles(t, sub, 200)
	cases := []struct {
		name  string
		flags []string
		data  string
		bound float64 // test error
	}{
		{"oaa adagrad", []string{"--oaa", "20"}, train, 0.78},
		{"oaa nasa", []string{"--oaa", "20", "--nasa"}, train, 0.78},
		{"oaa nasa scalar", []string{"--oaa", "20", "--nasa", "--sgd"}, train, 0.78},
		{"oaa sgd", []string{"--oaa", "20", "--sgd", "-l", "0.1"}, train, 0.78},
		{"oaa oja", []string{"--oaa", "20", "--oja", "-m", "4"}, train, 0.78},
		{"oaa rp", []string{"--oaa", "20", "--rp", "-m", "4"}, train, 0.78},
		{"oaa fd", []string{"--oaa", "20", "--fd", "-m", "4"}, train, 0.78},
		{"oaa rfd", []string{"--oaa", "20", "--rfd", "-m", "4"}, train, 0.78},
		{"oaa m=0", []string{"--oaa", "20", "-m", "0"}, train, 0.78},
		{"oaa full", []string{"--oaa", "20", "--full", "-b", "8"}, small, 0.95},
		{"oaa ada_fd", []string{"--oaa", "20", "--ada_fd", "-m", "4"}, train, 0.78},
		{"oaa ftsl", []string{"--oaa", "20", "--ftsl", "-m", "4"}, train, 0.78},
		{"oaa sada_fast", []string{"--oaa", "20", "--sada_fast", "-m", "4"}, train, 0.78},
		{"softmax", []string{"--softmax", "20"}, train, 0.78},
		{"softmax sgd", []string{"--softmax", "20", "--sgd", "-l", "0.05"}, train, 0.78},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := filepath.Join(dir, "m")
			base := append([]string{"--quiet", "--loss_function", "logistic"}, c.flags...)
			if c.flags[0] == "--softmax" {
				base = append([]string{"--quiet"}, c.flags...)
			}
			mustRun(t, nil, append(base, "-f", m, c.data)...)
			p1, p2 := filepath.Join(dir, "p1"), filepath.Join(dir, "p2")
			mustRun(t, nil, "--quiet", "-t", "-i", m, "-p", p1, test)
			mustRun(t, nil, "--quiet", "-t", "-i", m, "-p", p2, test)
			if read(t, p1) != read(t, p2) {
				t.Fatal("two -t runs of one model predict different classes")
			}
			for _, l := range strings.Split(strings.TrimSpace(read(t, p1)), "\n") {
				if k, err := strconv.Atoi(l); err != nil || k < 1 || k > 20 {
					t.Fatalf("prediction %q is not a class", l)
				}
			}
			if e := errorRate(t, p1, test); e > c.bound {
				t.Fatalf("test error %.3f > %.2f", e, c.bound)
			} else {
				t.Logf("test error %.3f", e)
			}
			// Resume: train on the first part, save, go on with -i.
			lines := strings.SplitAfter(read(t, c.data), "\n")
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

// TestMulticlassOutput: VW's multiclass progress table (classes in the
// label and predict columns, error rate as loss), its summary (label sum
// 0, no best constant, the multiclass log loss with --probabilities), and
// --probabilities' prediction lines "1:p1 … K:pK tag".
func TestMulticlassOutput(t *testing.T) {
	dir := t.TempDir()
	train, _ := mcFiles(t, dir, 300)
	stderr := mustRun(t, nil, "--oaa", "20", "--loss_function", "logistic", train)
	row := regexp.MustCompile(`(?m)^[0-9.]+ +[0-9.]+ +256 +256\.0 +\d+ +\d+ +\d+$`)
	if !row.MatchString(stderr) {
		t.Errorf("no multiclass row at 256:\n%s", stderr)
	}
	for _, want := range []string{"weighted label sum = 0.000000", "one against all (--oaa 20)"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if strings.Contains(stderr, "best constant") {
		t.Errorf("a multiclass summary has no best constant:\n%s", stderr)
	}

	// Several passes with VW's holdout: the table and summary report the
	// holdout error and multiclass log loss, and the best pass's model
	// (restored through the stack) is saved and loads.
	m := filepath.Join(dir, "m")
	stderr = mustRun(t, nil, "--oaa", "20", "--loss_function", "logistic", "--probabilities", "--passes", "4", "-c", "-f", m, train)
	for _, want := range []string{"passes used = ", "average multiclass log loss = "} {
		if !strings.Contains(stderr, want) {
			t.Errorf("--passes 4: stderr lacks %q:\n%s", want, stderr)
		}
	}
	if !regexp.MustCompile(`(?m)^average loss = 0\.\d+ h$`).MatchString(stderr) || !regexp.MustCompile(`(?m)^average multiclass log loss = \d+\.\d+ h$`).MatchString(stderr) {
		t.Errorf("--passes 4: no holdout losses in the summary:\n%s", stderr)
	}
	mustRun(t, nil, "--quiet", "-t", "-i", m, train)
	// Every holdout example contradicts the others: no pass improves on
	// the first, so after 1 + 3 passes the first pass's model is restored.
	var b strings.Builder
	for i := 0; i < 100; i++ {
		if i%10 == 9 {
			b.WriteString("2 |f a\n")
		} else {
			b.WriteString("1 |f a b\n")
		}
	}
	odd := write(t, filepath.Join(dir, "odd.vw"), []byte(b.String()))
	for _, flags := range [][]string{{"--oaa", "3", "--oja", "-m", "2"}, {"--softmax", "3"}} {
		stderr = mustRun(t, nil, append(flags, "--passes", "10", "-c", "-f", m, odd)...)
		if !strings.Contains(stderr, "passes used = 4") {
			t.Errorf("%v: want early termination after 4 passes:\n%s", flags, stderr)
		}
		mustRun(t, nil, "--quiet", "-t", "-i", m, odd)
	}

	tagged := write(t, filepath.Join(dir, "tagged.vw"), []byte("3 'first|f a b\n1 'second|f c\n| a\n"))
	for _, flags := range [][]string{{"--oaa", "3", "--loss_function", "logistic"}, {"--softmax", "3"}} {
		pred := filepath.Join(dir, "probs")
		stderr := mustRun(t, nil, append(flags, "--probabilities", "-p", pred, "-P", "1", tagged)...)
		if !regexp.MustCompile(`(?m) +3 +1\(33%\) +3$`).MatchString(stderr) {
			t.Errorf("%v: no first row with the predicted class's probability:\n%s", flags, stderr)
		}
		if !strings.Contains(stderr, "average multiclass log loss = ") {
			t.Errorf("%v: no multiclass log loss in the summary:\n%s", flags, stderr)
		}
		lines := strings.Split(strings.TrimSpace(read(t, pred)), "\n")
		if len(lines) != 3 || !strings.HasSuffix(lines[0], " first") || !strings.HasSuffix(lines[1], " second") {
			t.Fatalf("%v: prediction lines %q", flags, lines)
		}
		if lines[0] != "1:0.333333 2:0.333333 3:0.333333 first" {
			t.Errorf("%v: first line %q, want uniform probabilities in VW's format", flags, lines[0])
		}
		for _, l := range lines {
			var sum float64
			for k, f := range strings.Fields(l)[:3] {
				var c int
				var p float64
				if _, err := fmt.Sscanf(f, "%d:%g", &c, &p); err != nil || c != k+1 || !(p > 0) {
					t.Fatalf("%v: field %q of %q", flags, f, l)
				}
				sum += p
			}
			if math.Abs(sum-1) > 1e-5 {
				t.Fatalf("%v: probabilities of %q sum to %v", flags, l, sum)
			}
		}
	}
}

// TestMulticlassBadInput: labels that are not classes 1..K are malformed
// lines with their position (skipped and counted, or fatal with
// --strict), also through a cache; flags that do not fit a multiclass
// model are refused with a message.
func TestMulticlassBadInput(t *testing.T) {
	dir := t.TempDir()
	in := write(t, filepath.Join(dir, "d.vw"), []byte("1 |f a\n0 |f b\n4 |f c\n2 |f d\n1.5 |f e\n3 |f a\n"))
	for _, extra := range [][]string{nil, {"-c", "--passes", "2", "--holdout_off"}} {
		stderr := mustRun(t, nil, append([]string{"--oaa", "3"}, append(extra, in)...)...)
		for _, want := range []string{in + ":2: class label 0 is not in 1..3", in + ":3:", in + ":5:", "malformed lines skipped = 3"} {
			if !strings.Contains(stderr, want) {
				t.Errorf("%v: stderr lacks %q:\n%s", extra, want, stderr)
			}
		}
	}
	if _, stderr, code := sparseson(t, nil, "--oaa", "3", "--strict", in); code == 0 || !strings.Contains(stderr, in+":2:") {
		t.Errorf("--strict: exit %d:\n%s", code, stderr)
	}
	m := filepath.Join(dir, "m")
	mustRun(t, nil, "--quiet", "--oaa", "3", "-f", m, in)
	sm := filepath.Join(dir, "sm")
	mustRun(t, nil, "--quiet", "--softmax", "3", "-f", sm, in)
	bin := filepath.Join(dir, "bin")
	mustRun(t, nil, "--quiet", "-f", bin, write(t, filepath.Join(dir, "b.vw"), []byte("1 |f a\n-1 |f b\n")))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--oaa", "3", "--binary", in}, "--binary and --link report scalar predictions"},
		{[]string{"--softmax", "3", "--link", "logistic", in}, "--binary and --link report scalar predictions"},
		{[]string{"--oaa", "3", "--softmax", "3", in}, "choose --oaa or --softmax"},
		{[]string{"--oaa", "1", in}, "--oaa 1: want 2.."},
		{[]string{"--softmax", "3", "--nasa", in}, "not NASA's steps"},
		{[]string{"--softmax", "3", "--oja", in}, "does not combine with SON"},
		{[]string{"--softmax", "3", "--loss_function", "squared", in}, "--loss_function squared does not apply"},
		{[]string{"--probabilities", in}, "--probabilities needs a multiclass model"},
		{[]string{"-i", m, "--oaa", "4", in}, `oaa="3" but the command line asks for "4"`},
		{[]string{"-i", sm, "--softmax", "4", in}, `classes="3" but the command line asks for "4"`},
		{[]string{"-i", bin, "--probabilities", in}, "--probabilities needs a multiclass model"},
		{[]string{"-i", m, "--binary", in}, "--binary and --link report scalar predictions"},
		{[]string{"--oaa", "3", "--max_memory", "lots", in}, "--max_memory \"lots\": want a positive size"},
	} {
		_, stderr, code := sparseson(t, nil, c.args...)
		if code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, want an error with %q:\n%s", c.args, code, c.want, stderr)
		}
	}
	// A loaded multiclass model is predicted with and reports classes;
	// --probabilities may be asked for at test time.
	pred := filepath.Join(dir, "p")
	mustRun(t, nil, "--quiet", "-t", "-i", m, "--probabilities", "-p", pred, in)
	if lines := strings.Split(strings.TrimSpace(read(t, pred)), "\n"); len(lines) != 3 || len(strings.Fields(lines[0])) != 3 {
		t.Errorf("probabilities of a loaded model: %q", lines)
	}
}

// TestMulticlassMemory: a model that could outgrow --max_memory is refused
// before anything is allocated, with the estimate and what to change.
func TestMulticlassMemory(t *testing.T) {
	dir := t.TempDir()
	in := write(t, filepath.Join(dir, "d.vw"), []byte("1 |f a\n2 |f b\n"))
	for _, c := range []struct {
		args []string
		want string
	}{
		// 20 × 2^24 slots × (5 + 24) bytes = 9.06 GiB (above -b 22 the
		// index is a hash table until it gives way to the dense one: 4
		// bytes a slot, one more while it does), and 9 bytes a slot for
		// OAA's numbering (its index and a key).
		{[]string{"--oaa", "20", "-b", "24", "--max_memory", "8G"}, "--oaa 20 with this learner may need up to 9.2 GiB (20 × 464.0 MiB: a 2^24-slot index and, if the data uses every slot, 2^24 rows of 24 bytes, plus 144.0 MiB for OAA's slot numbers), above --max_memory 8.0 GiB (as given)"},
		// At -b 22 the dense index: 4 bytes a slot.
		{[]string{"--oaa", "20", "-b", "22", "--max_memory", "1G"}, "--oaa 20 with this learner may need up to 2.2 GiB (20 × 112.0 MiB: a 2^22-slot index and, if the data uses every slot, 2^22 rows of 24 bytes, plus 32.0 MiB for OAA's slot numbers)"},
		// SON m = 10 with pre-scaling: 1 + 10 + 2 floats a row, and 3 for
		// the features' units (--diag_init auto: 1/u_j, Σx_j², n_j).
		{[]string{"--oaa", "20", "-b", "24", "--oja", "--max_memory", "1T"}, ""},
		{[]string{"--oaa", "200", "-b", "24", "--oja", "--max_memory", "64G"}, "2^24 rows of 128 bytes"},
		// One K×d model: 2K + 1 floats a row.
		{[]string{"--softmax", "1000", "-b", "24", "--max_memory", "100G"}, "--softmax 1000 with this learner may need up to 250.2 GiB"},
		// The dense learners keep at most 4096 slots whatever -b: full ONS
		// 8·(5 + 4096) bytes a row (A⁻¹'s, [u_j, D_j] and, for the
		// features' units of --diag_init auto, 1/u_j, Σx_j² and n_j), ADA-FULL
		// 8·(1 + 2·4096) (β_j, U and its double buffer) and 16 for every
		// slot's scale; -b adds its index (4 bytes a slot) and a bit a
		// slot for the features refused.
		{[]string{"--oaa", "20", "--full", "-b", "12", "--max_memory", "1G"}, "(20 × 128.2 MiB: a 2^12-slot index and, if the data uses every slot, 4096 rows of 32808 bytes (the most slots it keeps)"},
		{[]string{"--oaa", "20", "--full", "-b", "18", "--max_memory", "1G"}, "(20 × 129.2 MiB: a 2^18-slot index and, if the data uses every slot, 4096 rows of 32808 bytes (the most slots it keeps)"},
		{[]string{"--oaa", "2", "--full", "-b", "18", "--max_memory", "1G"}, ""},
		{[]string{"--oaa", "20", "--ada_full", "-b", "18", "--max_memory", "1G"}, "(20 × 261.1 MiB: a 2^18-slot index and, if the data uses every slot, 2^18 rows of 16 bytes and 4096 rows of 65544 bytes (the most slots it keeps)"},
	} {
		_, stderr, code := sparseson(t, nil, append(c.args, "--quiet", in)...)
		if c.want == "" {
			if code != 0 {
				t.Errorf("%v: refused:\n%s", c.args, stderr)
			}
			continue
		}
		if code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, want an error with %q:\n%s", c.args, code, c.want, stderr)
		}
	}
}

// TestMulticlassReadable: the readable model of a multiclass model lists
// class k's weight of slot j at j·K + k − 1 (VW's stride).
func TestMulticlassReadable(t *testing.T) {
	dir := t.TempDir()
	in := write(t, filepath.Join(dir, "d.vw"), []byte("1 | a\n2 | a\n"))
	out := filepath.Join(dir, "r.txt")
	mustRun(t, nil, "--quiet", "--oaa", "2", "--noconstant", "--readable_model", out, in)
	// "a" hashes to slot 92594 at -b 18: classes 1 and 2 at 185188, 185189.
	got := read(t, out)
	for _, slot := range []string{"\n185188:", "\n185189:"} {
		if !strings.Contains(got, slot) {
			t.Errorf("readable model lacks %q:\n%s", slot, got)
		}
	}
}

// TestMaxMemoryEveryModel: --max_memory, when given, refuses a binary
// model of any family whose estimate exceeds it, before the first example
// (the estimate's figures are stated), and a model loaded with -i is
// checked as a new one.
func TestMaxMemoryEveryModel(t *testing.T) {
	dir := t.TempDir()
	in := write(t, filepath.Join(dir, "d.vw"), []byte("1 |f a\n-1 |f b\n"))
	for _, l := range registry() {
		args := append(append([]string{"--quiet"}, l.flags...), "--max_memory", "1M", in)
		_, stderr, code := sparseson(t, nil, args...)
		if code == 0 || !strings.Contains(stderr, "may need up to") || !strings.Contains(stderr, "above --max_memory 1.0 MiB (as given)") {
			t.Errorf("%s: exit %d:\n%s", l.name, code, stderr)
		}
	}
	// 2^18 slots × (4 + 24) bytes = 7 MiB for the default learner.
	_, stderr, code := sparseson(t, nil, "--max_memory", "6M", in)
	if code == 0 || !strings.Contains(stderr, "this model with this learner may need up to 7.0 MiB (1 × 7.0 MiB: a 2^18-slot index and, if the data uses every slot, 2^18 rows of 24 bytes)") {
		t.Errorf("exit %d:\n%s", code, stderr)
	}
	mustRun(t, nil, "--quiet", "--max_memory", "8M", in)
	m := filepath.Join(dir, "m")
	mustRun(t, nil, "--quiet", "--oaa", "2", "-f", m, in)
	if _, stderr, code := sparseson(t, nil, "--quiet", "-i", m, "--max_memory", "1M", in); code == 0 || !strings.Contains(stderr, "--oaa 2 with this learner may need") {
		t.Errorf("loaded model: exit %d:\n%s", code, stderr)
	}
}
