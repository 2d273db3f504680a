package main

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/sparseson/sparseson/engine"
	"github.com/sparseson/sparseson/learners"
	"github.com/sparseson/sparseson/model"
	"github.com/sparseson/sparseson/son"
	"github.com/sparseson/sparseson/sparse"
)

// The in-process harness of the fuzzers, the determinism test and the
// soak: the CLI's own engine, built from a command line, with the learner
// and output stack of a real run, fed examples through Process — the
// path every example of a file takes — without text or files.

// driver is the engine of a command line.
type driver struct{ *engine.Engine }

// inproc builds the engine for args (a new model), or, when stored and r
// are set, for a model read from a file, as -i does.
func inproc(args []string, stored model.Options, r *model.Reader) (*driver, error) {
	c, err := parseFlags(args, io.Discard)
	if err != nil {
		return nil, err
	}
	cfg := engineConfig(c, strings.NewReader(""), io.Discard, io.Discard)
	cfg.Quiet = true
	if cfg.Options, err = runOptions(c, stored); err != nil {
		return nil, err
	}
	cfg.Resume = r
	e, err := engine.New(cfg)
	if err != nil {
		return nil, err
	}
	return &driver{e}, nil
}

// encode returns the model file -f would write.
func (d *driver) encode() ([]byte, error) {
	var buf bytes.Buffer
	err := model.Encode(&buf, d.Options(), d.Learner().Save)
	return buf.Bytes(), err
}

// multiclass returns the model as a multiclass one (nil for a scalar one).
func (d *driver) multiclass() sparse.Multiclass {
	mc, _ := d.Learner().(sparse.Multiclass)
	return mc
}

// reload builds a driver from the model file data, as "-i file" (plus
// extra flags) would.
func reload(data []byte, extra ...string) (*driver, error) {
	stored, r, err := model.Parse(data)
	if err != nil {
		return nil, err
	}
	return inproc(append([]string{"--quiet", "-i", "fuzz.model"}, extra...), stored, r)
}

// checkWeights reports the first non-finite weight of d's model.
func checkWeights(d *driver) error {
	var bad error
	check := func(k int) func(slot uint32, w float64) {
		return func(slot uint32, w float64) {
			if bad == nil && (math.IsNaN(w) || math.IsInf(w, 0)) {
				bad = fmt.Errorf("class %d: weight of slot %d is %v", k, slot, w)
			}
		}
	}
	if d.multiclass() != nil {
		for k := 1; k <= d.multiclass().Classes(); k++ {
			d.multiclass().ClassWeights(k, check(k))
		}
	} else {
		d.Learner().Weights(check(0))
	}
	return bad
}

// registryCase is a learner of the registry, alone or under --oaa.
type registryCase struct {
	name       string
	flags      []string
	multiclass bool // labels are classes 1..registryClasses
}

var (
	casesOnce sync.Once
	cases     []registryCase
)

// registryCases lists every learner of the registry and, for every one
// that is not itself multiclass, the same learner under --oaa.
func registryCases() []registryCase {
	casesOnce.Do(func() {
		for _, l := range registry() {
			cases = append(cases, registryCase{l.name, l.flags, l.multiclass})
		}
		for _, l := range registry() {
			if l.multiclass {
				continue
			}
			flags := append([]string{"--oaa", fmt.Sprint(registryClasses)}, l.flags...)
			if c, err := parseFlags(flags, io.Discard); err == nil {
				if _, err := chooseFamily(c); err == nil {
					cases = append(cases, registryCase{"oaa_" + l.name, flags, true})
				}
			}
		}
	})
	return cases
}

// trainedDriver returns the driver of rc's learner (at -b 14 unless rc
// sets -b) trained on n examples of 41 features, each feature new, so that
// the model grows a row per feature: what the memory and lifetime tests
// need of a model of some size.
func trainedDriver(t *testing.T, rc registryCase, n int) *driver {
	t.Helper()
	args := append([]string{"--quiet"}, rc.flags...)
	bits := uint(14)
	if hasFlag(args, "-b") {
		bits = 10
	} else {
		args = append(args, "-b", "14")
	}
	d, err := inproc(args, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var ex sparse.Example
	slots, vals := make([]uint32, 41), make([]float64, 41)
	for i := range n {
		ex.Reset()
		ex.HasLabel, ex.Label = true, float64(2*(i%2)-1)
		if rc.multiclass {
			ex.Label = float64(1 + i%registryClasses)
		}
		for j := range slots {
			slots[j], vals[j] = uint32(i*41+j), float64(1+j%3)
		}
		exampleOf(&ex, bits, slots, vals)
		d.Process(&ex)
	}
	return d
}

// hasFlag reports whether args set the flag (given as "-b" or "--bit_precision").
func hasFlag(args []string, names ...string) bool {
	for _, a := range args {
		for _, n := range names {
			if a == n || strings.HasPrefix(a, n+"=") {
				return true
			}
		}
	}
	return false
}

// exampleOf makes a valid example (the parser's guarantees: slots within
// 2^bits, each once, values finite and nonzero) from slots and values.
func exampleOf(ex *sparse.Example, bits uint, slots []uint32, vals []float64) {
	ex.Idx, ex.Val = ex.Idx[:0], ex.Val[:0]
	mask := uint32(1)<<bits - 1
outer:
	for i, s := range slots {
		s &= mask
		v := vals[i]
		if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		for j, t := range ex.Idx {
			if t == s {
				if sum := ex.Val[j] + v; !math.IsInf(sum, 0) {
					ex.Val[j] = sum
				}
				continue outer
			}
		}
		ex.Idx = append(ex.Idx, s)
		ex.Val = append(ex.Val, v)
	}
	// Merged values that cancelled are dropped, as the parser does.
	j := 0
	for i, v := range ex.Val {
		if v != 0 {
			ex.Idx[j], ex.Val[j] = ex.Idx[i], v
			j++
		}
	}
	ex.Idx, ex.Val = ex.Idx[:j], ex.Val[:j]
}

// TestLearnerRegistry: every learner family of the CLI has a learner in
// the registry (a family selected by a flag that takes a value must be
// added to valueSelectors), each entry selects the family it names and a
// learner of its own, every family has a memory estimate (--max_memory),
// and every learner — alone and under --oaa — builds, learns an example,
// and loads what it saves.
func TestLearnerRegistry(t *testing.T) {
	sigs := map[string]string{}
	covered := map[*learners.Family]bool{}
	for _, l := range registry() {
		c, err := parseFlags(l.flags, io.Discard)
		if err != nil {
			t.Fatalf("%s: %v", l.name, err)
		}
		fam, err := chooseFamily(c)
		if err != nil || fam != l.fam {
			t.Fatalf("%s: flags %v choose %v (%v), registry says %s", l.name, l.flags, fam, err, l.fam.Name)
		}
		sig := learnerSignature(c, fam)
		if other, dup := sigs[sig]; dup {
			t.Errorf("%s and %s are the same learner", l.name, other)
		}
		sigs[sig] = l.name
		covered[fam] = true
		// (bench/peakrss.sh reads these lines.)
		t.Logf("learner %s|%s", l.name, strings.Join(l.flags, " "))
	}
	for _, fam := range learners.All() {
		if !covered[fam] {
			t.Errorf("family %s has no learner in the registry (registry_test.go): add its selecting flags to valueSelectors", fam.Name)
		}
	}
	// The probe finds a learner selected by a boolean flag of its own
	// without being told: with nothing declared it finds these.
	found := strings.Join(probeSelectors(map[string]bool{}), " ")
	for _, f := range []string{"sgd", "adaptive", "normalized", "nasa", "scalar_adagrad", "oja", "rp", "fd", "fd_fast", "rfd", "rfd_fast", "full"} {
		if !strings.Contains(" "+found+" ", " "+f+" ") {
			t.Errorf("the probe does not find --%s (found %s)", f, found)
		}
	}
	for _, rc := range registryCases() {
		t.Run(rc.name, func(t *testing.T) {
			args := append([]string{"--quiet"}, rc.flags...)
			if !hasFlag(args, "-b", "--bit_precision") {
				args = append(args, "-b", "10")
			}
			d, err := inproc(args, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			var ex sparse.Example
			ex.Reset()
			ex.HasLabel, ex.Label = true, 1
			exampleOf(&ex, 10, []uint32{1, 2, 3}, []float64{1, 2, 3})
			if p := d.Process(&ex); math.IsNaN(p) || math.IsInf(p, 0) {
				t.Fatal(p)
			}
			data, err := d.encode()
			if err != nil {
				t.Fatal(err)
			}
			d2, err := reload(data)
			if err != nil {
				t.Fatal(err)
			}
			if a, b := d.Predict(&ex), d2.Predict(&ex); a != b {
				t.Fatalf("loaded model predicts %v, the model %v", b, a)
			}
		})
	}
}

// TestDiagnoseSketches: after 3000 examples every SON learner of the
// registry keeps its numerical invariants to rounding: an orthonormal
// basis stays orthonormal against the actual Z (‖FZZᵀFᵀ − I‖_F) and a
// kept K = ZZᵀ stays equal to it (the soak watches the same over 10⁷).
func TestDiagnoseSketches(t *testing.T) {
	for _, l := range registry() {
		if l.fam != learners.SON {
			continue
		}
		d, err := inproc(append(append([]string{"--quiet"}, l.flags...), "-b", "12"), nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		var ex sparse.Example
		for i := 0; i < 3000; i++ {
			ex.Reset()
			ex.HasLabel, ex.Label = true, float64(2*(i%2)-1)
			exampleOf(&ex, 12, []uint32{uint32(i % 97), uint32(i % 13), uint32(i*7) % 300, 5}, []float64{1, 2, -1, 0.5})
			d.Process(&ex)
		}
		dg := d.Learner().(*son.Learner).Diagnose()
		if dg.Ortho > 1e-9 || dg.KDrift > 1e-9 || math.IsNaN(dg.Ortho) || math.IsNaN(dg.KDrift) || math.IsNaN(dg.ZFrob2) {
			t.Errorf("%s: %+v", l.name, dg)
		}
	}
}
