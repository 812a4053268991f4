package chat

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Values follow Python's, which templates are written for:
//
//	nil        None
//	bool       bool
//	int64      int
//	float64    float
//	string     str
//	[]any      list
//	tuple      tuple
//	*dict      dict, in insertion order
//	*namespace the object namespace() makes
//	undefined  Jinja's Undefined
//	*macro, *loopInfo, method, builtin: callables and loop state
type (
	tuple []any

	// undefined is what a missing name, attribute or item evaluates to. It
	// prints as nothing and is false, as in Jinja; using it further (its
	// attributes, arithmetic, calls) is an error that says what was
	// missing.
	undefined struct{ hint string }

	namespace struct{ attrs *dict }

	// method is an attribute of a value that is called: "s.strip".
	method struct {
		recv any
		name string
	}

	// builtin is a global function such as range or namespace.
	builtin struct {
		name string
		fn   func(ev *evaluator, args []any, kw *dict) (any, error)
	}
)

// dict is an insertion-ordered map. Keys are normalized so that 1, 1.0 and
// True are one key, as in Python.
type dict struct {
	keys []any
	m    map[any]any
}

func newDict() *dict { return &dict{m: map[any]any{}} }

func hashKey(k any) (any, bool) {
	switch k := k.(type) {
	case nil, string, int64:
		return k, true
	case bool:
		if k {
			return int64(1), true
		}
		return int64(0), true
	case float64:
		if k == math.Trunc(k) && math.Abs(k) < 1<<62 {
			return int64(k), true
		}
		return k, true
	case tuple:
		// Tuples of scalars are hashable; spelled out as their repr.
		return "\x00tuple" + repr(k), true
	}
	return nil, false
}

func (d *dict) get(k any) (any, bool) {
	h, ok := hashKey(k)
	if !ok {
		return nil, false
	}
	v, ok := d.m[h]
	return v, ok
}

func (d *dict) set(k, v any) error {
	h, ok := hashKey(k)
	if !ok {
		return errorf("unhashable type: '%s'", typeName(k))
	}
	if _, there := d.m[h]; !there {
		d.keys = append(d.keys, k)
	}
	d.m[h] = v
	return nil
}

func (d *dict) len() int { return len(d.keys) }

func (d *dict) value(k any) any {
	v, _ := d.get(k)
	return v
}

// typeName is Python's name for a value's type, for error messages.
func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "NoneType"
	case bool:
		return "bool"
	case int64:
		return "int"
	case float64:
		return "float"
	case string:
		return "str"
	case []any:
		return "list"
	case tuple:
		return "tuple"
	case *dict:
		return "dict"
	case *namespace:
		return "Namespace"
	case undefined:
		return "Undefined"
	case *macro:
		return "Macro"
	case *loopInfo:
		return "LoopContext"
	case method, builtin:
		return "builtin_function_or_method"
	}
	return "object"
}

// truth is Python's bool(v).
func truth(v any) bool {
	switch v := v.(type) {
	case nil, undefined:
		return false
	case bool:
		return v
	case int64:
		return v != 0
	case float64:
		return v != 0
	case string:
		return v != ""
	case []any:
		return len(v) > 0
	case tuple:
		return len(v) > 0
	case *dict:
		return v.len() > 0
	}
	return true
}

// str is Python's str(v); undefined is "".
func str(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case undefined:
		return ""
	}
	return repr(v)
}

// repr is Python's repr(v).
func repr(v any) string {
	var b strings.Builder
	writeRepr(&b, v)
	return b.String()
}

func writeRepr(b *strings.Builder, v any) {
	switch v := v.(type) {
	case nil:
		b.WriteString("None")
	case bool:
		if v {
			b.WriteString("True")
		} else {
			b.WriteString("False")
		}
	case int64:
		b.WriteString(strconv.FormatInt(v, 10))
	case float64:
		b.WriteString(formatFloat(v))
	case string:
		b.WriteString(quoteRepr(v))
	case []any:
		b.WriteByte('[')
		for i, x := range v {
			if i > 0 {
				b.WriteString(", ")
			}
			writeRepr(b, x)
		}
		b.WriteByte(']')
	case tuple:
		b.WriteByte('(')
		for i, x := range v {
			if i > 0 {
				b.WriteString(", ")
			}
			writeRepr(b, x)
		}
		if len(v) == 1 {
			b.WriteByte(',')
		}
		b.WriteByte(')')
	case *dict:
		b.WriteByte('{')
		for i, k := range v.keys {
			if i > 0 {
				b.WriteString(", ")
			}
			writeRepr(b, k)
			b.WriteString(": ")
			writeRepr(b, v.value(k))
		}
		b.WriteByte('}')
	case *namespace:
		b.WriteString("<Namespace ")
		writeRepr(b, v.attrs)
		b.WriteByte('>')
	case undefined:
		b.WriteString("Undefined")
	case *macro:
		b.WriteString("<Macro '" + v.name + "'>")
	case *loopInfo:
		b.WriteString("<LoopContext " + strconv.Itoa(v.index+1) + "/" + strconv.Itoa(v.length) + ">")
	case method:
		b.WriteString("<built-in method " + v.name + " of " + typeName(v.recv) + " object>")
	case builtin:
		b.WriteString("<built-in function " + v.name + ">")
	default:
		b.WriteString("<object>")
	}
}

// quoteRepr quotes s as Python's repr does: single quotes unless s has a
// single quote and no double quote.
func quoteRepr(s string) string {
	q := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		q = '"'
	}
	var b strings.Builder
	b.WriteByte(q)
	for _, r := range s {
		switch {
		case r == rune(q) || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			b.WriteString(`\x`)
			b.WriteString(strconv.FormatInt(int64(r)|0x100, 16)[1:])
		case r == utf8.RuneError:
			b.WriteString(`\ufffd`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte(q)
	return b.String()
}

// formatFloat is Python's repr of a float: the shortest digits that read
// back to it, in positional notation for exponents from -4 to 15 and with
// ".0" on whole numbers.
func formatFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	s := strconv.FormatFloat(f, 'e', -1, 64) // d.ddde±XX
	sign := ""
	if s[0] == '-' {
		sign, s = "-", s[1:]
	}
	e := strings.IndexByte(s, 'e')
	mant := strings.Replace(s[:e], ".", "", 1)
	exp, _ := strconv.Atoi(s[e+1:])
	if exp < -4 || exp >= 16 {
		m := mant[:1]
		if len(mant) > 1 {
			m += "." + mant[1:]
		}
		es := strconv.Itoa(abs(exp))
		if len(es) < 2 {
			es = "0" + es
		}
		if exp < 0 {
			return sign + m + "e-" + es
		}
		return sign + m + "e+" + es
	}
	if exp < 0 {
		return sign + "0." + strings.Repeat("0", -exp-1) + mant
	}
	if len(mant) <= exp+1 {
		return sign + mant + strings.Repeat("0", exp+1-len(mant)) + ".0"
	}
	return sign + mant[:exp+1] + "." + mant[exp+1:]
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// asNumber reads v as a number: bools are ints, as in Python.
func asNumber(v any) (i int64, f float64, isFloat, ok bool) {
	switch v := v.(type) {
	case bool:
		if v {
			return 1, 1, false, true
		}
		return 0, 0, false, true
	case int64:
		return v, float64(v), false, true
	case float64:
		return 0, v, true, true
	}
	return 0, 0, false, false
}

// equal is Python's ==.
func equal(a, b any) bool {
	if _, ok := a.(undefined); ok {
		_, ok := b.(undefined)
		return ok
	}
	if ai, af, aFloat, ok := asNumber(a); ok {
		bi, bf, bFloat, ok := asNumber(b)
		if !ok {
			return false
		}
		if aFloat || bFloat {
			return af == bf
		}
		return ai == bi
	}
	switch a := a.(type) {
	case nil:
		return b == nil
	case string:
		bs, ok := b.(string)
		return ok && a == bs
	case []any:
		bl, ok := b.([]any)
		return ok && equalSeq(a, bl)
	case tuple:
		bt, ok := b.(tuple)
		return ok && equalSeq(a, bt)
	case *dict:
		bd, ok := b.(*dict)
		if !ok || a.len() != bd.len() {
			return false
		}
		for _, k := range a.keys {
			bv, ok := bd.get(k)
			if !ok || !equal(a.value(k), bv) {
				return false
			}
		}
		return true
	case *namespace:
		return a == b
	case *macro:
		return a == b
	}
	return false
}

func equalSeq(a, b []any) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

// compare orders a and b as Python's < does, or fails for types that have
// no order between them.
func compare(a, b any, op string) (int, error) {
	if _, af, _, ok := asNumber(a); ok {
		if _, bf, _, ok := asNumber(b); ok {
			ai, _, aFloat, _ := asNumber(a)
			bi, _, bFloat, _ := asNumber(b)
			if !aFloat && !bFloat {
				return cmpInt(ai, bi), nil
			}
			switch {
			case af < bf:
				return -1, nil
			case af > bf:
				return 1, nil
			}
			return 0, nil
		}
	}
	switch a := a.(type) {
	case string:
		if bs, ok := b.(string); ok {
			return strings.Compare(a, bs), nil
		}
	case []any:
		if bl, ok := b.([]any); ok {
			return compareSeq(a, bl, op)
		}
	case tuple:
		if bt, ok := b.(tuple); ok {
			return compareSeq(a, bt, op)
		}
	}
	if u, ok := a.(undefined); ok {
		return 0, errorf("%s", u.hint)
	}
	if u, ok := b.(undefined); ok {
		return 0, errorf("%s", u.hint)
	}
	return 0, errorf("'%s' not supported between instances of '%s' and '%s'", op, typeName(a), typeName(b))
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func compareSeq(a, b []any, op string) (int, error) {
	for i := 0; i < len(a) && i < len(b); i++ {
		if equal(a[i], b[i]) {
			continue
		}
		return compare(a[i], b[i], op)
	}
	return cmpInt(int64(len(a)), int64(len(b))), nil
}

// length is Python's len(v); undefined has length 0, as in Jinja.
func length(v any) (int, error) {
	switch v := v.(type) {
	case string:
		return utf8.RuneCountInString(v), nil
	case []any:
		return len(v), nil
	case tuple:
		return len(v), nil
	case *dict:
		return v.len(), nil
	case undefined:
		return 0, nil
	}
	return 0, errorf("object of type '%s' has no len()", typeName(v))
}

// iterate lists the items a for loop over v sees: a dict's keys, a
// string's characters; an undefined value is empty, as in Jinja.
func iterate(v any) ([]any, error) {
	switch v := v.(type) {
	case []any:
		return v, nil
	case tuple:
		return v, nil
	case *dict:
		return append([]any(nil), v.keys...), nil
	case string:
		out := make([]any, 0, len(v))
		for _, r := range v {
			out = append(out, string(r))
		}
		return out, nil
	case undefined:
		return nil, nil
	}
	return nil, errorf("'%s' object is not iterable", typeName(v))
}
