package constrain

import (
	"slices"
	"strconv"
	"unicode"
	"unicode/utf8"
)

// ParseGrammar compiles a grammar in a small EBNF (the format of llama.cpp's
// GBNF grammars). The language is that of the rule named root.
//
//	# a comment runs to the end of the line
//	root   ::= "SELECT " cols " FROM " name
//	cols   ::= "*" | name (", " name)*
//	name   ::= [a-z_] [a-z0-9_]*
//
// A rule is name ::= alternatives separated by |; it runs until the next
// "name ::=". An alternative is a sequence of: string literals in double
// quotes ("\n", "\"", "\\", "\xHH", "\uHHHH" and "\UHHHHHHHH" escapes),
// character classes ([a-z], [^"\\], with the same escapes), . (any
// character), rule names, and parentheses; each may be followed by *, +,
// ?, {m}, {m,} or {m,n}. Characters are Unicode code points, written in
// UTF-8. Rules may refer to each other, and to themselves, but not on the
// left: a rule that can reach itself before reading a byte is refused.
func ParseGrammar(src string) (*Grammar, error) {
	p := &gparser{b: newBuilder("grammar", src), src: src}
	for {
		p.space(true)
		if p.eof() {
			break
		}
		start := p.i
		name := p.name()
		if name == "" {
			return nil, p.errorf("expected a rule name, found %s", p.found())
		}
		p.space(true)
		if !p.take("::=") {
			return nil, p.errorf("expected ::= after the rule name %q, found %s", name, p.found())
		}
		id := p.b.rule(name, start)
		if p.b.rules[id].defined {
			return nil, p.b.errorf(start, "rule %q is defined twice", name)
		}
		p.b.rules[id].defined, p.b.rules[id].pos = true, start
		body, err := p.alternatives(0)
		if err != nil {
			return nil, err
		}
		p.b.rules[id].body = body
	}
	root, ok := p.b.names["root"]
	if !ok || !p.b.rules[root].defined {
		return nil, p.b.errorf(0, "the grammar has no rule named root, where its language starts")
	}
	return p.b.compile(root)
}

type gparser struct {
	b   *builder
	src string
	i   int
}

func (p *gparser) eof() bool { return p.i >= len(p.src) }

func (p *gparser) errorf(format string, args ...any) error {
	return p.b.errorf(p.i, format, args...)
}

func (p *gparser) found() string {
	if p.eof() {
		return "the end of the grammar"
	}
	r, _ := utf8.DecodeRuneInString(p.src[p.i:])
	return strconv.QuoteRune(r)
}

func (p *gparser) take(s string) bool {
	if len(p.src)-p.i >= len(s) && p.src[p.i:p.i+len(s)] == s {
		p.i += len(s)
		return true
	}
	return false
}

// space skips blanks, newlines and comments.
func (p *gparser) space(newlines bool) {
	for !p.eof() {
		switch c := p.src[p.i]; {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n' && newlines:
			p.i++
		case c == '#':
			for !p.eof() && p.src[p.i] != '\n' {
				p.i++
			}
		default:
			return
		}
	}
}

func isNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

func (p *gparser) name() string {
	start := p.i
	for !p.eof() && isNameByte(p.src[p.i]) {
		p.i++
	}
	return p.src[start:p.i]
}

// ruleStart reports whether a new rule, "name ::=", starts at p.i.
func (p *gparser) ruleStart() bool {
	save := p.i
	defer func() { p.i = save }()
	if p.name() == "" {
		return false
	}
	p.space(true)
	return p.take("::=")
}

func (p *gparser) alternatives(depth int) (*node, error) {
	if depth > MaxDepth {
		return nil, p.errorf("parentheses nest more than %d deep", MaxDepth)
	}
	alt := altNode(p.i)
	for {
		seq, err := p.sequence(depth)
		if err != nil {
			return nil, err
		}
		alt.kids = append(alt.kids, seq)
		p.space(true)
		if !p.take("|") {
			break
		}
	}
	if len(alt.kids) == 1 {
		return alt.kids[0], nil
	}
	return alt, nil
}

func (p *gparser) sequence(depth int) (*node, error) {
	seq := seqNode(p.i)
	for {
		p.space(true)
		if p.eof() || p.src[p.i] == '|' || p.src[p.i] == ')' || p.ruleStart() {
			return seq, nil
		}
		n, err := p.primary(depth)
		if err != nil {
			return nil, err
		}
		if n, err = p.postfix(n); err != nil {
			return nil, err
		}
		seq.kids = append(seq.kids, n)
	}
}

func (p *gparser) primary(depth int) (*node, error) {
	start := p.i
	switch c := p.src[p.i]; {
	case c == '"':
		p.i++
		var text []byte
		for {
			if p.eof() || p.src[p.i] == '\n' {
				return nil, p.b.errorf(start, "string literal is not closed")
			}
			if p.src[p.i] == '"' {
				p.i++
				break
			}
			r, err := p.char()
			if err != nil {
				return nil, err
			}
			text = utf8.AppendRune(text, r)
		}
		return literal(string(text), start), nil
	case c == '[':
		return p.class()
	case c == '.':
		p.i++
		return runeSet([]runeRange{{0, unicode.MaxRune}}, start), nil
	case c == '(':
		p.i++
		n, err := p.alternatives(depth + 1)
		if err != nil {
			return nil, err
		}
		p.space(true)
		if !p.take(")") {
			return nil, p.b.errorf(start, "parenthesis is not closed (found %s)", p.found())
		}
		return n, nil
	case isNameByte(c):
		name := p.name()
		return refNode(p.b.rule(name, start), start), nil
	}
	return nil, p.errorf("unexpected %s: expected a string, a [class], a rule name or (", p.found())
}

// char reads one character of a literal or class, with its escape.
func (p *gparser) char() (rune, error) {
	start := p.i
	if p.src[p.i] != '\\' {
		r, size := utf8.DecodeRuneInString(p.src[p.i:])
		if r == utf8.RuneError && size <= 1 {
			return 0, p.errorf("invalid UTF-8 byte 0x%02x", p.src[p.i])
		}
		p.i += size
		return r, nil
	}
	p.i++
	if p.eof() {
		return 0, p.b.errorf(start, "escape at the end of the grammar")
	}
	c := p.src[p.i]
	p.i++
	hex := 0
	switch c {
	case 'n':
		return '\n', nil
	case 'r':
		return '\r', nil
	case 't':
		return '\t', nil
	case 'x':
		hex = 2
	case 'u':
		hex = 4
	case 'U':
		hex = 8
	case '\\', '"', '[', ']', '-', '^', '/', '\'':
		return rune(c), nil
	default:
		return 0, p.b.errorf(start, "unknown escape \\%c", c)
	}
	if len(p.src)-p.i < hex {
		return 0, p.b.errorf(start, "escape \\%c needs %d hex digits", c, hex)
	}
	v, err := strconv.ParseUint(p.src[p.i:p.i+hex], 16, 32)
	if err != nil || v > unicode.MaxRune || v >= 0xD800 && v <= 0xDFFF {
		return 0, p.b.errorf(start, "escape \\%c%s is not a Unicode code point", c, p.src[p.i:p.i+hex])
	}
	p.i += hex
	return rune(v), nil
}

func (p *gparser) class() (*node, error) {
	start := p.i
	p.i++ // [
	negate := p.take("^")
	var ranges []runeRange
	for {
		if p.eof() || p.src[p.i] == '\n' {
			return nil, p.b.errorf(start, "character class is not closed")
		}
		if p.src[p.i] == ']' {
			p.i++
			break
		}
		lo, err := p.char()
		if err != nil {
			return nil, err
		}
		hi := lo
		if p.i+1 < len(p.src) && p.src[p.i] == '-' && p.src[p.i+1] != ']' {
			at := p.i
			p.i++
			if hi, err = p.char(); err != nil {
				return nil, err
			}
			if hi < lo {
				return nil, p.b.errorf(at, "range %q-%q goes backwards", lo, hi)
			}
		}
		ranges = append(ranges, runeRange{lo, hi})
	}
	if negate {
		ranges = complement(ranges)
	}
	return runeSet(ranges, start), nil
}

// complement returns the code points not in ranges.
func complement(ranges []runeRange) []runeRange {
	slices.SortFunc(ranges, func(a, b runeRange) int { return int(a.lo - b.lo) })
	var out []runeRange
	next := rune(0)
	for _, r := range ranges {
		if r.lo > next {
			out = append(out, runeRange{next, r.lo - 1})
		}
		next = max(next, r.hi+1)
	}
	if next <= unicode.MaxRune {
		out = append(out, runeRange{next, unicode.MaxRune})
	}
	return out
}

func (p *gparser) postfix(n *node) (*node, error) {
	for !p.eof() {
		start := p.i
		switch p.src[p.i] {
		case '*':
			p.i++
			n = repeatNode(n, 0, -1, start)
		case '+':
			p.i++
			n = repeatNode(n, 1, -1, start)
		case '?':
			p.i++
			n = repeatNode(n, 0, 1, start)
		case '{':
			p.i++
			lo, ok := p.number()
			if !ok {
				return nil, p.b.errorf(start, "expected a count after {, found %s", p.found())
			}
			hi := lo
			if p.take(",") {
				hi = -1
				if v, ok := p.number(); ok {
					hi = v
				}
			}
			if !p.take("}") {
				return nil, p.b.errorf(start, "repetition is not closed with }, found %s", p.found())
			}
			if lo > MaxRepeat || hi > MaxRepeat {
				return nil, p.b.errorf(start, "repetition count %d is above the limit of %d", max(lo, hi), MaxRepeat)
			}
			n = repeatNode(n, lo, hi, start)
		default:
			return n, nil
		}
	}
	return n, nil
}

// number reads a decimal count, saturating far above MaxRepeat.
func (p *gparser) number() (int, bool) {
	p.space(false)
	start := p.i
	v := 0
	for !p.eof() && p.src[p.i] >= '0' && p.src[p.i] <= '9' {
		v = min(v*10+int(p.src[p.i]-'0'), 1<<30)
		p.i++
	}
	p.space(false)
	return v, p.i > start
}
