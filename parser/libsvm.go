package parser

import (
	"fmt"

	"github.com/sparseson/sparseson/hashing"
	"github.com/sparseson/sparseson/sparse"
)

// libsvmNamespace is where LIBSVM features go, so that "1 3:0.5" hashes
// exactly like the VW line "1 |f 3:0.5".
var libsvmNamespace = []byte("f")

// ParseLIBSVMLine parses one line of LIBSVM/svmlight text (without its
// newline) into ex:
//
//	label idx:val idx:val … [# comment]
//
// An optional qid:N token is ignored. It returns ErrBlankLine for a line
// with only whitespace or a comment.
func ParseLIBSVMLine(line []byte, b *hashing.Builder, ex *sparse.Example) error {
	line = trimCR(line)
	for i, c := range line {
		if c == '#' {
			line = line[:i]
			break
		}
	}
	ex.Reset()
	i := 0
	for i < len(line) && isSpace(line[i]) {
		i++
	}
	if i == len(line) {
		return ErrBlankLine
	}
	start := i
	for i < len(line) && !isSpace(line[i]) {
		i++
	}
	v, st := parseNumber(line[start:i])
	if st != numOK {
		return fmt.Errorf("bad label %q%s", show(line[start:i]), why(st))
	}
	ex.Label, ex.HasLabel = v, true
	b.Begin()
	b.Namespace(libsvmNamespace, 1)
	for {
		for i < len(line) && isSpace(line[i]) {
			i++
		}
		if i >= len(line) {
			return b.Finish(ex)
		}
		start := i
		colon := -1
		allDigits, nonZero := true, false
		for i < len(line) && !isSpace(line[i]) {
			c := line[i]
			if colon < 0 {
				if c == ':' {
					colon = i
				} else if c-'0' > 9 {
					allDigits = false
				} else if c != '0' {
					nonZero = true
				}
			}
			i++
		}
		tok := line[start:i]
		if colon < 0 {
			return fmt.Errorf("missing ':' in %q", show(tok))
		}
		idx := line[start:colon]
		if string(idx) == "qid" {
			continue
		}
		if !allDigits || !nonZero {
			return fmt.Errorf("bad index %q in %q: not a positive integer", show(idx), show(tok))
		}
		v, st := parseNumber(line[colon+1 : i])
		if st != numOK {
			return fmt.Errorf("bad value %q for index %s%s", show(line[colon+1:i]), show(idx), why(st))
		}
		if v != 0 {
			b.Feature(idx, v)
		}
	}
}
