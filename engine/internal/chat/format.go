package chat

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// percentFormat is Python's "format % operand" for the conversions
// s, r, d, i, f, e, g, x, o, c and %.
func percentFormat(format string, operand any) (string, error) {
	var args []any
	var mapping *dict
	switch o := operand.(type) {
	case tuple:
		args = o
	case *dict:
		mapping = o
		args = []any{o}
	default:
		args = []any{o}
	}
	next := 0
	take := func() (any, error) {
		if next >= len(args) {
			return nil, errorf("not enough arguments for format string")
		}
		next++
		return args[next-1], nil
	}
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' {
			b.WriteByte(c)
			continue
		}
		i++
		if i >= len(format) {
			return "", errorf("incomplete format")
		}
		var arg any
		haveArg := false
		if format[i] == '(' {
			end := strings.IndexByte(format[i:], ')')
			if end < 0 {
				return "", errorf("incomplete format key")
			}
			if mapping == nil {
				return "", errorf("format requires a mapping")
			}
			key := format[i+1 : i+end]
			v, ok := mapping.get(key)
			if !ok {
				return "", errorf("format key %s is missing", quoteRepr(key))
			}
			arg, haveArg = v, true
			i += end + 1
		}
		start := i
		for i < len(format) && strings.IndexByte("-+ #0", format[i]) >= 0 {
			i++
		}
		flags := format[start:i]
		width := ""
		for i < len(format) && format[i] >= '0' && format[i] <= '9' {
			width += string(format[i])
			i++
		}
		prec := ""
		if i < len(format) && format[i] == '.' {
			i++
			prec = "."
			for i < len(format) && format[i] >= '0' && format[i] <= '9' {
				prec += string(format[i])
				i++
			}
		}
		for i < len(format) && strings.IndexByte("hlL", format[i]) >= 0 {
			i++
		}
		if i >= len(format) {
			return "", errorf("incomplete format")
		}
		verb := format[i]
		if verb == '%' {
			b.WriteByte('%')
			continue
		}
		if !haveArg {
			v, err := take()
			if err != nil {
				return "", err
			}
			arg = v
		}
		spec := "%" + flags + width + prec
		switch verb {
		case 's', 'r', 'a':
			s := str(arg)
			if verb != 's' {
				s = repr(arg)
			}
			b.WriteString(fmt.Sprintf("%"+strings.ReplaceAll(flags, "0", "")+width+prec+"s", s))
		case 'd', 'i', 'u':
			_, f, isFloat, ok := asNumber(arg)
			if !ok {
				return "", errorf("%%%c format: a real number is required, not %s", verb, typeName(arg))
			}
			n, _, _, _ := asNumber(arg)
			if isFloat {
				n = int64(math.Trunc(f))
			}
			b.WriteString(fmt.Sprintf(spec+"d", n))
		case 'f', 'F', 'e', 'E', 'g', 'G':
			_, f, _, ok := asNumber(arg)
			if !ok {
				return "", errorf("must be real number, not %s", typeName(arg))
			}
			b.WriteString(fmt.Sprintf(spec+string(verb), f))
		case 'x', 'X', 'o':
			n, _, isFloat, ok := asNumber(arg)
			if !ok || isFloat {
				return "", errorf("%%%c format: an integer is required, not %s", verb, typeName(arg))
			}
			b.WriteString(fmt.Sprintf(spec+string(verb), n))
		case 'c':
			switch a := arg.(type) {
			case string:
				if runeLen(a) != 1 {
					return "", errorf("%%c requires an int or a unicode character")
				}
				b.WriteString(a)
			case int64:
				b.WriteRune(rune(a))
			default:
				return "", errorf("%%c requires an int or a unicode character, not %s", typeName(arg))
			}
		default:
			return "", errorf("unsupported format character '%c'", verb)
		}
	}
	if mapping == nil && next < len(args) {
		return "", errorf("not all arguments converted during string formatting")
	}
	return b.String(), nil
}

// braceFormat is Python's str.format for plain fields: "{}", "{0}",
// "{name}", with an optional "!r" or "!s".
func braceFormat(format string, args []any, kw *dict) (string, error) {
	var b strings.Builder
	auto := 0
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c == '}' {
			if i+1 < len(format) && format[i+1] == '}' {
				b.WriteByte('}')
				i++
				continue
			}
			return "", errorf("single '}' encountered in format string")
		}
		if c != '{' {
			b.WriteByte(c)
			continue
		}
		if i+1 < len(format) && format[i+1] == '{' {
			b.WriteByte('{')
			i++
			continue
		}
		end := strings.IndexByte(format[i:], '}')
		if end < 0 {
			return "", errorf("single '{' encountered in format string")
		}
		field := format[i+1 : i+end]
		i += end
		conv := byte('s')
		if j := strings.IndexByte(field, '!'); j >= 0 {
			if j+2 != len(field) || (field[j+1] != 'r' && field[j+1] != 's') {
				return "", errorf("unsupported conversion in format field {%s}", field)
			}
			conv, field = field[j+1], field[:j]
		}
		if strings.ContainsAny(field, ":.[") {
			return "", errorf("format field {%s} is not supported: only {}, {N} and {name}", field)
		}
		var v any
		switch {
		case field == "":
			if auto >= len(args) {
				return "", errorf("replacement index %d out of range", auto)
			}
			v = args[auto]
			auto++
		case field[0] >= '0' && field[0] <= '9':
			n, err := strconv.Atoi(field)
			if err != nil || n >= len(args) {
				return "", errorf("replacement index %s out of range", field)
			}
			v = args[n]
		default:
			x, ok := kw.get(field)
			if !ok {
				return "", errorf("format field %s is missing", quoteRepr(field))
			}
			v = x
		}
		if conv == 'r' {
			b.WriteString(repr(v))
		} else {
			b.WriteString(str(v))
		}
	}
	return b.String(), nil
}

// strftime formats t as C's strftime does for the common directives.
func strftime(f string, t time.Time) (string, error) {
	var b strings.Builder
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			b.WriteByte(f[i])
			continue
		}
		i++
		if i >= len(f) {
			return "", errorf("strftime format ends with '%%'")
		}
		noPad := false
		if f[i] == '-' && i+1 < len(f) {
			noPad = true
			i++
		}
		num := func(n, width int) {
			if noPad {
				b.WriteString(strconv.Itoa(n))
			} else {
				b.WriteString(fmt.Sprintf("%0*d", width, n))
			}
		}
		switch f[i] {
		case 'a':
			b.WriteString(t.Weekday().String()[:3])
		case 'A':
			b.WriteString(t.Weekday().String())
		case 'b', 'h':
			b.WriteString(t.Month().String()[:3])
		case 'B':
			b.WriteString(t.Month().String())
		case 'd':
			num(t.Day(), 2)
		case 'e':
			if noPad {
				num(t.Day(), 1)
			} else {
				b.WriteString(fmt.Sprintf("%2d", t.Day()))
			}
		case 'm':
			num(int(t.Month()), 2)
		case 'y':
			num(t.Year()%100, 2)
		case 'Y':
			b.WriteString(strconv.Itoa(t.Year()))
		case 'H':
			num(t.Hour(), 2)
		case 'I':
			h := t.Hour() % 12
			if h == 0 {
				h = 12
			}
			num(h, 2)
		case 'M':
			num(t.Minute(), 2)
		case 'S':
			num(t.Second(), 2)
		case 'p':
			if t.Hour() < 12 {
				b.WriteString("AM")
			} else {
				b.WriteString("PM")
			}
		case 'j':
			num(t.YearDay(), 3)
		case 'Z':
			name, _ := t.Zone()
			b.WriteString(name)
		case 'z':
			b.WriteString(t.Format("-0700"))
		case 'F':
			b.WriteString(t.Format("2006-01-02"))
		case 'T':
			b.WriteString(t.Format("15:04:05"))
		case '%':
			b.WriteByte('%')
		default:
			return "", errorf("strftime directive '%%%c' is not supported", f[i])
		}
	}
	return b.String(), nil
}
