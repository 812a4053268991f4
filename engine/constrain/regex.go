package constrain

import (
	"regexp/syntax"
	"strings"
	"unicode"
)

// Regexp compiles a regular expression in Go's syntax (regexp/syntax, Perl
// flags) into the language of the texts it matches whole: "[0-9]{3}"
// allows exactly three digits. A leading ^ or \A and a trailing $ or \z
// say the same and are allowed; anchors elsewhere, and word boundaries,
// are refused, as they are not about the characters written.
func Regexp(pattern string) (*Grammar, error) {
	b := newBuilder("regular expression", pattern)
	n, _, _, err := parseRegexp(b, pattern, false, 0)
	if err != nil {
		return nil, err
	}
	root := b.rule("root", 0)
	b.rules[root].body = n
	return b.compile(root)
}

// parseRegexp parses pattern into a node; with json, its characters are
// written as they are inside a JSON string. It reports whether the pattern
// was anchored at its start and at its end. Errors point into b's text at
// offset base plus the position in pattern.
func parseRegexp(b *builder, pattern string, json bool, base int) (n *node, begin, end bool, err error) {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		pos := base
		if se, ok := err.(*syntax.Error); ok {
			if i := strings.Index(pattern, se.Expr); i >= 0 && se.Expr != "" {
				pos += i
			}
			return nil, false, false, b.errorf(pos, "%s: %s", se.Code, se.Expr)
		}
		return nil, false, false, b.errorf(pos, "%v", err)
	}
	// Anchors at the very start and end say "the whole text", which is
	// what the language means anyway.
	subs := []*syntax.Regexp{re}
	if re.Op == syntax.OpConcat {
		subs = re.Sub
	}
	for len(subs) > 0 && isBegin(subs[0].Op) {
		subs, begin = subs[1:], true
	}
	for len(subs) > 0 && isEnd(subs[len(subs)-1].Op) {
		subs, end = subs[:len(subs)-1], true
	}
	r := &regexConv{b: b, json: json, pos: base}
	n = seqNode(base)
	for _, s := range subs {
		k, err := r.conv(s, 0)
		if err != nil {
			return nil, false, false, err
		}
		n.kids = append(n.kids, k)
	}
	return n, begin, end, nil
}

func isBegin(op syntax.Op) bool { return op == syntax.OpBeginText || op == syntax.OpBeginLine }
func isEnd(op syntax.Op) bool   { return op == syntax.OpEndText || op == syntax.OpEndLine }

type regexConv struct {
	b    *builder
	json bool
	pos  int
}

func (r *regexConv) chars(ranges []runeRange) *node {
	if r.json {
		return jsonChars(ranges, r.pos)
	}
	return runeSet(ranges, r.pos)
}

func (r *regexConv) conv(re *syntax.Regexp, depth int) (*node, error) {
	if depth > MaxDepth {
		return nil, r.b.errorf(r.pos, "the expression nests more than %d deep", MaxDepth)
	}
	pos := r.pos
	kids := func() ([]*node, error) {
		var out []*node
		for _, s := range re.Sub {
			k, err := r.conv(s, depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, k)
		}
		return out, nil
	}
	switch re.Op {
	case syntax.OpNoMatch:
		return altNode(pos), nil
	case syntax.OpEmptyMatch:
		return seqNode(pos), nil
	case syntax.OpLiteral:
		n := seqNode(pos)
		for _, c := range re.Rune {
			ranges := []runeRange{{c, c}}
			if re.Flags&syntax.FoldCase != 0 {
				for f := unicode.SimpleFold(c); f != c; f = unicode.SimpleFold(f) {
					ranges = append(ranges, runeRange{f, f})
				}
			}
			n.kids = append(n.kids, r.chars(ranges))
		}
		return n, nil
	case syntax.OpCharClass:
		var ranges []runeRange
		for i := 0; i+1 < len(re.Rune); i += 2 {
			ranges = append(ranges, runeRange{re.Rune[i], re.Rune[i+1]})
		}
		return r.chars(ranges), nil
	case syntax.OpAnyCharNotNL:
		return r.chars([]runeRange{{0, '\n' - 1}, {'\n' + 1, unicode.MaxRune}}), nil
	case syntax.OpAnyChar:
		return r.chars([]runeRange{{0, unicode.MaxRune}}), nil
	case syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText:
		return nil, r.b.errorf(pos, "anchor %s is allowed only at the start or end of the expression", re)
	case syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return nil, r.b.errorf(pos, "word boundary %s is not supported", re)
	case syntax.OpCapture:
		return r.conv(re.Sub[0], depth+1)
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		k, err := r.conv(re.Sub[0], depth+1)
		if err != nil {
			return nil, err
		}
		lo, hi := re.Min, re.Max
		switch re.Op {
		case syntax.OpStar:
			lo, hi = 0, -1
		case syntax.OpPlus:
			lo, hi = 1, -1
		case syntax.OpQuest:
			lo, hi = 0, 1
		}
		return repeatNode(k, lo, hi, pos), nil
	case syntax.OpConcat:
		ks, err := kids()
		return seqNode(pos, ks...), err
	case syntax.OpAlternate:
		ks, err := kids()
		return altNode(pos, ks...), err
	}
	return nil, r.b.errorf(pos, "unsupported construct %s", re)
}
