package engine

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sparseson/sparseson/learners"
)

// shardText writes n lines of VW text, every 97th of them malformed.
func shardText(t *testing.T, n int) string {
	t.Helper()
	var b strings.Builder
	for i := range n {
		if i%97 == 50 {
			fmt.Fprintf(&b, "1 |f a:x%d\n", i) // not a number
			continue
		}
		y := 1
		if (i*7)%5 < 2 {
			y = -1
		}
		fmt.Fprintf(&b, "%d 'e%d |f a:%d b%d c:%.2f |g d%d\n", y, i, i%13, i%31, float64(i%17)/4, (i*y+100)%7)
	}
	p := filepath.Join(t.TempDir(), "in.vw")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// pipelineRun trains 3 shards over data with the parser's chunks, the
// groups and the window of groups in the shards' hands given, and returns the model, the predictions and the progress
// table and summary (without the lines that hold times).
func pipelineRun(t *testing.T, data string, chunk, perShard, least, batches, window int, edit func(*Config)) (model, preds, table []byte, err error) {
	t.Helper()
	defer func(a, b, c, d int) {
		shardGroupExamples, minGroupExamples, maxGroupBatches, shardWindow = a, b, c, d
	}(shardGroupExamples, minGroupExamples, maxGroupBatches, shardWindow)
	shardGroupExamples, minGroupExamples, maxGroupBatches, shardWindow = perShard, least, batches, window
	dir := t.TempDir()
	var stderr bytes.Buffer
	c := Defaults()
	c.Options, c.Stderr, c.Progress = learners.DefaultOptions(12), &stderr, "1"
	c.Options["loss"] = "logistic"
	c.Data, c.ChunkBytes = []string{data}, chunk
	c.Final, c.Predictions = filepath.Join(dir, "m"), filepath.Join(dir, "p")
	c.Shards, c.ShardMix, c.ShardWarmup = 3, 500, 100
	if edit != nil {
		edit(&c)
	}
	e, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	if err = e.Run(t.Context()); err != nil {
		return nil, nil, stderr.Bytes(), err
	}
	model, _ = os.ReadFile(c.Final)
	preds, _ = os.ReadFile(c.Predictions)
	var kept []string
	for _, l := range strings.Split(strings.ReplaceAll(stderr.String(), dir, "DIR"), "\n") {
		if !strings.Contains(l, "time") && !strings.Contains(l, "second") {
			kept = append(kept, l)
		}
	}
	return model, preds, []byte(strings.Join(kept, "\n")), nil
}

// TestShardPassGroups: how the stream is cut into parser batches and the
// batches into the shards' groups, and how many groups the shards hold at
// once, change nothing: model, predictions, progress table, malformed
// lines' warnings and count (a group of one batch in a window of one is
// the hand-off per batch that the pipeline replaced).
func TestShardPassGroups(t *testing.T) {
	data := shardText(t, 3000)
	wantM, wantP, wantT, err := pipelineRun(t, data, 1<<10, 1, 1, 1, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(wantT, []byte("in.vw:51:")) || !bytes.Contains(wantT, []byte("3000")) {
		t.Fatalf("the table lacks the malformed line's warning or the example count:\n%s", wantT)
	}
	for _, tc := range []struct {
		name                                    string
		chunk, perShard, least, batches, window int
	}{
		{"default groups, small chunks", 1 << 10, 256, 1024, 64, 4},
		{"default groups, default chunks", 0, 256, 1024, 64, 4},
		{"groups of 7 batches", 1 << 10, 1 << 20, 1 << 20, 7, 2},
		{"groups of 100 examples", 2 << 10, 1, 100, 64, 4},
		{"groups of one batch, 16 in the shards' hands", 1 << 10, 1, 1, 1, 16},
	} {
		m, p, tb, err := pipelineRun(t, data, tc.chunk, tc.perShard, tc.least, tc.batches, tc.window, nil)
		switch {
		case err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case !bytes.Equal(m, wantM):
			t.Errorf("%s: the model differs", tc.name)
		case !bytes.Equal(p, wantP):
			t.Errorf("%s: the predictions differ", tc.name)
		case !bytes.Equal(tb, wantT):
			t.Errorf("%s: the table differs:\n%s\nwant\n%s", tc.name, tb, wantT)
		}
	}
}

// TestShardPassStrict: a malformed line under Strict stops a sharded run
// with the line named, whatever group it falls in, and the run returns
// (the group the shards hold is waited for).
func TestShardPassStrict(t *testing.T) {
	data := shardText(t, 3000)
	for _, batches := range []int{1, 3, 64} {
		_, _, _, err := pipelineRun(t, data, 1<<10, 256, 1024, batches, 4, func(c *Config) { c.Strict = true })
		if err == nil || !strings.Contains(err.Error(), "in.vw:51:") {
			t.Errorf("groups of at most %d batches: got %v, want the error of line 51", batches, err)
		}
	}
}
