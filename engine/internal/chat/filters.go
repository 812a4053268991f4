package chat

import (
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

type filterFunc func(ev *evaluator, v any, args []any, kw *dict) (any, error)

// filters are the Jinja filters chat templates use. tojson is Hugging
// Face's: Python's json.dumps, keeping non-ASCII text and key order.
var filters map[string]filterFunc

// unsupportedFilters are Jinja's other built-in filters. A template may
// name them (Jinja would compile it), but using one is an error.
var unsupportedFilters = map[string]bool{
	"filesizeformat": true, "forceescape": true, "groupby": true, "pprint": true, "random": true,
	"slice": true, "striptags": true, "truncate": true, "urlencode": true, "urlize": true,
	"wordwrap": true, "xmlattr": true,
}

func init() {
	filters = map[string]filterFunc{
		"abs":        filterAbs,
		"attr":       filterAttr,
		"batch":      filterBatch,
		"capitalize": stringFilter(capitalize),
		"center":     filterCenter,
		"count":      filterLength,
		"d":          filterDefault,
		"default":    filterDefault,
		"dictsort":   filterDictsort,
		"e":          stringFilter(htmlEscape),
		"escape":     stringFilter(htmlEscape),
		"first":      filterFirst,
		"float":      filterFloat,
		"format":     filterFormat,
		"indent":     filterIndent,
		"int":        filterInt,
		"items":      filterItems,
		"join":       filterJoin,
		"last":       filterLast,
		"length":     filterLength,
		"list":       filterList,
		"lower":      stringFilter(strings.ToLower),
		"map":        filterMap,
		"max":        filterMinMax(1),
		"min":        filterMinMax(-1),
		"reject":     filterSelect(false, false),
		"rejectattr": filterSelect(false, true),
		"replace":    filterReplace,
		"reverse":    filterReverse,
		"round":      filterRound,
		"safe":       func(ev *evaluator, v any, args []any, kw *dict) (any, error) { return v, nil },
		"select":     filterSelect(true, false),
		"selectattr": filterSelect(true, true),
		"sort":       filterSort,
		"string":     func(ev *evaluator, v any, args []any, kw *dict) (any, error) { return str(v), nil },
		"sum":        filterSum,
		"title":      stringFilter(jinjaTitle),
		"tojson":     filterToJSON,
		"trim":       filterTrim,
		"unique":     filterUnique,
		"upper":      stringFilter(strings.ToUpper),
		"wordcount":  filterWordcount,
	}
}

func isFilter(name string) bool { return filters[name] != nil || unsupportedFilters[name] }

func (ev *evaluator) applyFilterExpr(f *filterExpr, v any, s *scope) (any, error) {
	args, kw, err := ev.evalArgs(f.args, s)
	if err != nil {
		return nil, err
	}
	out, err := ev.filter(f.name, v, args, kw)
	return out, ev.wrap(f.pos, err)
}

func (ev *evaluator) filter(name string, v any, args []any, kw *dict) (any, error) {
	fn := filters[name]
	if fn == nil {
		return nil, errorf("the filter '%s' is not supported in chat templates", name)
	}
	if err := ev.step(0); err != nil {
		return nil, err
	}
	return fn(ev, v, args, kw)
}

// stringFilter makes a filter of a function on the value's text.
func stringFilter(f func(string) string) filterFunc {
	return func(ev *evaluator, v any, args []any, kw *dict) (any, error) {
		if _, err := bindArgs("filter", args, kw, nil); err != nil {
			return nil, err
		}
		return f(str(v)), nil
	}
}

func htmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;").Replace(s)
}

var wordStart = regexp.MustCompile(`[-\s({\[<]+`)

// jinjaTitle is Jinja's title filter: each word, as split at spaces,
// hyphens and opening brackets, is capitalized.
func jinjaTitle(s string) string {
	var b strings.Builder
	last := 0
	for _, m := range wordStart.FindAllStringIndex(s, -1) {
		b.WriteString(capitalize(s[last:m[0]]))
		b.WriteString(s[m[0]:m[1]])
		last = m[1]
	}
	b.WriteString(capitalize(s[last:]))
	return b.String()
}

func filterAbs(ev *evaluator, v any, args []any, kw *dict) (any, error) {
	i, f, isFloat, ok := asNumber(v)
	if !ok {
		return nil, errorf("bad operand type for abs(): '%s'", typeName(v))
	}
	if isFloat {
		return math.Abs(f), nil
	}
	if i < 0 {
		return negate(i)
	}
	return i, nil
}

func filterAttr(ev *evaluator, v any, args []any, kw *dict) (any, error) {
	a, err := bindArgs("attr", args, kw, []string{"name"})
	if err != nil {
		return nil, err
	}
	name, err := asString("attr", a[0])
	if err != nil {
		return nil, err
	}
	switch x := v.(type) {
	case *namespace, *loopInfo, undefined:
		return getattr(x, name)
	}
	// Jinja's attr looks at attributes only, never items.
	if m, ok := methodOf(v, name); ok {
		return m, nil
	}
	return undefined{hint: missingAttr(v, name)}, nil
}

func filterBatch(ev *evaluator, v any, args []any, kw *dict) (any, error) {
	a, err := bindArgs("batch", args, kw, []string{"linecount", "fill_with"}, nil)
	if err != nil {
		return nil, err
	}
	n, err := asInt("batch", a[0])
	if err != nil {
		return nil, err
	}
	if n <= 0 {
		return nil, errorf("batch needs a positive size, not %d", n)
	}
	items, err := iterate(v)
	if err != nil {
		return nil, err
	}
	var out []any
	for i := 0; i < len(items); i += int(n) {
		row := append([]any(nil), items[i:min(i+int(n), len(items))]...)
		for a[1] != nil && len(row) < int(n) {
			row = append(row, a[1])
		}
		out = append(out, row)
	}
	return out, nil
}

func filterCenter(ev *evaluator, v any, args []any, kw *dict) (any, error) {
	a, err := bindArgs("center", args, kw, []string{"width"}, int64(80))
	if err != nil {
		return nil, err
	}
	return ev.strMethod(str(v), "center", "center", []any{a[0]}, nil)
}

func filterDefault(ev *evaluator, v any, args []any, kw *dict) (any, error) {
	a, err := bindArgs("default", args, kw, []string{"default_value", "boolean"}, "", false)
	if err != nil {
		return nil, err
	}
	if _, ok := v.(undefined); ok || truth(a[1]) && !truth(v) {
		return a[0], nil
	}
	return v, nil
}

func filterDictsort(ev *evaluator, v any, args []any, kw *dict) (any, error) {
	a, err := bindArgs("dictsort", args, kw, []string{"case_sensitive", "by", "reverse"}, false, "key", false)
	if err != nil {
		return nil, err
	}
	d, ok := v.(*dict)
	if !ok {
		return nil, errorf("dictsort needs a dict, not %s", typeName(v))
	}
	pos := 0
	switch a[1] {
	case "key":
	case "value":
		pos = 1
	default:
		return nil, errorf("dictsort can sort by 'key' or 'value', not %s", repr(a[1]))
	}
	items := dictItems(d)
	err = sortValues(items, truth(a[2]), func(x any) (any, error) {
		k := x.(tuple)[pos]
		if s, ok := k.(string); ok && !truth(a[0]) {
			return strings.ToLower(s), nil
		}
		return k, nil
	})
	return items, err
}

func filterFirst(ev *evaluator, v any, args []any, kw *dict) (any, error) {
	items, err := iterate(v)
	if err != nil {
		return nil, err
	}
	if len(items) == 0 {
		return undefined{hint: "no first item, the sequence was empty"}, nil
	}
	return items[0], nil
}

func filterLast(ev *evaluator, v any, args []any, kw *dict) (any, error) {
	items, err := iterate(v)
	if err != nil {
		return nil, err
	}
	if len(items) == 0 {
		return undefined{hint: "no last item, the sequence was empty"}, nil
	}
	return items[len(items)-1], nil
}

func filterFloat(ev *evaluator, v any, args []any, kw *dict) (any, error) {
	a, err := bindArgs("float", args, kw, []string{"default"}, 0.0)
	if err != nil {
		return nil, err
	}
	if _, f, _, ok := asNumber(v); ok {
		return f, nil
	}
	if s, ok := v.(string); ok {
		if f, err := strconv.ParseFloat(strings.ReplaceAll(strings.TrimSpace(s), "_", ""), 64); err == nil {
			return f, nil
		}
	}
	return a[0], nil
}

func filterInt(ev *evaluator, v any, args []any, kw *dict) (any, error) {
	a, err := bindArgs("int", args, kw, []string{"default", "base"}, int64(0), int64(10))
	if err != nil {
		return nil, err
	}
	base, err := asInt("int", a[1])
	if err != nil {
		return nil, err
	}
	if i, f, isFloat, ok := asNumber(v); ok {
		if isFloat {
			if math.IsNaN(f) || math.IsInf(f, 0) || math.Abs(f) >= 1<<63 {
				return a[0], nil
			}
			return int64(f), nil
		}
		return i, nil
	}
	if s, ok := v.(string); ok {
		t := strings.ReplaceAll(strings.TrimSpace(s), "_", "")
		if i, err := strconv.ParseInt(t, int(base), 64); err == nil {
			return i, nil
		}
		if f, err := strconv.ParseFloat(t, 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) && math.Abs(f) < 1<<63 {
			return int64(f), nil
		}
	}
	return a[0], nil
}

func filterFormat(ev *evaluator, v any, args []any, kw *dict) (any, error) {
	f := str(v)
	var operand any = tuple(args)
	if kw.len() > 0 {
		if len(args) > 0 {
			return nil, errorf("format takes positional or keyword arguments, not both")
		}
		operand = kw
	}
	out, err := percentFormat(f, operand)
	if err == nil {
		err = ev.checkLen(len(out))
	}
	return out, err
}

func filterIndent(ev *evaluator, v any, args []any, kw *dict) (any, error) {
	a, err := bindArgs("indent", args, kw, []string{"width", "first", "blank"}, int64(4), false, false)
	if err != nil {
		return nil, err
	}
	ind, ok := a[0].(string)
	if !ok {
		w, err := asInt("indent", a[0])
		if err != nil {
			return nil, err
		}
		if err := ev.checkLen(int(min(w, int64(ev.limit)+1))); err != nil {
			return nil, err
		}
		ind = strings.Repeat(" ", int(max(w, 0)))
	}
	lines := splitLines(str(v)+"\n", false)
	var b strings.Builder
	for i, l := range lines {
		if i > 0 {
			b.WriteByte('\n')
			if l != "" || truth(a[2]) {
				b.WriteString(ind)
			}
		}
		b.WriteString(l)
		if b.Len() > ev.limit {
			return nil, ev.checkLen(b.Len())
		}
	}
	out := b.String()
	if truth(a[1]) {
		out = ind + out
	}
	return out, nil
}

func filterItems(ev *evaluator, v any, args []any, kw *dict) (any, error) {
	switch d := v.(type) {
	case undefined:
		return []any{}, nil
	case *dict:
		return dictItems(d), nil
	}
	return nil, errorf("Can only get item pairs from a mapping.")
}

func filterJoin(ev *evaluator, v any, args []any, kw *dict) (any, error) {
	a, err := bindArgs("join", args, kw, []string{"d", "attribute"}, "", nil)
	if err != nil {
		return nil, err
	}
	items, err := iterate(v)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	for i, it := range items {
		if a[1] != nil {
			if it, err = attribute(it, a[1]); err != nil {
				return nil, err
			}
		}
		if i > 0 {
			b.WriteString(str(a[0]))
		}
		b.WriteString(str(it))
		if err := ev.checkLen(b.Len()); err != nil {
			return nil, err
		}
	}
	return b.String(), nil
}

func filterLength(ev *evaluator, v any, args []any, kw *dict) (any, error) {
	n, err := length(v)
	return int64(n), err
}

func filterList(ev *evaluator, v any, args []any, kw *dict) (any, error) {
	items, err := iterate(v)
	if err != nil {
		return nil, err
	}
	return append([]any{}, items...), nil
}

// attribute follows a dotted path of attributes or items, as the
// "attribute" argument of Jinja's filters does ("a.b", "items.0").
func attribute(x any, path any) (any, error) {
	p, ok := path.(string)
	if !ok {
		return getitem(x, path)
	}
	for _, part := range strings.Split(p, ".") {
		var key any = part
		if n, err := strconv.ParseInt(part, 10, 64); err == nil {
			key = n
		}
		var err error
		if x, err = getitem(x, key); err != nil {
			return nil, err
		}
	}
	return x, nil
}

func filterMap(ev *evaluator, v any, args []any, kw *dict) (any, error) {
	// Jinja maps over nothing when the value is false, None included.
	if !truth(v) {
		v = []any{}
	}
	items, err := iterate(v)
	if err != nil {
		return nil, err
	}
	out := make([]any, 0, len(items))
	if len(args) == 0 {
		a, err := bindArgs("map", nil, kw, []string{"attribute", "default"}, nil)
		if err != nil {
			return nil, err
		}
		for _, it := range items {
			x, err := attribute(it, a[0])
			if err != nil {
				return nil, err
			}
			if _, ok := x.(undefined); ok && a[1] != nil {
				x = a[1]
			}
			out = append(out, x)
		}
		return out, nil
	}
	name, err := asString("map", args[0])
	if err != nil {
		return nil, err
	}
	if !isFilter(name) {
		return nil, errorf("no filter named '%s'", name)
	}
	for _, it := range items {
		x, err := ev.filter(name, it, args[1:], kw)
		if err != nil {
			return nil, err
		}
		out = append(out, x)
	}
	return out, nil
}

func filterMinMax(sign int) filterFunc {
	return func(ev *evaluator, v any, args []any, kw *dict) (any, error) {
		a, err := bindArgs("min/max", args, kw, []string{"case_sensitive", "attribute"}, false, nil)
		if err != nil {
			return nil, err
		}
		items, err := iterate(v)
		if err != nil {
			return nil, err
		}
		if len(items) == 0 {
			return undefined{hint: "no aggregated item, the sequence was empty"}, nil
		}
		key := sortKey(truth(a[0]), a[1])
		best := items[0]
		bk, err := key(best)
		if err != nil {
			return nil, err
		}
		for _, it := range items[1:] {
			k, err := key(it)
			if err != nil {
				return nil, err
			}
			c, err := compare(k, bk, "<")
			if err != nil {
				return nil, err
			}
			if c*sign > 0 {
				best, bk = it, k
			}
		}
		return best, nil
	}
}

func sortKey(caseSensitive bool, attr any) func(any) (any, error) {
	return func(x any) (any, error) {
		if attr != nil {
			var err error
			if x, err = attribute(x, attr); err != nil {
				return nil, err
			}
		}
		if s, ok := x.(string); ok && !caseSensitive {
			return strings.ToLower(s), nil
		}
		return x, nil
	}
}

// sortValues sorts items stably by key, failing on keys with no order.
func sortValues(items []any, reverse bool, key func(any) (any, error)) error {
	keys := make([]any, len(items))
	for i, it := range items {
		k, err := key(it)
		if err != nil {
			return err
		}
		keys[i] = k
	}
	idx := make([]int, len(items))
	for i := range idx {
		idx[i] = i
	}
	var failed error
	sort.SliceStable(idx, func(i, j int) bool {
		a, b := keys[idx[i]], keys[idx[j]]
		if reverse {
			a, b = b, a
		}
		c, err := compare(a, b, "<")
		if err != nil && failed == nil {
			failed = err
		}
		return c < 0
	})
	if failed != nil {
		return failed
	}
	sorted := make([]any, len(items))
	for i, j := range idx {
		sorted[i] = items[j]
	}
	copy(items, sorted)
	return nil
}

func filterSort(ev *evaluator, v any, args []any, kw *dict) (any, error) {
	a, err := bindArgs("sort", args, kw, []string{"reverse", "case_sensitive", "attribute"}, false, false, nil)
	if err != nil {
		return nil, err
	}
	items, err := iterate(v)
	if err != nil {
		return nil, err
	}
	items = append([]any{}, items...)
	return items, sortValues(items, truth(a[0]), sortKey(truth(a[1]), a[2]))
}

func filterUnique(ev *evaluator, v any, args []any, kw *dict) (any, error) {
	a, err := bindArgs("unique", args, kw, []string{"case_sensitive", "attribute"}, false, nil)
	if err != nil {
		return nil, err
	}
	items, err := iterate(v)
	if err != nil {
		return nil, err
	}
	key := sortKey(truth(a[0]), a[1])
	var seen []any
	var out []any
	for _, it := range items {
		k, err := key(it)
		if err != nil {
			return nil, err
		}
		if containsSeq(seen, k) {
			continue
		}
		seen = append(seen, k)
		out = append(out, it)
	}
	return out, nil
}

func filterSelect(keep, byAttr bool) filterFunc {
	return func(ev *evaluator, v any, args []any, kw *dict) (any, error) {
		if kw.len() > 0 {
			return nil, errorf("select and its kin take no keyword arguments")
		}
		// Jinja selects from nothing when the value is false, None
		// included.
		if !truth(v) {
			v = []any{}
		}
		items, err := iterate(v)
		if err != nil {
			return nil, err
		}
		var attr any
		if byAttr {
			if len(args) == 0 {
				return nil, errorf("selectattr and rejectattr need an attribute name")
			}
			attr, args = args[0], args[1:]
		}
		test := ""
		if len(args) > 0 {
			if test, err = asString("select", args[0]); err != nil {
				return nil, err
			}
			if !isTest(test) {
				return nil, errorf("no test named '%s'", test)
			}
			args = args[1:]
		}
		var out []any
		for _, it := range items {
			x := it
			if byAttr {
				if x, err = attribute(it, attr); err != nil {
					return nil, err
				}
			}
			ok := truth(x)
			if test != "" {
				if ok, err = ev.test(test, x, args); err != nil {
					return nil, err
				}
			}
			if ok == keep {
				out = append(out, it)
			}
		}
		return out, nil
	}
}

func filterReplace(ev *evaluator, v any, args []any, kw *dict) (any, error) {
	a, err := bindArgs("replace", args, kw, []string{"old", "new", "count"}, nil)
	if err != nil {
		return nil, err
	}
	return replace(ev, "replace", str(v), a[0], a[1], a[2])
}

func filterReverse(ev *evaluator, v any, args []any, kw *dict) (any, error) {
	if s, ok := v.(string); ok {
		rs := []rune(s)
		for i, j := 0, len(rs)-1; i < j; i, j = i+1, j-1 {
			rs[i], rs[j] = rs[j], rs[i]
		}
		return string(rs), nil
	}
	items, err := iterate(v)
	if err != nil {
		return nil, err
	}
	out := make([]any, len(items))
	for i, it := range items {
		out[len(items)-1-i] = it
	}
	return out, nil
}

func filterRound(ev *evaluator, v any, args []any, kw *dict) (any, error) {
	a, err := bindArgs("round", args, kw, []string{"precision", "method"}, int64(0), "common")
	if err != nil {
		return nil, err
	}
	p, err := asInt("round", a[0])
	if err != nil {
		return nil, err
	}
	i, f, isFloat, ok := asNumber(v)
	if !ok {
		return nil, errorf("round needs a number, not %s", typeName(v))
	}
	scale := math.Pow(10, float64(p))
	switch a[1] {
	case "common":
		if !isFloat && p >= 0 {
			// Python's round of an int is that int.
			return i, nil
		}
		if p < 0 || p > 300 {
			return math.RoundToEven(f*scale) / scale, nil
		}
		// The shortest correctly rounded decimal, as Python's round gives.
		r, _ := strconv.ParseFloat(strconv.FormatFloat(f, 'f', int(p), 64), 64)
		return r, nil
	case "ceil":
		return math.Ceil(f*scale) / scale, nil
	case "floor":
		return math.Floor(f*scale) / scale, nil
	}
	return nil, errorf("round's method must be 'common', 'ceil' or 'floor', not %s", repr(a[1]))
}

func filterSum(ev *evaluator, v any, args []any, kw *dict) (any, error) {
	a, err := bindArgs("sum", args, kw, []string{"attribute", "start"}, nil, int64(0))
	if err != nil {
		return nil, err
	}
	items, err := iterate(v)
	if err != nil {
		return nil, err
	}
	total := a[1]
	for _, it := range items {
		if a[0] != nil {
			if it, err = attribute(it, a[0]); err != nil {
				return nil, err
			}
		}
		if total, err = ev.binary("+", total, it); err != nil {
			return nil, err
		}
	}
	return total, nil
}

func filterToJSON(ev *evaluator, v any, args []any, kw *dict) (any, error) {
	a, err := bindArgs("tojson", args, kw, []string{"ensure_ascii", "indent", "separators", "sort_keys"}, false, nil, nil, false)
	if err != nil {
		return nil, err
	}
	enc := &jsonEncoder{ensureASCII: truth(a[0]), sortKeys: truth(a[3]), limit: ev.limit}
	switch ind := a[1].(type) {
	case nil:
	case string:
		enc.indent, enc.pretty = ind, true
	default:
		n, err := asInt("tojson", ind)
		if err != nil {
			return nil, err
		}
		if err := ev.checkLen(int(min(n, int64(ev.limit)+1))); err != nil {
			return nil, err
		}
		enc.indent, enc.pretty = strings.Repeat(" ", int(max(n, 0))), true
	}
	enc.itemSep, enc.keySep = ", ", ": "
	if enc.pretty {
		enc.itemSep = ","
	}
	if a[2] != nil {
		seps, err := iterate(a[2])
		if err != nil || len(seps) != 2 {
			return nil, errorf("tojson's separators must be a pair of strings")
		}
		is, ok1 := seps[0].(string)
		ks, ok2 := seps[1].(string)
		if !ok1 || !ok2 {
			return nil, errorf("tojson's separators must be a pair of strings")
		}
		enc.itemSep, enc.keySep = is, ks
	}
	if err := enc.encode(v, 0); err != nil {
		return nil, err
	}
	return enc.b.String(), nil
}

func filterTrim(ev *evaluator, v any, args []any, kw *dict) (any, error) {
	a, err := bindArgs("trim", args, kw, []string{"chars"}, nil)
	if err != nil {
		return nil, err
	}
	f, err := stripSet("trim", a[0])
	if err != nil {
		return nil, err
	}
	return strings.TrimFunc(str(v), f), nil
}

func filterWordcount(ev *evaluator, v any, args []any, kw *dict) (any, error) {
	n := 0
	in := false
	for _, r := range str(v) {
		w := r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
		if w && !in {
			n++
		}
		in = w
	}
	return int64(n), nil
}

// tests are Jinja's tests.
var tests = map[string]bool{
	"boolean": true, "callable": true, "defined": true, "divisibleby": true, "eq": true, "equalto": true,
	"escaped": true, "even": true, "false": true, "filter": true, "float": true, "ge": true, "greaterthan": true,
	"gt": true, "in": true, "integer": true, "iterable": true, "le": true, "lessthan": true, "lower": true,
	"lt": true, "mapping": true, "ne": true, "none": true, "number": true, "odd": true, "sameas": true,
	"sequence": true, "string": true, "test": true, "true": true, "undefined": true, "upper": true,
	"==": true, "!=": true, ">": true, ">=": true, "<": true, "<=": true,
}

func isTest(name string) bool { return tests[name] }

func (ev *evaluator) test(name string, v any, args []any) (bool, error) {
	one := func() (any, error) {
		if len(args) != 1 {
			return nil, errorf("the test '%s' takes one argument, got %d", name, len(args))
		}
		return args[0], nil
	}
	if len(args) > 0 {
		switch name {
		case "eq", "equalto", "==", "ne", "!=", "gt", "greaterthan", ">", "ge", ">=", "lt", "lessthan", "<", "le", "<=",
			"in", "sameas", "divisibleby":
		default:
			return false, errorf("the test '%s' takes no arguments", name)
		}
	}
	switch name {
	case "defined":
		_, u := v.(undefined)
		return !u, nil
	case "undefined":
		_, u := v.(undefined)
		return u, nil
	case "none":
		return v == nil, nil
	case "boolean":
		_, ok := v.(bool)
		return ok, nil
	case "true":
		return v == true, nil
	case "false":
		return v == false, nil
	case "integer":
		_, ok := v.(int64)
		return ok, nil
	case "float":
		_, ok := v.(float64)
		return ok, nil
	case "number":
		_, _, _, ok := asNumber(v)
		return ok, nil
	case "string":
		_, ok := v.(string)
		return ok, nil
	case "mapping":
		_, ok := v.(*dict)
		return ok, nil
	case "iterable":
		switch v.(type) {
		case string, []any, tuple, *dict, undefined:
			return true, nil
		}
		return false, nil
	case "sequence":
		switch v.(type) {
		case string, []any, tuple, *dict, undefined:
			return true, nil
		}
		return false, nil
	case "callable":
		switch v.(type) {
		case method, builtin, *macro:
			return true, nil
		}
		return false, nil
	case "escaped":
		return false, nil
	case "lower", "upper":
		return caseTest(str(v), name == "upper"), nil
	case "odd", "even":
		i, err := asInt(name, v)
		if err != nil {
			return false, err
		}
		return (i%2 != 0) == (name == "odd"), nil
	case "divisibleby":
		x, err := one()
		if err != nil {
			return false, err
		}
		d, err := asInt(name, x)
		if err != nil {
			return false, err
		}
		i, err := asInt(name, v)
		if err != nil {
			return false, err
		}
		if d == 0 {
			return false, errorf("integer division or modulo by zero")
		}
		return i%d == 0, nil
	case "filter":
		s, ok := v.(string)
		return ok && isFilter(s), nil
	case "test":
		s, ok := v.(string)
		return ok && isTest(s), nil
	case "sameas":
		x, err := one()
		if err != nil {
			return false, err
		}
		return sameAs(v, x), nil
	case "in":
		x, err := one()
		if err != nil {
			return false, err
		}
		return contains(x, v)
	}
	x, err := one()
	if err != nil {
		return false, err
	}
	op := map[string]string{"eq": "==", "equalto": "==", "ne": "!=", "gt": ">", "greaterthan": ">", "ge": ">=",
		"lt": "<", "lessthan": "<", "le": "<="}[name]
	if op == "" {
		op = name
	}
	return compareOp(op, v, x)
}

// sameAs is Python's "is" for the values where identity is observable:
// None, the booleans, and objects.
func sameAs(a, b any) bool {
	switch a := a.(type) {
	case nil:
		return b == nil
	case bool:
		bb, ok := b.(bool)
		return ok && a == bb
	case int64:
		// CPython shares the small integers.
		bi, ok := b.(int64)
		return ok && a == bi && a >= -5 && a <= 256
	case *dict, *namespace, *macro, *loopInfo:
		return a == b
	}
	return false
}
