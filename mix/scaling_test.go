package mix_test

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sparseson/sparseson/sparse"
)

// TestNews20ShardScaling: news20 ×10, K = 1, 2, 4 shards mixed every
// 11314 examples (once per copy of the set), at GOMAXPROCS 1 and 2: CPU
// and wall (least of two), the learn time per example and the cost of one
// mix, for modelling more cores. On a machine with more cores the lists
// come from the environment: SPARSESON_MIX_KS and SPARSESON_MIX_PROCS
// (comma-separated), SPARSESON_MIX_EVERY (0: mix at the end only).
func TestNews20ShardScaling(t *testing.T) {
	needData(t)
	one := load(t, "news20", "train")
	test := load(t, "news20", "test")
	var train []sparse.Example
	for range 10 {
		train = append(train, one...)
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	ks, procsList := envInts(t, "SPARSESON_MIX_KS", []int{1, 2, 4}), envInts(t, "SPARSESON_MIX_PROCS", []int{1, 2})
	every := int64(11314)
	if e := envInts(t, "SPARSESON_MIX_EVERY", nil); len(e) == 1 {
		every = int64(e[0])
	}
	for _, f := range []family{gdFamily(), sonFamily("oja", 10), sonFamily("fd", 10)} {
		for _, procs := range procsList {
			runtime.GOMAXPROCS(procs)
			for _, k := range ks {
				best := time.Duration(1 << 62)
				var bs runResult
				for range 2 {
					r := run(t, f, k, every, train, test)
					if r.cpu < best {
						best, bs = r.cpu, r
					}
				}
				n := float64(len(train))
				t.Logf("%s GOMAXPROCS=%d K=%d every %d: cpu %.3fs wall %.3fs learn %.0f ns/ex; per mix: merge %.1f ms copy %.1f ms (%d mixes, %.1f MB) acc %.2f",
					f.name, procs, k, every, bs.cpu.Seconds(), bs.wall.Seconds(), float64(bs.stats.Learn.Nanoseconds())/n,
					float64(bs.stats.Merge.Milliseconds())/float64(max(1, bs.stats.Mixes)), float64(bs.stats.Copy.Milliseconds())/float64(max(1, bs.stats.Mixes)), bs.stats.Mixes, float64(bs.stats.Bytes)/1e6, bs.acc)
			}
		}
	}
}

// envInts reads a comma-separated list of integers from the environment,
// or returns def when the variable is unset.
func envInts(t *testing.T, name string, def []int) []int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	var out []int
	for _, f := range strings.Split(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			t.Fatalf("%s=%q: %v", name, v, err)
		}
		out = append(out, n)
	}
	return out
}
