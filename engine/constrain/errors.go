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

// AmbiguityError reports a language so ambiguous that deciding what may
// follow a text would take more work than a Constraint allows itself
// (see MaxStacks and MaxWork): the many ways of reading the text so far
// have to be followed all at once. The text is left as it was; nothing
// outside the language has been allowed.
type AmbiguityError struct {
	Source string // "grammar", "regular expression" or "JSON schema"
	Rule   string // the named rule where most of the ways of reading stood ("" if unnamed)
	Offset int    // byte offset in the source of the construct they stood in
	Line   int    // 1-based line of Offset
	Column int    // 1-based column (in bytes) of Offset
	Text   int    // bytes of the text read when the bound was passed
	Stacks bool   // the bound passed is MaxStacks, not MaxWork
}

// Error says what bound was passed, after which byte of the text, and
// where in the source.
func (e *AmbiguityError) Error() string {
	what := fmt.Sprintf("more than %d parse stacks", MaxStacks)
	if !e.Stacks {
		what = fmt.Sprintf("more than %d parse steps for one token", MaxWork)
	}
	rule := ""
	if e.Rule != "" {
		rule = fmt.Sprintf(", rule %q", e.Rule)
	}
	return fmt.Sprintf("%s too ambiguous: %s after byte %d of the text (line %d, column %d%s)", e.Source, what, e.Text, e.Line, e.Column, rule)
}
