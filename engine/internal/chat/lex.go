package chat

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// tokenKind is the kind of a lexical token.
type tokenKind int

const (
	tokEOF        tokenKind = iota
	tokData                 // literal text between tags
	tokVarBegin             // {{
	tokVarEnd               // }}
	tokBlockBegin           // {%
	tokBlockEnd             // %}
	tokName                 // identifier or keyword
	tokString               // string literal, already unescaped
	tokInt                  // integer literal
	tokFloat                // float literal
	tokOp                   // operator or punctuation
)

func (k tokenKind) String() string {
	switch k {
	case tokEOF:
		return "end of template"
	case tokData:
		return "text"
	case tokVarBegin:
		return "'{{'"
	case tokVarEnd:
		return "'}}'"
	case tokBlockBegin:
		return "'{%'"
	case tokBlockEnd:
		return "'%}'"
	case tokName:
		return "name"
	case tokString:
		return "string"
	case tokInt:
		return "integer"
	case tokFloat:
		return "float"
	}
	return "operator"
}

// token is one lexical token; pos is its byte offset in the normalized
// source.
type token struct {
	kind tokenKind
	val  string
	pos  int
}

func (t token) describe() string {
	switch t.kind {
	case tokName, tokOp:
		return "'" + t.val + "'"
	case tokString:
		return "string " + quoteRepr(t.val)
	case tokInt, tokFloat:
		return t.kind.String() + " " + t.val
	}
	return t.kind.String()
}

// operators, longest first so that "//" wins over "/".
var operators = []string{
	"//", "**", "==", "!=", ">=", "<=",
	"+", "-", "*", "/", "%", "~", "<", ">", "=", "(", ")", "[", "]", "{", "}", ",", ".", ":", "|", ";",
}

// normalize makes the source what Jinja lexes: every line ending becomes
// "\n", and one trailing newline is dropped (keep_trailing_newline is off).
func normalize(src string) string {
	src = strings.ReplaceAll(src, "\r\n", "\n")
	src = strings.ReplaceAll(src, "\r", "\n")
	return strings.TrimSuffix(src, "\n")
}

// lexer splits a normalized source into tokens, applying the whitespace
// rules Hugging Face sets for chat templates: trim_blocks (drop the newline
// after a block or comment tag), lstrip_blocks (drop the spaces and tabs
// that precede a block or comment tag on its line), and the explicit "-"
// and "+" markers inside tags.
type lexer struct {
	src  string
	pos  int
	toks []token
	// lineStart reports whether the text before pos was ended by a newline
	// that the previous tag consumed, so that lstrip_blocks applies to a
	// tag at the very beginning of the following text.
	lineStart bool
}

func lex(src string) ([]token, error) {
	lx := &lexer{src: src, lineStart: true}
	if err := lx.run(); err != nil {
		return nil, err
	}
	lx.toks = append(lx.toks, token{kind: tokEOF, pos: len(src)})
	return lx.toks, nil
}

func (lx *lexer) errorf(pos int, format string, args ...any) error {
	return newSyntaxError(lx.src, pos, format, args...)
}

// nextTag finds the next "{{", "{%" or "{#" at or after from.
func nextTag(src string, from int) int {
	for i := from; ; {
		j := strings.IndexByte(src[i:], '{')
		if j < 0 || i+j+1 >= len(src) {
			return -1
		}
		i += j
		if c := src[i+1]; c == '{' || c == '%' || c == '#' {
			return i
		}
		i++
	}
}

func (lx *lexer) run() error {
	src := lx.src
	for lx.pos < len(src) {
		at := nextTag(src, lx.pos)
		if at < 0 {
			lx.emitText(src[lx.pos:], lx.pos)
			return nil
		}
		kind := src[at+1]
		marker := byte(0)
		if at+2 < len(src) && (src[at+2] == '-' || src[at+2] == '+') {
			marker = src[at+2]
		}
		text := src[lx.pos:at]
		switch {
		case marker == '-':
			text = strings.TrimRightFunc(text, unicode.IsSpace)
		case marker != '+' && kind != '{':
			text = lx.lstrip(text)
		}
		lx.emitText(text, lx.pos)
		open := at + 2
		if marker != 0 {
			open++
		}
		var err error
		switch kind {
		case '#':
			err = lx.comment(at, open)
		case '{':
			lx.toks = append(lx.toks, token{kind: tokVarBegin, pos: at})
			lx.pos = open
			err = lx.inside(at, tokVarEnd)
		case '%':
			if end, ok := lx.rawBegin(open); ok {
				err = lx.raw(at, end)
			} else {
				lx.toks = append(lx.toks, token{kind: tokBlockBegin, pos: at})
				lx.pos = open
				err = lx.inside(at, tokBlockEnd)
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// lstrip implements lstrip_blocks for the text before a block or comment
// tag: if only whitespace lies between the last line break (or the start of
// a line) and the tag, that whitespace goes.
func (lx *lexer) lstrip(text string) string {
	l := strings.LastIndexByte(text, '\n') + 1
	if l == 0 && !lx.lineStart {
		return text
	}
	rest := text[l:]
	if rest == "" || strings.TrimLeftFunc(rest, unicode.IsSpace) != "" {
		return text
	}
	return text[:l]
}

func (lx *lexer) emitText(text string, pos int) {
	if text != "" {
		lx.toks = append(lx.toks, token{kind: tokData, val: text, pos: pos})
	}
}

// afterTag moves past a closing tag that ends at end, honouring its marker:
// "-" eats all following whitespace, "+" keeps it, and without a marker
// trimNewline says whether one newline is dropped (trim_blocks).
func (lx *lexer) afterTag(end int, marker byte, trimNewline bool) {
	start := end
	switch {
	case marker == '-':
		for end < len(lx.src) {
			r, n := utf8.DecodeRuneInString(lx.src[end:])
			if !unicode.IsSpace(r) {
				break
			}
			end += n
		}
	case marker != '+' && trimNewline && end < len(lx.src) && lx.src[end] == '\n':
		end++
	}
	lx.lineStart = end > start && lx.src[end-1] == '\n'
	lx.pos = end
}

func (lx *lexer) comment(at, open int) error {
	i := strings.Index(lx.src[open:], "#}")
	if i < 0 {
		return lx.errorf(at, "comment is not closed: missing '#}'")
	}
	end := open + i
	marker := byte(0)
	if end > open && (lx.src[end-1] == '-' || lx.src[end-1] == '+') {
		marker = lx.src[end-1]
	}
	lx.afterTag(end+2, marker, true)
	return nil
}

// rawBegin reports whether the block tag whose body starts at open is
// "raw", and where that tag ends.
func (lx *lexer) rawBegin(open int) (int, bool) {
	i := skipSpace(lx.src, open)
	if !strings.HasPrefix(lx.src[i:], "raw") {
		return 0, false
	}
	i = skipSpace(lx.src, i+3)
	if i < len(lx.src) && lx.src[i] == '-' {
		i++
	}
	if !strings.HasPrefix(lx.src[i:], "%}") {
		return 0, false
	}
	return i, true
}

// raw copies everything up to the matching endraw tag as text. The tag
// that opens it ends at end (pointing at "%}").
func (lx *lexer) raw(at, end int) error {
	marker := byte(0)
	if lx.src[end-1] == '-' {
		marker = '-'
	}
	// trim_blocks does not apply after the raw tag itself.
	lx.afterTag(end+2, marker, false)
	body := lx.pos
	for i := body; ; {
		j := strings.Index(lx.src[i:], "{%")
		if j < 0 {
			return lx.errorf(at, "raw block is not closed: missing '{%% endraw %%}'")
		}
		tag := i + j
		k := tag + 2
		m := byte(0)
		if k < len(lx.src) && (lx.src[k] == '-' || lx.src[k] == '+') {
			m = lx.src[k]
			k++
		}
		k = skipSpace(lx.src, k)
		if !strings.HasPrefix(lx.src[k:], "endraw") {
			i = tag + 2
			continue
		}
		k = skipSpace(lx.src, k+6)
		em := byte(0)
		if k < len(lx.src) && (lx.src[k] == '-' || lx.src[k] == '+') {
			em = lx.src[k]
			k++
		}
		if !strings.HasPrefix(lx.src[k:], "%}") {
			return lx.errorf(tag, "expected '%%}' to close endraw")
		}
		text := lx.src[body:tag]
		switch {
		case m == '-':
			text = strings.TrimRightFunc(text, unicode.IsSpace)
		case m != '+':
			text = lx.lstrip(text)
		}
		lx.emitText(text, body)
		lx.afterTag(k+2, em, true)
		return nil
	}
}

func skipSpace(s string, i int) int {
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !unicode.IsSpace(r) {
			break
		}
		i += n
	}
	return i
}

// inside lexes the expression tokens of a {{ }} or {% %} tag opened at at,
// up to and including its end token. Inside brackets an end marker is not
// an end, as in Jinja: "{{ {'a': {'b': 1}} }}" is one expression.
func (lx *lexer) inside(at int, end tokenKind) error {
	src := lx.src
	closer := "}}"
	if end == tokBlockEnd {
		closer = "%}"
	}
	depth := 0
	for {
		lx.pos = skipSpace(src, lx.pos)
		i := lx.pos
		if i >= len(src) {
			return lx.errorf(at, "tag is not closed: missing '%s'", closer)
		}
		if depth == 0 {
			if strings.HasPrefix(src[i:], closer) {
				lx.toks = append(lx.toks, token{kind: end, pos: i})
				lx.afterTag(i+2, 0, end == tokBlockEnd)
				return nil
			}
			if (src[i] == '-' || (src[i] == '+' && end == tokBlockEnd)) && strings.HasPrefix(src[i+1:], closer) {
				lx.toks = append(lx.toks, token{kind: end, pos: i})
				lx.afterTag(i+3, src[i], end == tokBlockEnd)
				return nil
			}
		}
		c := src[i]
		switch {
		case c == '\'' || c == '"':
			s, n, err := lx.stringLit(i)
			if err != nil {
				return err
			}
			lx.toks = append(lx.toks, token{kind: tokString, val: s, pos: i})
			lx.pos = i + n
		case c >= '0' && c <= '9':
			kind, n := numberLit(src[i:])
			if i > 0 && src[i-1] == '.' {
				// After a dot, as in "x.0.1", digits are an item index,
				// never a float.
				kind, n = tokInt, digits(src[i:])
			}
			lx.toks = append(lx.toks, token{kind: kind, val: strings.ReplaceAll(src[i:i+n], "_", ""), pos: i})
			lx.pos = i + n
		case isNameStart(src[i:]):
			n := nameLen(src[i:])
			lx.toks = append(lx.toks, token{kind: tokName, val: src[i : i+n], pos: i})
			lx.pos = i + n
		default:
			op := ""
			for _, o := range operators {
				if strings.HasPrefix(src[i:], o) {
					op = o
					break
				}
			}
			if op == "" {
				r, _ := utf8.DecodeRuneInString(src[i:])
				return lx.errorf(i, "unexpected character %q", r)
			}
			switch op {
			case "(", "[", "{":
				depth++
			case ")", "]", "}":
				if depth == 0 {
					return lx.errorf(i, "unexpected '%s'", op)
				}
				depth--
			}
			lx.toks = append(lx.toks, token{kind: tokOp, val: op, pos: i})
			lx.pos = i + len(op)
		}
	}
}

func isNameStart(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return r == '_' || unicode.IsLetter(r)
}

func nameLen(s string) int {
	n := 0
	for n < len(s) {
		r, w := utf8.DecodeRuneInString(s[n:])
		if r != '_' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			break
		}
		n += w
	}
	return n
}

// digits returns the length of a run of digits with single underscores
// between them, as Python allows in numeric literals.
func digits(s string) int {
	n := 0
	for n < len(s) {
		if s[n] >= '0' && s[n] <= '9' {
			n++
		} else if s[n] == '_' && n > 0 && n+1 < len(s) && s[n+1] >= '0' && s[n+1] <= '9' {
			n++
		} else {
			break
		}
	}
	return n
}

// numberLit measures the integer or float literal at the start of s.
func numberLit(s string) (tokenKind, int) {
	n := digits(s)
	kind := tokInt
	if n+1 < len(s) && s[n] == '.' && s[n+1] >= '0' && s[n+1] <= '9' {
		n += 1 + digits(s[n+1:])
		kind = tokFloat
	}
	if n < len(s) && (s[n] == 'e' || s[n] == 'E') {
		m := n + 1
		if m < len(s) && (s[m] == '+' || s[m] == '-') {
			m++
		}
		if d := digits(s[m:]); d > 0 {
			n = m + d
			kind = tokFloat
		}
	}
	return kind, n
}

// stringLit reads the quoted literal at i and returns its value with
// Python's backslash escapes resolved, and its length in the source.
func (lx *lexer) stringLit(i int) (string, int, error) {
	src := lx.src
	q := src[i]
	var b strings.Builder
	j := i + 1
	for {
		if j >= len(src) {
			return "", 0, lx.errorf(i, "string literal is not closed")
		}
		c := src[j]
		if c == q {
			return b.String(), j + 1 - i, nil
		}
		if c != '\\' {
			b.WriteByte(c)
			j++
			continue
		}
		if j+1 >= len(src) {
			return "", 0, lx.errorf(i, "string literal is not closed")
		}
		e := src[j+1]
		j += 2
		switch e {
		case '\n':
			// A backslash before a line break continues the string.
		case '\\', '\'', '"':
			b.WriteByte(e)
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'v':
			b.WriteByte('\v')
		case '0', '1', '2', '3', '4', '5', '6', '7':
			v, k := int(e-'0'), 0
			for k < 2 && j < len(src) && src[j] >= '0' && src[j] <= '7' {
				v = v*8 + int(src[j]-'0')
				j++
				k++
			}
			b.WriteRune(rune(v))
		case 'x', 'u', 'U':
			n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
			if j+n > len(src) {
				return "", 0, lx.errorf(j-2, "truncated \\%c escape in string literal", e)
			}
			v := 0
			for _, h := range src[j : j+n] {
				d := hexDigit(h)
				if d < 0 {
					return "", 0, lx.errorf(j-2, "bad \\%c escape in string literal", e)
				}
				v = v*16 + d
			}
			if v > unicode.MaxRune {
				return "", 0, lx.errorf(j-2, "\\%c escape out of range in string literal", e)
			}
			b.WriteRune(rune(v))
			j += n
		default:
			// Python keeps unknown escapes as written.
			b.WriteByte('\\')
			b.WriteByte(e)
		}
	}
}

func hexDigit(r rune) int {
	switch {
	case r >= '0' && r <= '9':
		return int(r - '0')
	case r >= 'a' && r <= 'f':
		return int(r-'a') + 10
	case r >= 'A' && r <= 'F':
		return int(r-'A') + 10
	}
	return -1
}
