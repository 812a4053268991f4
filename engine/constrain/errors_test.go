package constrain

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestRefusedWithPosition: broken or hostile sources are refused before
// any work, with the line and column of the problem.
func TestRefusedWithPosition(t *testing.T) {
	deep := strings.Repeat("(", 2000) + `"a"` + strings.Repeat(")", 2000)
	deepSchema := strings.Repeat(`{"items":`, 1100) + "{}" + strings.Repeat("}", 1100)
	cases := []struct {
		source, text string
		compile      func(string) (*Grammar, error)
		line, col    int
		msg          string
	}{
		{"grammar", `root ::= "a"{1000000}`, ParseGrammar, 1, 13, "above the limit"},
		{"grammar", "root ::= x\nx ::= x \"a\" | \"b\"", ParseGrammar, 2, 1, `rule "x" is left-recursive`},
		{"grammar", "root ::= a\na ::= b? \"x\" | \"y\"\nb ::= \"\" | a", ParseGrammar, 2, 1, "left-recursive"},
		{"grammar", "root ::= \"a\" undefined", ParseGrammar, 1, 14, `rule "undefined" is used but never defined`},
		{"grammar", "root ::= \"a\n", ParseGrammar, 1, 10, "not closed"},
		{"grammar", "root ::= [b-a]", ParseGrammar, 1, 12, "backwards"},
		{"grammar", "root ::= \"a\"\nroot ::= \"b\"", ParseGrammar, 2, 1, "defined twice"},
		{"grammar", "x ::= \"a\"", ParseGrammar, 1, 1, "no rule named root"},
		{"grammar", "root ::= (\"a\" | ", ParseGrammar, 1, 10, "not closed"},
		{"grammar", "root ::= " + deep, ParseGrammar, 1, 1011, "nest"},
		{"grammar", "root ::= x\nx ::= \"a\" x", ParseGrammar, 1, 1, "empty"},
		{"regular expression", `a{1000000}`, Regexp, 1, 2, "invalid repeat count"},
		{"regular expression", `ab(c`, Regexp, 1, 1, "missing closing )"},
		{"regular expression", `a\bb`, Regexp, 1, 1, "word boundary"},
		{"regular expression", `[^\x00-\x{10FFFF}]`, Regexp, 1, 1, "empty"},
		{"JSON schema", `{"type": "object", "properties": {"a": {"type": "strin"}}}`, schema, 1, 49, "unknown type"},
		{"JSON schema", `{"type": "object",` + "\n" + `  "minProperties": 2}`, schema, 2, 3, `keyword "minProperties" is not supported`},
		{"JSON schema", `{"$ref": "#/$defs/missing"}`, schema, 1, 10, "points to nothing"},
		{"JSON schema", `{"type": "string", "pattern": "a(b"}`, schema, 1, 32, "missing closing )"},
		{"JSON schema", `{"type": "string", "maxLength": 5000}`, schema, 1, 20, "above the limit"},
		{"JSON schema", `{"type": "integer", "minimum": 5, "maximum": 1}`, schema, 1, 35, "below minimum"},
		{"JSON schema", `{"type": [}`, schema, 1, 11, "not valid JSON"},
		{"JSON schema", `{"$defs": {"n": {"type": "object", "properties": {"next": {"$ref": "#/$defs/n"}}, "required": ["next"]}}, "$ref": "#/$defs/n"}`, schema, 1, 1, "empty"},
		{"JSON schema", deepSchema, schema, 1, 9010, "nests more than"},
	}
	for _, tc := range cases {
		start := time.Now()
		_, err := tc.compile(tc.text)
		if time.Since(start) > 2*time.Second {
			t.Errorf("%.40q took %v to refuse", tc.text, time.Since(start))
		}
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("%.60q: got %v, want a SyntaxError", tc.text, err)
			continue
		}
		if se.Source != tc.source || se.Line != tc.line || se.Column != tc.col || !strings.Contains(se.Msg, tc.msg) {
			t.Errorf("%.60q:\n got %v\nwant %s: line %d, column %d: …%s…", tc.text, err, tc.source, tc.line, tc.col, tc.msg)
		}
	}
}

func schema(s string) (*Grammar, error) { return JSONSchema([]byte(s)) }

// TestAccepted: what the sources may legitimately contain compiles, with
// bounded work: nullable stars, right recursion, recursive schemas.
func TestAccepted(t *testing.T) {
	for _, src := range []string{
		"root ::= (\"a\"?)* \"b\"",
		"root ::= item+\nitem ::= \"x\" | \"(\" root \")\"",
		"root ::= \"a\"{1000} \"b\"{0,1000}",
		"root ::= ((\"a\"{1000}){1000}){1000}",
	} {
		if _, err := ParseGrammar(src); err != nil {
			t.Errorf("%q: %v", src, err)
		}
	}
	for _, src := range []string{
		`{"$defs": {"tree": {"type": "object", "properties": {"name": {"type": "string"}, "kids": {"type": "array", "items": {"$ref": "#/$defs/tree"}}}, "required": ["name"]}}, "$ref": "#/$defs/tree"}`,
		`true`,
		`{"anyOf": [{"type": "string"}, {"type": "integer", "minimum": 3}]}`,
	} {
		if _, err := JSONSchema([]byte(src)); err != nil {
			t.Errorf("%s: %v", src, err)
		}
	}
}
