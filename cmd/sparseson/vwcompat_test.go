package main

import (
	"fmt"
	"github.com/sparseson/sparseson/learners"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/sparseson/sparseson/hashing"
)

func slotOf(ns, name string, bits uint) uint32 {
	nsHash := uint32(0)
	if ns != "" {
		nsHash = hashing.HashString([]byte(ns), 0)
	}
	return hashing.HashString([]byte(name), nsHash) & (1<<bits - 1)
}

// TestAuditHandComputed: plain SGD (-l 0.5, --power_t 0, squared loss) on
// "1 |a x:2 y" twice. Before the first example every weight is 0; its
// step is −ℓ'·η = 2·0.5 = 1 times x, so w = (x: 2, y: 1, Constant: 1),
// and the second prediction 2·2 + 1 + 1 = 6 is clipped to the label range
// [0, 1]. The audit lists features by |w·x|: a^x (4), then a^y and the
// constant (1 each, in input order). VW's raw update (--feature_scale
// raw): at the default auto, x = 2 would be learned as 2/2 = 1.
func TestAuditHandComputed(t *testing.T) {
	dir := t.TempDir()
	data := write(t, filepath.Join(dir, "d.vw"), []byte("1 |a x:2 y\n1 'tag|a x:2 y\n"))
	out, stderr, code := sparseson(t, nil, "--sgd", "--feature_scale", "raw", "-l", "0.5", "--power_t", "0", "-a", "--quiet", data)
	if code != 0 {
		t.Fatal(stderr)
	}
	x, y := slotOf("a", "x", 18), slotOf("a", "y", 18)
	want := fmt.Sprintf("0\n\ta^x:%d:2:0\ta^y:%d:1:0\tConstant:116060:1:0\n"+
		"1 tag\n\ta^x:%d:2:2\ta^y:%d:1:1\tConstant:116060:1:1\n", x, y, x, y)
	if out != want {
		t.Errorf("audit\n%s\nwant\n%s", out, want)
	}
}

// readableWeights parses a readable model (or --invert_hash) into
// slot → weight and slot → name.
func readableWeights(t *testing.T, path string) (map[uint64]float64, map[uint64]string) {
	t.Helper()
	w, names := map[uint64]float64{}, map[uint64]string{}
	body := false
	for _, line := range strings.Split(strings.TrimSpace(read(t, path)), "\n") {
		if line == ":0" {
			body = true
			continue
		}
		if !body {
			continue
		}
		i := strings.LastIndexByte(line, ':')
		j := strings.LastIndexByte(line[:i], ':')
		slot, err1 := strconv.ParseUint(line[j+1:i], 10, 64)
		v, err2 := strconv.ParseFloat(line[i+1:], 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("bad line %q", line)
		}
		w[slot] = v
		if j >= 0 {
			names[slot] = line[:j]
		}
	}
	return w, names
}

// TestAuditEveryLearner: for every learner family the audited weight of a
// feature is the model's weight of its slot as --readable_model writes it
// (for SON the effective w̄ + Zᵀb, in the raw space), and the features'
// names are VW's.
func TestAuditEveryLearner(t *testing.T) {
	dir := t.TempDir()
	train := filepath.Join("..", "..", "testdata", "splice.train.vw.gz")
	test := write(t, filepath.Join(dir, "t.vw"), []byte(strings.Join(strings.SplitAfter(string(plain(t, "splice.test.vw.gz")), "\n")[:5], "")))
	sets := append([][]string{{"--l1", "1e-4"}, {"--nasa_accel", "--nasa_L", "1"}}, learnerFlagSets...)
	for _, learner := range sets {
		t.Run(strings.Join(learner, "_"), func(t *testing.T) {
			m, rm := filepath.Join(dir, "m"), filepath.Join(dir, "m.txt")
			mustRun(t, nil, append(append([]string{"--quiet", "--loss_function", "logistic", "-f", m, "--readable_model", rm}, learner...), train)...)
			weights, _ := readableWeights(t, rm)
			out, stderr, code := sparseson(t, nil, "--quiet", "-t", "-i", m, "-a", test)
			if code != 0 {
				t.Fatal(stderr)
			}
			lines := strings.Split(strings.TrimSpace(out), "\n")
			if len(lines) != 10 {
				t.Fatalf("%d audit lines, want 10", len(lines))
			}
			checked := 0
			for _, line := range lines[1:] {
				if !strings.HasPrefix(line, "\t") {
					continue
				}
				for _, f := range strings.Split(line[1:], "\t") {
					parts := strings.Split(f, ":")
					slot, _ := strconv.ParseUint(parts[1], 10, 64)
					w, _ := strconv.ParseFloat(parts[3], 64)
					if !strings.HasPrefix(parts[0], "f^") && parts[0] != "Constant" {
						t.Fatalf("feature name %q", parts[0])
					}
					if want := weights[slot]; math.Abs(w-want) > 1e-5*math.Max(1e-3, math.Abs(want)) {
						t.Fatalf("%s: audited weight %v, model %v", parts[0], w, want)
					}
					checked++
				}
			}
			if checked < 100 {
				t.Fatalf("only %d features checked", checked)
			}
		})
	}
	// Per class for a multiclass model: class k ≥ 2's names end in [k−1].
	mtrain, _ := mcFiles(t, dir, 200)
	mtest := write(t, filepath.Join(dir, "mc.one.vw"), []byte(strings.SplitAfter(read(t, mtrain), "\n")[0]))
	m := filepath.Join(dir, "mc")
	mustRun(t, nil, "--quiet", "--oaa", "20", "-f", m, mtrain)
	out, stderr, code := sparseson(t, nil, "--quiet", "-t", "-i", m, "-a", mtest)
	lines := strings.Split(out, "\n")
	if code != 0 || len(lines) != 22 || !strings.Contains(lines[2], "[1]:") || !strings.Contains(lines[20], "[19]:") || strings.Contains(lines[1], "[") {
		t.Fatalf("multiclass audit (exit %d, %s):\n%s", code, stderr, strings.Join(lines[:min(4, len(lines))], "\n"))
	}
}

// TestInvertHashRoundTrip: --invert_hash writes every weight of the
// readable model with the name of its feature, and each name hashes back
// to its slot — base features, the constant and the interactions a^x*b^y.
func TestInvertHashRoundTrip(t *testing.T) {
	dir := t.TempDir()
	var sb strings.Builder
	for i := 0; i < 200; i++ {
		fmt.Fprintf(&sb, "%d |a w%d w%d:0.5 |b v%d %d\n", 2*(i%2)-1, i%17, i%5, i%7, i%3)
	}
	data := write(t, filepath.Join(dir, "d.vw"), []byte(sb.String()))
	inv, rm := filepath.Join(dir, "inv.txt"), filepath.Join(dir, "rm.txt")
	mustRun(t, nil, "--quiet", "-b", "20", "-q", "ab", "--invert_hash", inv, "--readable_model", rm, data)
	weights, _ := readableWeights(t, rm)
	iw, names := readableWeights(t, inv)
	if len(iw) != len(weights) || len(weights) < 17+5+7+3+100 {
		t.Fatalf("%d named weights, %d in the readable model", len(iw), len(weights))
	}
	const mask = 1<<20 - 1
	hashOf := func(comp string) uint32 {
		if comp == "Constant" {
			return hashing.ConstantHash
		}
		ns, name, _ := strings.Cut(comp, "^")
		return hashing.HashString([]byte(name), hashing.HashString([]byte(ns), 0))
	}
	inter := 0
	for slot, w := range weights {
		if iw[slot] != w {
			t.Errorf("slot %d: --invert_hash %v, readable %v", slot, iw[slot], w)
		}
		comps := strings.Split(names[slot], "*")
		h := hashOf(comps[0])
		if len(comps) == 2 {
			h = h*16777619 ^ hashOf(comps[1]) // VW's quadratic hash
			inter++
		}
		if uint64(h&mask) != slot {
			t.Errorf("name %q hashes to %d, written at %d", names[slot], h&mask, slot)
		}
	}
	if inter < 50 {
		t.Fatalf("%d interactions named", inter)
	}
}

// The features column counts n-grams as VW does: "a b c d" with
// --ngram 2 --skips 1 has 4 words, 3 bigrams, 2 skip-grams and the
// constant.
func TestNgramFlags(t *testing.T) {
	dir := t.TempDir()
	data := write(t, filepath.Join(dir, "d.vw"), []byte("1 |t a b c d\n"))
	stderr := mustRun(t, nil, "--ngram", "2", "--skips", "1", data)
	if !strings.Contains(stderr, " 10\n") {
		t.Errorf("progress row does not count 10 features:\n%s", stderr)
	}
	// Per namespace; a later entry wins: t gets trigrams, then bigrams only.
	for _, c := range []struct {
		args []string
		want string
	}{{[]string{"--ngram", "t3"}, " 10\n"}, {[]string{"--ngram", "t3", "--ngram", "2"}, " 8\n"}, {[]string{"--ngram", "x3"}, " 5\n"}} {
		if stderr := mustRun(t, nil, append(c.args, data)...); !strings.Contains(stderr, c.want) {
			t.Errorf("%v: want %q features in\n%s", c.args, c.want, stderr)
		}
	}
}

func TestVWLossFlags(t *testing.T) {
	dir := t.TempDir()
	data := write(t, filepath.Join(dir, "d.vw"), []byte("3 |a x\n0 |a y\n5 |a x y\n2 |b z\n"))
	for _, c := range [][]string{
		{"--loss_function", "classic"},
		{"--loss_function", "poisson", "--link", "poisson"},
		{"--loss_function", "expectile", "--expectile_q", "0.25"},
	} {
		p := filepath.Join(dir, "p")
		mustRun(t, nil, append(append([]string{"--quiet", "-p", p}, c...), data)...)
		if n := strings.Count(read(t, p), "\n"); n != 4 {
			t.Errorf("%v: %d predictions", c, n)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--loss_function", "expectile"}, "needs --expectile_q"},
		{[]string{"--loss_function", "expectile", "--expectile_q", "0.7"}, "(0, 0.5]"},
		{[]string{"--expectile_q", "0.2"}, "applies to --loss_function expectile"},
		{[]string{"--loss_function", "logistic", "--min_prediction", "0"}, "clipped to [−50, 50]"},
		{[]string{"--l1", "0.1", "-m", "4"}, "not supported"},
		{[]string{"--l1", "0.1", "--softmax", "3"}, "--l1"},
		{[]string{"--port", "9"}, "applies to --daemon"},
		{[]string{"--daemon", "-p", "x"}, "does not apply"},
	} {
		_, stderr, code := sparseson(t, nil, append(c.args, data)...)
		if code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want an error with %q", c.args, code, stderr, c.want)
		}
	}
}

// -r writes the raw score; -p the clamped, linked or signed prediction.
func TestRawPredictionsAndBounds(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join("..", "..", "testdata", "splice.train.vw.gz")
	p, r := filepath.Join(dir, "p"), filepath.Join(dir, "r")
	mustRun(t, nil, "--quiet", "--loss_function", "logistic", "--link", "logistic", "-p", p, "-r", r, data)
	ps, rs := strings.Fields(read(t, p)), strings.Fields(read(t, r))
	if len(ps) != 2549 || len(rs) != len(ps) {
		t.Fatalf("%d predictions, %d raw", len(ps), len(rs))
	}
	for i := range ps {
		pv, _ := strconv.ParseFloat(ps[i], 64)
		rv, _ := strconv.ParseFloat(rs[i], 64)
		if math.Abs(pv-1/(1+math.Exp(-rv))) > 2e-6 {
			t.Fatalf("line %d: prediction %v, raw %v", i+1, pv, rv)
		}
	}
	// --min_prediction/--max_prediction bound the squared loss's
	// predictions; the raw scores are not bounded.
	mustRun(t, nil, "--quiet", "--min_prediction", "-0.5", "--max_prediction", "0.25", "-p", p, "-r", r, data)
	outside := 0
	for i, s := range strings.Fields(read(t, p)) {
		v, _ := strconv.ParseFloat(s, 64)
		if v < -0.5 || v > 0.25 {
			t.Fatalf("prediction %d = %v outside [-0.5, 0.25]", i+1, v)
		}
		if rv, _ := strconv.ParseFloat(strings.Fields(read(t, r))[i], 64); rv < -0.5 || rv > 0.25 {
			outside++
		}
	}
	if outside == 0 {
		t.Error("no raw score outside the bounds: the test proves nothing")
	}
	// --oaa: one score per class.
	mtrain, _ := mcFiles(t, dir, 50)
	mustRun(t, nil, "--quiet", "--oaa", "20", "-r", r, mtrain)
	if first := strings.SplitN(read(t, r), "\n", 2)[0]; !strings.HasPrefix(first, "1:0 2:0 3:0") || !strings.Contains(first, " 20:0") {
		t.Errorf("--oaa raw line %q", first)
	}
}

func TestHashSeedAndHoldoutAfter(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join("..", "..", "testdata", "splice.train.vw.gz")
	a, b := filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.txt")
	m := filepath.Join(dir, "m")
	mustRun(t, nil, "--quiet", "--readable_model", a, data)
	mustRun(t, nil, "--quiet", "--hash_seed", "5", "-f", m, "--readable_model", b, data)
	wa, _ := readableWeights(t, a)
	wb, _ := readableWeights(t, b)
	same := 0
	for s := range wa {
		if _, ok := wb[s]; ok {
			same++
		}
	}
	if same > len(wa)/10+1 { // the constant stays
		t.Errorf("%d of %d slots unchanged by --hash_seed", same, len(wa))
	}
	if _, stderr, code := sparseson(t, nil, "-i", m, "--hash_seed", "6", data); code == 0 || !strings.Contains(stderr, "hash_seed") {
		t.Errorf("-i with another --hash_seed: exit %d, %s", code, stderr)
	}
	// --holdout_after N: one pass, everything after the first N held out.
	stderr := mustRun(t, nil, "--holdout_after", "2000", data)
	if !strings.Contains(stderr, "average loss = ") || !strings.Contains(stderr, " h\n") || !strings.Contains(stderr, "number of examples = 2000\n") {
		t.Errorf("--holdout_after summary:\n%s", summary(stderr))
	}
}

// --decay_learning_rate r over two passes is the first pass, then the
// saved model resumed with -l·r: the same model to the last bit.
func TestDecayLearningRate(t *testing.T) {
	dir := t.TempDir()
	data := write(t, filepath.Join(dir, "d.vw"), plain(t, "heart_scale.train.vw.gz"))
	for _, learner := range [][]string{{"--sgd", "-l", "0.4"}, {"-m", "4", "-l", "4"}} {
		a, b1, b2 := filepath.Join(dir, "a"), filepath.Join(dir, "b1"), filepath.Join(dir, "b2")
		ra, rb := filepath.Join(dir, "ra"), filepath.Join(dir, "rb")
		mustRun(t, nil, append(learner, "--quiet", "-k", "-c", "--passes", "2", "--holdout_off", "--decay_learning_rate", "0.5", "-f", a, "--readable_model", ra, data)...)
		mustRun(t, nil, append(learner, "--quiet", "-f", b1, data)...)
		eta, _ := strconv.ParseFloat(learner[len(learner)-1], 64)
		mustRun(t, nil, "--quiet", "-i", b1, "-l", fmtFloat(eta/2), "-f", b2, "--readable_model", rb, data)
		if read(t, ra) != read(t, rb) {
			t.Errorf("%v: decayed two-pass model differs from the resumed one", learner)
		}
	}
}

// TestL1Flag: --l1 zeroes weights (the readable model has fewer), is
// stored, and may be changed when resuming (a rate, as --l2).
func TestL1Flag(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join("..", "..", "testdata", "splice.train.vw.gz")
	a, b, m := filepath.Join(dir, "a"), filepath.Join(dir, "b"), filepath.Join(dir, "m")
	mustRun(t, nil, "--quiet", "--readable_model", a, data)
	mustRun(t, nil, "--quiet", "--l1", "1e-4", "-f", m, "--readable_model", b, data)
	wa, _ := readableWeights(t, a)
	wb, _ := readableWeights(t, b)
	if len(wb) >= len(wa)*9/10 {
		t.Errorf("--l1 1e-4 keeps %d of %d weights", len(wb), len(wa))
	}
	mustRun(t, nil, "--quiet", "-i", m, "--l1", "1e-5", data)
}

func TestCompatibilityAliases(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join("..", "..", "testdata", "heart_scale.train.vw.gz")
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	mustRun(t, nil, "--quiet", "--OjaNewton", "--sketch_size", "5", "--compressed", "--save_resume", "--sparse_weights", "-f", a, data)
	mustRun(t, nil, "--quiet", "--oja", "-m", "5", "-f", b, data)
	if read(t, a) != read(t, b) {
		t.Error("--OjaNewton --sketch_size 5 differs from --oja -m 5")
	}
	bad := write(t, filepath.Join(dir, "bad.vw"), []byte("1 |f a\nx |f b\n"))
	if _, stderr, code := sparseson(t, nil, "--strict_parse", bad); code == 0 || !strings.Contains(stderr, "--strict") {
		t.Errorf("--strict_parse: exit %d, %s", code, stderr)
	}
	out, _, _ := sparseson(t, nil, "--help")
	for _, f := range []string{"--OjaNewton", "--compressed", "--save_resume", "--audit", "--invert_hash", "--daemon", "--l1", "--ngram", "--num_children"} {
		if !strings.Contains(out, f) {
			t.Errorf("--help lacks %s", f)
		}
	}
	if strings.Contains(out, "seed 00") {
		t.Error("--help cites seed numbers instead of the papers")
	}
	if !strings.Contains(out, "0..64") {
		t.Error("--help does not state -m's range")
	}
}

// TestModelOptionChecks: every option that shapes a model is checked
// against the model -i loads (issue 15: --fd, --rp, -m 5 and --alpha 4 on
// an Oja model were silently ignored); rates may change.
func TestModelOptionChecks(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join("..", "..", "testdata", "heart_scale.train.vw.gz")
	oja, paper, gdm := filepath.Join(dir, "oja"), filepath.Join(dir, "paper"), filepath.Join(dir, "gd")
	mustRun(t, nil, "--quiet", "--oja", "-m", "10", "-f", oja, data)
	mustRun(t, nil, "--quiet", "--oja", "-m", "4", "--diag_sketch", "paper", "-f", paper, data)
	mustRun(t, nil, "--quiet", "-f", gdm, data)
	fdExact, fdGated := filepath.Join(dir, "fd0"), filepath.Join(dir, "fd")
	mustRun(t, nil, "--quiet", "--fd", "--fd_gate", "0", "-f", fdExact, data)
	mustRun(t, nil, "--quiet", "--fd", "-f", fdGated, data)
	for _, c := range []struct {
		model string
		args  []string
		want  string // "" = accepted
	}{
		{oja, []string{"--fd"}, `sketch="oja"`},
		{oja, []string{"--rp"}, `sketch="oja"`},
		{oja, []string{"-m", "5"}, `m="10"`},
		{oja, []string{"--alpha", "4"}, `alpha="auto"`},
		{oja, []string{"--diag=false"}, `diag="true"`},
		{oja, []string{"--projection", "2"}, "projection"},
		{oja, []string{"--oja_rate", "2"}, "oja_rate"},
		{oja, []string{"--power_t", "0.3"}, "--power_t does not apply"},
		{oja, []string{"--ngram", "2"}, "ngram"},
		{oja, []string{"--oja", "-m", "10"}, ""},
		{oja, []string{"-l", "3"}, ""},
		{oja, []string{"--random_seed", "3"}, ""}, // only RP's sketch is seeded
		{oja, []string{"--binary"}, ""},
		{paper, []string{"-l", "3"}, "--learning_rate does not apply"},
		{paper, []string{"--eta0", "2"}, "eta0"},
		{gdm, []string{"--sgd"}, "adaptive"},
		{gdm, []string{"--l1", "1e-6", "-l", "0.1", "--power_t", "0.4"}, ""},
		{gdm, []string{"--nasa"}, "step"},
		{gdm, []string{"--loss_function", "logistic"}, "loss"},
		{gdm, []string{"--interactions", "ab"}, "interactions"},
		// An exact FD model stores no fd_gate (its bytes are those from
		// before the gate); it stands for 0.
		{fdExact, []string{"--fd_gate", "0.1"}, `fd_gate="0"`},
		{fdExact, []string{"--fd_gate", "0"}, ""},
		{fdGated, []string{"--fd_gate", "0"}, `fd_gate="2"`},
		{fdGated, nil, ""},
	} {
		_, stderr, code := sparseson(t, nil, append(append([]string{"--quiet", "-i", c.model}, c.args...), data)...)
		switch {
		case c.want == "" && code != 0:
			t.Errorf("%s %v refused: %s", filepath.Base(c.model), c.args, stderr)
		case c.want != "" && (code == 0 || !strings.Contains(stderr, c.want)):
			t.Errorf("%s %v: exit %d, %q; want an error with %q", filepath.Base(c.model), c.args, code, stderr, c.want)
		}
	}
	for _, args := range [][]string{{"--oja", "--fd_gate", "0.1"}, {"--fd_fast", "--fd_gate", "0.1"}, {"--fd", "--fd_gate", "-1"}, {"--rfd", "--fd_gate", "inf"}} {
		if _, stderr, code := sparseson(t, nil, append(append([]string{"--quiet"}, args...), data)...); code == 0 || !strings.Contains(stderr, "--fd_gate") {
			t.Errorf("%v: exit %d, %q; want an error naming --fd_gate", args, code, stderr)
		}
	}
}

// Every option a family writes into a model has a row in the table.
func TestModelOptionTable(t *testing.T) {
	rows := map[string]bool{}
	for _, r := range learners.OptionTable() {
		rows[r.Key] = true
	}
	for _, args := range append(learnerFlagSets, []string{"--softmax", "3"}, []string{"--nasa_strong", "2"}, []string{"--loss_function", "expectile", "--expectile_q", "0.3"}) {
		c, err := parseFlags(args, nil)
		if err != nil {
			t.Fatal(err)
		}
		fam, err := chooseFamily(c)
		if err != nil {
			t.Fatal(err)
		}
		opts := learners.NewOptions(fam, settings(c))
		for k := range opts {
			tun, fix := slices.Contains(fam.Tunable, k), slices.Contains(fam.Fixed, k)
			if !rows[k] && !tun && !fix {
				t.Errorf("%v: model option %q has no row in learners.OptionTable", args, k)
			}
		}
	}
}

// TestOutputsCheckedFirst: an unwritable -f (or readable model, invert
// hash, predictions, cache) fails before the first example is read, and a
// missing input fails before the run header is printed.
func TestOutputsCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join("..", "..", "testdata", "heart_scale.train.vw.gz")
	missing := filepath.Join(dir, "no", "such", "dir", "m")
	for _, flag := range []string{"-f", "--readable_model", "--invert_hash", "-p", "-r", "--cache_file"} {
		for _, path := range []string{missing, dir} {
			_, stderr, code := sparseson(t, nil, flag, path, data)
			if code == 0 || strings.Contains(stderr, "finished run") || strings.Contains(stderr, "average") || !strings.Contains(stderr, path) {
				t.Errorf("%s %s: exit %d\n%s", flag, path, code, stderr)
			}
		}
	}
	_, stderr, code := sparseson(t, nil, filepath.Join(dir, "nothere.vw"))
	if code == 0 || strings.Contains(stderr, "Num weight bits") || !strings.Contains(stderr, "nothere.vw") {
		t.Errorf("missing input: exit %d\n%s", code, stderr)
	}
}

// Models and caches are created 0644 less the umask.
func TestModelFileMode(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	dir := t.TempDir()
	data := write(t, filepath.Join(dir, "d.vw"), plain(t, "heart_scale.train.vw.gz"))
	m := filepath.Join(dir, "m")
	mustRun(t, nil, "--quiet", "-c", "-f", m, data)
	for _, p := range []string{m, data + ".cache"} {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != 0o644 {
			t.Errorf("%s: mode %v, want 0644", filepath.Base(p), st.Mode().Perm())
		}
	}
}

func TestVersionString(t *testing.T) {
	info := &debug.BuildInfo{GoVersion: "go1.x", Main: debug.Module{Version: "v1.2.3"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.time", Value: "2026-01-02T03:04:05Z"}, {Key: "vcs.modified", Value: "true"}}}
	if got, want := versionString("dev", info), "v1.2.3 (revision 0123456789ab of 2026-01-02T03:04:05Z, modified), go1.x"; got != want {
		t.Errorf("version %q, want %q", got, want)
	}
	if got := versionString("v9", info); got != "v9" {
		t.Errorf("release version %q", got)
	}
	out, _, code := sparseson(t, nil, "--version")
	if code != 0 || !strings.HasPrefix(out, "sparseson ") || strings.Contains(out, "sparseson dev") {
		t.Errorf("--version: %q", out)
	}
}
