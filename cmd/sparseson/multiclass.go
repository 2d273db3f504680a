package main

import (
	"bufio"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/sparseson/sparseson/gd"
	"github.com/sparseson/sparseson/loss"
	"github.com/sparseson/sparseson/model"
	"github.com/sparseson/sparseson/reduce"
	"github.com/sparseson/sparseson/sparse"
)

// validateMulticlass checks --oaa, --softmax, --probabilities and
// --max_memory against the other flags.
func (c *config) validateMulticlass() error {
	multi := c.oaa > 0 || c.softmax > 0
	switch {
	// 0 is the flags' "not given"; given, it would train a binary model.
	case c.oaa < 0 || c.oaa == 1 || c.oaa > gd.MaxClasses || c.changed("oaa") && c.oaa == 0:
		return fmt.Errorf("--oaa %d: want 2..%d classes", c.oaa, gd.MaxClasses)
	case c.softmax < 0 || c.softmax == 1 || c.softmax > gd.MaxClasses || c.changed("softmax") && c.softmax == 0:
		return fmt.Errorf("--softmax %d: want 2..%d classes", c.softmax, gd.MaxClasses)
	case c.oaa > 0 && c.softmax > 0:
		return errors.New("choose --oaa or --softmax, not both")
	case multi && (c.binary || c.link != "identity"):
		return errors.New("--binary and --link report scalar predictions; a multiclass model reports classes (and --probabilities its class probabilities)")
	case c.softmax > 0 && c.changed("loss_function") && c.lossName != "logistic":
		return fmt.Errorf("--softmax trains the multinomial logistic loss; --loss_function %s does not apply", c.lossName)
	case c.softmax > 0 && c.nasaStep() != gd.StepSchedule:
		return errors.New("--softmax takes the AdaGrad, normalized or --sgd updates, not NASA's steps")
	}
	if c.maxMemory != "" {
		if _, err := parseBytes(c.maxMemory); err != nil {
			return fmt.Errorf("--max_memory %q: %v", c.maxMemory, err)
		}
	}
	return nil
}

var softmaxFamily = &family{
	name: "softmax",
	options: func(c *config) model.Options {
		adaptive, normalized := c.adaptive, c.normalized
		if !c.sgd && !c.adaptive && !c.normalized {
			adaptive, normalized = defaultAdaptive, defaultNormalized
		}
		return model.Options{
			"classes": strconv.Itoa(c.softmax), "loss": "logistic",
			"adaptive": fmtBool(adaptive), "normalized": fmtBool(normalized),
			"learning_rate": fmtFloat(c.eta), "power_t": fmtFloat(c.powerT),
			"initial_t": fmtFloat(c.initialT), "l2": fmtFloat(c.l2),
		}
	},
	tunable: map[string]string{"learning_rate": "learning_rate", "power_t": "power_t", "initial_t": "initial_t", "l2": "l2"},
	fixed:   map[string]string{"classes": "softmax"},
	build: func(o model.Options, _ loss.Loss, r *model.Reader) (sparse.Learner, error) {
		cfg, k, err := softmaxConfig(o)
		if err != nil {
			return nil, err
		}
		if r == nil {
			return gd.NewSoftmax(cfg, k)
		}
		return gd.LoadSoftmax(r, cfg, k)
	},
	memory: func(o model.Options) (float64, float64, error) {
		cfg, k, err := softmaxConfig(o)
		if !cfg.Adaptive {
			return 8 * float64(1+k), 0, err
		}
		return 8 * float64(1+2*k), 0, err
	},
	describe: func(o model.Options) []string {
		lines := gdFamily.describe(o)
		lines[0] = "learner = softmax (multinomial logistic), " + o["classes"] + " classes, " + strings.TrimPrefix(lines[0], "learner = ")
		return lines
	},
}

func softmaxConfig(o model.Options) (gd.Config, int, error) {
	cfg, err := gdConfig(o)
	if err != nil {
		return cfg, 0, err
	}
	k, err := strconv.Atoi(o["classes"])
	if err != nil {
		return cfg, 0, fmt.Errorf("model option classes=%q is not an integer", o["classes"])
	}
	return cfg, k, nil
}

// classes returns K of a model's options: --oaa's, --softmax's, or 0 for
// a scalar model; oaa says which.
func classes(o model.Options) (k int, oaa bool, err error) {
	if v := o["oaa"]; v != "" && v != "0" {
		k, err = strconv.Atoi(v)
		if err != nil || k < 2 {
			return 0, false, fmt.Errorf("model option oaa=%q is not a number of classes", v)
		}
		return k, true, nil
	}
	if o["learner"] == "softmax" {
		_, k, err = softmaxConfig(o)
		return k, false, err
	}
	if o["learner"] == "shampoo" {
		cfg, err := shampooConfig(o)
		return cfg.Classes, false, err
	}
	return 0, false, nil
}

// setupClasses reads K from the options and checks the output options
// against it.
func (d *driver) setupClasses() error {
	var err error
	if d.classes, d.oaa, err = classes(d.opts); err != nil {
		return err
	}
	if d.classes > 0 {
		// The bases of --oaa learn ±1 labels: squared and hinge losses
		// clamp their predictions to that range.
		d.loss.Observe(-1)
		d.loss.Observe(1)
	}
	switch {
	case d.opts["probabilities"] == "true" && d.classes == 0:
		return usagef("--probabilities needs a multiclass model (--oaa K or --softmax K)")
	case d.classes > 0 && (d.binary || (d.opts["link"] != "identity" && d.opts["link"] != "")):
		return usagef("--binary and --link report scalar predictions; a multiclass model reports classes (and --probabilities its class probabilities)")
	case d.opts["probabilities"] == "true" && d.oaa && d.loss.Name() != "logistic":
		fmt.Fprintf(d.stderr, "sparseson: warning: --probabilities should be used with --loss_function logistic (the bases' scores are read as log-odds); this model uses %s\n", d.loss.Name())
	}
	return nil
}

// buildLearner builds the model the options describe, new (r nil) or
// loaded from r: the family's learner, or under --oaa K of them.
func (d *driver) buildLearner(r *model.Reader) (sparse.Learner, error) {
	if !d.oaa {
		return d.fam.build(d.opts, d.loss, r)
	}
	newBase := func(r *model.Reader) (sparse.Learner, error) { return d.fam.build(d.opts, d.loss, r) }
	bits := uint(d.hash.Bits)
	if r == nil {
		return reduce.NewOAA(d.classes, bits, newBase)
	}
	return reduce.LoadOAA(r, d.classes, bits, newBase)
}

// outputStage puts the output reductions on top of the model: the class
// of a multiclass model, else the clamped score, its sign (--binary) or
// its logistic (--link logistic).
func (d *driver) outputStage() reduce.Output {
	if mc, ok := d.learner.(sparse.Multiclass); ok {
		d.mc = mc
		if d.opts["probabilities"] == "true" {
			d.probs = make([]float64, mc.Classes())
		}
		return reduce.Classes(mc)
	}
	d.mc, d.probs = nil, nil
	out := reduce.Scalar(d.learner, d.loss)
	switch {
	case d.binary:
		return reduce.Binary(out)
	case d.opts["link"] != "identity" && d.opts["link"] != "":
		if linked, err := reduce.LinkNamed(out, d.opts["link"]); err == nil {
			return linked
		}
	}
	return out
}

// checkMemory refuses a model whose state could outgrow --max_memory:
// under --oaa K learners (one for --softmax and a binary model), each with
// its slot index of 2^b int32s and, at worst, a row for every one of the
// 2^b slots. Only the slots the data uses are ever allocated, so this is
// an upper bound, reached when the data fills the hash space. Multiclass
// models are checked against half the machine's RAM by default (K copies
// of a table outgrow a machine quickly); a binary model only against a
// --max_memory given, since a large -b on sparse data is normal there
// (its index and rows are mapped, not touched, until used). A model
// loaded with -i is checked as a new one: training can go on filling it.
func (d *driver) checkMemory() error {
	if d.fam.memory == nil || (d.classes == 0 && d.cfg.maxMemory == "") {
		return nil
	}
	limit, what, err := memoryLimit(d.cfg.maxMemory)
	if err != nil || math.IsInf(limit, 1) {
		return err
	}
	perSlot, fixed, err := d.fam.memory(d.opts)
	if err != nil {
		return err
	}
	bits, _ := strconv.Atoi(d.opts["bits"])
	slots := math.Ldexp(1, bits)
	index := sparse.IndexBytesPerSlot(uint(bits))
	one := slots*(index+perSlot) + fixed
	copies, flag, extra := 1.0, "this model", ""
	need := one
	switch {
	case d.oaa:
		// OAA's own slot numbering: an index and a key per slot.
		copies, flag = float64(d.classes), fmt.Sprintf("--oaa %d", d.classes)
		need = copies*one + (index+4)*slots
		extra = ", plus " + fmtBytes((index+4)*slots) + " for OAA's slot numbers"
	case d.classes > 0:
		flag = fmt.Sprintf("--softmax %d", d.classes)
	}
	if need > limit {
		what := fmt.Sprintf("%s with this learner may need up to %s (%s × %s: a 2^%d-slot index and, if the data uses every slot, 2^%d rows of %.0f bytes%s), above --max_memory %s (%s)",
			flag, fmtBytes(need), strconv.FormatFloat(copies, 'f', -1, 64), fmtBytes(one), bits, bits, perSlot, extra, fmtBytes(limit), what)
		if d.classes == 0 {
			return fmt.Errorf("%s; lower -b, or raise --max_memory if the data uses few of the 2^%d slots", what, bits)
		}
		return fmt.Errorf("%s; lower -b or the number of classes, or raise --max_memory if the data uses few of the 2^%d slots", what, bits)
	}
	return nil
}

// memoryLimit returns --max_memory in bytes, or half of MemTotal from
// /proc/meminfo (+Inf where that cannot be read), and what it is.
func memoryLimit(flag string) (float64, string, error) {
	if flag != "" {
		v, err := parseBytes(flag)
		return v, "as given", err
	}
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return math.Inf(1), "", nil
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
			var kb float64
			if _, err := fmt.Sscanf(strings.TrimSpace(rest), "%g kB", &kb); err == nil && kb > 0 {
				return kb * 1024 / 2, "half of this machine's RAM", nil
			}
		}
	}
	return math.Inf(1), "", nil
}

// parseBytes reads a size: a number of bytes, or one with a K, M, G or T
// suffix (powers of 1024; a trailing B or iB is allowed).
func parseBytes(s string) (float64, error) {
	t := strings.TrimSuffix(strings.TrimSuffix(strings.ToUpper(strings.TrimSpace(s)), "B"), "I")
	mult := 1.0
	if n := len(t); n > 0 {
		if i := strings.IndexByte("KMGT", t[n-1]); i >= 0 {
			mult, t = math.Ldexp(1, 10*(i+1)), t[:n-1]
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || !(v > 0) || math.IsInf(v, 0) {
		return 0, errors.New("want a positive size such as 8G, 512M or 1e9")
	}
	return v * mult, nil
}

func fmtBytes(v float64) string {
	for _, u := range []struct {
		name string
		size float64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if v >= u.size {
			return strconv.FormatFloat(v/u.size, 'f', 1, 64) + " " + u.name
		}
	}
	return strconv.FormatFloat(v, 'f', 0, 64) + " B"
}
