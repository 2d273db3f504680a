package parser

import (
	"errors"
	"strconv"
)

// ParseError is a malformed line. The Source reports it and goes on.
type ParseError struct {
	File string // "stdin" for standard input
	Line int64  // 1-based
	Msg  string
}

func (e *ParseError) Error() string {
	return "parse " + e.File + ":" + strconv.FormatInt(e.Line, 10) + ": " + e.Msg
}

// ErrBlankLine is returned by the line parsers for a line with nothing on
// it (only whitespace, or for LIBSVM only a comment). It is not an error
// in the data: streams skip such lines silently.
var ErrBlankLine = errors.New("blank line")

// stdinName is how standard input is named in errors.
const stdinName = "stdin"

// maxShown bounds how much of an offending token a message quotes: random
// or binary input otherwise turns one warning into kilobytes of noise.
const maxShown = 40

// show returns tok, shortened to maxShown bytes with "..." when longer.
func show(tok []byte) string {
	if len(tok) <= maxShown {
		return string(tok)
	}
	return string(tok[:maxShown]) + "..."
}
