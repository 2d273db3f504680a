package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"

	"github.com/sparseson/sparseson/hashing"
	"github.com/sparseson/sparseson/loss"
	"github.com/sparseson/sparseson/model"
	"github.com/sparseson/sparseson/reduce"
	"github.com/sparseson/sparseson/sparse"
)

// vwOut is the driver's state for the outputs of vwcompat.go's flags.
type vwOut struct {
	raw    *predWriter   // -r
	scores []float64     // a multiclass model's raw scores (-r)
	audit  *bufio.Writer // -a, on stdout
	abuf   []byte
	invert *invertMap // --invert_hash
}

// invertMap keeps the first name seen for every slot (--invert_hash).
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
func (d *driver) wantNames() bool { return d.cfg.vw.audit || d.cfg.vw.invertHash != "" }

// setupVW applies the vwcompat.go options that act on the model: the
// prediction bounds and --decay_learning_rate's precondition.
func (d *driver) setupVW() error {
	v := &d.cfg.vw
	if !math.IsNaN(v.minPred) || !math.IsNaN(v.maxPred) {
		if err := loss.Fix(d.loss, v.minPred, v.maxPred); err != nil {
			return fmt.Errorf("--min_prediction/--max_prediction: %s loss is clipped to [−50, 50], not to a label range", d.loss.Name())
		}
		if d.fixMin = !math.IsNaN(v.minPred); d.fixMin {
			d.labelMin = v.minPred
		}
		if d.fixMax = !math.IsNaN(v.maxPred); d.fixMax {
			d.labelMax = v.maxPred
		}
	}
	if _, ok := d.opts["learning_rate"]; v.decay != 1 && !ok {
		return fmt.Errorf("--decay_learning_rate scales -l, and this model has none (%s learner%s)", d.fam.name, sketchNote(d.opts))
	}
	if v.raw != "" && d.classes > 0 {
		if _, ok := d.learner.(interface{ Scores([]float64) }); !ok {
			return errors.New("-r: this multiclass model has no raw scores to write")
		}
	}
	return nil
}

func (d *driver) openVWOutputs() error {
	v := &d.cfg.vw
	if v.raw != "" {
		w, err := newPredWriter(v.raw)
		if err != nil {
			return fmt.Errorf("-r: %w", err)
		}
		d.raw = w
		d.scores = make([]float64, d.classes)
	}
	if v.audit {
		d.audit = bufio.NewWriterSize(d.stdout, 1<<16)
		if d.preds != nil && d.preds.f == nil {
			// -p to stdout as well: one buffer keeps the lines in order.
			d.audit = d.preds.w
		}
	}
	if v.invertHash != "" {
		d.invert = &invertMap{m: map[uint32]string{}}
	}
	return nil
}

// finishVWOutputs writes --invert_hash and closes the other outputs.
func (d *driver) finishVWOutputs() error {
	if d.invert != nil {
		if err := writeReadable(d.cfg.vw.invertHash, d.modelOptions(), d.learner, d.invert); err != nil {
			return err
		}
	}
	return d.closeVWOutputs()
}

// closeVWOutputs flushes and closes -r and --audit; it is safe to call
// twice.
func (d *driver) closeVWOutputs() error {
	var err error
	if d.raw != nil {
		err = d.raw.close()
	}
	if d.audit != nil && (d.preds == nil || d.audit != d.preds.w) {
		if ferr := d.audit.Flush(); err == nil && ferr != nil {
			err = fmt.Errorf("--audit: %w", ferr)
		}
	}
	return err
}

func (d *driver) writeRaw(tag []byte) {
	if d.classes == 0 {
		d.raw.write(d.out.Raw(), tag)
		return
	}
	d.learner.(interface{ Scores([]float64) }).Scores(d.scores)
	d.raw.writeProbs(d.scores, tag)
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
func (d *driver) auditFeatures(ex *sparse.Example, names []hashing.AuditFeature) []auditEntry {
	feats := names
	if feats == nil {
		// From the cache, or unnamed: the example's slots.
		feats = make([]hashing.AuditFeature, len(ex.Idx))
		for i, s := range ex.Idx {
			feats[i] = hashing.AuditFeature{Slot: s, Value: ex.Val[i]}
		}
	}
	K := 1
	cw, multi := d.learner.(reduce.ClassSlotWeigher)
	if d.classes > 0 && multi {
		K = d.classes
	}
	out := make([]auditEntry, 0, K*len(feats))
	for k := 1; k <= K; k++ {
		for _, f := range feats {
			e := auditEntry{name: f.Name, slot: f.Slot, value: f.Value}
			if d.classes > 0 && multi {
				e.weight = cw.ClassSlotWeight(k, f.Slot)
				if k > 1 {
					e.name += "[" + strconv.Itoa(k-1) + "]"
				}
			} else {
				e.weight = reduce.SlotWeight(d.learner, f.Slot)
			}
			out = append(out, e)
		}
	}
	return out
}

// printAudit writes VW's audit of one example: the prediction (and tag) on
// a line, then a line of tab-led features name:slot:value:weight sorted by
// |weight·value|, largest first (ties in input order); a multiclass model
// gets one such line per class.
func (d *driver) printAudit(out float64, tag []byte, entries []auditEntry) {
	b := appendPrediction(d.abuf[:0], out, tag)
	K := 1
	if d.classes > 0 {
		K = d.classes
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
	d.audit.Write(b)
	d.abuf = b
}

// decayRate multiplies the model's -l by --decay_learning_rate between
// passes: the learner is rebuilt from its own state with the new rate,
// exactly as saving the model and resuming it with -l changed would (an
// O(features seen) step per pass; nothing per example).
func (d *driver) decayRate() error {
	var p optParser
	eta := p.float(d.opts, "learning_rate")
	if p.err != nil {
		return p.err
	}
	var buf bytes.Buffer
	if err := model.Encode(&buf, d.modelOptions(), d.learner.Save); err != nil {
		return fmt.Errorf("--decay_learning_rate: %w", err)
	}
	d.opts["learning_rate"] = fmtFloat(eta * d.cfg.vw.decay)
	_, r, err := model.Parse(buf.Bytes())
	if err == nil {
		d.learner, err = d.buildLearner(r)
	}
	if err != nil {
		return fmt.Errorf("--decay_learning_rate: %w", err)
	}
	d.out = d.outputStage()
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
