package constrain

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
)

// TestIntegerRanges: minimum and maximum bound exactly the integers
// written, checked against the arithmetic.
func TestIntegerRanges(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 40 {
		lo := r.Int64N(4000) - 2000
		hi := lo + r.Int64N(3000)
		g, err := JSONSchema([]byte(fmt.Sprintf(`{"type": "integer", "minimum": %d, "maximum": %d}`, lo, hi)))
		if err != nil {
			t.Fatal(err)
		}
		for range 50 {
			x := r.Int64N(10000) - 5000
			_, complete := run(t, g, strconv.FormatInt(x, 10))
			if want := lo <= x && x <= hi; complete != want {
				t.Fatalf("[%d, %d] on %d: complete = %v, want %v", lo, hi, x, complete, want)
			}
		}
		if _, complete := run(t, g, "-0"); complete {
			t.Errorf("[%d, %d] accepts -0", lo, hi)
		}
	}
}

// TestJSONGrammar: testdata/json.gbnf accepts what encoding/json writes
// and refuses what it refuses.
func TestJSONGrammar(t *testing.T) {
	src, err := os.ReadFile("testdata/json.gbnf")
	if err != nil {
		t.Fatal(err)
	}
	g, err := ParseGrammar(string(src))
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{
		`{"a": [1, 2.5, -3e10, true, null], "b": {"c": "d\"\\\u00e9"}}`, `[]`, `{}`, `"x"`, `0`,
		`[1,2`, `{"a" 1}`, `01`, `"\x"`, `[1,]`, `{"a":1}}`, `tru`, `-`, `1.`, "\"a\nb\"",
	} {
		_, complete := run(t, g, text)
		if want := json.Valid([]byte(text)); complete != want {
			t.Errorf("%q: complete = %v, encoding/json says valid = %v", text, complete, want)
		}
	}
}

// TestSelectGrammar: testdata/select.gbnf reads the statements it should.
func TestSelectGrammar(t *testing.T) {
	src, err := os.ReadFile("testdata/select.gbnf")
	if err != nil {
		t.Fatal(err)
	}
	g, err := ParseGrammar(string(src))
	if err != nil {
		t.Fatal(err)
	}
	for text, want := range map[string]bool{
		"SELECT * FROM cities;": true,
		"SELECT name, population FROM cities WHERE population > 100000 LIMIT 10;":              true,
		"SELECT name FROM cities WHERE country = 'France' AND area < 12.5 ORDER BY name DESC;": true,
		"SELECT FROM cities;":           false,
		"SELECT * FROM cities":          false,
		"select * from cities;":         false,
		"SELECT * FROM cities LIMIT 0;": false,
	} {
		if _, complete := run(t, g, text); complete != want {
			t.Errorf("%q: complete = %v, want %v", text, complete, want)
		}
	}
}

// randomText walks the automaton from its start, choosing among the bytes
// that may come next at random, and closing the text once it has budget
// bytes or fewer left, as Allowed does for tokens.
func randomText(t *testing.T, c *Constraint, r *rand.Rand, budget int) string {
	s := c.Start()
	var out []byte
	for n := 0; ; n++ {
		if s.Done() || s.Complete() && r.IntN(8) == 0 {
			return string(out)
		}
		left := budget - n
		var next []State
		var bytes []byte
		for b := range 256 {
			if x, ok := c.AdvanceBytes(s, []byte{byte(b)}); ok && (x.Remaining() <= left-1 || x.Remaining() < s.Remaining()) {
				next, bytes = append(next, x), append(bytes, byte(b))
			}
		}
		if len(next) == 0 {
			if !s.Complete() {
				t.Fatalf("no byte may follow %q, which is not complete", out)
			}
			return string(out)
		}
		i := r.IntN(len(next))
		s, out = next[i], append(out, bytes[i])
	}
}

// TestRandomSchemaTexts: random texts of the city schema's language are
// JSON, and complete ones have every required property.
func TestRandomSchemaTexts(t *testing.T) {
	src, err := os.ReadFile("testdata/city.json")
	if err != nil {
		t.Fatal(err)
	}
	g, err := JSONSchema(src)
	if err != nil {
		t.Fatal(err)
	}
	v, _ := NewVocabulary([][]byte{[]byte("x")}, nil)
	c := New(g, v)
	r := rand.New(rand.NewPCG(5, 6))
	for range 200 {
		text := randomText(t, c, r, 150)
		var city map[string]any
		if err := json.Unmarshal([]byte(text), &city); err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		for _, k := range []string{"name", "country", "population"} {
			if _, ok := city[k]; !ok {
				t.Fatalf("%q lacks %s", text, k)
			}
		}
	}
}
