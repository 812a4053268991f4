package constrain

import (
	"fmt"
	"strings"
)

// SyntaxError reports a schema, regular expression or grammar that cannot
// be compiled: what was wrong, and where.
type SyntaxError struct {
	Source string // "grammar", "regular expression" or "JSON schema"
	Offset int    // byte offset of the problem in the source text
	Line   int    // 1-based line of Offset
	Column int    // 1-based column (in bytes) of Offset
	Msg    string
}

// Error says "source: line L, column C: problem".
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("%s: line %d, column %d: %s", e.Source, e.Line, e.Column, e.Msg)
}

// syntaxError makes a SyntaxError at byte offset off of text.
func syntaxError(source, text string, off int, format string, args ...any) *SyntaxError {
	off = max(0, min(off, len(text)))
	before := text[:off]
	line := strings.Count(before, "\n") + 1
	col := off - (strings.LastIndexByte(before, '\n') + 1) + 1
	return &SyntaxError{Source: source, Offset: off, Line: line, Column: col, Msg: fmt.Sprintf(format, args...)}
}
