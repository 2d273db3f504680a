package parser

import (
	"bytes"
	"fmt"
)

// Format is the text format of the input.
type Format uint8

const (
	// Auto decides per input from its first line that tells (lineFormat):
	// one with a '|' makes it VW, one with index:value tokens LIBSVM. The
	// lines before it are held back and read in that format. If no line
	// tells within sniffHold bytes, or before the input ends, the input is
	// read as LIBSVM, the one format in which a bare label or a comment is
	// a valid line. A line longer than the buffer is left to the long-line
	// rules first, and sniffing starts again after it.
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

// sniffHold bounds the text held back while no line of an input has told
// its format (Auto): lines of only a label, comments and blank lines read
// the same way whatever comes next, and holding a megabyte of them costs
// nothing, while a longer run of them is no VW or LIBSVM file anyone
// meant.
const sniffHold = 1 << 20

// sniffedNothing is chunk.sniffAt when the format is LIBSVM because no
// line told it within sniffHold bytes.
const sniffedNothing = -1

// lineFormat is the format a line, or the start of one, shows it is in:
// VW if it has a '|', LIBSVM if it has none but a token after the first
// holds a ':' (index:value), and Auto (it cannot tell) for a blank line, a
// comment, a bare label or anything that is neither. Only the text before
// a '#' counts, so that a LIBSVM comment with a '|' in it does not read as
// VW. If the start of a line shows VW, the whole line does too; not so for
// LIBSVM, since a '|' may follow index:value tokens (VW's cost-sensitive
// labels, "1:0.5 2:1 | a").
func lineFormat(line []byte) Format {
	if i := bytes.IndexByte(line, '#'); i >= 0 {
		line = line[:i]
	}
	if bytes.IndexByte(line, '|') >= 0 {
		return VW
	}
	i := 0
	for i < len(line) && isSpace(line[i]) {
		i++
	}
	for i < len(line) && !isSpace(line[i]) {
		i++
	}
	if bytes.IndexByte(line[i:], ':') >= 0 {
		return LIBSVM
	}
	return Auto
}

// formatName is a format as messages about sniffing spell it.
func formatName(f Format) string {
	if f == VW {
		return "VW"
	}
	return "LIBSVM"
}

// sniffer finds the first line of an input that tells its format, looking
// at each byte once as more text comes in.
type sniffer struct {
	pos   int   // the complete lines before pos told nothing
	lines int64 // how many they are
}

// scan looks at data (text from the first line not yet handed on) from
// where it stopped last time. The last line is unfinished unless atEOF:
// only a '|' in it tells, as a start of a line tells nothing else for sure.
// It returns the format and the line, counted from data's first, that told
// it.
func (s *sniffer) scan(data []byte, atEOF bool) (Format, int64, bool) {
	for {
		rest := data[s.pos:]
		i := bytes.IndexByte(rest, '\n')
		line := rest
		if i >= 0 {
			line = rest[:i]
		}
		if f := lineFormat(line); f == VW || f == LIBSVM && (i >= 0 || atEOF) {
			return f, s.lines, true
		}
		if i < 0 {
			return Auto, 0, false
		}
		s.pos += i + 1
		s.lines++
	}
}
