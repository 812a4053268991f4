package constrain

import (
	"bytes"
	"math"
	"net/url"
	"strconv"
	"strings"
	"unicode"
)

// JSONSchema compiles a JSON Schema into the language of the JSON values
// that validate against it, written compactly: no whitespace but one
// optional space after each comma and colon, as encoders write JSON.
//
// The subset understood:
//   - type: "object", "array", "string", "number", "integer", "boolean",
//     "null", or a list of them;
//   - properties and required (properties are written in the schema's
//     order; the optional ones may be left out; no other property is
//     written, whatever additionalProperties says);
//   - items, minItems, maxItems;
//   - minLength, maxLength and pattern (a Go regular expression, which
//     matches anywhere unless anchored with ^ and $) for strings;
//   - minimum and maximum (rounded inwards to whole numbers) for integers
//     and numbers; a bounded number has no exponent;
//   - enum, const, anyOf;
//   - $ref to "#", "#/$defs/…" or "#/definitions/…", recursion included;
//   - the annotations ($schema, $id, $comment, title, description,
//     default, examples, format, deprecated, readOnly, writeOnly) are read
//     and ignored.
//
// Any other keyword is refused, with its position, rather than ignored:
// the values generated would not validate.
//
// Numbers are bounded to what float64 tells apart: up to 16 digits
// before and after the point and a two-digit exponent, so that a model
// cannot write digits forever.
func JSONSchema(schema []byte) (*Grammar, error) {
	b := newBuilder("JSON schema", string(schema))
	doc, err := parseJSON(b, schema)
	if err != nil {
		return nil, err
	}
	s := &schemaConv{b: b, doc: doc, refs: map[string]int{}}
	root := s.anon(doc.pos)
	n, err := s.conv(doc, 0)
	if err != nil {
		return nil, err
	}
	b.rules[root].body = n
	return b.compile(root)
}

// MaxSchemaNumber bounds integers named by minimum and maximum.
const MaxSchemaNumber = 1 << 53

type schemaConv struct {
	b    *builder
	doc  *jvalue
	refs map[string]int // JSON pointer -> rule
	any  int            // the rule for any JSON value, or 0 before it is made
	str  *node          // one character inside a string
	made bool
}

// anon adds an unnamed rule, to be given a body.
func (s *schemaConv) anon(pos int) int {
	s.b.rules = append(s.b.rules, ruleDef{pos: pos, defined: true, body: seqNode(pos)})
	return len(s.b.rules) - 1
}

var annotations = map[string]bool{
	"$schema": true, "$id": true, "$comment": true, "title": true, "description": true,
	"default": true, "examples": true, "format": true, "deprecated": true, "readOnly": true,
	"writeOnly": true, "$defs": true, "definitions": true,
}

var keywords = map[string]bool{
	"type": true, "properties": true, "required": true, "additionalProperties": true,
	"items": true, "minItems": true, "maxItems": true, "minLength": true, "maxLength": true,
	"pattern": true, "minimum": true, "maximum": true, "enum": true, "const": true,
	"anyOf": true, "$ref": true,
}

func (s *schemaConv) conv(v *jvalue, depth int) (*node, error) {
	if depth > MaxDepth {
		return nil, s.b.errorf(v.pos, "subschemas nest more than %d deep", MaxDepth)
	}
	switch v.kind {
	case 'b':
		if v.b {
			return s.anyValue(v.pos), nil
		}
		return altNode(v.pos), nil // false: nothing validates
	case '{':
	default:
		return nil, s.b.errorf(v.pos, "a schema must be an object or a boolean")
	}
	for i, k := range v.keys {
		if !keywords[k] && !annotations[k] {
			return nil, s.b.errorf(v.keyPos[i], "keyword %q is not supported", k)
		}
	}
	if ref, pos, ok := v.get("$ref"); ok {
		for i, k := range v.keys {
			if k != "$ref" && keywords[k] {
				return nil, s.b.errorf(v.keyPos[i], "keyword %q beside $ref is not supported", k)
			}
		}
		return s.ref(ref, pos)
	}
	if c, _, ok := v.get("const"); ok {
		return s.literalValue(c), nil
	}
	if e, pos, ok := v.get("enum"); ok {
		if e.kind != '[' || len(e.vals) == 0 {
			return nil, s.b.errorf(pos, "enum must be a non-empty array")
		}
		alt := altNode(e.pos)
		for _, x := range e.vals {
			alt.kids = append(alt.kids, s.literalValue(x))
		}
		return alt, nil
	}
	if a, pos, ok := v.get("anyOf"); ok {
		if a.kind != '[' || len(a.vals) == 0 {
			return nil, s.b.errorf(pos, "anyOf must be a non-empty array of schemas")
		}
		alt := altNode(a.pos)
		for _, x := range a.vals {
			n, err := s.conv(x, depth+1)
			if err != nil {
				return nil, err
			}
			alt.kids = append(alt.kids, n)
		}
		return alt, nil
	}
	types, err := s.types(v)
	if err != nil {
		return nil, err
	}
	alt := altNode(v.pos)
	for _, t := range types {
		var n *node
		var err error
		switch t {
		case "object":
			n, err = s.object(v, depth)
		case "array":
			n, err = s.array(v, depth)
		case "string":
			n, err = s.stringValue(v)
		case "number":
			n, err = s.boundedNumber(v)
		case "integer":
			n, err = s.integer(v)
		case "boolean":
			n = altNode(v.pos, literal("true", v.pos), literal("false", v.pos))
		case "null":
			n = literal("null", v.pos)
		}
		if err != nil {
			return nil, err
		}
		alt.kids = append(alt.kids, n)
	}
	if len(alt.kids) == 1 {
		return alt.kids[0], nil
	}
	return alt, nil
}

// types returns the types a schema allows: those of its type keyword, or
// the one its other keywords imply, or every type.
func (s *schemaConv) types(v *jvalue) ([]string, error) {
	t, pos, ok := v.get("type")
	if !ok {
		has := func(keys ...string) bool {
			for _, k := range keys {
				if _, _, ok := v.get(k); ok {
					return true
				}
			}
			return false
		}
		switch {
		case has("properties", "required", "additionalProperties"):
			return []string{"object"}, nil
		case has("items", "minItems", "maxItems"):
			return []string{"array"}, nil
		case has("minLength", "maxLength", "pattern"):
			return []string{"string"}, nil
		case has("minimum", "maximum"):
			return []string{"number"}, nil
		}
		return []string{"object", "array", "string", "number", "boolean", "null"}, nil
	}
	var names []*jvalue
	switch t.kind {
	case 's':
		names = []*jvalue{t}
	case '[':
		names = t.vals
	default:
		return nil, s.b.errorf(pos, "type must be a string or an array of strings")
	}
	var out []string
	seen := map[string]bool{}
	for _, n := range names {
		switch n.str {
		case "object", "array", "string", "number", "integer", "boolean", "null":
			if n.kind == 's' && !seen[n.str] {
				// integer is part of number: listing both is number.
				if n.str == "integer" && seen["number"] || n.str == "number" && seen["integer"] {
					continue
				}
				seen[n.str] = true
				out = append(out, n.str)
				continue
			}
		}
		if n.kind == 's' && seen[n.str] {
			continue
		}
		return nil, s.b.errorf(n.pos, "unknown type %s", n.encodeString())
	}
	if len(out) == 0 {
		return nil, s.b.errorf(t.pos, "type lists no type")
	}
	return out, nil
}

func (v *jvalue) encodeString() string {
	var b bytes.Buffer
	v.encode(&b)
	return b.String()
}

// literalValue matches exactly the compact JSON of v.
func (s *schemaConv) literalValue(v *jvalue) *node {
	return literal(v.encodeString(), v.pos)
}

// ref returns a reference to the rule for the schema a $ref points to.
func (s *schemaConv) ref(ref *jvalue, pos int) (*node, error) {
	if ref.kind != 's' {
		return nil, s.b.errorf(ref.pos, "$ref must be a string")
	}
	target := ref.str
	if !strings.HasPrefix(target, "#") {
		return nil, s.b.errorf(ref.pos, "$ref %q points outside this schema: only references starting with # are supported", target)
	}
	if id, ok := s.refs[target]; ok {
		return refNode(id, ref.pos), nil
	}
	ptr, err := url.PathUnescape(target[1:])
	if err != nil {
		return nil, s.b.errorf(ref.pos, "$ref %q is not a valid JSON pointer: %v", target, err)
	}
	v := s.doc
	if ptr != "" {
		if !strings.HasPrefix(ptr, "/") {
			return nil, s.b.errorf(ref.pos, "$ref %q is not a JSON pointer (#/...): anchors are not supported", target)
		}
		for _, part := range strings.Split(ptr[1:], "/") {
			part = strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")
			var next *jvalue
			switch v.kind {
			case '{':
				next, _, _ = v.get(part)
			case '[':
				if i, err := strconv.Atoi(part); err == nil && i >= 0 && i < len(v.vals) {
					next = v.vals[i]
				}
			}
			if next == nil {
				return nil, s.b.errorf(ref.pos, "$ref %q points to nothing in this schema (no %q)", target, part)
			}
			v = next
		}
	}
	id := s.anon(v.pos)
	s.refs[target] = id
	n, err := s.conv(v, 0)
	if err != nil {
		return nil, err
	}
	s.b.rules[id].body = n
	return refNode(id, ref.pos), nil
}

// space is the optional space after a comma or colon.
func space(pos int) *node { return repeatNode(literal(" ", pos), 0, 1, pos) }

func (s *schemaConv) object(v *jvalue, depth int) (*node, error) {
	var names []string
	var schemas []*jvalue
	if props, pos, ok := v.get("properties"); ok {
		if props.kind != '{' {
			return nil, s.b.errorf(pos, "properties must be an object")
		}
		names, schemas = props.keys, props.vals
	}
	required := map[string]bool{}
	if req, pos, ok := v.get("required"); ok {
		if req.kind != '[' {
			return nil, s.b.errorf(pos, "required must be an array of strings")
		}
		for _, r := range req.vals {
			if r.kind != 's' {
				return nil, s.b.errorf(r.pos, "required must list property names (strings)")
			}
			if !required[r.str] && !contains(names, r.str) {
				// Required but not described: any value will do.
				names = append(names, r.str)
				schemas = append(schemas, &jvalue{kind: 'b', b: true, pos: r.pos})
			}
			required[r.str] = true
		}
	}
	members := make([]*node, len(names))
	for i, name := range names {
		val, err := s.conv(schemas[i], depth+1)
		if err != nil {
			return nil, err
		}
		members[i] = seqNode(schemas[i].pos, literal(jsonString(name)+":", schemas[i].pos), space(schemas[i].pos), val)
	}
	// rest[k][first]: the members from k on; first says whether none has
	// been written yet (no comma before the next). Each is a rule, so that
	// optional members do not copy what follows them.
	type key struct {
		k     int
		first bool
	}
	rest := map[key]int{}
	var build func(k int, first bool) *node
	build = func(k int, first bool) *node {
		if k == len(names) {
			return seqNode(v.pos)
		}
		if id, ok := rest[key{k, first}]; ok {
			return refNode(id, v.pos)
		}
		id := s.anon(v.pos)
		rest[key{k, first}] = id
		with := seqNode(v.pos)
		if !first {
			with.kids = append(with.kids, literal(",", v.pos), space(v.pos))
		}
		with.kids = append(with.kids, members[k], build(k+1, false))
		body := with
		if !required[names[k]] {
			body = altNode(v.pos, with, build(k+1, first))
		}
		s.b.rules[id].body = body
		return refNode(id, v.pos)
	}
	return seqNode(v.pos, literal("{", v.pos), build(0, true), literal("}", v.pos)), nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// count reads a non-negative integer keyword, or def if it is absent.
func (s *schemaConv) count(v *jvalue, key string, def int) (int, error) {
	x, pos, ok := v.get(key)
	if !ok {
		return def, nil
	}
	n, err := strconv.Atoi(string(x.num))
	if x.kind != 'n' || err != nil || n < 0 {
		return 0, s.b.errorf(pos, "%s must be a non-negative integer", key)
	}
	if n > MaxRepeat {
		return 0, s.b.errorf(pos, "%s = %d is above the limit of %d", key, n, MaxRepeat)
	}
	return n, nil
}

func (s *schemaConv) array(v *jvalue, depth int) (*node, error) {
	item := s.anyValue(v.pos)
	if items, _, ok := v.get("items"); ok {
		var err error
		if item, err = s.conv(items, depth+1); err != nil {
			return nil, err
		}
	}
	lo, err := s.count(v, "minItems", 0)
	if err != nil {
		return nil, err
	}
	hi, err := s.count(v, "maxItems", -1)
	if err != nil {
		return nil, err
	}
	if hi >= 0 && hi < lo {
		_, pos, _ := v.get("maxItems")
		return nil, s.b.errorf(pos, "maxItems %d is below minItems %d", hi, lo)
	}
	if hi == 0 {
		return literal("[]", v.pos), nil
	}
	// The item is a rule, so that repeating it does not copy it.
	id := s.anon(v.pos)
	s.b.rules[id].body = item
	one := refNode(id, v.pos)
	more := repeatNode(seqNode(v.pos, literal(",", v.pos), space(v.pos), one), max(lo-1, 0), max(hi-1, -1), v.pos)
	items := seqNode(v.pos, one, more)
	if lo == 0 {
		return seqNode(v.pos, literal("[", v.pos), repeatNode(items, 0, 1, v.pos), literal("]", v.pos)), nil
	}
	return seqNode(v.pos, literal("[", v.pos), items, literal("]", v.pos)), nil
}

func (s *schemaConv) stringValue(v *jvalue) (*node, error) {
	lo, err := s.count(v, "minLength", 0)
	if err != nil {
		return nil, err
	}
	hi, err := s.count(v, "maxLength", -1)
	if err != nil {
		return nil, err
	}
	if hi >= 0 && hi < lo {
		_, pos, _ := v.get("maxLength")
		return nil, s.b.errorf(pos, "maxLength %d is below minLength %d", hi, lo)
	}
	if p, pos, ok := v.get("pattern"); ok {
		if _, _, ok := v.get("minLength"); ok {
			return nil, s.b.errorf(pos, "pattern together with minLength is not supported")
		}
		if _, _, ok := v.get("maxLength"); ok {
			return nil, s.b.errorf(pos, "pattern together with maxLength is not supported")
		}
		if p.kind != 's' {
			return nil, s.b.errorf(pos, "pattern must be a string")
		}
		// The pattern's position in the schema: past the opening quote.
		// Escapes in the JSON string shift the columns a little.
		n, begin, end, err := parseRegexp(s.b, p.str, true, p.pos+1)
		if err != nil {
			return nil, err
		}
		any := jsonChars([]runeRange{{0, unicode.MaxRune}}, p.pos)
		body := seqNode(p.pos)
		if !begin {
			body.kids = append(body.kids, repeatNode(any, 0, -1, p.pos))
		}
		body.kids = append(body.kids, n)
		if !end {
			body.kids = append(body.kids, repeatNode(any, 0, -1, p.pos))
		}
		return seqNode(v.pos, literal(`"`, v.pos), body, literal(`"`, v.pos)), nil
	}
	return seqNode(v.pos, literal(`"`, v.pos), repeatNode(s.char(), lo, hi, v.pos), literal(`"`, v.pos)), nil
}

// char is one character inside a JSON string.
func (s *schemaConv) char() *node {
	if s.str == nil {
		s.str = jsonChars([]runeRange{{0, unicode.MaxRune}}, 0)
	}
	return s.str
}

// number is a JSON number, bounded in length; integer when !frac.
func (s *schemaConv) number(pos int, frac bool) *node {
	var digit, nonzero byteSet
	digit.add('0', '9')
	nonzero.add('1', '9')
	intPart := altNode(pos, literal("0", pos), seqNode(pos, bytesNode(nonzero, pos), repeatNode(bytesNode(digit, pos), 0, 15, pos)))
	n := seqNode(pos, repeatNode(literal("-", pos), 0, 1, pos), intPart)
	if frac {
		var e, sign byteSet
		e.add('e', 'e')
		e.add('E', 'E')
		sign.add('-', '-')
		sign.add('+', '+')
		n.kids = append(n.kids,
			repeatNode(seqNode(pos, literal(".", pos), repeatNode(bytesNode(digit, pos), 1, 16, pos)), 0, 1, pos),
			repeatNode(seqNode(pos, bytesNode(e, pos), repeatNode(bytesNode(sign, pos), 0, 1, pos), repeatNode(bytesNode(digit, pos), 1, 2, pos)), 0, 1, pos))
	}
	return n
}

// integer is a JSON integer, between minimum and maximum if given.
func (s *schemaConv) integer(v *jvalue) (*node, error) {
	lo, hi, err := s.bounds(v)
	if err != nil {
		return nil, err
	}
	if lo == math.MinInt64 && hi == math.MaxInt64 {
		return s.number(v.pos, false), nil
	}
	return intRange(lo, hi, v.pos), nil
}

func (s *schemaConv) anyValue(pos int) *node {
	if s.made {
		return refNode(s.any, pos)
	}
	s.made = true
	s.any = s.anon(pos)
	value := refNode(s.any, pos)
	str := seqNode(pos, literal(`"`, pos), repeatNode(s.char(), 0, -1, pos), literal(`"`, pos))
	member := seqNode(pos, str, literal(":", pos), space(pos), value)
	list := func(open, close string, x *node) *node {
		more := repeatNode(seqNode(pos, literal(",", pos), space(pos), x), 0, -1, pos)
		return seqNode(pos, literal(open, pos), repeatNode(seqNode(pos, x, more), 0, 1, pos), literal(close, pos))
	}
	s.b.rules[s.any].body = altNode(pos,
		list("{", "}", member), list("[", "]", value), str, s.number(pos, true),
		literal("true", pos), literal("false", pos), literal("null", pos))
	return value
}

// intRange matches the decimal integers lo..hi (without leading zeros, and
// "0" rather than "-0"). Unbounded sides are math.MinInt64 / MaxInt64.
func intRange(lo, hi int64, pos int) *node {
	alt := altNode(pos)
	const top = 9999999999999999 // 16 digits: the longest integer written
	if lo < 0 {
		// Negative part: -x for x in max(-hi,1)..-lo.
		nlo, nhi := int64(1), int64(top)
		if lo != math.MinInt64 {
			nhi = min(-lo, top)
		}
		if hi < 0 {
			nlo = -hi
		}
		if nlo <= nhi {
			alt.kids = append(alt.kids, seqNode(pos, literal("-", pos), natRange(nlo, nhi, pos)))
		}
	}
	if hi >= 0 {
		plo, phi := max(lo, 0), min(hi, top)
		if plo <= phi {
			alt.kids = append(alt.kids, natRange(plo, phi, pos))
		}
	}
	return alt
}

// natRange matches the decimal numerals of lo..hi (0 <= lo <= hi): by
// length, then digit by digit, as a regular expression for a range is
// usually written.
func natRange(lo, hi int64, pos int) *node {
	alt := altNode(pos)
	ls, hs := strconv.FormatInt(lo, 10), strconv.FormatInt(hi, 10)
	for n := len(ls); n <= len(hs); n++ {
		a, b := ls, hs
		if n > len(ls) {
			a = "1" + strings.Repeat("0", n-1)
		}
		if n < len(hs) {
			b = strings.Repeat("9", n)
		}
		if n == 1 && len(ls) < 1 {
			a = "0"
		}
		alt.kids = append(alt.kids, digitsRange(a, b, pos))
	}
	return alt
}

// digitsRange matches the numerals of equal length n from a to b.
func digitsRange(a, b string, pos int) *node {
	digit := func(lo, hi byte) *node {
		var s byteSet
		s.add(lo, hi)
		return bytesNode(s, pos)
	}
	if len(a) == 0 {
		return seqNode(pos)
	}
	if strings.Trim(a, "0") == "" && strings.Trim(b, "9") == "" {
		// Every numeral of this length: without this, the two ends below
		// would each recurse, twice per digit.
		return repeatNode(digit('0', '9'), len(a), len(a), pos)
	}
	if a[0] == b[0] {
		return seqNode(pos, digit(a[0], a[0]), digitsRange(a[1:], b[1:], pos))
	}
	rest := len(a) - 1
	nines, zeros := strings.Repeat("9", rest), strings.Repeat("0", rest)
	alt := altNode(pos)
	// a[0] followed by a[1:]..999, the digits strictly between followed by
	// anything, b[0] followed by 000..b[1:].
	alt.kids = append(alt.kids, seqNode(pos, digit(a[0], a[0]), digitsRange(a[1:], nines, pos)))
	if a[0]+1 <= b[0]-1 {
		alt.kids = append(alt.kids, seqNode(pos, digit(a[0]+1, b[0]-1), repeatNode(digit('0', '9'), rest, rest, pos)))
	}
	alt.kids = append(alt.kids, seqNode(pos, digit(b[0], b[0]), digitsRange(zeros, b[1:], pos)))
	return alt
}

// boundedNumber is a JSON number, between minimum and maximum if given.
// Bounds that are not integers are rounded inwards, and a bounded number
// has no exponent: every value written is in range.
func (s *schemaConv) boundedNumber(v *jvalue) (*node, error) {
	_, _, hasMin := v.get("minimum")
	_, _, hasMax := v.get("maximum")
	if !hasMin && !hasMax {
		return s.number(v.pos, true), nil
	}
	lo, hi, err := s.bounds(v)
	if err != nil {
		return nil, err
	}
	pos := v.pos
	var digit byteSet
	digit.add('0', '9')
	frac := repeatNode(seqNode(pos, literal(".", pos), repeatNode(bytesNode(digit, pos), 1, 16, pos)), 0, 1, pos)
	const top = 9999999999999999
	alt := altNode(pos)
	if lo < 0 {
		// -x for x in [c, d]: whole parts c..d-1 with any fraction, and d.
		c, d := int64(0), int64(top)
		if hi < 0 {
			c = -hi
		}
		if lo != math.MinInt64 {
			d = min(-lo, top)
		}
		neg := altNode(pos, literal(strconv.FormatInt(d, 10), pos))
		if c <= d-1 {
			neg.kids = append(neg.kids, seqNode(pos, natRange(c, d-1, pos), frac))
		}
		alt.kids = append(alt.kids, seqNode(pos, literal("-", pos), neg))
	}
	if hi >= 0 {
		a, b := max(lo, 0), int64(top)
		if hi != math.MaxInt64 {
			b = min(hi, top)
		}
		alt.kids = append(alt.kids, literal(strconv.FormatInt(b, 10), pos))
		if a <= b-1 {
			alt.kids = append(alt.kids, seqNode(pos, natRange(a, b-1, pos), frac))
		}
	}
	return alt, nil
}

// bounds reads minimum and maximum, rounded inwards to integers.
func (s *schemaConv) bounds(v *jvalue) (lo, hi int64, err error) {
	bound := func(key string, def int64) (int64, error) {
		x, pos, ok := v.get(key)
		if !ok {
			return def, nil
		}
		f, err := strconv.ParseFloat(string(x.num), 64)
		if x.kind != 'n' || err != nil || math.Abs(f) > MaxSchemaNumber {
			return 0, s.b.errorf(pos, "%s must be a number between -%d and %d", key, int64(MaxSchemaNumber), int64(MaxSchemaNumber))
		}
		if key == "minimum" {
			return int64(math.Ceil(f)), nil
		}
		return int64(math.Floor(f)), nil
	}
	if lo, err = bound("minimum", math.MinInt64); err != nil {
		return 0, 0, err
	}
	if hi, err = bound("maximum", math.MaxInt64); err != nil {
		return 0, 0, err
	}
	if lo > hi {
		_, pos, _ := v.get("maximum")
		return 0, 0, s.b.errorf(pos, "maximum is below minimum (rounded to whole numbers): nothing validates")
	}
	return lo, hi, nil
}
