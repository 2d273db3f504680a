package parser

import (
	"errors"
	"fmt"

	"github.com/sparseson/sparseson/hashing"
	"github.com/sparseson/sparseson/sparse"
)

// Byte classes for the tokenizers; a table lookup keeps the inner loop to
// one load and one compare per byte.
const (
	clsWord  = 0
	clsSpace = 1
	clsBar   = 2
	clsColon = 3
)

var byteClass = [256]uint8{' ': clsSpace, '\t': clsSpace, '|': clsBar, ':': clsColon}

func isSpace(c byte) bool { return c == ' ' || c == '\t' }

// isBlank reports a line of only spaces and tabs (a trailing '\r' must be
// trimmed first).
func isBlank(line []byte) bool {
	for _, c := range line {
		if c != ' ' && c != '\t' {
			return false
		}
	}
	return true
}

func trimCR(line []byte) []byte {
	if n := len(line); n > 0 && line[n-1] == '\r' {
		return line[:n-1]
	}
	return line
}

var errNoBar = errors.New("no '|' in VW line")

// ParseVWLine parses one line of VW text (without its newline) into ex,
// hashing its features with b:
//
//	[label [importance [initial]]] ['tag]|ns[:scale] feat[:value] … |ns2 …
//
// It returns ErrBlankLine for a line of only whitespace. On any other
// error ex is left in an unspecified state.
func ParseVWLine(line []byte, b *hashing.Builder, ex *sparse.Example) error {
	line = trimCR(line)
	ex.Reset()
	bar := -1
	for i, c := range line {
		if c == '|' {
			bar = i
			break
		}
	}
	if bar < 0 {
		if isBlank(line) {
			return ErrBlankLine
		}
		return errNoBar
	}
	if err := parseVWHeader(line[:bar], ex); err != nil {
		return err
	}
	b.Begin()
	i := bar + 1
	for {
		// i is just past a '|': a namespace name follows unless whitespace
		// or the end of the line does.
		if i < len(line) && byteClass[line[i]] != clsSpace && line[i] != '|' {
			start := i
			colon := -1
			for i < len(line) && byteClass[line[i]] != clsSpace && line[i] != '|' {
				if line[i] == ':' && colon < 0 {
					colon = i
				}
				i++
			}
			name, scale := line[start:i], 1.0
			if colon >= 0 {
				name = line[start:colon]
				s, st := parseNumber(line[colon+1 : i])
				if st != numOK {
					return fmt.Errorf("bad namespace scale %q in %q%s", show(line[colon+1:i]), show(line[start-1:i]), why(st))
				}
				scale = s
			}
			b.Namespace(name, scale)
		} else {
			b.Namespace(nil, 1)
		}
		// Features up to the next '|' or the end: the builder takes those
		// of the usual form in a run (ScanVW), the parser the others.
		for {
			i = b.ScanVW(line, i)
			for i < len(line) && byteClass[line[i]] == clsSpace {
				i++
			}
			if i >= len(line) {
				return b.Finish(ex)
			}
			if line[i] == '|' {
				i++
				break
			}
			start := i
			for i < len(line) && byteClass[line[i]] == clsWord {
				i++
			}
			end := i
			v := 1.0
			if i < len(line) && line[i] == ':' {
				i++
				vs := i
				for i < len(line) && byteClass[line[i]] != clsSpace && line[i] != '|' {
					i++
				}
				var st numStatus
				v, st = parseNumber(line[vs:i])
				if st != numOK {
					return fmt.Errorf("bad value %q for feature %q%s", show(line[vs:i]), show(line[start:end]), why(st))
				}
				if v == 0 {
					continue
				}
			}
			b.Feature(line[start:end], v)
		}
	}
}

// parseVWHeader reads what comes before the first '|'.
func parseVWHeader(h []byte, ex *sparse.Example) error {
	var tok [4][]byte
	n := 0
	i := 0
	var last []byte
	lastTouches := false
	for {
		for i < len(h) && isSpace(h[i]) {
			i++
		}
		if i >= len(h) {
			break
		}
		start := i
		for i < len(h) && !isSpace(h[i]) {
			i++
		}
		if last != nil {
			if n < len(tok) {
				tok[n] = last
			}
			n++
		}
		last = h[start:i]
		lastTouches = i == len(h)
	}
	if last != nil {
		switch {
		case last[0] == '\'':
			ex.Tag = append(ex.Tag[:0], last[1:]...)
		case lastTouches:
			// VW reads a token written against the '|' as the tag, even
			// when it looks like a number ("1|f a" has tag "1", no label).
			ex.Tag = append(ex.Tag[:0], last...)
		default:
			if n < len(tok) {
				tok[n] = last
			}
			n++
		}
	}
	if n > 3 {
		return fmt.Errorf("too many label tokens (%d)", n)
	}
	if n == 0 {
		return nil
	}
	v, st := parseNumber(tok[0])
	if st != numOK {
		return fmt.Errorf("bad label %q%s", show(tok[0]), why(st))
	}
	ex.Label, ex.HasLabel = v, true
	if n >= 2 {
		w, st := parseNumber(tok[1])
		if st != numOK {
			return fmt.Errorf("bad importance weight %q%s", show(tok[1]), why(st))
		}
		if w < 0 {
			return fmt.Errorf("bad importance weight %q: negative", show(tok[1]))
		}
		ex.Weight = w
	}
	if n == 3 {
		v, st := parseNumber(tok[2])
		if st != numOK {
			return fmt.Errorf("bad initial prediction %q%s", show(tok[2]), why(st))
		}
		ex.Initial = v
	}
	return nil
}

func why(st numStatus) string {
	if st == numRange {
		return ": value out of range"
	}
	return ""
}
