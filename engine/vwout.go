package engine

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"sort"
	"strconv"

	"github.com/sparseson/sparseson/hashing"
	"github.com/sparseson/sparseson/learners"
	"github.com/sparseson/sparseson/loss"
	"github.com/sparseson/sparseson/model"
	"github.com/sparseson/sparseson/reduce"
	"github.com/sparseson/sparseson/sparse"
)

// vwOut is the engine's state for VW's outputs: Raw, Audit, InvertHash.
type vwOut struct {
	raw    *predWriter   // -r
	scores []float64     // a multiclass model's raw scores (-r)
	audit  *bufio.Writer // -a, on stdout
	abuf   []byte
	invert *invertMap // InvertHash
}

// invertMap keeps the first name seen for every slot (InvertHash).
// It holds one string per distinct feature of the first pass — the memory
// the option costs (VW's index_name_map likewise).
type invertMap struct{ m map[uint32]string }

func (im *invertMap) add(names []hashing.AuditFeature) {
	for _, f := range names {
		if _, ok := im.m[f.Slot]; !ok {
			im.m[f.Slot] = f.Name
		}
	}
}

// wantNames reports whether the parser must record feature names.
func (e *Engine) wantNames() bool { return e.cfg.Audit || e.cfg.InvertHash != "" }

// setupVW applies the VW settings that act on the model: the prediction
// bounds and Decay's precondition.
func (e *Engine) setupVW() error {
	c, n := e.cfg, e.cfg.name
	if !math.IsNaN(c.MinPrediction) || !math.IsNaN(c.MaxPrediction) {
		if err := loss.Fix(e.loss, c.MinPrediction, c.MaxPrediction); err != nil {
			return fmt.Errorf("%s/%s: %s loss is clipped to [−50, 50], not to a label range", n("MinPrediction"), n("MaxPrediction"), e.loss.Name())
		}
		if e.fixMin = !math.IsNaN(c.MinPrediction); e.fixMin {
			e.labelMin = c.MinPrediction
		}
		if e.fixMax = !math.IsNaN(c.MaxPrediction); e.fixMax {
			e.labelMax = c.MaxPrediction
		}
	}
	if _, ok := e.opts["learning_rate"]; c.Decay != 1 && !ok {
		return fmt.Errorf("%s scales %s, and this model has none (%s learner%s)", n("Decay"), n("learning_rate"), e.fam.Name, learners.FormNote(e.opts))
	}
	if c.Raw != "" && e.classes > 0 {
		if _, ok := e.learner.(interface{ Scores([]float64) }); !ok {
			return fmt.Errorf("%s: this multiclass model has no raw scores to write", n("Raw"))
		}
	}
	return nil
}

func (e *Engine) openVWOutputs() error {
	c := e.cfg
	if c.Raw != "" {
		w, err := newPredWriter(c.Raw)
		if err != nil {
			return fmt.Errorf("%s: %w", c.name("Raw"), err)
		}
		e.raw = w
		e.scores = make([]float64, e.classes)
	}
	if c.Audit {
		e.audit = bufio.NewWriterSize(c.Stdout, 1<<16)
		if e.preds != nil && e.preds.f == nil {
			// -p to stdout as well: one buffer keeps the lines in order.
			e.audit = e.preds.w
		}
	}
	if c.InvertHash != "" {
		e.invert = &invertMap{m: map[uint32]string{}}
	}
	return nil
}

// finishVWOutputs writes InvertHash and closes the other outputs.
func (e *Engine) finishVWOutputs() error {
	if e.invert != nil {
		if err := writeReadable(e.cfg.InvertHash, e.cfg.name("InvertHash"), e.Options(), e.learner, e.invert, e.cfg.Version); err != nil {
			return err
		}
	}
	return e.closeVWOutputs()
}

// closeVWOutputs flushes and closes Raw and Audit; it is safe to call
// twice.
func (e *Engine) closeVWOutputs() error {
	var err error
	if e.raw != nil {
		err = e.raw.close()
	}
	if e.audit != nil && (e.preds == nil || e.audit != e.preds.w) {
		if ferr := e.audit.Flush(); err == nil && ferr != nil {
			err = fmt.Errorf("%s: %w", e.cfg.name("Audit"), ferr)
		}
	}
	return err
}

func (e *Engine) writeRaw(tag []byte) {
	if e.classes == 0 {
		e.raw.write(e.out.Raw(), tag)
		return
	}
	e.learner.(interface{ Scores([]float64) }).Scores(e.scores)
	e.raw.writeProbs(e.scores, tag)
}

// auditEntry is one feature of an audited example.
type auditEntry struct {
	name          string
	slot          uint32
	value, weight float64
}

// auditFeatures lists ex's features with the weights the model applies to
// them now (before the example is learned from): one list for a scalar
// model, one per class for a multiclass one. Each weight is looked up in
// O(1) (gd) or O(m) (SON's w̄_j + Z_jᵀb through its prediction), so an
// audited example costs O(s·m), never a sweep of the model.
func (e *Engine) auditFeatures(ex *sparse.Example, names []hashing.AuditFeature) []auditEntry {
	feats := names
	if feats == nil {
		// From the cache, or unnamed: the example's slots.
		feats = make([]hashing.AuditFeature, len(ex.Idx))
		for i, s := range ex.Idx {
			feats[i] = hashing.AuditFeature{Slot: s, Value: ex.Val[i]}
		}
	}
	K := 1
	cw, multi := e.learner.(reduce.ClassSlotWeigher)
	if e.classes > 0 && multi {
		K = e.classes
	}
	out := make([]auditEntry, 0, K*len(feats))
	for k := 1; k <= K; k++ {
		for _, f := range feats {
			a := auditEntry{name: f.Name, slot: f.Slot, value: f.Value}
			if e.classes > 0 && multi {
				a.weight = cw.ClassSlotWeight(k, f.Slot)
				if k > 1 {
					a.name += "[" + strconv.Itoa(k-1) + "]"
				}
			} else {
				a.weight = reduce.SlotWeight(e.learner, f.Slot)
			}
			out = append(out, a)
		}
	}
	return out
}

// printAudit writes VW's audit of one example: the prediction (and tag) on
// a line, then a line of tab-led features name:slot:value:weight sorted by
// |weight·value|, largest first (ties in input order); a multiclass model
// gets one such line per class.
func (e *Engine) printAudit(out float64, tag []byte, entries []auditEntry) {
	b := appendPrediction(e.abuf[:0], out, tag)
	K := 1
	if e.classes > 0 {
		K = e.classes
	}
	n := len(entries) / K
	for k := 0; k < K; k++ {
		line := entries[k*n : (k+1)*n]
		sort.SliceStable(line, func(i, j int) bool {
			return math.Abs(line[i].weight*line[i].value) > math.Abs(line[j].weight*line[j].value)
		})
		for _, e := range line {
			b = append(b, '\t')
			b = append(b, e.name...)
			b = append(b, ':')
			b = strconv.AppendUint(b, uint64(e.slot), 10)
			b = append(b, ':')
			b = strconv.AppendFloat(b, e.value, 'g', 6, 64)
			b = append(b, ':')
			b = strconv.AppendFloat(b, e.weight, 'g', 6, 64)
		}
		b = append(b, '\n')
	}
	e.audit.Write(b)
	e.abuf = b
}

// decayRate multiplies the model's learning rate by Decay between
// passes: the learner is rebuilt from its own state with the new rate,
// exactly as saving the model and resuming it with -l changed would (an
// O(features seen) step per pass; nothing per example).
func (e *Engine) decayRate() error {
	eta, err := learners.Float(e.opts, "learning_rate")
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := model.Encode(&buf, e.Options(), e.learner.Save); err != nil {
		return fmt.Errorf("%s: %w", e.cfg.name("Decay"), err)
	}
	e.opts["learning_rate"] = learners.FormatFloat(eta * e.cfg.Decay)
	if err := e.restore(buf.Bytes()); err != nil {
		return fmt.Errorf("%s: %w", e.cfg.name("Decay"), err)
	}
	return nil
}

// appendPrediction formats a prediction as -p writes it: an integer
// without decimals, any other number with six, then the tag.
func appendPrediction(b []byte, v float64, tag []byte) []byte {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		b = strconv.AppendInt(b, int64(v), 10)
	} else {
		b = strconv.AppendFloat(b, v, 'f', 6, 64)
	}
	if len(tag) > 0 {
		b = append(b, ' ')
		b = append(b, tag...)
	}
	return append(b, '\n')
}
