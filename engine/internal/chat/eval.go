package chat

import (
	"errors"
	"math"
	"math/big"
	"strings"
	"time"
	"unicode/utf8"
)

// scope holds the variables of one level: the template, a loop
// iteration, a macro call. Lookups go outwards.
type scope struct {
	vars   map[string]any
	parent *scope
}

func newScope(parent *scope) *scope { return &scope{vars: map[string]any{}, parent: parent} }

func (s *scope) lookup(name string) (any, bool) {
	for ; s != nil; s = s.parent {
		if v, ok := s.vars[name]; ok {
			return v, true
		}
	}
	return nil, false
}

type macro struct {
	name     string
	params   []string
	defaults []expr
	body     []node
	closure  *scope
}

// loopInfo is the "loop" variable inside a for loop.
type loopInfo struct {
	items  []any
	index  int
	length int
}

var (
	errBreak    = errors.New("break")
	errContinue = errors.New("continue")
)

// Limits that keep a hostile template from using unbounded time or
// memory. maxRange is the cap Jinja's sandbox puts on range().
const (
	maxRange      = 100000
	maxSteps      = 1 << 22
	maxMacroDepth = 64
)

type evaluator struct {
	src   string
	out   *strings.Builder
	limit int // bytes any string or the output may reach
	steps int
	depth int
	now   func() time.Time
}

// wrap gives an evaluation error the position of the expression or tag it
// happened in, unless it already has one.
func (ev *evaluator) wrap(pos int, err error) error {
	if err == nil || err == errBreak || err == errContinue {
		return err
	}
	var re *RenderError
	if errors.As(err, &re) {
		return err
	}
	line, col := position(ev.src, pos)
	out := &RenderError{Line: line, Column: col, Msg: err.Error()}
	var ee *evalError
	if errors.As(err, &ee) {
		out.Raised = ee.raised
	}
	return out
}

func (ev *evaluator) step(pos int) error {
	ev.steps++
	if ev.steps > maxSteps {
		return ev.wrap(pos, errorf("the template ran for more than %d steps", maxSteps))
	}
	return nil
}

func (ev *evaluator) write(pos int, s string) error {
	if ev.out.Len()+len(s) > ev.limit {
		return ev.wrap(pos, errorf("the output would exceed %d bytes", ev.limit))
	}
	ev.out.WriteString(s)
	return nil
}

// checkLen refuses a string or list about to be built with n bytes or
// items.
func (ev *evaluator) checkLen(n int) error {
	if n > ev.limit || n < 0 {
		return errorf("a value would exceed %d bytes or items", ev.limit)
	}
	return nil
}

// capture runs body with its output collected into a string.
func (ev *evaluator) capture(body []node, s *scope) (string, error) {
	saved := ev.out
	var b strings.Builder
	ev.out = &b
	err := ev.exec(body, s)
	ev.out = saved
	return b.String(), err
}

func (ev *evaluator) exec(nodes []node, s *scope) error {
	for _, n := range nodes {
		if err := ev.execOne(n, s); err != nil {
			return err
		}
	}
	return nil
}

func (ev *evaluator) execOne(n node, s *scope) error {
	switch n := n.(type) {
	case *textNode:
		return ev.write(0, n.text)
	case *outputNode:
		if err := ev.step(n.pos); err != nil {
			return err
		}
		v, err := ev.eval(n.x, s)
		if err != nil {
			return err
		}
		return ev.write(n.pos, str(v))
	case *ifNode:
		if err := ev.step(n.pos); err != nil {
			return err
		}
		for i, c := range n.conds {
			v, err := ev.eval(c, s)
			if err != nil {
				return err
			}
			if truth(v) {
				return ev.exec(n.bodies[i], s)
			}
		}
		return ev.exec(n.els, s)
	case *forNode:
		return ev.execFor(n, s)
	case *setNode:
		return ev.execSet(n, s)
	case *macroNode:
		s.vars[n.name] = &macro{name: n.name, params: n.params, defaults: n.defaults, body: n.body, closure: s}
		return nil
	case *filterBlockNode:
		text, err := ev.capture(n.body, newScope(s))
		if err != nil {
			return err
		}
		var v any = text
		for _, f := range n.filters {
			if v, err = ev.applyFilterExpr(f, v, s); err != nil {
				return err
			}
		}
		return ev.write(n.pos, str(v))
	case *loopControlNode:
		if n.brk {
			return errBreak
		}
		return errContinue
	case *scopeNode:
		inner := newScope(s)
		for i, name := range n.names {
			v, err := ev.eval(n.vals[i], s)
			if err != nil {
				return err
			}
			inner.vars[name] = v
		}
		return ev.exec(n.body, inner)
	}
	return errorf("internal error: unknown node %T", n)
}

func (ev *evaluator) execSet(n *setNode, s *scope) error {
	if err := ev.step(n.pos); err != nil {
		return err
	}
	var v any
	var err error
	if n.body != nil {
		text, err := ev.capture(n.body, newScope(s))
		if err != nil {
			return err
		}
		v = text
		for _, f := range n.filters {
			if v, err = ev.applyFilterExpr(f, v, s); err != nil {
				return err
			}
		}
	} else if v, err = ev.eval(n.x, s); err != nil {
		return err
	}
	if n.target.attr != "" {
		obj, _ := s.lookup(n.target.names[0])
		ns, ok := obj.(*namespace)
		if !ok {
			return ev.wrap(n.target.pos, errorf("cannot set %s.%s: %s is of type %s, not a namespace", n.target.names[0], n.target.attr, n.target.names[0], typeName(obj)))
		}
		return ev.wrap(n.target.pos, ns.attrs.set(n.target.attr, v))
	}
	return ev.wrap(n.target.pos, ev.bind(n.target, v, s))
}

// bind assigns v to the target's names in s, unpacking a sequence for
// several names.
func (ev *evaluator) bind(t assignTarget, v any, s *scope) error {
	if !t.tuple {
		s.vars[t.names[0]] = v
		return nil
	}
	items, err := iterate(v)
	if err != nil {
		return errorf("cannot unpack non-iterable %s object", typeName(v))
	}
	if len(items) > len(t.names) {
		return errorf("too many values to unpack (expected %d)", len(t.names))
	}
	if len(items) < len(t.names) {
		return errorf("not enough values to unpack (expected %d, got %d)", len(t.names), len(items))
	}
	for i, name := range t.names {
		s.vars[name] = items[i]
	}
	return nil
}

func (ev *evaluator) execFor(n *forNode, s *scope) error {
	if err := ev.step(n.pos); err != nil {
		return err
	}
	seq, err := ev.eval(n.iter, s)
	if err != nil {
		return err
	}
	items, err := iterate(seq)
	if err != nil {
		return ev.wrap(n.iter.position(), err)
	}
	if n.cond != nil {
		kept := make([]any, 0, len(items))
		for _, it := range items {
			if err := ev.step(n.pos); err != nil {
				return err
			}
			inner := newScope(s)
			if err := ev.wrap(n.target.pos, ev.bind(n.target, it, inner)); err != nil {
				return err
			}
			c, err := ev.eval(n.cond, inner)
			if err != nil {
				return err
			}
			if truth(c) {
				kept = append(kept, it)
			}
		}
		items = kept
	}
	if len(items) == 0 {
		return ev.exec(n.els, newScope(s))
	}
	loop := &loopInfo{items: items, length: len(items)}
	for i, it := range items {
		if err := ev.step(n.pos); err != nil {
			return err
		}
		// Each iteration starts afresh: what the body sets does not
		// carry over to the next, as in Jinja.
		inner := newScope(s)
		l := *loop
		l.index = i
		inner.vars["loop"] = &l
		if err := ev.wrap(n.target.pos, ev.bind(n.target, it, inner)); err != nil {
			return err
		}
		err := ev.exec(n.body, inner)
		if err == errBreak {
			break
		}
		if err != nil && err != errContinue {
			return err
		}
	}
	return nil
}

func (ev *evaluator) eval(e expr, s *scope) (any, error) {
	v, err := ev.evalInner(e, s)
	if err != nil {
		return nil, ev.wrap(e.position(), err)
	}
	return v, nil
}

func (ev *evaluator) evalInner(e expr, s *scope) (any, error) {
	switch e := e.(type) {
	case *constExpr:
		return e.v, nil
	case *nameExpr:
		if v, ok := s.lookup(e.name); ok {
			return v, nil
		}
		if g, ok := globals[e.name]; ok {
			return g, nil
		}
		return undefined{hint: "'" + e.name + "' is undefined"}, nil
	case *listExpr:
		out := make([]any, len(e.items))
		for i, x := range e.items {
			v, err := ev.eval(x, s)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	case *tupleExpr:
		out := make(tuple, len(e.items))
		for i, x := range e.items {
			v, err := ev.eval(x, s)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	case *dictExpr:
		d := newDict()
		for i := range e.keys {
			k, err := ev.eval(e.keys[i], s)
			if err != nil {
				return nil, err
			}
			v, err := ev.eval(e.vals[i], s)
			if err != nil {
				return nil, err
			}
			if err := d.set(k, v); err != nil {
				return nil, ev.wrap(e.keys[i].position(), err)
			}
		}
		return d, nil
	case *attrExpr:
		x, err := ev.eval(e.x, s)
		if err != nil {
			return nil, err
		}
		return getattr(x, e.name)
	case *indexExpr:
		x, err := ev.eval(e.x, s)
		if err != nil {
			return nil, err
		}
		k, err := ev.eval(e.index, s)
		if err != nil {
			return nil, err
		}
		return getitem(x, k)
	case *sliceExpr:
		return ev.evalSlice(e, s)
	case *callExpr:
		fn, err := ev.eval(e.fn, s)
		if err != nil {
			return nil, err
		}
		args, kw, err := ev.evalArgs(e.args, s)
		if err != nil {
			return nil, err
		}
		return ev.call(fn, args, kw)
	case *filterExpr:
		x, err := ev.eval(e.x, s)
		if err != nil {
			return nil, err
		}
		return ev.applyFilterExpr(e, x, s)
	case *testExpr:
		x, err := ev.eval(e.x, s)
		if err != nil {
			return nil, err
		}
		args, kw, err := ev.evalArgs(e.args, s)
		if err != nil {
			return nil, err
		}
		if kw.len() > 0 {
			return nil, errorf("the test '%s' takes no keyword arguments", e.name)
		}
		ok, err := ev.test(e.name, x, args)
		if err != nil {
			return nil, err
		}
		return ok != e.negate, nil
	case *unaryExpr:
		x, err := ev.eval(e.x, s)
		if err != nil {
			return nil, err
		}
		switch e.op {
		case "not":
			return !truth(x), nil
		case "-":
			return negate(x)
		}
		if _, _, _, ok := asNumber(x); ok {
			if b, isBool := x.(bool); isBool {
				i, _, _, _ := asNumber(b)
				return i, nil
			}
			return x, nil
		}
		return nil, unsupported("unary +", x, nil)
	case *binExpr:
		switch e.op {
		case "and", "or":
			l, err := ev.eval(e.l, s)
			if err != nil {
				return nil, err
			}
			if truth(l) == (e.op == "or") {
				return l, nil
			}
			return ev.eval(e.r, s)
		}
		l, err := ev.eval(e.l, s)
		if err != nil {
			return nil, err
		}
		r, err := ev.eval(e.r, s)
		if err != nil {
			return nil, err
		}
		return ev.binary(e.op, l, r)
	case *compareExpr:
		l, err := ev.eval(e.first, s)
		if err != nil {
			return nil, err
		}
		for i, op := range e.ops {
			r, err := ev.eval(e.rest[i], s)
			if err != nil {
				return nil, err
			}
			ok, err := compareOp(op, l, r)
			if err != nil {
				return nil, ev.wrap(e.rest[i].position(), err)
			}
			if !ok {
				return false, nil
			}
			l = r
		}
		return true, nil
	case *condExpr:
		c, err := ev.eval(e.cond, s)
		if err != nil {
			return nil, err
		}
		if truth(c) {
			return ev.eval(e.then, s)
		}
		if e.els == nil {
			return undefined{hint: "the conditional expression has no else branch"}, nil
		}
		return ev.eval(e.els, s)
	}
	return nil, errorf("internal error: unknown expression %T", e)
}

func (ev *evaluator) evalArgs(a callArgs, s *scope) ([]any, *dict, error) {
	args := make([]any, len(a.pos))
	for i, x := range a.pos {
		v, err := ev.eval(x, s)
		if err != nil {
			return nil, nil, err
		}
		args[i] = v
	}
	kw := newDict()
	for i, name := range a.kwNames {
		v, err := ev.eval(a.kwVals[i], s)
		if err != nil {
			return nil, nil, err
		}
		if _, dup := kw.get(name); dup {
			return nil, nil, ev.wrap(a.kwVals[i].position(), errorf("keyword argument '%s' given twice", name))
		}
		kw.set(name, v)
	}
	return args, kw, nil
}

func compareOp(op string, l, r any) (bool, error) {
	switch op {
	case "==":
		return equal(l, r), nil
	case "!=":
		return !equal(l, r), nil
	case "in":
		return contains(r, l)
	case "not in":
		ok, err := contains(r, l)
		return !ok, err
	}
	c, err := compare(l, r, op)
	if err != nil {
		return false, err
	}
	switch op {
	case "<":
		return c < 0, nil
	case "<=":
		return c <= 0, nil
	case ">":
		return c > 0, nil
	}
	return c >= 0, nil
}

// contains is Python's "x in container".
func contains(container, x any) (bool, error) {
	switch c := container.(type) {
	case string:
		xs, ok := x.(string)
		if !ok {
			if u, isU := x.(undefined); isU {
				return false, errorf("%s", u.hint)
			}
			return false, errorf("'in <string>' requires string as left operand, not %s", typeName(x))
		}
		return strings.Contains(c, xs), nil
	case []any:
		return containsSeq(c, x), nil
	case tuple:
		return containsSeq(c, x), nil
	case *dict:
		_, ok := c.get(x)
		return ok, nil
	case undefined:
		return false, nil
	}
	return false, errorf("argument of type '%s' is not iterable", typeName(container))
}

func containsSeq(items []any, x any) bool {
	for _, it := range items {
		if equal(it, x) {
			return true
		}
	}
	return false
}

func unsupported(op string, l, r any) error {
	if u, ok := l.(undefined); ok {
		return errorf("%s", u.hint)
	}
	if u, ok := r.(undefined); ok {
		return errorf("%s", u.hint)
	}
	if strings.HasPrefix(op, "unary") {
		return errorf("bad operand type for %s: '%s'", op, typeName(l))
	}
	return errorf("unsupported operand type(s) for %s: '%s' and '%s'", op, typeName(l), typeName(r))
}

func negate(x any) (any, error) {
	i, f, isFloat, ok := asNumber(x)
	if !ok {
		return nil, unsupported("unary -", x, nil)
	}
	if isFloat {
		return -f, nil
	}
	if i == math.MinInt64 {
		return nil, errorf("integer overflow")
	}
	return -i, nil
}

func (ev *evaluator) binary(op string, l, r any) (any, error) {
	if op == "~" {
		s := str(l) + str(r)
		if err := ev.checkLen(len(s)); err != nil {
			return nil, err
		}
		return s, nil
	}
	li, lf, lFloat, lNum := asNumber(l)
	ri, rf, rFloat, rNum := asNumber(r)
	if lNum && rNum {
		return arith(op, li, lf, lFloat, ri, rf, rFloat)
	}
	switch op {
	case "+":
		switch a := l.(type) {
		case string:
			if b, ok := r.(string); ok {
				if err := ev.checkLen(len(a) + len(b)); err != nil {
					return nil, err
				}
				return a + b, nil
			}
			if _, ok := r.(undefined); !ok {
				return nil, errorf("can only concatenate str (not \"%s\") to str", typeName(r))
			}
		case []any:
			if b, ok := r.([]any); ok {
				if err := ev.checkLen(len(a) + len(b)); err != nil {
					return nil, err
				}
				return append(append([]any{}, a...), b...), nil
			}
			if _, ok := r.(undefined); !ok {
				return nil, errorf("can only concatenate list (not \"%s\") to list", typeName(r))
			}
		case tuple:
			if b, ok := r.(tuple); ok {
				if err := ev.checkLen(len(a) + len(b)); err != nil {
					return nil, err
				}
				return append(append(tuple{}, a...), b...), nil
			}
		}
	case "*":
		seq, n := l, ri
		if lNum && !lFloat {
			if _, isBool := r.(bool); !isBool {
				seq, n = r, li
			}
		} else if !rNum || rFloat {
			break
		}
		if n < 0 {
			n = 0
		}
		switch a := seq.(type) {
		case string:
			if err := ev.checkLen(len(a) * int(min(n, int64(ev.limit)+1))); err != nil {
				return nil, err
			}
			return strings.Repeat(a, int(n)), nil
		case []any:
			if err := ev.checkLen(len(a) * int(min(n, int64(ev.limit)+1))); err != nil {
				return nil, err
			}
			out := make([]any, 0, len(a)*int(n))
			for range n {
				out = append(out, a...)
			}
			return out, nil
		}
	case "%":
		if f, ok := l.(string); ok {
			s, err := percentFormat(f, r)
			if err == nil {
				err = ev.checkLen(len(s))
			}
			return s, err
		}
	}
	return nil, unsupported(op, l, r)
}

// intPow is Python's int ** int for a non-negative exponent, refusing
// results beyond 64 bits.
func intPow(base, exp int64) (any, error) {
	switch base {
	case 0:
		if exp == 0 {
			return int64(1), nil
		}
		return int64(0), nil
	case 1:
		return int64(1), nil
	case -1:
		if exp%2 == 0 {
			return int64(1), nil
		}
		return int64(-1), nil
	}
	// |base| >= 2, so an exponent of 64 or more overflows.
	if exp >= 64 {
		return nil, errorf("integer overflow in **")
	}
	r := new(big.Int).Exp(big.NewInt(base), big.NewInt(exp), nil)
	if !r.IsInt64() {
		return nil, errorf("integer overflow in **")
	}
	return r.Int64(), nil
}

// arith is Python's arithmetic on two numbers.
func arith(op string, li int64, lf float64, lFloat bool, ri int64, rf float64, rFloat bool) (any, error) {
	isFloat := lFloat || rFloat
	switch op {
	case "+":
		if isFloat {
			return lf + rf, nil
		}
		s := li + ri
		if (s > li) != (ri > 0) {
			return nil, errorf("integer overflow")
		}
		return s, nil
	case "-":
		if isFloat {
			return lf - rf, nil
		}
		d := li - ri
		if (d < li) != (ri > 0) {
			return nil, errorf("integer overflow")
		}
		return d, nil
	case "*":
		if isFloat {
			return lf * rf, nil
		}
		if li != 0 && ri != 0 {
			p := li * ri
			if p/ri != li || (li == -1 && ri == math.MinInt64) || (ri == -1 && li == math.MinInt64) {
				return nil, errorf("integer overflow")
			}
			return p, nil
		}
		return int64(0), nil
	case "/":
		if rf == 0 {
			return nil, errorf("division by zero")
		}
		return lf / rf, nil
	case "//":
		if isFloat {
			if rf == 0 {
				return nil, errorf("float floor division by zero")
			}
			return math.Floor(lf / rf), nil
		}
		if ri == 0 {
			return nil, errorf("integer division or modulo by zero")
		}
		q := li / ri
		if (li%ri != 0) && ((li < 0) != (ri < 0)) {
			q--
		}
		return q, nil
	case "%":
		if isFloat {
			if rf == 0 {
				return nil, errorf("float modulo")
			}
			m := math.Mod(lf, rf)
			if m != 0 && (m < 0) != (rf < 0) {
				m += rf
			}
			return m, nil
		}
		if ri == 0 {
			return nil, errorf("integer division or modulo by zero")
		}
		m := li % ri
		if m != 0 && (m < 0) != (ri < 0) {
			m += ri
		}
		return m, nil
	case "**":
		if !isFloat && ri >= 0 {
			return intPow(li, ri)
		}
		if lf == 0 && rf < 0 {
			return nil, errorf("0.0 cannot be raised to a negative power")
		}
		return math.Pow(lf, rf), nil
	}
	return nil, errorf("unknown operator %s", op)
}

func (ev *evaluator) evalSlice(e *sliceExpr, s *scope) (any, error) {
	x, err := ev.eval(e.x, s)
	if err != nil {
		return nil, err
	}
	var bounds [3]*int64
	for i, b := range []expr{e.lo, e.hi, e.step} {
		if b == nil {
			continue
		}
		v, err := ev.eval(b, s)
		if err != nil {
			return nil, err
		}
		if v == nil {
			continue
		}
		n, _, isFloat, ok := asNumber(v)
		if !ok || isFloat {
			return nil, ev.wrap(b.position(), errorf("slice indices must be integers or None, not %s", typeName(v)))
		}
		bounds[i] = &n
	}
	var items []any
	switch x := x.(type) {
	case string:
		rs := []rune(x)
		idx, err := sliceIndices(len(rs), bounds)
		if err != nil {
			return nil, err
		}
		out := make([]rune, 0, len(idx))
		for _, i := range idx {
			out = append(out, rs[i])
		}
		return string(out), nil
	case []any:
		items = x
	case tuple:
		items = x
	case undefined:
		return nil, errorf("%s", x.hint)
	default:
		return nil, errorf("'%s' object is not subscriptable", typeName(x))
	}
	idx, err := sliceIndices(len(items), bounds)
	if err != nil {
		return nil, err
	}
	out := make([]any, 0, len(idx))
	for _, i := range idx {
		out = append(out, items[i])
	}
	if _, ok := x.(tuple); ok {
		return tuple(out), nil
	}
	return out, nil
}

// sliceIndices lists the indices a Python slice [lo:hi:step] picks from a
// sequence of n items.
func sliceIndices(n int, b [3]*int64) ([]int, error) {
	step := int64(1)
	if b[2] != nil {
		step = *b[2]
		if step == 0 {
			return nil, errorf("slice step cannot be zero")
		}
	}
	clamp := func(p *int64, def, lowest, highest int64) int64 {
		if p == nil {
			return def
		}
		v := *p
		if v < 0 {
			v += int64(n)
			if v < lowest {
				v = lowest
			}
		} else if v > highest {
			v = highest
		}
		return v
	}
	var out []int
	if step > 0 {
		lo := clamp(b[0], 0, 0, int64(n))
		hi := clamp(b[1], int64(n), 0, int64(n))
		for i := lo; i < hi; i += step {
			out = append(out, int(i))
		}
	} else {
		lo := clamp(b[0], int64(n)-1, -1, int64(n)-1)
		hi := clamp(b[1], -1, -1, int64(n)-1)
		for i := lo; i > hi; i += step {
			out = append(out, int(i))
		}
	}
	return out, nil
}

// getattr is Jinja's "x.name": an attribute (a method, for built-in types)
// first, then an item.
func getattr(x any, name string) (any, error) {
	switch x := x.(type) {
	case undefined:
		return nil, errorf("%s", x.hint)
	case *namespace:
		if v, ok := x.attrs.get(name); ok {
			return v, nil
		}
		return undefined{hint: "namespace has no attribute '" + name + "'"}, nil
	case *loopInfo:
		return x.attr(name), nil
	case *dict:
		if m, ok := methodOf(x, name); ok {
			return m, nil
		}
		if v, ok := x.get(name); ok {
			return v, nil
		}
	default:
		if m, ok := methodOf(x, name); ok {
			return m, nil
		}
	}
	return undefined{hint: missingAttr(x, name)}, nil
}

func missingAttr(x any, name string) string {
	if x == nil {
		return "'None' has no attribute '" + name + "'"
	}
	return "'" + typeName(x) + " object' has no attribute '" + name + "'"
}

// getitem is Jinja's "x[key]": an item first, then, for a string key, an
// attribute.
func getitem(x any, key any) (any, error) {
	if u, ok := x.(undefined); ok {
		return nil, errorf("%s", u.hint)
	}
	if u, ok := key.(undefined); ok {
		return nil, errorf("%s", u.hint)
	}
	switch c := x.(type) {
	case *dict:
		if v, ok := c.get(key); ok {
			return v, nil
		}
	case []any, tuple, string:
		if i, _, isFloat, ok := asNumber(key); ok && !isFloat {
			var n int
			var item func(int) any
			switch c := c.(type) {
			case []any:
				n, item = len(c), func(j int) any { return c[j] }
			case tuple:
				n, item = len(c), func(j int) any { return c[j] }
			case string:
				rs := []rune(c)
				n, item = len(rs), func(j int) any { return string(rs[j]) }
			}
			if i < 0 {
				i += int64(n)
			}
			if i >= 0 && i < int64(n) {
				return item(int(i)), nil
			}
			return undefined{hint: typeName(x) + " object has no element " + repr(key)}, nil
		}
	}
	if name, ok := key.(string); ok {
		return getattr(x, name)
	}
	if x == nil {
		return undefined{hint: "None has no element " + repr(key)}, nil
	}
	return undefined{hint: typeName(x) + " object has no element " + repr(key)}, nil
}

func (l *loopInfo) attr(name string) any {
	switch name {
	case "index":
		return int64(l.index + 1)
	case "index0":
		return int64(l.index)
	case "revindex":
		return int64(l.length - l.index)
	case "revindex0":
		return int64(l.length - l.index - 1)
	case "first":
		return l.index == 0
	case "last":
		return l.index == l.length-1
	case "length":
		return int64(l.length)
	case "depth":
		return int64(1)
	case "depth0":
		return int64(0)
	case "previtem":
		if l.index > 0 {
			return l.items[l.index-1]
		}
		return undefined{hint: "there is no previous item"}
	case "nextitem":
		if l.index+1 < l.length {
			return l.items[l.index+1]
		}
		return undefined{hint: "there is no next item"}
	case "cycle":
		return method{recv: l, name: name}
	}
	return undefined{hint: "'LoopContext object' has no attribute '" + name + "'"}
}

func (ev *evaluator) call(fn any, args []any, kw *dict) (any, error) {
	switch f := fn.(type) {
	case method:
		return ev.callMethod(f.recv, f.name, args, kw)
	case builtin:
		return f.fn(ev, args, kw)
	case *macro:
		return ev.callMacro(f, args, kw)
	case undefined:
		return nil, errorf("%s", f.hint)
	}
	return nil, errorf("'%s' object is not callable", typeName(fn))
}

func (ev *evaluator) callMacro(m *macro, args []any, kw *dict) (any, error) {
	if len(args) > len(m.params) {
		return nil, errorf("macro '%s' takes %d arguments, got %d", m.name, len(m.params), len(args))
	}
	if ev.depth >= maxMacroDepth {
		return nil, errorf("macros nested more than %d deep", maxMacroDepth)
	}
	s := newScope(m.closure)
	for i, v := range args {
		s.vars[m.params[i]] = v
	}
	for _, k := range kw.keys {
		name := k.(string)
		found := false
		for i, p := range m.params {
			if p == name {
				if i < len(args) {
					return nil, errorf("macro '%s' got two values for '%s'", m.name, name)
				}
				found = true
			}
		}
		if !found {
			return nil, errorf("macro '%s' has no parameter '%s'", m.name, name)
		}
		s.vars[name] = kw.value(k)
	}
	for i, p := range m.params {
		if _, ok := s.vars[p]; ok {
			continue
		}
		if m.defaults[i] == nil {
			s.vars[p] = undefined{hint: "parameter '" + p + "' of macro '" + m.name + "' was not given"}
			continue
		}
		v, err := ev.eval(m.defaults[i], s)
		if err != nil {
			return nil, err
		}
		s.vars[p] = v
	}
	ev.depth++
	text, err := ev.capture(m.body, s)
	ev.depth--
	return text, err
}

// bindArgs matches positional and keyword arguments to the named
// parameters of a filter, test, method or function. The last
// len(defaults) parameters are optional.
func bindArgs(fn string, args []any, kw *dict, names []string, defaults ...any) ([]any, error) {
	if len(args) > len(names) {
		return nil, errorf("%s takes at most %d arguments, got %d", fn, len(names), len(args))
	}
	out := make([]any, len(names))
	set := make([]bool, len(names))
	for i, a := range args {
		out[i], set[i] = a, true
	}
	if kw != nil {
		for _, k := range kw.keys {
			name, _ := k.(string)
			i := indexOf(names, name)
			if i < 0 {
				return nil, errorf("%s got an unexpected keyword argument '%s'", fn, name)
			}
			if set[i] {
				return nil, errorf("%s got two values for '%s'", fn, name)
			}
			out[i], set[i] = kw.value(k), true
		}
	}
	first := len(names) - len(defaults)
	for i := range names {
		if set[i] {
			continue
		}
		if i < first {
			return nil, errorf("%s is missing its argument '%s'", fn, names[i])
		}
		out[i] = defaults[i-first]
	}
	return out, nil
}

func indexOf(names []string, name string) int {
	for i, n := range names {
		if n == name {
			return i
		}
	}
	return -1
}

// asInt reads an integer argument.
func asInt(fn string, v any) (int64, error) {
	i, _, isFloat, ok := asNumber(v)
	if !ok || isFloat {
		return 0, errorf("%s needs an integer, not %s", fn, typeName(v))
	}
	return i, nil
}

func asString(fn string, v any) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", errorf("%s needs a string, not %s", fn, typeName(v))
	}
	return s, nil
}

func runeLen(s string) int { return utf8.RuneCountInString(s) }
