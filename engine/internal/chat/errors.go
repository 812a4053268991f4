package chat

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// SyntaxError reports a template that does not parse: where, and what was
// wrong there.
type SyntaxError struct {
	Line, Column int // 1-based; the column counts characters, not bytes
	Msg          string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("chat template: syntax error at line %d, column %d: %s", e.Line, e.Column, e.Msg)
}

// RenderError reports a template that failed while rendering: an undefined
// name used as a value, a type error, a limit reached, or the template's
// own refusal through raise_exception (then Raised is true and Msg is the
// template's message, verbatim).
type RenderError struct {
	Line, Column int // 1-based position of the failing expression or tag
	Msg          string
	Raised       bool
}

func (e *RenderError) Error() string {
	if e.Raised {
		return fmt.Sprintf("chat template: the template refused the messages (line %d, column %d): %s", e.Line, e.Column, e.Msg)
	}
	return fmt.Sprintf("chat template: error at line %d, column %d: %s", e.Line, e.Column, e.Msg)
}

// position turns a byte offset into a 1-based line and character column.
func position(src string, pos int) (line, col int) {
	if pos > len(src) {
		pos = len(src)
	}
	before := src[:pos]
	line = strings.Count(before, "\n") + 1
	col = utf8.RuneCountInString(before[strings.LastIndexByte(before, '\n')+1:]) + 1
	return line, col
}

func newSyntaxError(src string, pos int, format string, args ...any) *SyntaxError {
	line, col := position(src, pos)
	return &SyntaxError{Line: line, Column: col, Msg: fmt.Sprintf(format, args...)}
}

// evalError is an error raised while evaluating, before it is given the
// position of the expression it belongs to.
type evalError struct {
	msg    string
	raised bool
}

func (e *evalError) Error() string { return e.msg }

func errorf(format string, args ...any) error {
	return &evalError{msg: fmt.Sprintf(format, args...)}
}
