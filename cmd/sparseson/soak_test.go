//go:build soak

package main

// The soak (issue 16): every learner of the registry, each in a process of
// its own, learns from a long stream of synthetic news20-like examples —
// about 130 nonzeros of 10⁵ features, Zipf-distributed, tf-idf-like values
// of unit norm, ±1 labels from a linear model — whose distribution drifts:
// the features' popularity ranks rotate through the vocabulary and the
// labelling model turns by 90° over the run. It checks every prediction
// and, at 50 checkpoints, every weight for finiteness; records for the SON
// learners the orthonormality drift of the basis and the drift of K from
// ZZᵀ (sparse.Diagnose) and the growth of Z (‖Z‖_F², rows); and records
// the resident memory. Memory must be flat after the warm-up (the first
// tenth of the run, by which time every feature has been seen): the
// resident size at every later checkpoint must stay within 10% + 16 MiB of
// the size at the end of the warm-up, or the learner fails.
//
//	go test -tags soak -run TestSoak -timeout 0 -v ./cmd/sparseson \
//	    -soak.n 10000000 -soak.budget 10m [-soak.learners oja,fd]
//
// -soak.budget bounds the time per learner: a learner that has not
// finished its -soak.n examples by then stops at the next checkpoint and
// reports how many it learned. Examples/s counts the learning only (the
// generator's time is excluded); peak RSS is the process's VmHWM.

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sparseson/sparseson/son"
	"github.com/sparseson/sparseson/sparse"
)

var (
	soakN        = flag.Int64("soak.n", 10_000_000, "examples per learner")
	soakBudget   = flag.Duration("soak.budget", 10*time.Minute, "time per learner")
	soakLearners = flag.String("soak.learners", "", "comma-separated registry names (default: all)")
	soakOut      = flag.String("soak.out", "", "write the results, checkpoints included, to this JSON file")
	soakOne      = flag.String("soak.one", "", "internal: run this learner in this process")
)

// soakResult is one learner's report (a JSON line from its process).
type soakResult struct {
	Name       string
	Examples   int64
	PerSec     float64 // examples learned per second of learning
	PeakRSS    int64   // kB, VmHWM
	WarmRSS    int64   // kB at the end of the warm-up
	MaxRSS     int64   // kB, the largest at a checkpoint after the warm-up
	MaxOrtho   float64 // −1: no orthonormal basis
	MaxKDrift  float64 // −1: no K
	MaxZFrob2  float64
	EndZFrob2  float64
	Rows       int
	Rejected   int
	Err        string
	Checkpoint []soakPoint
}

type soakPoint struct {
	Examples int64
	RSS      int64
	Ortho    float64
	KDrift   float64
	ZFrob2   float64
}

func TestSoak(t *testing.T) {
	if *soakOne != "" {
		soakRun(t, *soakOne)
		return
	}
	var names []string
	for _, l := range registry() {
		if *soakLearners == "" || strings.Contains(","+*soakLearners+",", ","+l.name+",") {
			names = append(names, l.name)
		}
	}
	var results []soakResult
	for _, name := range names {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestSoak$", "-test.timeout", "0",
			"-soak.one", name, "-soak.n", strconv.FormatInt(*soakN, 10), "-soak.budget", soakBudget.String())
		cmd.Stderr = os.Stderr
		out, err := cmd.Output()
		var r soakResult
		for _, line := range strings.Split(string(out), "\n") {
			if rest, ok := strings.CutPrefix(line, "SOAK "); ok {
				json.Unmarshal([]byte(rest), &r)
			}
		}
		if r.Name == "" {
			t.Errorf("%s: no result (%v):\n%s", name, err, out)
			continue
		}
		if r.Err != "" {
			t.Errorf("%s: %s", name, r.Err)
		}
		results = append(results, r)
		t.Logf("%-16s %10d ex %10.0f ex/s  peak RSS %6.1f MiB (after warm-up %6.1f, max later %6.1f)  max ortho drift %9.2e  max K drift %9.2e  ‖Z‖²_F max %9.3g end %9.3g  rows %2d  refused %d",
			r.Name, r.Examples, r.PerSec, float64(r.PeakRSS)/1024, float64(r.WarmRSS)/1024, float64(r.MaxRSS)/1024, r.MaxOrtho, r.MaxKDrift, r.MaxZFrob2, r.EndZFrob2, r.Rows, r.Rejected)
	}
	if *soakOut != "" {
		f, err := os.Create(*soakOut)
		if err != nil {
			t.Fatal(err)
		}
		json.NewEncoder(f).Encode(results)
		f.Close()
	}
}

// soakRun runs one learner and prints its result as a "SOAK {json}" line.
func soakRun(t *testing.T, name string) {
	var rc *registryCase
	for _, c := range registryCases() {
		if c.name == name {
			rc = &c
			break
		}
	}
	if rc == nil {
		t.Fatalf("no learner %s", name)
	}
	res := soakResult{Name: name, MaxOrtho: -1, MaxKDrift: -1}
	defer func() {
		b, _ := json.Marshal(res)
		fmt.Printf("SOAK %s\n", b)
	}()
	d, err := inproc(append([]string{"--quiet", "--loss_function", "logistic"}, rc.flags...), nil, nil)
	if err != nil {
		res.Err = err.Error()
		return
	}
	gen := newSoakGen(d.Hashing().Bits, rc.multiclass)
	const checkpoints = 50
	every := max(*soakN/checkpoints, 1)
	warm := *soakN / 10
	start := time.Now()
	var learn time.Duration
	block := make([]sparse.Example, 1000)
	for n := int64(0); n < *soakN; {
		m := min(int64(len(block)), *soakN-n)
		for i := range block[:m] {
			gen.next(&block[i], n+int64(i), *soakN)
		}
		t0 := time.Now()
		for i := range block[:m] {
			out := d.Process(&block[i])
			if math.IsNaN(out) || math.IsInf(out, 0) {
				res.Err = fmt.Sprintf("prediction %v at example %d", out, n+int64(i)+1)
				res.Examples = n + int64(i) + 1
				return
			}
		}
		learn += time.Since(t0)
		n += m
		res.Examples = n
		res.PerSec = float64(n) / learn.Seconds()
		if n%every != 0 && n != *soakN {
			continue
		}
		pt := soakPoint{Examples: n, RSS: procStatus("VmRSS"), Ortho: -1, KDrift: -1}
		if err := checkWeights(d); err != nil {
			res.Err = fmt.Sprintf("after %d examples: %v", n, err)
			return
		}
		if s, ok := d.Learner().(*son.Learner); ok {
			dg := s.Diagnose()
			pt.Ortho, pt.KDrift, pt.ZFrob2 = dg.Ortho, dg.KDrift, dg.ZFrob2
			res.MaxOrtho, res.MaxKDrift = max(res.MaxOrtho, dg.Ortho), max(res.MaxKDrift, dg.KDrift)
			res.MaxZFrob2, res.EndZFrob2, res.Rows = max(res.MaxZFrob2, dg.ZFrob2), dg.ZFrob2, dg.Rows
			if math.IsNaN(dg.Ortho) || math.IsNaN(dg.KDrift) || math.IsNaN(dg.ZFrob2) || math.IsInf(dg.ZFrob2, 0) {
				res.Err = fmt.Sprintf("after %d examples: %+v", n, dg)
				return
			}
		}
		if r, ok := d.Learner().(interface{ Rejected() int }); ok {
			res.Rejected = r.Rejected()
		}
		res.Checkpoint = append(res.Checkpoint, pt)
		switch {
		case n <= warm:
			res.WarmRSS = pt.RSS
		case pt.RSS > res.WarmRSS+res.WarmRSS/10+16<<10:
			res.Err = fmt.Sprintf("resident memory grew after the warm-up: %d kB at %d examples, %d kB at the end of the warm-up", pt.RSS, n, res.WarmRSS)
			res.MaxRSS = max(res.MaxRSS, pt.RSS)
			return
		default:
			res.MaxRSS = max(res.MaxRSS, pt.RSS)
		}
		if time.Since(start) > *soakBudget {
			break
		}
	}
	res.PeakRSS = procStatus("VmHWM")
}

// procStatus returns a kB field of /proc/self/status (0 if unreadable).
func procStatus(field string) int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			v, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return v
		}
	}
	return 0
}

// soakGen makes the drifting news20-like stream.
type soakGen struct {
	rng        *rand.Rand
	alias      []int32 // Walker's alias table of Zipf(1) over the ranks
	prob       []float64
	w1, w2     []float64 // the labelling model turns from w1 to w2
	idf        []float64
	slot       []uint32
	stamp      []int64
	mask       uint32
	multiclass bool
	ids        []int32
	vals       []float64
}

const soakVocab = 100_000

func newSoakGen(bits uint, multiclass bool) *soakGen {
	g := &soakGen{rng: rand.New(rand.NewPCG(16, 16)), mask: uint32(1)<<bits - 1, multiclass: multiclass}
	// Zipf(1) weights over the ranks, as an alias table (O(1) a draw).
	w := make([]float64, soakVocab)
	var sum float64
	for i := range w {
		w[i] = 1 / float64(i+1)
		sum += w[i]
	}
	g.prob, g.alias = make([]float64, soakVocab), make([]int32, soakVocab)
	var small, large []int32
	for i := range w {
		g.prob[i] = w[i] / sum * soakVocab
		if g.prob[i] < 1 {
			small = append(small, int32(i))
		} else {
			large = append(large, int32(i))
		}
	}
	for len(small) > 0 && len(large) > 0 {
		s, l := small[len(small)-1], large[len(large)-1]
		small = small[:len(small)-1]
		g.alias[s] = l
		g.prob[l] -= 1 - g.prob[s]
		if g.prob[l] < 1 {
			large = large[:len(large)-1]
			small = append(small, l)
		}
	}
	for _, i := range append(small, large...) {
		g.prob[i] = 1
	}
	g.w1, g.w2 = make([]float64, soakVocab), make([]float64, soakVocab)
	g.idf, g.slot, g.stamp = make([]float64, soakVocab), make([]uint32, soakVocab), make([]int64, soakVocab)
	for i := 0; i < soakVocab; i++ {
		g.w1[i], g.w2[i] = g.rng.NormFloat64(), g.rng.NormFloat64()
		g.idf[i] = math.Log(2 + float64(i)/100)
		g.slot[i] = uint32(i) * 0x9e3779b1 // spread over the hash space
		g.stamp[i] = -1
	}
	return g
}

// next writes example n of total into ex.
func (g *soakGen) next(ex *sparse.Example, n, total int64) {
	frac := float64(n) / float64(total)
	// The popular features rotate through the vocabulary (a shift of one
	// rank every 1000 examples), and the labelling model turns by 90°.
	shift := int(n / 1000)
	theta := math.Pi / 2 * frac
	c, s := math.Cos(theta), math.Sin(theta)
	k := 80 + g.rng.IntN(100)
	g.ids, g.vals = g.ids[:0], g.vals[:0]
	var norm float64
	for j := 0; j < k; j++ {
		r := g.rng.IntN(soakVocab)
		if g.rng.Float64() >= g.prob[r] {
			r = int(g.alias[r])
		}
		id := int32((r + shift) % soakVocab)
		if g.stamp[id] == n {
			continue // a repeated word: the parser would merge it
		}
		g.stamp[id] = n
		v := (1 + float64(g.rng.IntN(3))) * g.idf[id]
		g.ids, g.vals = append(g.ids, id), append(g.vals, v)
		norm += v * v
	}
	norm = math.Sqrt(norm)
	ex.Reset()
	var score float64
	for j, id := range g.ids {
		v := g.vals[j] / norm
		ex.Idx = append(ex.Idx, g.slot[id]&g.mask)
		ex.Val = append(ex.Val, v)
		score += (c*g.w1[id] + s*g.w2[id]) * v
	}
	ex.HasLabel = true
	score += 0.1 * g.rng.NormFloat64()
	if g.multiclass {
		ex.Label = 1 + float64(min(int(math.Max(0, score*2+1.5)), registryClasses-1))
	} else if score >= 0 {
		ex.Label = 1
	} else {
		ex.Label = -1
	}
}
