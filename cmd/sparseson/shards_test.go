package main

import (
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/sparseson/sparseson/learners"
)

// shardLearners are the learners the --shards tests train: the default,
// Oja- and FD-SON, and OAA over the default.
var shardLearners = []struct {
	name       string
	flags      []string
	multiclass bool
}{
	{"adagrad", []string{"--loss_function", "logistic"}, false},
	{"squared", nil, false},
	{"oja", []string{"--oja", "-m", "4", "--loss_function", "logistic"}, false},
	{"fd", []string{"--fd", "-m", "4", "--loss_function", "logistic"}, false},
	{"oaa", []string{"--oaa", "3"}, true},
}

// TestShardsDeterminism: with --shards 2 the model and the predictions
// are byte-identical at GOMAXPROCS 1, 2 and 8, whatever the parser's
// chunks (so the batches the shards receive), mixing at pass ends only or
// every 97 examples, in one pass or three over a cache, with no warm-up or
// one that ends inside a batch (150 examples).
func TestShardsDeterminism(t *testing.T) {
	dir, binFile, mcFile := determinismFiles(t, 600)
	for _, l := range shardLearners {
		for _, extra := range [][]string{{"--shard_warmup", "0"}, {"--shard_mix", "97", "--shard_warmup", "0"}, {"--shard_warmup", "150", "--shard_mix", "97"}, {"--passes", "3", "-k", "--cache_file", filepath.Join(dir, l.name+".cache"), "--shard_warmup", "0"}, {"--passes", "3", "-k", "--cache_file", filepath.Join(dir, l.name+".wcache"), "--shard_warmup", "700"}} {
			name := l.name + " " + strings.Join(extra[:2], " ")
			if extra[0] == "--passes" {
				name = l.name + " 3 passes, warm-up " + extra[len(extra)-1]
			}
			t.Run(name, func(t *testing.T) {
				data := binFile
				if l.multiclass {
					data = mcFile
				}
				var wantPred, wantModel string
				for _, v := range []struct{ procs, chunk int }{{1, 0}, {2, 2 << 10}, {8, 0}, {8, 2 << 10}} {
					runtime.GOMAXPROCS(v.procs)
					parserChunkBytes = v.chunk
					pred, m := filepath.Join(dir, "p"), filepath.Join(dir, "m")
					args := append(append([]string{"--quiet", "--shards", "2", "-b", "10", "-p", pred, "-f", m}, l.flags...), extra...)
					mustRun(t, nil, append(args, data)...)
					gotPred, gotModel := read(t, pred), read(t, m)
					if wantModel == "" {
						wantPred, wantModel = gotPred, gotModel
						continue
					}
					if gotPred != wantPred {
						t.Errorf("GOMAXPROCS %d, chunks %d: the predictions differ from GOMAXPROCS 1's", v.procs, v.chunk)
					}
					if gotModel != wantModel {
						t.Errorf("GOMAXPROCS %d, chunks %d: the model differs from GOMAXPROCS 1's", v.procs, v.chunk)
					}
				}
			})
		}
	}
}

// TestShardsOneIsOneStream: --shards 1 writes the model and predictions
// of a run without the flag, and --shards 2 does not (it is no no-op)
// unless the data is no longer than the warm-up: then its predictions
// are one stream's, and so are the model's (its options record total 2).
func TestShardsOneIsOneStream(t *testing.T) {
	dir := t.TempDir()
	binary, classes := determinismData(300)
	binFile := write(t, filepath.Join(dir, "bin.vw"), []byte(binary))
	mcFile := write(t, filepath.Join(dir, "mc.vw"), []byte(classes))
	for _, l := range shardLearners {
		data := binFile
		if l.multiclass {
			data = mcFile
		}
		got := map[string]string{}
		preds := map[string]string{}
		for _, shards := range []string{"", "1", "2", "2 warm"} {
			pred, m := filepath.Join(dir, "p"), filepath.Join(dir, "m")
			args := append([]string{"--quiet", "-b", "10", "-p", pred, "-f", m}, l.flags...)
			switch shards {
			case "2":
				args = append(args, "--shards", "2", "--shard_warmup", "0")
			case "2 warm":
				args = append(args, "--shards", "2", "--shard_warmup", "300")
			case "1":
				args = append(args, "--shards", shards)
			}
			mustRun(t, nil, append(args, data)...)
			mustRun(t, nil, "--quiet", "-t", "-i", m, "-p", pred+"t", data)
			got[shards] = read(t, pred) + read(t, m)
			preds[shards] = read(t, pred) + read(t, pred+"t")
		}
		if got["1"] != got[""] {
			t.Errorf("%s: --shards 1 differs from one stream", l.name)
		}
		if got["2"] == got[""] {
			t.Errorf("%s: --shards 2 wrote one stream's model", l.name)
		}
		if preds["2 warm"] != preds[""] {
			t.Errorf("%s: --shards 2 on data no longer than its warm-up predicts differently from one stream", l.name)
		}
	}
}

// TestShardsModelLoads: the model --shards 2 writes records --total 2,
// loads with -t -i and predicts the test set about as well as one
// stream's model (splice: the bundled train and test sets).
func TestShardsModelLoads(t *testing.T) {
	dir := t.TempDir()
	train, test := filepath.Join("..", "..", "testdata", "splice.train.vw.gz"), filepath.Join("..", "..", "testdata", "splice.test.vw.gz")
	for _, l := range shardLearners {
		if l.multiclass {
			continue
		}
		errs := map[string]float64{}
		for _, shards := range []string{"1", "2"} {
			m, pred := filepath.Join(dir, l.name+shards), filepath.Join(dir, l.name+shards+".p")
			mustRun(t, nil, append(append([]string{"--quiet", "--shards", shards, "--shard_warmup", "0", "-f", m}, l.flags...), train)...)
			_, opts, err := learners.Load(m)
			if err != nil {
				t.Fatalf("%s --shards %s: %v", l.name, shards, err)
			}
			if opts["total"] != shards {
				t.Errorf("%s --shards %s: the model records total %q", l.name, shards, opts["total"])
			}
			mustRun(t, nil, "--quiet", "-t", "-i", m, "--binary", "-p", pred, test)
			errs[shards] = shardErrorRate(t, read(t, pred), plain(t, "splice.test.vw.gz"))
		}
		if errs["2"] > errs["1"]+0.03 {
			t.Errorf("%s: test error %.4f with --shards 2 against %.4f with one stream", l.name, errs["2"], errs["1"])
		}
	}
}

// shardErrorRate is the share of ±1 predictions (one a line) that differ from
// the labels of the VW data.
func shardErrorRate(t *testing.T, preds string, data []byte) float64 {
	t.Helper()
	p, d := strings.Fields(preds), strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(p) != len(d) || len(p) == 0 {
		t.Fatalf("%d predictions for %d examples", len(p), len(d))
	}
	wrong := 0
	for i, line := range d {
		y, err1 := strconv.ParseFloat(strings.Fields(line)[0], 64)
		v, err2 := strconv.ParseFloat(p[i], 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("line %d: %v %v", i+1, err1, err2)
		}
		if (y > 0) != (v > 0) {
			wrong++
		}
	}
	return float64(wrong) / float64(len(d))
}

// TestShardsRefusals: what --shards does not provide exits 2 naming the
// flags; -t ignores it.
func TestShardsRefusals(t *testing.T) {
	dir := t.TempDir()
	binary, _ := determinismData(50)
	data := write(t, filepath.Join(dir, "bin.vw"), []byte(binary))
	m := filepath.Join(dir, "m")
	mustRun(t, nil, "--quiet", "-b", "10", "-f", m, data)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--shards", "2", "--full", "-b", "6"}, "--shards 2 needs a learner that merges (learner = full ONS"},
		{[]string{"--shards", "2", "--nasa"}, "--shards 2 needs a learner that merges (models trained with nasa steps"},
		{[]string{"--shards", "2", "-i", m}, "--shards 2 trains a new model; it does not start from -i"},
		{[]string{"--shards", "2", "--audit"}, "--shards 2 does not provide --audit"},
		{[]string{"--shards", "2", "--oaa", "3", "--probabilities", "--loss_function", "logistic"}, "--shards 2 does not provide --probabilities"},
		{[]string{"--shards", "2", "--passes", "2", "-c", "--decay_learning_rate", "0.5"}, "--shards 2 does not provide --decay_learning_rate"},
		{[]string{"--shards", "2", "--oaa", "3", "-r", filepath.Join(dir, "r")}, "--shards 2 does not provide -r for a multiclass model"},
		{[]string{"--shards", "2", "--total", "2"}, "--shards 2 splits the stream into shards itself; it cannot be combined with --total 2"},
		{[]string{"--shards", "0"}, "--shards 0: must be in 1..1024"},
		{[]string{"--shards", "2", "--shard_mix", "-1"}, "--shard_mix -1: must be ≥ 0"},
	} {
		_, stderr, code := sparseson(t, nil, append(tc.args, data)...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, want 2 with %q:\n%s", tc.args, code, tc.want, stderr)
		}
	}
	if _, stderr, code := sparseson(t, nil, "--daemon", "--port", "0", "--shards", "2", "--quiet"); code != 2 || !strings.Contains(stderr, "--daemon does not provide --shards 2") {
		t.Errorf("--daemon --shards 2: exit %d, want 2:\n%s", code, stderr)
	}
	// -t predicts with the one model: --shards changes nothing there.
	p1, p2 := filepath.Join(dir, "p1"), filepath.Join(dir, "p2")
	mustRun(t, nil, "--quiet", "-t", "-i", m, "-p", p1, data)
	mustRun(t, nil, "--quiet", "-t", "-i", m, "--shards", "2", "-p", p2, data)
	if read(t, p1) != read(t, p2) {
		t.Error("-t --shards 2 predicts differently from -t")
	}
}
