package mix_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"syscall"
	"testing"
	"time"

	"github.com/sparseson/sparseson/hashing"
	"github.com/sparseson/sparseson/mix"
	"github.com/sparseson/sparseson/parser"
	"github.com/sparseson/sparseson/sparse"
)

// The measurements on the shared data sets (../shared/data; run from the
// worktree with SPARSESON_MIX_DATA=1): they print figures and check only
// that the runs work. The data is parsed once, with the command's default
// hashing (-b 18), so that parsing is out of the timings.

// dataDir is the shared data, or SPARSESON_DATA_DIR.
var dataDir = func() string {
	if d := os.Getenv("SPARSESON_DATA_DIR"); d != "" {
		return d
	}
	return "../../shared/data"
}()

func needData(t *testing.T) {
	if os.Getenv("SPARSESON_MIX_DATA") == "" {
		t.Skip("measurement on ../shared/data: set SPARSESON_MIX_DATA=1 to run it")
	}
	if _, err := os.Stat(filepath.Join(dataDir, "MANIFEST.md")); err != nil {
		t.Skipf("no shared data at %s: %v", dataDir, err)
	}
}

// load parses one file of a shared set into examples that own their
// buffers.
func load(t testing.TB, name, split string) []sparse.Example {
	src, err := parser.Open([]string{filepath.Join(dataDir, name+"."+split+".vw.gz")}, parser.Options{Hash: hashing.Config{Bits: bits}})
	if err != nil {
		t.Fatal(err)
	}
	exs, err := parser.ReadAll(src)
	if err != nil {
		t.Fatal(err)
	}
	return exs
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

type runResult struct {
	wall, cpu time.Duration
	acc       float64
	stats     mix.Stats
}

// run trains f in k shards on train (one pass, batches of 512, a mix at
// the end) and measures the test accuracy of the mixed model.
func run(t testing.TB, f family, k int, every int64, train, test []sparse.Example) runResult {
	return runConfig(t, f.config(k, every), train, test)
}

// averageFirst is cfg with the first round (no base) merged ByExamples,
// the command's rule for SON shards trained with --total K merged alone.
func averageFirst(cfg mix.Config) mix.Config {
	cfg.Weighting = func(round int) sparse.Weighting {
		if round == 0 {
			return sparse.ByExamples
		}
		return sparse.ByEvidence
	}
	return cfg
}

func runConfig(t testing.TB, cfg mix.Config, train, test []sparse.Example) runResult {
	m, err := mix.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]float64, 512)
	c0, w0 := cpuTime(), time.Now()
	for i := 0; i < len(train); i += 512 {
		j := min(i+512, len(train))
		if err := m.LearnBatch(train[i:j], out); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Mix(); err != nil {
		t.Fatal(err)
	}
	r := runResult{wall: time.Since(w0), cpu: cpuTime() - c0, stats: m.Stats()}
	l := m.Learner()
	right := 0
	for i := range test {
		if (l.Predict(&test[i]) > 0) == (test[i].Label > 0) {
			right++
		}
	}
	r.acc = 100 * float64(right) / float64(len(test))
	return r
}

// TestNews20Shards: news20 ×10 (the training set ten times over, one
// pass), K = 1 against K = 2 mixed at the end, alternated, least of three
// rounds; then K = 2 mixed every N.
func TestNews20Shards(t *testing.T) {
	needData(t)
	one := load(t, "news20", "train")
	test := load(t, "news20", "test")
	var train []sparse.Example
	for range 10 {
		train = append(train, one...)
	}
	t.Logf("news20 ×10: %d training examples, %d test", len(train), len(test))
	for _, f := range []family{gdFamily(), sonFamily("oja", 10), sonFamily("fd", 10)} {
		best := map[int]runResult{}
		for round := range 3 {
			ks := []int{1, 2}
			if round%2 == 1 {
				ks = []int{2, 1}
			}
			for _, k := range ks {
				r := run(t, f, k, 0, train, test)
				b, ok := best[k]
				if !ok || r.wall < b.wall {
					b.wall, b.stats = r.wall, r.stats
				}
				if !ok || r.cpu < b.cpu {
					b.cpu = r.cpu
				}
				b.acc = r.acc
				best[k] = b
			}
		}
		for _, k := range []int{1, 2} {
			b := best[k]
			n := float64(b.stats.Examples)
			t.Logf("%s K=%d: wall %.3fs cpu %.3fs acc %.2f%% | learn %.0f ns/ex, merge %v (%.1f ns/ex), copy %v (%d bytes)",
				f.name, k, b.wall.Seconds(), b.cpu.Seconds(), b.acc, float64(b.stats.Learn.Nanoseconds())/n,
				b.stats.Merge, float64(b.stats.Merge.Nanoseconds())/n, b.stats.Copy, b.stats.Bytes)
		}
		t.Logf("%s: K=2/K=1 wall %.3f", f.name, best[2].wall.Seconds()/best[1].wall.Seconds())
		if f.name != "gd" {
			r := runConfig(t, averageFirst(f.config(2, 0)), train, test)
			t.Logf("%s K=2, first round by examples: wall %.3fs acc %.2f%%", f.name, r.wall.Seconds(), r.acc)
		}
		for _, every := range []int64{2000, 11314, 40000} {
			r := run(t, f, 2, every, train, test)
			t.Logf("%s K=2 every %d: wall %.3fs acc %.2f%% mixes %d merge %v copy %v", f.name, every, r.wall.Seconds(), r.acc, r.stats.Mixes, r.stats.Merge, r.stats.Copy)
		}
	}
}

// TestBinarySetsShards: every binary shared set but news20, one pass,
// K = 1 against K = 2 (mixed at the end, and every 64 examples), test
// accuracy averaged over five orders of the training set (the file's and
// four shuffles).
func TestBinarySetsShards(t *testing.T) {
	needData(t)
	sets := []string{"w8a", "splice", "spam", "letter_am", "satellite_grey", "ionosphere", "sonar", "breast_cancer", "pima", "heart_scale"}
	for _, f := range []family{gdFamily(), sonFamily("oja", 10), sonFamily("fd", 10)} {
		for _, set := range sets {
			train, test := load(t, set, "train"), load(t, set, "test")
			acc := map[string]float64{}
			for order := range 5 {
				exs := append([]sparse.Example(nil), train...)
				if order > 0 {
					rng := rand.New(rand.NewPCG(uint64(order), 29))
					rng.Shuffle(len(exs), func(i, j int) { exs[i], exs[j] = exs[j], exs[i] })
				}
				acc["K=1"] += run(t, f, 1, 0, exs, test).acc / 5
				acc["K=2"] += run(t, f, 2, 0, exs, test).acc / 5
				acc["K=2 every 64"] += run(t, f, 2, 64, exs, test).acc / 5
				// SPARSESON_MIX_WARMUPS (comma-separated): warm-up lengths to compare.
				for _, w := range envInts(t, "SPARSESON_MIX_WARMUPS", nil) {
					acc[fmt.Sprintf("K=2 warm-up %d", w)] += runConfig(t, f.warmed(2, 0, int64(w)), exs, test).acc / 5
				}
				if f.name != "gd" {
					acc["K=2 by examples"] += runConfig(t, averageFirst(f.config(2, 0)), exs, test).acc / 5
				}
			}
			keys := make([]string, 0, len(acc))
			for k := range acc {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			line := fmt.Sprintf("%s %s:", f.name, set)
			for _, k := range keys {
				line += fmt.Sprintf(" %s %.2f%% (%+.2f)", k, acc[k], acc[k]-acc["K=1"])
			}
			t.Log(line)
		}
	}
}
