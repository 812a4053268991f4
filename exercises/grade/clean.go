package main

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// What a report shows comes partly from graded code: values it returned,
// printed in a test's message, and what it printed itself in the raw
// record. Before any report is written, finish makes every text safe to
// show: valid UTF-8 without control characters (which XML forbids and
// terminals obey), and nothing from a hidden test unless the instructor
// asked for it.

// cleanText makes s valid UTF-8 and drops control characters, keeping
// newlines and tabs.
func cleanText(s string) string {
	if utf8.ValidString(s) && !strings.ContainsFunc(s, isControl) {
		return s
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	return strings.Map(func(r rune) rune {
		if isControl(r) {
			return -1
		}
		return r
	}, s)
}

// isControl reports the characters a report never shows: C0 and C1
// controls but newline and tab (carriage return included, with which a
// terminal would write over the start of a line), the code points XML 1.0
// excludes, and the other characters that end or reorder lines.
func isControl(r rune) bool {
	if r == '\n' || r == '\t' {
		return false
	}
	return unicode.IsControl(r) || r == 0xFFFE || r == 0xFFFF || unicode.Is(unicode.Cs, r) ||
		r == 0x2028 || r == 0x2029 || // line and paragraph separators, which some viewers break lines at
		(r >= 0x202A && r <= 0x202E) || (r >= 0x2066 && r <= 0x2069) // text-direction overrides
}

// hiddenMessage is what a report says of a hidden test that did not pass,
// in place of what it printed.
func hiddenMessage(status string) string {
	switch status {
	case StatusFail:
		return "a hidden test failed: the instructor's tests check cases the public tests do not (their messages are for the instructor)"
	case StatusError:
		return "a hidden test crashed or could not run (details are for the instructor)"
	}
	return ""
}

// finish cleans every text of the report and, unless the instructor asked
// for details, replaces what hidden tests printed.
func (rep *Report) finish() {
	for i, note := range rep.Notes {
		rep.Notes[i] = cleanText(note)
	}
	for _, er := range rep.Exercises {
		er.Missing, er.Compile = cleanText(er.Missing), cleanText(er.Compile)
		for i, note := range er.Notes {
			er.Notes[i] = cleanText(note)
		}
		for i := range er.Results {
			r := &er.Results[i]
			r.Message, r.output = cleanText(r.Message), cleanText(r.output)
			if r.Hidden && !rep.HiddenDetails && r.Message != hiddenBuildMessage {
				if msg := hiddenMessage(r.Status); msg != "" {
					r.Message = msg
				}
				r.output = ""
			}
		}
	}
}

// mdText escapes s for a Markdown cell or line: every ASCII punctuation
// character becomes a character reference, so nothing in it can become a
// link, an image, emphasis, HTML or a table's edge, and a URL is not
// turned into a link; newlines become spaces.
func mdText(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n' || r == '\t':
			b.WriteByte(' ')
		case r < 0x80 && unicode.IsPunct(r) || r < 0x80 && unicode.IsSymbol(r):
			fmt.Fprintf(&b, "&#%d;", r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
