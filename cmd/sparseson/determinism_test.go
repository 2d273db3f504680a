package main

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestDeterminism: for every learner of the registry, alone and under
// --oaa, two runs with the same --random_seed write byte-identical
// predictions and model files, with one parsing goroutine and with four
// (the input cut into 2 KiB chunks so that every goroutine gets some),
// and with several passes over a cache.
func TestDeterminism(t *testing.T) {
	dir, binFile, mcFile := determinismFiles(t, 400)
	parserChunkBytes = 2 << 10

	type variant struct {
		name  string
		procs int
		extra []string
	}
	variants := []variant{{"1 worker", 1, nil}, {"4 workers", 4, nil}, {"1 worker again", 1, nil}, {"4 workers again", 4, nil}}
	for _, rc := range registryCases() {
		t.Run(rc.name, func(t *testing.T) {
			data := binFile
			if rc.multiclass {
				data = mcFile
			}
			vs := variants
			if rc.name == "adagrad" || rc.name == "oja" || rc.name == "oaa_fd" {
				// Passes over the cache, each written by a run of its own.
				for i, p := range []int{1, 4} {
					vs = append(vs, variant{fmt.Sprintf("3 passes, %d workers", p), p,
						[]string{"--passes", "3", "--cache_file", filepath.Join(dir, fmt.Sprintf("%s.%d.cache", rc.name, i)), "-k"}})
				}
			}
			var wantPred, wantModel string
			var wantPass [2]string
			for _, v := range vs {
				runtime.GOMAXPROCS(v.procs)
				pred, m := filepath.Join(dir, "p"), filepath.Join(dir, "m")
				args := append(append([]string{"--quiet", "--random_seed", "11"}, rc.flags...), "-b", "8", "-p", pred, "-f", m)
				mustRun(t, nil, append(append(args, v.extra...), data)...)
				gotPred, gotModel := read(t, pred), read(t, m)
				switch {
				case v.extra != nil && wantPass[0] == "":
					wantPass = [2]string{gotPred, gotModel}
				case v.extra != nil:
					if gotPred != wantPass[0] || gotModel != wantPass[1] {
						t.Fatalf("%s: predictions or model differ from the first run with passes", v.name)
					}
				case wantPred == "":
					wantPred, wantModel = gotPred, gotModel
				case gotPred != wantPred:
					t.Fatalf("%s: predictions differ from the first run", v.name)
				case gotModel != wantModel:
					t.Fatalf("%s: model file differs from the first run", v.name)
				}
			}
		})
	}
}

// determinismData returns n lines with ±1 labels and the same lines with
// classes 1..registryClasses: words of a small vocabulary, some with
// values, some repeated, a namespace with a scale, tags.
func determinismData(n int) (binary, classes string) {
	rng := rand.New(rand.NewPCG(5, 6))
	var b, c strings.Builder
	for i := 0; i < n; i++ {
		var f strings.Builder
		fmt.Fprintf(&f, " 't%d |w", i)
		for j := rng.IntN(12) + 1; j > 0; j-- {
			fmt.Fprintf(&f, " w%d", rng.IntN(300))
			if rng.IntN(3) == 0 {
				fmt.Fprintf(&f, ":%.3g", rng.NormFloat64())
			}
		}
		fmt.Fprintf(&f, " |n:0.5 x%d y:%d\n", rng.IntN(20), rng.IntN(9)+1)
		k := 1 + rng.IntN(registryClasses)
		fmt.Fprintf(&b, "%d%s", 2*(k%2)-1, f.String())
		fmt.Fprintf(&c, "%d%s", k, f.String())
	}
	return b.String(), c.String()
}

// determinismFiles writes determinismData(n) (a binary and a 3-class set)
// into a temporary directory, and restores GOMAXPROCS and the parser's
// chunk size, which the determinism tests vary, when the test ends.
func determinismFiles(t *testing.T, n int) (dir, binFile, mcFile string) {
	dir = t.TempDir()
	binary, classes := determinismData(n)
	binFile = write(t, filepath.Join(dir, "bin.vw"), []byte(binary))
	mcFile = write(t, filepath.Join(dir, "mc.vw"), []byte(classes))
	p, c := runtime.GOMAXPROCS(0), parserChunkBytes
	t.Cleanup(func() {
		runtime.GOMAXPROCS(p)
		parserChunkBytes = c
	})
	return dir, binFile, mcFile
}
