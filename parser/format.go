package parser

import (
	"bytes"
	"fmt"
)

// Format is the text format of the input.
type Format uint8

const (
	// Auto decides per input from its first non-blank line: a line with a
	// '|' is VW, anything else LIBSVM.
	Auto Format = iota
	VW
	LIBSVM
)

func (f Format) String() string {
	switch f {
	case Auto:
		return "auto"
	case VW:
		return "vw"
	case LIBSVM:
		return "libsvm"
	}
	return fmt.Sprintf("Format(%d)", uint8(f))
}

// ParseFormat reads a format name as the command line spells it.
func ParseFormat(s string) (Format, error) {
	switch s {
	case "auto", "":
		return Auto, nil
	case "vw":
		return VW, nil
	case "libsvm", "svm", "svmlight":
		return LIBSVM, nil
	}
	return Auto, fmt.Errorf("unknown input format %q (want auto, vw or libsvm)", s)
}

// sniffFormat looks for the first non-blank line in data. It reports
// false if data has none (so the decision waits for more input).
func sniffFormat(data []byte) (Format, bool) {
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if isBlank(trimCR(line)) {
			continue
		}
		if bytes.IndexByte(line, '|') >= 0 {
			return VW, true
		}
		return LIBSVM, true
	}
	return Auto, false
}
