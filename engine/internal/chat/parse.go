package chat

import (
	"math/big"
	"strconv"
	"strings"
)

// Statements.
type (
	node any

	textNode struct{ text string }

	outputNode struct {
		pos int
		x   expr
	}

	ifNode struct {
		pos    int
		conds  []expr
		bodies [][]node
		els    []node
	}

	forNode struct {
		pos       int
		target    assignTarget
		iter      expr
		cond      expr // nil without an "if" clause
		body, els []node
	}

	// setNode is "{% set target = x %}"; with body set instead of x it is
	// the block form "{% set name %}...{% endset %}".
	setNode struct {
		pos     int
		target  assignTarget
		x       expr
		body    []node
		filters []*filterExpr // applied to the block form's text
	}

	macroNode struct {
		pos      int
		name     string
		params   []string
		defaults []expr // one per param, nil where there is none
		body     []node
	}

	filterBlockNode struct {
		pos     int
		filters []*filterExpr
		body    []node
	}

	loopControlNode struct {
		pos int
		brk bool
	}

	// scopeNode runs its body in a new scope: "with", "block" and the
	// "generation" tag Hugging Face defines (a marker for training masks
	// that renders its body unchanged).
	scopeNode struct {
		pos   int
		names []string
		vals  []expr
		body  []node
	}
)

// assignTarget is what a for loop or a set binds: one name, several names
// unpacked from a sequence, or an attribute of a namespace.
type assignTarget struct {
	pos   int
	names []string
	tuple bool
	attr  string // for "ns.attr": names[0] is the namespace
}

// Expressions.
type (
	expr interface{ position() int }

	constExpr struct {
		pos int
		v   any
	}
	nameExpr struct {
		pos  int
		name string
	}
	listExpr struct {
		pos   int
		items []expr
	}
	tupleExpr struct {
		pos   int
		items []expr
	}
	dictExpr struct {
		pos        int
		keys, vals []expr
	}
	attrExpr struct {
		pos  int
		x    expr
		name string
	}
	indexExpr struct {
		pos      int
		x, index expr
	}
	sliceExpr struct {
		pos             int
		x, lo, hi, step expr
	}
	callExpr struct {
		pos  int
		fn   expr
		args callArgs
	}
	filterExpr struct {
		pos  int
		x    expr // nil in a filter block, where the body's text is the input
		name string
		args callArgs
	}
	testExpr struct {
		pos    int
		x      expr
		name   string
		args   callArgs
		negate bool
	}
	unaryExpr struct {
		pos int
		op  string
		x   expr
	}
	binExpr struct {
		pos  int
		op   string
		l, r expr
	}
	compareExpr struct {
		pos   int
		first expr
		ops   []string
		rest  []expr
	}
	condExpr struct {
		pos             int
		cond, then, els expr
	}
)

type callArgs struct {
	pos     []expr
	kwNames []string
	kwVals  []expr
}

func (e *constExpr) position() int   { return e.pos }
func (e *nameExpr) position() int    { return e.pos }
func (e *listExpr) position() int    { return e.pos }
func (e *tupleExpr) position() int   { return e.pos }
func (e *dictExpr) position() int    { return e.pos }
func (e *attrExpr) position() int    { return e.pos }
func (e *indexExpr) position() int   { return e.pos }
func (e *sliceExpr) position() int   { return e.pos }
func (e *callExpr) position() int    { return e.pos }
func (e *filterExpr) position() int  { return e.pos }
func (e *testExpr) position() int    { return e.pos }
func (e *unaryExpr) position() int   { return e.pos }
func (e *binExpr) position() int     { return e.pos }
func (e *compareExpr) position() int { return e.pos }
func (e *condExpr) position() int    { return e.pos }

type parser struct {
	src  string
	toks []token
	i    int
	// loops counts the for loops around the current tag, so that break
	// and continue outside one are refused; a macro's body starts at 0.
	loops int
	depth int // nesting of tags and expressions, bounded by maxNesting
}

// maxNesting bounds how deeply tags and expressions nest, so that parsing
// and rendering, which recurse, use bounded stack.
const maxNesting = 1000

func (p *parser) enter() error {
	p.depth++
	if p.depth > maxNesting {
		return p.errorf(p.cur().pos, "tags or expressions nested more than %d deep", maxNesting)
	}
	return nil
}

func (p *parser) leave() { p.depth-- }

func parse(src string) ([]node, error) {
	toks, err := lex(src)
	if err != nil {
		return nil, err
	}
	p := &parser{src: src, toks: toks}
	body, end, err := p.body(nil, "", 0)
	if err != nil {
		return nil, err
	}
	if end != "" {
		return nil, p.errorf(p.cur().pos, "unexpected '%s'", end)
	}
	return body, nil
}

func (p *parser) cur() token  { return p.toks[p.i] }
func (p *parser) peek() token { return p.toks[min(p.i+1, len(p.toks)-1)] }
func (p *parser) next() token {
	t := p.toks[p.i]
	if p.i < len(p.toks)-1 {
		p.i++
	}
	return t
}

func (p *parser) errorf(pos int, format string, args ...any) error {
	return newSyntaxError(p.src, pos, format, args...)
}

func (p *parser) isOp(v string) bool {
	t := p.cur()
	return t.kind == tokOp && t.val == v
}

func (p *parser) isName(v string) bool {
	t := p.cur()
	return t.kind == tokName && t.val == v
}

func (p *parser) expectOp(v string) error {
	if !p.isOp(v) {
		return p.errorf(p.cur().pos, "expected '%s', found %s", v, p.cur().describe())
	}
	p.next()
	return nil
}

func (p *parser) expectName() (token, error) {
	t := p.cur()
	if t.kind != tokName {
		return t, p.errorf(t.pos, "expected a name, found %s", t.describe())
	}
	p.next()
	return t, nil
}

func (p *parser) expectBlockEnd() error {
	if p.cur().kind != tokBlockEnd {
		return p.errorf(p.cur().pos, "expected '%%}', found %s", p.cur().describe())
	}
	p.next()
	return nil
}

// body parses statements until a block tag named in ends. It returns the
// name of that tag, with the parser just after the name, or "" at the end
// of the template (an error if an end was expected: opener names the open
// tag and openPos where it is).
func (p *parser) body(ends []string, opener string, openPos int) ([]node, string, error) {
	var out []node
	for {
		t := p.cur()
		switch t.kind {
		case tokEOF:
			if len(ends) > 0 {
				line, _ := position(p.src, openPos)
				return nil, "", p.errorf(t.pos, "unexpected end of template: expected %s to close the '%s' on line %d", quoteList(ends), opener, line)
			}
			return out, "", nil
		case tokData:
			p.next()
			out = append(out, &textNode{text: t.val})
		case tokVarBegin:
			p.next()
			x, err := p.tuple(true, false)
			if err != nil {
				return nil, "", err
			}
			if p.cur().kind != tokVarEnd {
				return nil, "", p.errorf(p.cur().pos, "expected '}}', found %s", p.cur().describe())
			}
			p.next()
			out = append(out, &outputNode{pos: x.position(), x: x})
		case tokBlockBegin:
			p.next()
			name := p.cur()
			if name.kind != tokName {
				return nil, "", p.errorf(name.pos, "expected a tag name, found %s", name.describe())
			}
			for _, e := range ends {
				if name.val == e {
					p.next()
					return out, e, nil
				}
			}
			if knownEnds[name.val] && len(ends) > 0 {
				line, _ := position(p.src, openPos)
				return nil, "", p.errorf(name.pos, "unexpected '%s': expected %s to close the '%s' on line %d", name.val, quoteList(ends), opener, line)
			}
			n, err := p.statement()
			if err != nil {
				return nil, "", err
			}
			out = append(out, n)
		default:
			return nil, "", p.errorf(t.pos, "unexpected %s", t.describe())
		}
	}
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "'" + n + "'"
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

// knownEnds are tags that only close or continue another.
var knownEnds = map[string]bool{
	"endif": true, "elif": true, "else": true, "endfor": true, "endset": true, "endmacro": true,
	"endfilter": true, "endwith": true, "endblock": true, "endgeneration": true, "endcall": true, "endraw": true,
}

func (p *parser) statement() (node, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	t := p.next()
	switch t.val {
	case "if":
		return p.ifStmt(t.pos)
	case "for":
		return p.forStmt(t.pos)
	case "set":
		return p.setStmt(t.pos)
	case "macro":
		return p.macroStmt(t.pos)
	case "filter":
		return p.filterStmt(t.pos)
	case "break", "continue":
		if p.loops == 0 {
			return nil, p.errorf(t.pos, "'%s' outside a for loop", t.val)
		}
		if err := p.expectBlockEnd(); err != nil {
			return nil, err
		}
		return &loopControlNode{pos: t.pos, brk: t.val == "break"}, nil
	case "with":
		return p.withStmt(t.pos)
	case "block", "generation":
		if t.val == "block" {
			if _, err := p.expectName(); err != nil {
				return nil, err
			}
			if p.isName("scoped") || p.isName("required") {
				p.next()
			}
		}
		if err := p.expectBlockEnd(); err != nil {
			return nil, err
		}
		end := "end" + t.val
		body, _, err := p.body([]string{end}, t.val, t.pos)
		if err != nil {
			return nil, err
		}
		if t.val == "block" && p.cur().kind == tokName {
			p.next()
		}
		if err := p.expectBlockEnd(); err != nil {
			return nil, err
		}
		return &scopeNode{pos: t.pos, body: body}, nil
	case "include", "import", "from", "extends", "call":
		return nil, p.errorf(t.pos, "the '%s' tag is not supported in chat templates", t.val)
	}
	if knownEnds[t.val] {
		return nil, p.errorf(t.pos, "unexpected '%s': no open tag for it", t.val)
	}
	return nil, p.errorf(t.pos, "unknown tag '%s'", t.val)
}

func (p *parser) ifStmt(pos int) (node, error) {
	n := &ifNode{pos: pos}
	for {
		cond, err := p.tuple(false, false)
		if err != nil {
			return nil, err
		}
		if err := p.expectBlockEnd(); err != nil {
			return nil, err
		}
		body, end, err := p.body([]string{"elif", "else", "endif"}, "if", pos)
		if err != nil {
			return nil, err
		}
		n.conds = append(n.conds, cond)
		n.bodies = append(n.bodies, body)
		switch end {
		case "elif":
			continue
		case "else":
			if err := p.expectBlockEnd(); err != nil {
				return nil, err
			}
			els, _, err := p.body([]string{"endif"}, "if", pos)
			if err != nil {
				return nil, err
			}
			n.els = els
		}
		return n, p.expectBlockEnd()
	}
}

func (p *parser) forStmt(pos int) (node, error) {
	target, err := p.assignTarget(false)
	if err != nil {
		return nil, err
	}
	if !p.isName("in") {
		return nil, p.errorf(p.cur().pos, "expected 'in' in the for loop, found %s", p.cur().describe())
	}
	p.next()
	iter, err := p.tupleNoCond()
	if err != nil {
		return nil, err
	}
	n := &forNode{pos: pos, target: target, iter: iter}
	if p.isName("if") {
		p.next()
		if n.cond, err = p.expression(true); err != nil {
			return nil, err
		}
	}
	if p.isName("recursive") {
		return nil, p.errorf(p.cur().pos, "recursive loops are not supported in chat templates")
	}
	if err := p.expectBlockEnd(); err != nil {
		return nil, err
	}
	p.loops++
	body, end, err := p.body([]string{"endfor", "else"}, "for", pos)
	p.loops--
	if err != nil {
		return nil, err
	}
	n.body = body
	if end == "else" {
		if err := p.expectBlockEnd(); err != nil {
			return nil, err
		}
		if n.els, _, err = p.body([]string{"endfor"}, "for", pos); err != nil {
			return nil, err
		}
	}
	return n, p.expectBlockEnd()
}

// tupleNoCond parses a for loop's iterable: a conditional expression is
// not allowed there, as "if" starts the loop's filter.
func (p *parser) tupleNoCond() (expr, error) { return p.tuple(false, true) }

// assignTarget parses the names a for loop or set binds. withNamespace
// allows "ns.attr".
func (p *parser) assignTarget(withNamespace bool) (assignTarget, error) {
	pos := p.cur().pos
	if withNamespace && p.cur().kind == tokName && p.peek().kind == tokOp && p.peek().val == "." {
		ns := p.next()
		p.next()
		attr, err := p.expectName()
		if err != nil {
			return assignTarget{}, err
		}
		return assignTarget{pos: pos, names: []string{ns.val}, attr: attr.val}, nil
	}
	paren := p.isOp("(")
	if paren {
		p.next()
	}
	t := assignTarget{pos: pos}
	for {
		name, err := p.expectName()
		if err != nil {
			return t, err
		}
		if isReserved(name.val) {
			return t, p.errorf(name.pos, "cannot assign to '%s'", name.val)
		}
		t.names = append(t.names, name.val)
		if !p.isOp(",") {
			break
		}
		p.next()
		t.tuple = true
		if p.cur().kind != tokName {
			break
		}
	}
	if paren {
		t.tuple = true
		if err := p.expectOp(")"); err != nil {
			return t, err
		}
	}
	return t, nil
}

func isReserved(name string) bool {
	switch name {
	case "true", "false", "none", "True", "False", "None":
		return true
	}
	return false
}

func (p *parser) setStmt(pos int) (node, error) {
	target, err := p.assignTarget(true)
	if err != nil {
		return nil, err
	}
	n := &setNode{pos: pos, target: target}
	if p.isOp("=") {
		p.next()
		if n.x, err = p.tuple(true, false); err != nil {
			return nil, err
		}
		return n, p.expectBlockEnd()
	}
	if target.tuple || target.attr != "" {
		return nil, p.errorf(p.cur().pos, "expected '=' after the names to set, found %s", p.cur().describe())
	}
	for p.isOp("|") {
		f, err := p.filter(nil)
		if err != nil {
			return nil, err
		}
		n.filters = append(n.filters, f)
	}
	if err := p.expectBlockEnd(); err != nil {
		return nil, err
	}
	if n.body, _, err = p.body([]string{"endset"}, "set", pos); err != nil {
		return nil, err
	}
	if n.body == nil {
		n.body = []node{}
	}
	return n, p.expectBlockEnd()
}

func (p *parser) macroStmt(pos int) (node, error) {
	name, err := p.expectName()
	if err != nil {
		return nil, err
	}
	n := &macroNode{pos: pos, name: name.val}
	if err := p.expectOp("("); err != nil {
		return nil, err
	}
	for !p.isOp(")") {
		if len(n.params) > 0 {
			if err := p.expectOp(","); err != nil {
				return nil, err
			}
			if p.isOp(")") {
				break
			}
		}
		arg, err := p.expectName()
		if err != nil {
			return nil, err
		}
		var def expr
		if p.isOp("=") {
			p.next()
			if def, err = p.expression(true); err != nil {
				return nil, err
			}
		} else if len(n.defaults) > 0 && n.defaults[len(n.defaults)-1] != nil {
			return nil, p.errorf(arg.pos, "parameter '%s' without a default follows one with a default", arg.val)
		}
		n.params = append(n.params, arg.val)
		n.defaults = append(n.defaults, def)
	}
	p.next()
	if err := p.expectBlockEnd(); err != nil {
		return nil, err
	}
	loops := p.loops
	p.loops = 0
	n.body, _, err = p.body([]string{"endmacro"}, "macro", pos)
	p.loops = loops
	if err != nil {
		return nil, err
	}
	if p.cur().kind == tokName {
		p.next()
	}
	return n, p.expectBlockEnd()
}

func (p *parser) filterStmt(pos int) (node, error) {
	n := &filterBlockNode{pos: pos}
	for {
		f, err := p.filterName(nil, p.cur().pos)
		if err != nil {
			return nil, err
		}
		n.filters = append(n.filters, f)
		if !p.isOp("|") {
			break
		}
		p.next()
	}
	if err := p.expectBlockEnd(); err != nil {
		return nil, err
	}
	var err error
	if n.body, _, err = p.body([]string{"endfilter"}, "filter", pos); err != nil {
		return nil, err
	}
	return n, p.expectBlockEnd()
}

func (p *parser) withStmt(pos int) (node, error) {
	n := &scopeNode{pos: pos}
	for p.cur().kind != tokBlockEnd {
		if len(n.names) > 0 {
			if err := p.expectOp(","); err != nil {
				return nil, err
			}
		}
		name, err := p.expectName()
		if err != nil {
			return nil, err
		}
		if err := p.expectOp("="); err != nil {
			return nil, err
		}
		v, err := p.expression(true)
		if err != nil {
			return nil, err
		}
		n.names = append(n.names, name.val)
		n.vals = append(n.vals, v)
	}
	p.next()
	var err error
	if n.body, _, err = p.body([]string{"endwith"}, "with", pos); err != nil {
		return nil, err
	}
	return n, p.expectBlockEnd()
}

// tuple parses one expression, or several separated by commas as a tuple.
// noCond leaves "if" to the caller (a for loop's filter).
func (p *parser) tuple(withCond, noCond bool) (expr, error) {
	pos := p.cur().pos
	var items []expr
	isTuple := false
	for {
		if len(items) > 0 {
			if !p.isOp(",") {
				break
			}
			p.next()
			isTuple = true
		}
		if p.tupleEnd() {
			break
		}
		x, err := p.expression(withCond && !noCond)
		if err != nil {
			return nil, err
		}
		items = append(items, x)
	}
	if !isTuple {
		if len(items) == 0 {
			return nil, p.errorf(p.cur().pos, "expected an expression, found %s", p.cur().describe())
		}
		return items[0], nil
	}
	return &tupleExpr{pos: pos, items: items}, nil
}

func (p *parser) tupleEnd() bool {
	t := p.cur()
	switch t.kind {
	case tokVarEnd, tokBlockEnd, tokEOF:
		return true
	case tokOp:
		return t.val == ")"
	case tokName:
		return t.val == "recursive" || t.val == "if"
	}
	return false
}

func (p *parser) expression(withCond bool) (expr, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	x, err := p.or()
	if err != nil || !withCond {
		return x, err
	}
	for p.isName("if") {
		pos := p.next().pos
		cond, err := p.or()
		if err != nil {
			return nil, err
		}
		c := &condExpr{pos: pos, cond: cond, then: x}
		if p.isName("else") {
			p.next()
			if c.els, err = p.expression(true); err != nil {
				return nil, err
			}
		}
		x = c
	}
	return x, nil
}

func (p *parser) or() (expr, error) {
	x, err := p.and()
	for err == nil && p.isName("or") {
		pos := p.next().pos
		var r expr
		if r, err = p.and(); err == nil {
			x = &binExpr{pos: pos, op: "or", l: x, r: r}
		}
	}
	return x, err
}

func (p *parser) and() (expr, error) {
	x, err := p.not()
	for err == nil && p.isName("and") {
		pos := p.next().pos
		var r expr
		if r, err = p.not(); err == nil {
			x = &binExpr{pos: pos, op: "and", l: x, r: r}
		}
	}
	return x, err
}

func (p *parser) not() (expr, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	if p.isName("not") {
		pos := p.next().pos
		x, err := p.not()
		if err != nil {
			return nil, err
		}
		return &unaryExpr{pos: pos, op: "not", x: x}, nil
	}
	return p.compare()
}

func (p *parser) compare() (expr, error) {
	x, err := p.math1()
	if err != nil {
		return nil, err
	}
	c := &compareExpr{pos: x.position(), first: x}
	for {
		t := p.cur()
		op := ""
		switch {
		case t.kind == tokOp && (t.val == "==" || t.val == "!=" || t.val == "<" || t.val == "<=" || t.val == ">" || t.val == ">="):
			op = t.val
			p.next()
		case p.isName("in"):
			op = "in"
			p.next()
		case p.isName("not") && p.peek().kind == tokName && p.peek().val == "in":
			op = "not in"
			p.next()
			p.next()
		}
		if op == "" {
			break
		}
		r, err := p.math1()
		if err != nil {
			return nil, err
		}
		c.ops = append(c.ops, op)
		c.rest = append(c.rest, r)
	}
	if len(c.ops) == 0 {
		return x, nil
	}
	return c, nil
}

func (p *parser) math1() (expr, error) {
	x, err := p.concat()
	for err == nil && (p.isOp("+") || p.isOp("-")) {
		t := p.next()
		var r expr
		if r, err = p.concat(); err == nil {
			x = &binExpr{pos: t.pos, op: t.val, l: x, r: r}
		}
	}
	return x, err
}

func (p *parser) concat() (expr, error) {
	x, err := p.math2()
	for err == nil && p.isOp("~") {
		t := p.next()
		var r expr
		if r, err = p.math2(); err == nil {
			x = &binExpr{pos: t.pos, op: "~", l: x, r: r}
		}
	}
	return x, err
}

func (p *parser) math2() (expr, error) {
	x, err := p.pow()
	for err == nil && (p.isOp("*") || p.isOp("/") || p.isOp("//") || p.isOp("%")) {
		t := p.next()
		var r expr
		if r, err = p.pow(); err == nil {
			x = &binExpr{pos: t.pos, op: t.val, l: x, r: r}
		}
	}
	return x, err
}

func (p *parser) pow() (expr, error) {
	x, err := p.unary(true)
	for err == nil && p.isOp("**") {
		t := p.next()
		var r expr
		if r, err = p.unary(true); err == nil {
			x = &binExpr{pos: t.pos, op: "**", l: x, r: r}
		}
	}
	return x, err
}

func (p *parser) unary(withFilter bool) (expr, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	var x expr
	var err error
	if p.isOp("-") || p.isOp("+") {
		t := p.next()
		inner, err := p.unary(false)
		if err != nil {
			return nil, err
		}
		x = &unaryExpr{pos: t.pos, op: t.val, x: inner}
	} else if x, err = p.primary(); err != nil {
		return nil, err
	}
	if x, err = p.postfix(x); err != nil {
		return nil, err
	}
	if withFilter {
		return p.filterChain(x)
	}
	return x, nil
}

func (p *parser) primary() (expr, error) {
	t := p.cur()
	switch t.kind {
	case tokName:
		p.next()
		switch t.val {
		case "true", "True":
			return &constExpr{pos: t.pos, v: true}, nil
		case "false", "False":
			return &constExpr{pos: t.pos, v: false}, nil
		case "none", "None":
			return &constExpr{pos: t.pos, v: nil}, nil
		}
		return &nameExpr{pos: t.pos, name: t.val}, nil
	case tokString:
		p.next()
		s := t.val
		for p.cur().kind == tokString {
			s += p.next().val
		}
		return &constExpr{pos: t.pos, v: s}, nil
	case tokInt:
		p.next()
		v, err := strconv.ParseInt(t.val, 10, 64)
		if err != nil {
			return nil, p.errorf(t.pos, "integer %s is too large", t.val)
		}
		return &constExpr{pos: t.pos, v: v}, nil
	case tokFloat:
		p.next()
		f, _, err := big.ParseFloat(t.val, 10, 53, big.ToNearestEven)
		if err != nil {
			return nil, p.errorf(t.pos, "bad float %s", t.val)
		}
		v, _ := f.Float64()
		return &constExpr{pos: t.pos, v: v}, nil
	case tokOp:
		switch t.val {
		case "(":
			p.next()
			if p.isOp(")") {
				p.next()
				return &tupleExpr{pos: t.pos}, nil
			}
			x, err := p.tuple(true, false)
			if err != nil {
				return nil, err
			}
			if err := p.expectOp(")"); err != nil {
				return nil, err
			}
			if tu, ok := x.(*tupleExpr); ok {
				tu.pos = t.pos
			}
			return x, nil
		case "[":
			p.next()
			l := &listExpr{pos: t.pos}
			for !p.isOp("]") {
				if len(l.items) > 0 {
					if err := p.expectOp(","); err != nil {
						return nil, err
					}
					if p.isOp("]") {
						break
					}
				}
				x, err := p.expression(true)
				if err != nil {
					return nil, err
				}
				l.items = append(l.items, x)
			}
			p.next()
			return l, nil
		case "{":
			p.next()
			d := &dictExpr{pos: t.pos}
			for !p.isOp("}") {
				if len(d.keys) > 0 {
					if err := p.expectOp(","); err != nil {
						return nil, err
					}
					if p.isOp("}") {
						break
					}
				}
				k, err := p.expression(true)
				if err != nil {
					return nil, err
				}
				if err := p.expectOp(":"); err != nil {
					return nil, err
				}
				v, err := p.expression(true)
				if err != nil {
					return nil, err
				}
				d.keys = append(d.keys, k)
				d.vals = append(d.vals, v)
			}
			p.next()
			return d, nil
		}
	}
	return nil, p.errorf(t.pos, "expected an expression, found %s", t.describe())
}

func (p *parser) postfix(x expr) (expr, error) {
	for {
		t := p.cur()
		switch {
		case p.isOp("."):
			p.next()
			a := p.cur()
			switch a.kind {
			case tokName:
				p.next()
				x = &attrExpr{pos: a.pos, x: x, name: a.val}
			case tokInt:
				p.next()
				v, _ := strconv.ParseInt(a.val, 10, 64)
				x = &indexExpr{pos: a.pos, x: x, index: &constExpr{pos: a.pos, v: v}}
			default:
				return nil, p.errorf(a.pos, "expected an attribute name after '.', found %s", a.describe())
			}
		case p.isOp("["):
			p.next()
			var err error
			if x, err = p.subscript(x, t.pos); err != nil {
				return nil, err
			}
		case p.isOp("("):
			args, err := p.callArgs()
			if err != nil {
				return nil, err
			}
			x = &callExpr{pos: x.position(), fn: x, args: args}
		default:
			return x, nil
		}
	}
}

func (p *parser) subscript(x expr, pos int) (expr, error) {
	var parts [3]expr
	n := 0
	isSlice := false
	for {
		if p.isOp(":") {
			isSlice = true
			n++
			if n > 2 {
				return nil, p.errorf(p.cur().pos, "too many ':' in a slice")
			}
			p.next()
			continue
		}
		if p.isOp("]") {
			break
		}
		if parts[n] != nil {
			return nil, p.errorf(p.cur().pos, "expected ']' or ':', found %s", p.cur().describe())
		}
		e, err := p.expression(true)
		if err != nil {
			return nil, err
		}
		parts[n] = e
	}
	p.next()
	if !isSlice {
		if parts[0] == nil {
			return nil, p.errorf(pos, "empty subscript")
		}
		return &indexExpr{pos: pos, x: x, index: parts[0]}, nil
	}
	return &sliceExpr{pos: pos, x: x, lo: parts[0], hi: parts[1], step: parts[2]}, nil
}

func (p *parser) callArgs() (callArgs, error) {
	var a callArgs
	p.next() // (
	for !p.isOp(")") {
		if len(a.pos)+len(a.kwNames) > 0 {
			if err := p.expectOp(","); err != nil {
				return a, err
			}
			if p.isOp(")") {
				break
			}
		}
		if p.isOp("*") || p.isOp("**") {
			return a, p.errorf(p.cur().pos, "'*' and '**' arguments are not supported in chat templates")
		}
		if p.cur().kind == tokName && p.peek().kind == tokOp && p.peek().val == "=" {
			name := p.next()
			p.next()
			v, err := p.expression(true)
			if err != nil {
				return a, err
			}
			a.kwNames = append(a.kwNames, name.val)
			a.kwVals = append(a.kwVals, v)
			continue
		}
		if len(a.kwNames) > 0 {
			return a, p.errorf(p.cur().pos, "positional argument follows keyword argument")
		}
		v, err := p.expression(true)
		if err != nil {
			return a, err
		}
		a.pos = append(a.pos, v)
	}
	p.next()
	return a, nil
}

// filterChain parses the filters ("|") and tests ("is") after an operand,
// and calls on their results.
func (p *parser) filterChain(x expr) (expr, error) {
	for {
		var err error
		switch {
		case p.isOp("|"):
			if x, err = p.filter(x); err != nil {
				return nil, err
			}
		case p.isName("is"):
			if x, err = p.test(x); err != nil {
				return nil, err
			}
		case p.isOp("("):
			args, err := p.callArgs()
			if err != nil {
				return nil, err
			}
			x = &callExpr{pos: x.position(), fn: x, args: args}
		default:
			return x, nil
		}
	}
}

func (p *parser) filter(x expr) (*filterExpr, error) {
	pos := p.next().pos // |
	return p.filterName(x, pos)
}

func (p *parser) filterName(x expr, pos int) (*filterExpr, error) {
	name, err := p.expectName()
	if err != nil {
		return nil, err
	}
	if !isFilter(name.val) {
		return nil, p.errorf(name.pos, "no filter named '%s'", name.val)
	}
	f := &filterExpr{pos: name.pos, x: x, name: name.val}
	if p.isOp("(") {
		if f.args, err = p.callArgs(); err != nil {
			return nil, err
		}
	}
	return f, nil
}

func (p *parser) test(x expr) (expr, error) {
	p.next() // is
	negate := false
	if p.isName("not") {
		p.next()
		negate = true
	}
	name, err := p.expectName()
	if err != nil {
		return nil, err
	}
	// "is none", "is true" and "is false" name tests, not constants.
	if !isTest(name.val) {
		return nil, p.errorf(name.pos, "no test named '%s'", name.val)
	}
	t := &testExpr{pos: name.pos, x: x, name: name.val, negate: negate}
	c := p.cur()
	switch {
	case p.isOp("("):
		if t.args, err = p.callArgs(); err != nil {
			return nil, err
		}
	case c.kind == tokString || c.kind == tokInt || c.kind == tokFloat || p.isOp("[") || p.isOp("{") ||
		(c.kind == tokName && c.val != "else" && c.val != "or" && c.val != "and"):
		if c.kind == tokName && c.val == "is" {
			return nil, p.errorf(c.pos, "tests cannot be chained with 'is'")
		}
		arg, err := p.primary()
		if err != nil {
			return nil, err
		}
		if arg, err = p.postfix(arg); err != nil {
			return nil, err
		}
		t.args.pos = []expr{arg}
	}
	return t, nil
}
