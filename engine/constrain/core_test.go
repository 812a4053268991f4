package constrain

import (
	"regexp"
	"testing"
)

// matches runs text through the automaton and reports whether it is a
// prefix of the language and whether it is complete.
func run(t *testing.T, g *Grammar, text string) (prefix, complete bool) {
	t.Helper()
	v, err := NewVocabulary([][]byte{[]byte("x")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := New(g, v)
	s, ok := c.AdvanceBytes(c.Start(), []byte(text))
	return ok, ok && s.Complete()
}

func TestRegexpAgreesWithGo(t *testing.T) {
	cases := []struct {
		pattern string
		texts   []string
	}{
		{`[0-9]{3}`, []string{"", "1", "12", "123", "1234", "12a"}},
		{`(a|bc)*d?`, []string{"", "a", "abc", "abcd", "bcbcd", "b", "dd", "ad"}},
		{`(a*)*b`, []string{"b", "ab", "aaab", "", "ba"}},
		{`(?i)héllo`, []string{"HÉLLO", "héllo", "hÉllO", "hello"}},
		{`[^a-z]+`, []string{"A", "é", "日本", "a", "Zz", "\n"}},
		{`^\d+(\.\d+)?$`, []string{"1", "1.", "1.5", ".5", "10.25"}},
		{`x{2,4}`, []string{"x", "xx", "xxx", "xxxx", "xxxxx"}},
		{`.`, []string{"\n", "a", "€", "\U0001F600"}},
	}
	for _, tc := range cases {
		g, err := Regexp(tc.pattern)
		if err != nil {
			t.Fatalf("Regexp(%q): %v", tc.pattern, err)
		}
		re := regexp.MustCompile(`^(?:` + tc.pattern + `)$`)
		for _, text := range tc.texts {
			_, complete := run(t, g, text)
			if want := re.MatchString(text); complete != want {
				t.Errorf("%q on %q: complete = %v, Go's regexp says %v", tc.pattern, text, complete, want)
			}
		}
	}
}

// TestStarOfNothing: a repetition of a rule that matches no text (it
// never stops recursing) is the empty string alone, not a crash.
func TestStarOfNothing(t *testing.T) {
	g, err := ParseGrammar("root ::= \"a\" (r1)* \"b\"\nr1 ::= \"c\" r1")
	if err != nil {
		t.Fatal(err)
	}
	for text, want := range map[string]bool{"ab": true, "acb": false, "a": false} {
		if _, complete := run(t, g, text); complete != want {
			t.Errorf("%q: complete = %v, want %v", text, complete, want)
		}
	}
}
