package engine

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/sparseson/sparseson/learners"
	"github.com/sparseson/sparseson/sparse"
)

// shardRun trains options o with Shards 2 on the bundled splice set and
// returns the model file's bytes.
func shardRun(t *testing.T, o map[string]string, mixEvery, warmup int64, passes int) []byte {
	t.Helper()
	dir := t.TempDir()
	c := Defaults()
	c.Options, c.Quiet, c.Stderr = o, true, nil
	c.Data = []string{filepath.Join("..", "testdata", "splice.train.vw.gz")}
	c.Final = filepath.Join(dir, "m")
	c.Shards, c.ShardMix, c.ShardWarmup, c.Passes = 2, mixEvery, warmup, passes
	if passes > 1 {
		c.CacheFile = filepath.Join(dir, "cache")
	}
	e, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	if e.shards == nil {
		t.Fatal("Shards 2 built no shards")
	}
	if err := e.Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(c.Final)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestShardsGOMAXPROCS: the engine's sharded runs write the same model at
// GOMAXPROCS 1, 2 and 8 (run under -race, it also checks that the shards
// share nothing mutable: each has its own loss and label range).
func TestShardsGOMAXPROCS(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, tc := range []struct {
		name   string
		set    map[string]string
		every  int64
		warmup int64
		passes int
	}{
		{"squared", nil, 0, 0, 1},
		{"squared, mixing every 300", nil, 300, 0, 1},
		{"squared, a warm-up of 700, mixing every 300", nil, 300, 700, 1},
		{"logistic, 2 passes", map[string]string{"loss": "logistic"}, 0, 0, 2},
		{"logistic, 2 passes, a warm-up of 3000", map[string]string{"loss": "logistic"}, 0, 3000, 2},
		{"oaa 3", map[string]string{"oaa": "3"}, 500, 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := learners.DefaultOptions(12)
			for k, v := range tc.set {
				o[k] = v
			}
			var want []byte
			for _, procs := range []int{1, 2, 8} {
				runtime.GOMAXPROCS(procs)
				got := shardRun(t, o, tc.every, tc.warmup, tc.passes)
				if want == nil {
					want = got
				} else if !bytes.Equal(got, want) {
					t.Errorf("GOMAXPROCS %d: the model differs from GOMAXPROCS 1's", procs)
				}
			}
		})
	}
}

// TestShardsSettings: the engine's refusals name Config's fields.
func TestShardsSettings(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(c *Config)
		want string
	}{
		{"negative", func(c *Config) { c.Shards = -1 }, "Config.Shards -1: must be ≥ 1"},
		{"mix", func(c *Config) { c.Shards, c.ShardMix = 2, -1 }, "Config.ShardMix -1"},
		{"audit", func(c *Config) { c.Shards, c.Audit = 2, true }, "Config.Shards 2 does not provide Config.Audit"},
		{"total", func(c *Config) { c.Shards, c.Options["total"] = 2, "3" }, "Config.Shards 2 already splits the stream into 2 shards; it cannot be combined with total 3"},
		{"nasa", func(c *Config) { c.Shards, c.Options["step"] = 2, "nasa" }, "Config.Shards 2 needs a learner that merges"},
	} {
		c := Defaults()
		c.Options, c.Quiet, c.Stderr = learners.DefaultOptions(10), true, nil
		tc.edit(&c)
		_, err := New(c)
		var se *SettingError
		if !errors.As(err, &se) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want a SettingError with %q", tc.name, err, tc.want)
		}
	}
}

// TestShardsMemory: MaxMemory counts K shards, the last mix and a mix's
// target and saved bytes: a bound twice one model's lets one learner run
// and refuses two shards.
func TestShardsMemory(t *testing.T) {
	o := learners.DefaultOptions(16)
	perSlot, fixed, err := learners.Lookup(o["learner"]).Memory(o)
	if err != nil {
		t.Fatal(err)
	}
	slots := float64(1 << 16)
	one := slots*(sparse.IndexBytesPerSlot(16)+perSlot) + fixed
	for _, tc := range []struct {
		shards int
		want   string // "" for no error
	}{
		{1, ""},
		{2, "in Config.Shards 2 with this learner may need up to"},
	} {
		c := Defaults()
		c.Options, c.Quiet, c.Stderr = o, true, nil
		c.Shards, c.MaxMemory = tc.shards, strconv.FormatFloat(2*one, 'f', 0, 64)
		_, err := New(c)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("Shards %d: got %v, want %q", tc.shards, err, tc.want)
		}
	}
}
