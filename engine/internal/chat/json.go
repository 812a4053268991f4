package chat

import (
	"sort"
	"strconv"
	"strings"
)

// jsonEncoder writes values as Python's json.dumps does, which is what
// Hugging Face's tojson filter calls: ", " and ": " between items unless
// indenting, non-ASCII text kept as it is unless ensureASCII, keys in
// insertion order unless sortKeys.
type jsonEncoder struct {
	b               strings.Builder
	indent          string
	pretty          bool
	itemSep, keySep string
	ensureASCII     bool
	sortKeys        bool
	limit           int
}

func (e *jsonEncoder) newline(level int) {
	if e.pretty {
		e.b.WriteByte('\n')
		for range level {
			e.b.WriteString(e.indent)
		}
	}
}

func (e *jsonEncoder) encode(v any, level int) error {
	if e.b.Len() > e.limit {
		return errorf("tojson output would exceed %d bytes", e.limit)
	}
	if level > 100 {
		return errorf("tojson: value nested too deeply")
	}
	switch v := v.(type) {
	case nil:
		e.b.WriteString("null")
	case bool:
		if v {
			e.b.WriteString("true")
		} else {
			e.b.WriteString("false")
		}
	case int64:
		e.b.WriteString(strconv.FormatInt(v, 10))
	case float64:
		e.b.WriteString(jsonFloat(v))
	case string:
		e.str(v)
	case []any:
		return e.seq(v, level)
	case tuple:
		return e.seq(v, level)
	case *dict:
		if v.len() == 0 {
			e.b.WriteString("{}")
			return nil
		}
		keys := append([]any(nil), v.keys...)
		if e.sortKeys {
			var failed error
			sort.SliceStable(keys, func(i, j int) bool {
				c, err := compare(keys[i], keys[j], "<")
				if err != nil && failed == nil {
					failed = err
				}
				return c < 0
			})
			if failed != nil {
				return failed
			}
		}
		e.b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				e.b.WriteString(e.itemSep)
			}
			e.newline(level + 1)
			switch k := k.(type) {
			case string:
				e.str(k)
			case nil:
				e.str("null")
			case bool:
				if k {
					e.str("true")
				} else {
					e.str("false")
				}
			case int64:
				e.str(strconv.FormatInt(k, 10))
			case float64:
				e.str(jsonFloat(k))
			default:
				return errorf("keys must be str, int, float, bool or None, not %s", typeName(k))
			}
			e.b.WriteString(e.keySep)
			if err := e.encode(v.value(k), level+1); err != nil {
				return err
			}
		}
		e.newline(level)
		e.b.WriteByte('}')
	default:
		return errorf("Object of type %s is not JSON serializable", typeName(v))
	}
	return nil
}

func (e *jsonEncoder) seq(items []any, level int) error {
	if len(items) == 0 {
		e.b.WriteString("[]")
		return nil
	}
	e.b.WriteByte('[')
	for i, it := range items {
		if i > 0 {
			e.b.WriteString(e.itemSep)
		}
		e.newline(level + 1)
		if err := e.encode(it, level+1); err != nil {
			return err
		}
	}
	e.newline(level)
	e.b.WriteByte(']')
	return nil
}

func jsonFloat(f float64) string {
	switch s := formatFloat(f); s {
	case "nan":
		return "NaN"
	case "inf":
		return "Infinity"
	case "-inf":
		return "-Infinity"
	default:
		return s
	}
}

func (e *jsonEncoder) str(s string) {
	b := &e.b
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		default:
			switch {
			case r < 0x20 || e.ensureASCII && r > 0x7f:
				if r > 0xffff {
					r1, r2 := utf16Pair(r)
					b.WriteString(`\u` + hex4(r1) + `\u` + hex4(r2))
				} else {
					b.WriteString(`\u` + hex4(r))
				}
			default:
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
}

func hex4(r rune) string {
	return strconv.FormatInt(int64(r)|0x10000, 16)[1:]
}

func utf16Pair(r rune) (rune, rune) {
	r -= 0x10000
	return 0xd800 + (r>>10)&0x3ff, 0xdc00 + r&0x3ff
}
