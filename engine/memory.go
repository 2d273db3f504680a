package engine

import (
	"bufio"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/sparseson/sparseson/sparse"
)

// checkMemory refuses a model whose state could outgrow MaxMemory: under
// oaa K learners (one for softmax and a binary model), each with its slot
// index of 2^b int32s and, at worst, a row for every one of the 2^b
// slots. Only the slots the data uses are ever allocated, so this is an
// upper bound, reached when the data fills the hash space. Multiclass
// models are checked against half the machine's RAM by default (K copies
// of a table outgrow a machine quickly); a binary model only against a
// MaxMemory given, since a large -b on sparse data is normal there (its
// index and rows are mapped, not touched, until used). A loaded model is
// checked as a new one: training can go on filling it.
func (e *Engine) checkMemory() error {
	c := e.cfg
	if e.classes == 0 && c.MaxMemory == "" {
		return nil
	}
	limit, what, err := memoryLimit(c.MaxMemory)
	if err != nil || math.IsInf(limit, 1) {
		return err
	}
	perSlot, fixed, err := e.fam.Memory(e.opts)
	if err != nil {
		return err
	}
	bits, _ := strconv.Atoi(e.opts["bits"])
	slots := math.Ldexp(1, bits)
	index := sparse.IndexBytesPerSlot(uint(bits))
	one := slots*(index+perSlot) + fixed
	rows := fmt.Sprintf("2^%d rows of %.0f bytes", bits, perSlot)
	if most, perRow := e.fam.Capped(e.opts); most > 0 {
		// A dense learner: its rows are bounded by the slots it keeps.
		kept := min(slots, float64(most))
		one += kept * perRow
		rows = fmt.Sprintf("%.0f rows of %.0f bytes (the most slots it keeps)", kept, perRow)
		if perSlot > 0 {
			rows = fmt.Sprintf("2^%d rows of %.0f bytes and %s", bits, perSlot, rows)
		}
	}
	copies, setting, extra := 1.0, "this model", ""
	need := one
	n := c.name
	switch {
	case e.oaa:
		// OAA's own slot numbering: an index and a key per slot.
		copies, setting = float64(e.classes), fmt.Sprintf("%s %d", n("oaa"), e.classes)
		need = copies*one + (index+4)*slots
		extra = ", plus " + fmtBytes((index+4)*slots) + " for OAA's slot numbers"
	case e.classes > 0:
		setting = fmt.Sprintf("%s %d", n("softmax"), e.classes)
	}
	if k := c.shardCount(); k > 1 {
		// K shards, the merged state kept as the next round's base and,
		// during a mix, the merge target and its saved bytes (at most one
		// model's state).
		f := float64(k + 3)
		copies, need = copies*f, need*f
		setting = fmt.Sprintf("%s in %s %d", setting, n("Shards"), k)
		extra += fmt.Sprintf("; %d shards, the last mix and, during a mix, its target and saved bytes", k)
	}
	if need <= limit {
		return nil
	}
	msg := fmt.Sprintf("%s with this learner may need up to %s (%s × %s: a 2^%d-slot index and, if the data uses every slot, %s%s), above %s %s (%s)",
		setting, fmtBytes(need), strconv.FormatFloat(copies, 'f', -1, 64), fmtBytes(one), bits, rows, extra, n("MaxMemory"), fmtBytes(limit), what)
	if e.classes == 0 {
		return fmt.Errorf("%s; lower %s, or raise %s if the data uses few of the 2^%d slots", msg, n("bits"), n("MaxMemory"), bits)
	}
	return fmt.Errorf("%s; lower %s or the number of classes, or raise %s if the data uses few of the 2^%d slots", msg, n("bits"), n("MaxMemory"), bits)
}

// memoryLimit returns MaxMemory in bytes, or half of MemTotal from
// /proc/meminfo (+Inf where that cannot be read), and what it is.
func memoryLimit(max string) (float64, string, error) {
	if max != "" {
		v, err := ParseBytes(max)
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

// ParseBytes reads a size: a number of bytes, or one with a K, M, G or T
// suffix (powers of 1024; a trailing B or iB is allowed).
func ParseBytes(s string) (float64, error) {
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
