package constrain

import (
	"errors"
	"math/rand/v2"
	"testing"
)

// exercise compiles nothing more: it runs a compiled grammar over input's
// bytes, checking that a compile either fails with a SyntaxError or gives
// an automaton that reads any bytes without failing.
func exercise(t *testing.T, g *Grammar, err error, input []byte) {
	if err != nil {
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Fatalf("error is not a SyntaxError: %v", err)
		}
		return
	}
	v, verr := NewVocabulary([][]byte{[]byte("a"), []byte("{\""), []byte("1"), []byte(" ")}, []int{})
	if verr != nil {
		t.Fatal(verr)
	}
	c := New(g, v)
	s := c.Start()
	if s.Remaining() != g.MinLength() {
		t.Fatalf("the start state is %d bytes from the end, the grammar's shortest text %d", s.Remaining(), g.MinLength())
	}
	for _, b := range input {
		c.Allowed(s, 3)
		next, ok := c.AdvanceBytes(s, []byte{b})
		if !ok {
			break
		}
		s = next
	}
}

func FuzzParseGrammar(f *testing.F) {
	for _, s := range []string{
		"root ::= \"a\"+ [b-z]* (\"c\" | d)?\nd ::= \"d\"{2,3}",
		"root ::= x\nx ::= \"(\" x \")\" | \"\"",
		"root ::= [^\"\\\\] . \"\\u00e9\"",
	} {
		f.Add(s, []byte("aab(("))
	}
	f.Fuzz(func(t *testing.T, src string, input []byte) {
		g, err := ParseGrammar(src)
		exercise(t, g, err, input)
	})
}

func FuzzRegexp(f *testing.F) {
	for _, s := range []string{`[0-9]{2,4}`, `(a|b*)*c`, `(?i)ß.+$`, `^\pL+\d?`} {
		f.Add(s, []byte("ab12"))
	}
	f.Fuzz(func(t *testing.T, pattern string, input []byte) {
		g, err := Regexp(pattern)
		exercise(t, g, err, input)
	})
}

func FuzzJSONSchema(f *testing.F) {
	for _, s := range []string{
		`{"type": "object", "properties": {"a": {"type": "integer", "minimum": -5}}, "required": ["a"]}`,
		`{"type": "array", "items": {"enum": [1, "x", null]}, "minItems": 1, "maxItems": 3}`,
		`{"$defs": {"t": {"anyOf": [{"type": "string", "pattern": "^a+$"}, {"type": "array", "items": {"$ref": "#/$defs/t"}}]}}, "$ref": "#/$defs/t"}`,
	} {
		f.Add([]byte(s), []byte(`{"a": 1`))
	}
	f.Fuzz(func(t *testing.T, schema, input []byte) {
		g, err := JSONSchema(schema)
		exercise(t, g, err, input)
	})
}

// FuzzMaskGrammar runs a few tokens of masking over fuzzed grammars: each
// call ends within the bounds on work with a mask that is exactly the
// one found by reading every token's text, or refuses with an
// AmbiguityError.
func FuzzMaskGrammar(f *testing.F) {
	for _, s := range hostileHandPicked {
		f.Add(s, uint64(1))
	}
	f.Add("root ::= x*\nx ::= \"a\" x \"b\" | \"a\" x | \"\"", uint64(2))
	f.Fuzz(func(t *testing.T, src string, seed uint64) {
		r := rand.New(rand.NewPCG(seed, seed))
		followHostile(t, r, src, hostileVocabulary(r), 4)
	})
}
