package constrain

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
)

// jvalue is a JSON value with the offset where it starts in its document,
// so that a schema's errors can say where they are.
type jvalue struct {
	kind   byte // '{', '[', 's' string, 'n' number, 'b' boolean, '0' null
	pos    int
	keys   []string
	keyPos []int
	vals   []*jvalue
	str    string
	num    json.Number
	b      bool
}

func (v *jvalue) get(key string) (*jvalue, int, bool) {
	for i, k := range v.keys {
		if k == key {
			return v.vals[i], v.keyPos[i], true
		}
	}
	return nil, 0, false
}

// parseJSON reads one JSON document, refusing anything after it and
// nesting deeper than MaxDepth.
func parseJSON(b *builder, data []byte) (*jvalue, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	p := &jparser{b: b, d: d, data: data}
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, b.errorf(p.skip(int(d.InputOffset())), "more text after the schema's JSON value")
	}
	return v, nil
}

type jparser struct {
	b    *builder
	d    *json.Decoder
	data []byte
}

// skip moves an offset past blanks and separators to where the next
// token starts.
func (p *jparser) skip(off int) int {
	for off < len(p.data) && strings.IndexByte(" \t\r\n:,", p.data[off]) >= 0 {
		off++
	}
	return off
}

func (p *jparser) token() (json.Token, int, error) {
	pos := p.skip(int(p.d.InputOffset()))
	t, err := p.d.Token()
	if err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, pos, p.b.errorf(int(se.Offset), "not valid JSON: %v", err)
		}
		if err == io.EOF {
			return nil, pos, p.b.errorf(len(p.data), "not valid JSON: unexpected end")
		}
		return nil, pos, p.b.errorf(pos, "not valid JSON: %v", err)
	}
	return t, pos, nil
}

func (p *jparser) value(depth int) (*jvalue, error) {
	t, pos, err := p.token()
	if err != nil {
		return nil, err
	}
	if depth > MaxDepth {
		return nil, p.b.errorf(pos, "the schema nests more than %d deep", MaxDepth)
	}
	return p.rest(t, pos, depth)
}

func (p *jparser) rest(t json.Token, pos, depth int) (*jvalue, error) {
	v := &jvalue{pos: pos}
	switch t := t.(type) {
	case json.Delim:
		v.kind = byte(t)
		for p.d.More() {
			if v.kind == '{' {
				kt, kpos, err := p.token()
				if err != nil {
					return nil, err
				}
				v.keys = append(v.keys, kt.(string))
				v.keyPos = append(v.keyPos, kpos)
			}
			k, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			v.vals = append(v.vals, k)
		}
		if _, _, err := p.token(); err != nil { // the closing } or ]
			return nil, err
		}
	case string:
		v.kind, v.str = 's', t
	case json.Number:
		v.kind, v.num = 'n', t
	case bool:
		v.kind, v.b = 'b', t
	case nil:
		v.kind = '0'
	}
	return v, nil
}

// encode writes v as compact JSON, the form the constraint generates.
func (v *jvalue) encode(out *bytes.Buffer) {
	switch v.kind {
	case '{':
		out.WriteByte('{')
		for i, k := range v.keys {
			if i > 0 {
				out.WriteByte(',')
			}
			out.WriteString(jsonString(k))
			out.WriteByte(':')
			v.vals[i].encode(out)
		}
		out.WriteByte('}')
	case '[':
		out.WriteByte('[')
		for i, x := range v.vals {
			if i > 0 {
				out.WriteByte(',')
			}
			x.encode(out)
		}
		out.WriteByte(']')
	case 's':
		out.WriteString(jsonString(v.str))
	case 'n':
		out.WriteString(v.num.String())
	case 'b':
		if v.b {
			out.WriteString("true")
		} else {
			out.WriteString("false")
		}
	default:
		out.WriteString("null")
	}
}

// jsonString quotes s as a JSON string, escaping only what JSON requires.
func jsonString(s string) string {
	var out bytes.Buffer
	e := json.NewEncoder(&out)
	e.SetEscapeHTML(false)
	e.Encode(s) // a string always encodes
	return strings.TrimSuffix(out.String(), "\n")
}
