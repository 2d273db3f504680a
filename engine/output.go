package engine

import (
	"bufio"
	"fmt"
	"os"
	"sort"
	"strconv"

	"github.com/sparseson/sparseson/internal/outfile"
	"github.com/sparseson/sparseson/model"
	"github.com/sparseson/sparseson/sparse"
)

// predWriter writes one prediction per line, followed by the tag if any,
// formatted as VW does: integers without decimals, others with six.
type predWriter struct {
	f   *outfile.File // nil: stdout
	w   *bufio.Writer
	buf []byte
	err error
}

func newPredWriter(path string) (*predWriter, error) {
	if path == "-" || path == "/dev/stdout" {
		return &predWriter{w: bufio.NewWriterSize(os.Stdout, 1<<16)}, nil
	}
	f, err := outfile.Open(path, outfile.Stream)
	if err != nil {
		return nil, fmt.Errorf("predictions %s: %w", path, err)
	}
	return &predWriter{f: f, w: bufio.NewWriterSize(f, 1<<16)}, nil
}

func (p *predWriter) write(v float64, tag []byte) {
	b := appendPrediction(p.buf[:0], v, tag)
	if _, err := p.w.Write(b); err != nil && p.err == nil {
		p.err = err
	}
	p.buf = b
}

// writeProbs writes K class probabilities as VW's --probabilities does:
// "1:p1 2:p2 … K:pK", each with six significant digits (C++'s default
// stream format), then the tag.
func (p *predWriter) writeProbs(probs []float64, tag []byte) {
	b := p.buf[:0]
	for k, v := range probs {
		if k > 0 {
			b = append(b, ' ')
		}
		b = strconv.AppendInt(b, int64(k+1), 10)
		b = append(b, ':')
		b = strconv.AppendFloat(b, v, 'g', 6, 64)
	}
	if len(tag) > 0 {
		b = append(b, ' ')
		b = append(b, tag...)
	}
	b = append(b, '\n')
	if _, err := p.w.Write(b); err != nil && p.err == nil {
		p.err = err
	}
	p.buf = b
}

// close flushes and closes; it is safe to call twice.
func (p *predWriter) close() error {
	if p.w == nil {
		return p.err
	}
	if err := p.w.Flush(); err != nil && p.err == nil {
		p.err = err
	}
	p.w = nil
	if p.f != nil {
		if err := p.f.Commit(); err != nil && p.err == nil {
			p.err = err
		}
	}
	if p.err != nil {
		return fmt.Errorf("predictions: %w", p.err)
	}
	return nil
}

// writeReadable writes the model's options and its nonzero weights as
// slot:weight lines in slot order (VW's --readable_model layout), or with
// names (--invert_hash) as name:slot:weight lines, VW's layout too: a
// slot whose name was never seen has an empty name, and class k ≥ 2 of a
// multiclass model adds "[k−1]" to the name. Only features the model has
// seen are visited. what names the output in errors.
func writeReadable(path, what string, opts model.Options, l sparse.Learner, names *invertMap, version string) error {
	f, err := outfile.Open(path, outfile.Stream)
	if err != nil {
		return fmt.Errorf("%s %s: %w", what, path, err)
	}
	w := bufio.NewWriter(f)
	fmt.Fprintf(w, "sparseson %s readable model (format %d)\n", version, model.Version)
	keys := make([]string, 0, len(opts))
	for k := range opts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(w, "%s:%s\n", k, opts[k])
	}
	fmt.Fprintln(w, ":0")
	type sw struct {
		slot  uint64
		w     float64
		name  uint32 // the slot the name is of
		class int
	}
	var ws []sw
	if mc, ok := l.(sparse.Multiclass); ok {
		// Class k's weight of slot j at index j·K + k − 1, as VW strides
		// a multiclass model's weights.
		K := mc.Classes()
		for k := 1; k <= K; k++ {
			mc.ClassWeights(k, func(slot uint32, v float64) {
				if v != 0 {
					ws = append(ws, sw{uint64(slot)*uint64(K) + uint64(k-1), v, slot, k})
				}
			})
		}
	} else {
		l.Weights(func(slot uint32, v float64) {
			if v != 0 {
				ws = append(ws, sw{uint64(slot), v, slot, 1})
			}
		})
	}
	sort.Slice(ws, func(i, j int) bool { return ws[i].slot < ws[j].slot })
	for _, x := range ws {
		if names != nil {
			w.WriteString(names.m[x.name])
			if x.class > 1 {
				fmt.Fprintf(w, "[%d]", x.class-1)
			}
			w.WriteByte(':')
		}
		fmt.Fprintf(w, "%d:%s\n", x.slot, strconv.FormatFloat(x.w, 'g', 9, 64))
	}
	if err := w.Flush(); err != nil {
		f.Abort()
		return fmt.Errorf("%s: %w", what, err)
	}
	if err := f.Commit(); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}
