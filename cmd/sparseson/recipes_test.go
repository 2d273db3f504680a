package main

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sparseson/sparseson/internal/testbin"
)

// The sharded-training recipes (README, "Training on more than one
// machine") run on existing engines: scripts/mix.sh on GNU parallel and
// examples/dask_train.py on a Dask cluster. These tests run them for real
// on the built binary; they skip, saying why, where the engine is not
// installed (.ci/run installs both: Debian's parallel and
// python3-distributed).

// TestMain removes the binary the tests built.
func TestMain(m *testing.M) { testbin.Main(m) }

// sparsesonBinary builds the command once per test run.
func sparsesonBinary(t *testing.T) string {
	t.Helper()
	binPath, binErr := testbin.Build()
	if binErr != nil {
		t.Skipf("cannot build the sparseson binary for the recipe tests: %v", binErr)
	}
	return binPath
}

// recipeShards writes 4 gzip'd round-robin shards of splice with
// scripts/shard.sh (which the README's recipes use), and the test set.
func recipeShards(t *testing.T, dir string) (shards []string, test string) {
	t.Helper()
	all := write(t, filepath.Join(dir, "splice.vw"), plain(t, "splice.train.vw.gz"))
	cmd := exec.Command("bash", filepath.Join("..", "..", "scripts", "shard.sh"), "4", all, filepath.Join(dir, "part"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("scripts/shard.sh: %v\n%s", err, out)
	}
	for k := 0; k < 4; k++ {
		shards = append(shards, filepath.Join(dir, fmt.Sprintf("part.%02d.gz", k)))
	}
	return shards, write(t, filepath.Join(dir, "test.vw"), plain(t, "splice.test.vw.gz"))
}

// checkRecipeModel: the recipe's model loads and predicts splice about as
// well as one stream (93–95% for these learners; the floor catches a
// recipe that merged the wrong files or none).
func checkRecipeModel(t *testing.T, model, test string) {
	t.Helper()
	if acc := testAccuracy(t, model, test); acc < 0.9 {
		t.Fatalf("the recipe's merged model has test accuracy %.4f", acc)
	}
}

// TestParallelRecipe runs scripts/mix.sh: 4 shards, 4 jobs at once, 2
// rounds of parameter mixing.
func TestParallelRecipe(t *testing.T) {
	if _, err := exec.LookPath("parallel"); err != nil {
		t.Skip("GNU parallel is not installed (Debian: apt-get install parallel; .ci/run installs it)")
	}
	bin := sparsesonBinary(t)
	dir := t.TempDir()
	shards, test := recipeShards(t, dir)
	out := filepath.Join(dir, "mix.model")
	args := append([]string{filepath.Join("..", "..", "scripts", "mix.sh"), "-o", out, "-r", "2", "-j", "4", "-b", bin}, shards...)
	args = append(args, "--", "--fd", "-m", "5", "--loss_function", "logistic")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := exec.CommandContext(ctx, "bash", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("scripts/mix.sh: %v\n%s", err, res)
	}
	if !strings.Contains(string(res), "round 2: 4 shards trained and merged") {
		t.Fatalf("scripts/mix.sh did not report round 2:\n%s", res)
	}
	checkRecipeModel(t, out, test)
	checkTotal(t, out, "4")
}

// daskPython returns a Python interpreter that has Dask's distributed
// scheduler, or why none does.
func daskPython() (string, string) { return testbin.Python("import dask.bag, dask.distributed") }

// TestDaskRecipe runs examples/dask_train.py on a LocalCluster of 4 worker
// processes on the loopback interface: 4 shards, 2 rounds of parameter
// mixing, each shard a dask.bag task calling the binary.
func TestDaskRecipe(t *testing.T) {
	py, why := daskPython()
	if py == "" {
		t.Skipf("Dask is not installed (%s): apt-get install python3-distributed or pip install 'dask[distributed]' (.ci/run installs it)", why)
	}
	bin := sparsesonBinary(t)
	dir := t.TempDir()
	shards, test := recipeShards(t, dir)
	out := filepath.Join(dir, "dask.model")
	args := []string{filepath.Join("..", "..", "examples", "dask_train.py"), "--local", "4", "--rounds", "2", "--sparseson", bin, "-o", out}
	args = append(append(args, shards...), "--", "--oja", "-m", "5", "--loss_function", "logistic")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	res, err := exec.CommandContext(ctx, py, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("examples/dask_train.py: %v\n%s", err, res)
	}
	if !strings.Contains(string(res), "round 2: 4 shards trained and merged") {
		t.Fatalf("examples/dask_train.py did not report round 2:\n%s", res)
	}
	checkRecipeModel(t, out, test)
	checkTotal(t, out, "4")
}
