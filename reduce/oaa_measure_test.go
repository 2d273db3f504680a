package reduce

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sparseson/sparseson/gd"
	"github.com/sparseson/sparseson/hashing"
	"github.com/sparseson/sparseson/loss"
	"github.com/sparseson/sparseson/model"
	"github.com/sparseson/sparseson/oja"
	"github.com/sparseson/sparseson/parser"
	"github.com/sparseson/sparseson/son"
	"github.com/sparseson/sparseson/sparse"
)

func cpuNow() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestOAABatchTimes measures --oaa 20 on a 20-class VW file (news20's
// groups, e.g. written by bench/news20mc) named by SPARSESON_OAA_DATA: one
// pass from a fresh model, Learn per example against LearnBatch (batches
// of 256) over 1, 2, 4 and 8 cores, alternated, least of three rounds. It
// prints the figures and checks that every run saves the same model.
func TestOAABatchTimes(t *testing.T) {
	path := os.Getenv("SPARSESON_OAA_DATA")
	if path == "" {
		t.Skip("measurement: set SPARSESON_OAA_DATA to a 20-class VW file to run it")
	}
	src, err := parser.Open([]string{path}, parser.Options{Hash: hashing.Config{Bits: 18}, Classes: 20})
	if err != nil {
		t.Fatal(err)
	}
	exs, err := parser.ReadAll(src)
	if err != nil {
		t.Fatal(err)
	}
	cfg := gd.Config{Bits: 18, Adaptive: true, Normalized: true, Eta: 0.5, PowerT: 0.5, L1State: true}
	facs := map[string]Factory{
		"adagrad": func(r *model.Reader) (sparse.Learner, error) { return gd.New(cfg, loss.Logistic{}) },
		"oja": func(r *model.Reader) (sparse.Learner, error) {
			sk, _ := oja.New(oja.Config{M: 10, Alpha: 1, Rate: 1})
			return son.New(son.Config{Bits: 18, C: 1e300, Eta0: 1, EtaPower: 0.5, Diag: true, Scaled: true, Rate: 5}, loss.Logistic{}, sk)
		},
	}
	for _, name := range []string{"adagrad", "oja"} {
		type key struct {
			mode  string
			cores int
		}
		wall, cpu := map[key]time.Duration{}, map[key]time.Duration{}
		var ref []byte
		for round := 0; round < 3; round++ {
			for _, cores := range oaaCores() {
				for _, mode := range []string{"learn", "batch"} {
					o, _ := NewOAA(20, 18, facs[name])
					o.SetCores(cores)
					out := make([]float64, 256)
					c0, w0 := cpuNow(), time.Now()
					if mode == "learn" {
						for i := range exs {
							o.Learn(&exs[i])
						}
					} else {
						for i := 0; i < len(exs); i += 256 {
							o.LearnBatch(exs[i:min(i+256, len(exs))], out)
						}
					}
					w, c := time.Since(w0), cpuNow()-c0
					k := key{mode, cores}
					if v, ok := wall[k]; !ok || w < v {
						wall[k] = w
					}
					if v, ok := cpu[k]; !ok || c < v {
						cpu[k] = c
					}
					m := encode(t, o)
					if ref == nil {
						ref = m
					} else if string(m) != string(ref) {
						t.Fatalf("%s %s cores %d: model differs", name, mode, cores)
					}
					o.SetCores(1)
				}
			}
		}
		for _, cores := range oaaCores() {
			for _, mode := range []string{"learn", "batch"} {
				k := key{mode, cores}
				t.Logf("%s %s cores=%d: wall %.3fs cpu %.3fs (%.1f µs/example wall)", name, mode, cores, wall[k].Seconds(), cpu[k].Seconds(), float64(wall[k].Microseconds())/float64(len(exs)))
			}
		}
	}
}

// oaaCores are the core counts TestOAABatchTimes runs: 1, 2, 4 and 8, or
// SPARSESON_OAA_CORES (comma-separated) on a larger machine.
func oaaCores() []int {
	v := os.Getenv("SPARSESON_OAA_CORES")
	if v == "" {
		return []int{1, 2, 4, 8}
	}
	var out []int
	for _, f := range strings.Split(v, ",") {
		if n, err := strconv.Atoi(strings.TrimSpace(f)); err == nil && n > 0 {
			out = append(out, n)
		}
	}
	return out
}
