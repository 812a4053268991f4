package chat

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// globals are the functions every template sees. raise_exception and
// strftime_now are the two Hugging Face adds to Jinja's.
var globals map[string]any

func init() {
	globals = map[string]any{
		"range":           builtin{"range", globalRange},
		"namespace":       builtin{"namespace", globalNamespace},
		"dict":            builtin{"dict", globalDict},
		"raise_exception": builtin{"raise_exception", globalRaise},
		"strftime_now":    builtin{"strftime_now", globalStrftimeNow},
	}
}

func globalRange(ev *evaluator, args []any, kw *dict) (any, error) {
	if kw.len() > 0 || len(args) == 0 || len(args) > 3 {
		return nil, errorf("range takes 1 to 3 integer arguments")
	}
	n := make([]int64, len(args))
	for i, a := range args {
		v, err := asInt("range", a)
		if err != nil {
			return nil, err
		}
		n[i] = v
	}
	start, stop, step := int64(0), n[0], int64(1)
	if len(n) > 1 {
		start, stop = n[0], n[1]
	}
	if len(n) > 2 {
		step = n[2]
	}
	if step == 0 {
		return nil, errorf("range() arg 3 must not be zero")
	}
	var count int64
	if step > 0 && stop > start {
		count = (stop - start + step - 1) / step
	} else if step < 0 && stop < start {
		count = (start - stop - step - 1) / -step
	}
	if count > maxRange {
		return nil, errorf("range of %d items is too big: the limit is %d", count, maxRange)
	}
	out := make([]any, count)
	for i := range out {
		out[i] = start + int64(i)*step
	}
	return out, nil
}

func globalNamespace(ev *evaluator, args []any, kw *dict) (any, error) {
	ns := &namespace{attrs: newDict()}
	for _, a := range args {
		d, ok := a.(*dict)
		if !ok {
			return nil, errorf("namespace() takes a dict or keyword arguments, not %s", typeName(a))
		}
		for _, k := range d.keys {
			ns.attrs.set(k, d.value(k))
		}
	}
	for _, k := range kw.keys {
		ns.attrs.set(k, kw.value(k))
	}
	return ns, nil
}

func globalDict(ev *evaluator, args []any, kw *dict) (any, error) {
	d := newDict()
	if len(args) > 1 {
		return nil, errorf("dict expected at most 1 argument, got %d", len(args))
	}
	if len(args) == 1 {
		src, ok := args[0].(*dict)
		if !ok {
			return nil, errorf("dict() takes a dict, not %s", typeName(args[0]))
		}
		for _, k := range src.keys {
			d.set(k, src.value(k))
		}
	}
	for _, k := range kw.keys {
		d.set(k, kw.value(k))
	}
	return d, nil
}

func globalRaise(ev *evaluator, args []any, kw *dict) (any, error) {
	a, err := bindArgs("raise_exception", args, kw, []string{"message"})
	if err != nil {
		return nil, err
	}
	return nil, &evalError{msg: str(a[0]), raised: true}
}

func globalStrftimeNow(ev *evaluator, args []any, kw *dict) (any, error) {
	a, err := bindArgs("strftime_now", args, kw, []string{"format"})
	if err != nil {
		return nil, err
	}
	f, err := asString("strftime_now", a[0])
	if err != nil {
		return nil, err
	}
	return strftime(f, ev.now())
}

// unsafeMethods are the methods that change a value in place; Hugging
// Face renders templates in Jinja's immutable sandbox, which refuses
// them.
var unsafeMethods = map[string]bool{
	"append": true, "extend": true, "insert": true, "pop": true, "remove": true, "clear": true,
	"sort": true, "reverse": true, "update": true, "setdefault": true, "popitem": true,
}

var strMethods = map[string]bool{
	"strip": true, "lstrip": true, "rstrip": true, "split": true, "rsplit": true, "splitlines": true,
	"startswith": true, "endswith": true, "upper": true, "lower": true, "title": true, "capitalize": true,
	"swapcase": true, "replace": true, "find": true, "rfind": true, "index": true, "rindex": true, "count": true,
	"join": true, "format": true, "isdigit": true, "isnumeric": true, "isdecimal": true, "isalpha": true,
	"isalnum": true, "isspace": true, "islower": true, "isupper": true, "istitle": true, "center": true,
	"ljust": true, "rjust": true, "zfill": true, "removeprefix": true, "removesuffix": true,
	"partition": true, "rpartition": true,
}

// methodOf finds a method of a built-in value: "s.strip", "d.items".
func methodOf(x any, name string) (any, bool) {
	ok := false
	switch x.(type) {
	case string:
		ok = strMethods[name]
	case *dict:
		ok = name == "items" || name == "keys" || name == "values" || name == "get" || name == "copy" || unsafeMethods[name]
	case []any:
		ok = name == "index" || name == "count" || name == "copy" || unsafeMethods[name]
	case tuple:
		ok = name == "index" || name == "count"
	}
	if !ok {
		return nil, false
	}
	return method{recv: x, name: name}, true
}

func (ev *evaluator) callMethod(recv any, name string, args []any, kw *dict) (any, error) {
	if unsafeMethods[name] {
		if _, isStr := recv.(string); !isStr {
			return nil, errorf("'%s.%s' would change a value in place, which chat templates may not do", typeName(recv), name)
		}
	}
	fn := typeName(recv) + "." + name
	switch r := recv.(type) {
	case string:
		return ev.strMethod(r, name, fn, args, kw)
	case *dict:
		switch name {
		case "items":
			if _, err := bindArgs(fn, args, kw, nil); err != nil {
				return nil, err
			}
			return dictItems(r), nil
		case "keys":
			if _, err := bindArgs(fn, args, kw, nil); err != nil {
				return nil, err
			}
			return append([]any(nil), r.keys...), nil
		case "values":
			if _, err := bindArgs(fn, args, kw, nil); err != nil {
				return nil, err
			}
			out := make([]any, len(r.keys))
			for i, k := range r.keys {
				out[i] = r.value(k)
			}
			return out, nil
		case "get":
			a, err := bindArgs(fn, args, kw, []string{"key", "default"}, nil)
			if err != nil {
				return nil, err
			}
			if v, ok := r.get(a[0]); ok {
				return v, nil
			}
			return a[1], nil
		case "copy":
			d := newDict()
			for _, k := range r.keys {
				d.set(k, r.value(k))
			}
			return d, nil
		}
	case []any, tuple:
		items, _ := iterate(r)
		switch name {
		case "count":
			a, err := bindArgs(fn, args, kw, []string{"value"})
			if err != nil {
				return nil, err
			}
			n := int64(0)
			for _, it := range items {
				if equal(it, a[0]) {
					n++
				}
			}
			return n, nil
		case "index":
			a, err := bindArgs(fn, args, kw, []string{"value"})
			if err != nil {
				return nil, err
			}
			for i, it := range items {
				if equal(it, a[0]) {
					return int64(i), nil
				}
			}
			return nil, errorf("%s is not in the %s", repr(a[0]), typeName(r))
		case "copy":
			return append([]any(nil), items...), nil
		}
	case *loopInfo:
		if name == "cycle" {
			if len(args) == 0 {
				return nil, errorf("loop.cycle needs at least one value")
			}
			return args[r.index%len(args)], nil
		}
	}
	return nil, errorf("'%s' object has no method '%s'", typeName(recv), name)
}

func dictItems(d *dict) []any {
	out := make([]any, len(d.keys))
	for i, k := range d.keys {
		out[i] = tuple{k, d.value(k)}
	}
	return out
}

// stripSet returns the function strip and its kin use: whitespace by
// default, or the characters of chars.
func stripSet(fn string, chars any) (func(rune) bool, error) {
	if chars == nil {
		return unicode.IsSpace, nil
	}
	cs, err := asString(fn, chars)
	if err != nil {
		return nil, err
	}
	return func(r rune) bool { return strings.ContainsRune(cs, r) }, nil
}

func (ev *evaluator) strMethod(s, name, fn string, args []any, kw *dict) (any, error) {
	noArgs := func() error { _, err := bindArgs(fn, args, kw, nil); return err }
	switch name {
	case "strip", "lstrip", "rstrip":
		a, err := bindArgs(fn, args, kw, []string{"chars"}, nil)
		if err != nil {
			return nil, err
		}
		f, err := stripSet(fn, a[0])
		if err != nil {
			return nil, err
		}
		switch name {
		case "strip":
			return strings.TrimFunc(s, f), nil
		case "lstrip":
			return strings.TrimLeftFunc(s, f), nil
		}
		return strings.TrimRightFunc(s, f), nil
	case "split", "rsplit":
		a, err := bindArgs(fn, args, kw, []string{"sep", "maxsplit"}, nil, int64(-1))
		if err != nil {
			return nil, err
		}
		max, err := asInt(fn, a[1])
		if err != nil {
			return nil, err
		}
		return pySplit(fn, s, a[0], max, name == "rsplit")
	case "splitlines":
		a, err := bindArgs(fn, args, kw, []string{"keepends"}, false)
		if err != nil {
			return nil, err
		}
		var out []any
		for _, l := range splitLines(s, truth(a[0])) {
			out = append(out, l)
		}
		return out, nil
	case "startswith", "endswith":
		a, err := bindArgs(fn, args, kw, []string{"prefix"})
		if err != nil {
			return nil, err
		}
		cands := []any{a[0]}
		if t, ok := a[0].(tuple); ok {
			cands = t
		}
		for _, c := range cands {
			p, err := asString(fn, c)
			if err != nil {
				return nil, err
			}
			if name == "startswith" && strings.HasPrefix(s, p) || name == "endswith" && strings.HasSuffix(s, p) {
				return true, nil
			}
		}
		return false, nil
	case "upper":
		return strings.ToUpper(s), noArgs()
	case "lower":
		return strings.ToLower(s), noArgs()
	case "title":
		return pyTitle(s), noArgs()
	case "capitalize":
		return capitalize(s), noArgs()
	case "swapcase":
		return strings.Map(func(r rune) rune {
			if unicode.IsUpper(r) {
				return unicode.ToLower(r)
			}
			return unicode.ToUpper(r)
		}, s), noArgs()
	case "replace":
		a, err := bindArgs(fn, args, kw, []string{"old", "new", "count"}, int64(-1))
		if err != nil {
			return nil, err
		}
		return replace(ev, fn, s, a[0], a[1], a[2])
	case "find", "rfind", "index", "rindex", "count":
		a, err := bindArgs(fn, args, kw, []string{"sub"})
		if err != nil {
			return nil, err
		}
		sub, err := asString(fn, a[0])
		if err != nil {
			return nil, err
		}
		if name == "count" {
			if sub == "" {
				return int64(runeLen(s) + 1), nil
			}
			return int64(strings.Count(s, sub)), nil
		}
		i := -1
		if name == "find" || name == "index" {
			i = strings.Index(s, sub)
		} else {
			i = strings.LastIndex(s, sub)
		}
		if i < 0 {
			if name == "index" || name == "rindex" {
				return nil, errorf("substring not found")
			}
			return int64(-1), nil
		}
		return int64(runeLen(s[:i])), nil
	case "join":
		a, err := bindArgs(fn, args, kw, []string{"iterable"})
		if err != nil {
			return nil, err
		}
		items, err := iterate(a[0])
		if err != nil {
			return nil, err
		}
		parts := make([]string, len(items))
		for i, it := range items {
			p, ok := it.(string)
			if !ok {
				return nil, errorf("sequence item %d: expected str instance, %s found", i, typeName(it))
			}
			parts[i] = p
		}
		out := strings.Join(parts, s)
		return out, ev.checkLen(len(out))
	case "format":
		out, err := braceFormat(s, args, kw)
		if err == nil {
			err = ev.checkLen(len(out))
		}
		return out, err
	case "isdigit", "isnumeric", "isdecimal", "isalpha", "isalnum", "isspace":
		if err := noArgs(); err != nil {
			return nil, err
		}
		if s == "" {
			return false, nil
		}
		for _, r := range s {
			ok := false
			switch name {
			case "isdigit", "isnumeric", "isdecimal":
				ok = unicode.IsDigit(r)
			case "isalpha":
				ok = unicode.IsLetter(r)
			case "isalnum":
				ok = unicode.IsLetter(r) || unicode.IsDigit(r)
			case "isspace":
				ok = unicode.IsSpace(r)
			}
			if !ok {
				return false, nil
			}
		}
		return true, nil
	case "islower", "isupper":
		if err := noArgs(); err != nil {
			return nil, err
		}
		return caseTest(s, name == "isupper"), nil
	case "istitle":
		if err := noArgs(); err != nil {
			return nil, err
		}
		return s != "" && pyTitle(s) == s && strings.ContainsFunc(s, unicode.IsLetter), nil
	case "center", "ljust", "rjust":
		a, err := bindArgs(fn, args, kw, []string{"width", "fillchar"}, " ")
		if err != nil {
			return nil, err
		}
		w, err := asInt(fn, a[0])
		if err != nil {
			return nil, err
		}
		fill, err := asString(fn, a[1])
		if err != nil || runeLen(fill) != 1 {
			return nil, errorf("%s needs a single fill character", fn)
		}
		if err := ev.checkLen(int(min(w, int64(ev.limit)+1))); err != nil {
			return nil, err
		}
		return pad(s, int(w), fill, name), nil
	case "zfill":
		a, err := bindArgs(fn, args, kw, []string{"width"})
		if err != nil {
			return nil, err
		}
		w, err := asInt(fn, a[0])
		if err != nil {
			return nil, err
		}
		if err := ev.checkLen(int(min(w, int64(ev.limit)+1))); err != nil {
			return nil, err
		}
		n := int(w) - runeLen(s)
		if n <= 0 {
			return s, nil
		}
		if s != "" && (s[0] == '-' || s[0] == '+') {
			return s[:1] + strings.Repeat("0", n) + s[1:], nil
		}
		return strings.Repeat("0", n) + s, nil
	case "removeprefix", "removesuffix":
		a, err := bindArgs(fn, args, kw, []string{"affix"})
		if err != nil {
			return nil, err
		}
		x, err := asString(fn, a[0])
		if err != nil {
			return nil, err
		}
		if name == "removeprefix" {
			return strings.TrimPrefix(s, x), nil
		}
		return strings.TrimSuffix(s, x), nil
	case "partition", "rpartition":
		a, err := bindArgs(fn, args, kw, []string{"sep"})
		if err != nil {
			return nil, err
		}
		sep, err := asString(fn, a[0])
		if err != nil || sep == "" {
			return nil, errorf("%s needs a non-empty separator", fn)
		}
		i := strings.Index(s, sep)
		if name == "rpartition" {
			i = strings.LastIndex(s, sep)
		}
		if i < 0 {
			if name == "rpartition" {
				return tuple{"", "", s}, nil
			}
			return tuple{s, "", ""}, nil
		}
		return tuple{s[:i], sep, s[i+len(sep):]}, nil
	}
	return nil, errorf("'str' object has no method '%s'", name)
}

func caseTest(s string, upper bool) bool {
	cased := false
	for _, r := range s {
		if unicode.IsUpper(r) || unicode.IsTitle(r) {
			if !upper {
				return false
			}
			cased = true
		} else if unicode.IsLower(r) {
			if upper {
				return false
			}
			cased = true
		}
	}
	return cased
}

func pad(s string, w int, fill, how string) string {
	n := w - runeLen(s)
	if n <= 0 {
		return s
	}
	switch how {
	case "ljust":
		return s + strings.Repeat(fill, n)
	case "rjust":
		return strings.Repeat(fill, n) + s
	}
	// Python puts the odd extra character on the left when the width is
	// odd and the string's length even, and on the right otherwise.
	left := n / 2
	if n%2 == 1 && w%2 == 1 {
		left++
	}
	return strings.Repeat(fill, left) + s + strings.Repeat(fill, n-left)
}

func replace(ev *evaluator, fn, s string, oldV, newV, countV any) (any, error) {
	old, err := asString(fn, oldV)
	if err != nil {
		return nil, err
	}
	nw, err := asString(fn, newV)
	if err != nil {
		return nil, err
	}
	n := int64(-1)
	if countV != nil {
		if n, err = asInt(fn, countV); err != nil {
			return nil, err
		}
	}
	hits := strings.Count(s, old)
	if n >= 0 && int64(hits) > n {
		hits = int(n)
	}
	if err := ev.checkLen(len(s) + hits*(len(nw)-len(old))); err != nil {
		return nil, err
	}
	return strings.Replace(s, old, nw, int(max(n, -1))), nil
}

// pySplit is Python's str.split and str.rsplit.
func pySplit(fn, s string, sepV any, max int64, fromRight bool) (any, error) {
	var parts []string
	if sepV == nil {
		fields := strings.FieldsFunc(s, unicode.IsSpace)
		if max >= 0 && int64(len(fields)) > max+1 {
			// Re-split keeping the rest of the string intact.
			parts = splitWhitespaceN(s, int(max), fromRight)
		} else {
			parts = fields
		}
	} else {
		sep, err := asString(fn, sepV)
		if err != nil {
			return nil, err
		}
		if sep == "" {
			return nil, errorf("empty separator")
		}
		if max < 0 {
			parts = strings.Split(s, sep)
		} else if !fromRight {
			parts = strings.SplitN(s, sep, int(max)+1)
		} else {
			parts = rsplitN(s, sep, int(max))
		}
	}
	out := make([]any, len(parts))
	for i, p := range parts {
		out[i] = p
	}
	return out, nil
}

func rsplitN(s, sep string, max int) []string {
	var rev []string
	for len(rev) < max {
		i := strings.LastIndex(s, sep)
		if i < 0 {
			break
		}
		rev = append(rev, s[i+len(sep):])
		s = s[:i]
	}
	out := []string{s}
	for i := len(rev) - 1; i >= 0; i-- {
		out = append(out, rev[i])
	}
	return out
}

func splitWhitespaceN(s string, max int, fromRight bool) []string {
	if fromRight {
		var rev []string
		s = strings.TrimRightFunc(s, unicode.IsSpace)
		for len(rev) < max {
			i := strings.LastIndexFunc(s, unicode.IsSpace)
			if i < 0 {
				break
			}
			rev = append(rev, s[i+1:])
			s = strings.TrimRightFunc(s[:i], unicode.IsSpace)
		}
		out := []string{}
		if s != "" {
			out = append(out, s)
		}
		for i := len(rev) - 1; i >= 0; i-- {
			out = append(out, rev[i])
		}
		return out
	}
	var out []string
	s = strings.TrimLeftFunc(s, unicode.IsSpace)
	for len(out) < max {
		i := strings.IndexFunc(s, unicode.IsSpace)
		if i < 0 {
			break
		}
		out = append(out, s[:i])
		s = strings.TrimLeftFunc(s[i:], unicode.IsSpace)
	}
	if s != "" {
		out = append(out, s)
	}
	return out
}

// splitLines is Python's str.splitlines for the common line breaks.
func splitLines(s string, keep bool) []string {
	var out []string
	start := 0
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		if r != '\n' && r != '\r' && r != '\v' && r != '\f' && r != 0x1c && r != 0x1d && r != 0x1e && r != 0x85 && r != 0x2028 && r != 0x2029 {
			continue
		}
		end := i + 1
		if r == '\r' && i+1 < len(rs) && rs[i+1] == '\n' {
			end = i + 2
		}
		if keep {
			out = append(out, string(rs[start:end]))
		} else {
			out = append(out, string(rs[start:i]))
		}
		start = end
		i = end - 1
	}
	if start < len(rs) {
		out = append(out, string(rs[start:]))
	}
	return out
}

// pyTitle is Python's str.title: a letter after a non-letter is upper
// case, any other lower case.
func pyTitle(s string) string {
	var b strings.Builder
	prevCased := false
	for _, r := range s {
		switch {
		case unicode.IsLetter(r) && !prevCased:
			b.WriteRune(unicode.ToTitle(r))
		case unicode.IsLetter(r):
			b.WriteRune(unicode.ToLower(r))
		default:
			b.WriteRune(r)
		}
		prevCased = unicode.IsLetter(r)
	}
	return b.String()
}

// capitalize is Python's str.capitalize.
func capitalize(s string) string {
	if s == "" {
		return s
	}
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToTitle(r)) + strings.ToLower(s[n:])
}
