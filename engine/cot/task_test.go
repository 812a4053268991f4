package cot

import (
	"strings"
	"testing"
)

func TestCompletion(t *testing.T) {
	cases := []struct {
		a, b, digits  int
		direct, steps string
	}{
		{357, 268, 3, "625", "7+8+0=15 5+6+1=12 3+2+1=06 so 625"},
		{3, 2, 1, "5", "3+2+0=05 so 5"},
		{0, 0, 1, "0", "0+0+0=00 so 0"},
		{99, 99, 2, "198", "9+9+0=18 9+9+1=19 so 198"},
		{10000, 10000, 5, "20000", "0+0+0=00 0+0+0=00 0+0+0=00 0+0+0=00 1+1+0=02 so 20000"},
	}
	for _, c := range cases {
		p, err := NewProblem(c.a, c.b, c.digits)
		if err != nil {
			t.Fatalf("NewProblem(%d, %d, %d): %v", c.a, c.b, c.digits, err)
		}
		if got := p.Completion(Direct); got != c.direct {
			t.Errorf("%s direct completion = %q; want %q", p.Prompt(), got, c.direct)
		}
		if got := p.Completion(Steps); got != c.steps {
			t.Errorf("%s steps completion = %q; want %q", p.Prompt(), got, c.steps)
		}
		if got, want := p.Text(Steps), p.Prompt()+c.steps; got != want {
			t.Errorf("Text(Steps) = %q; want %q", got, want)
		}
	}
}

func TestNewProblemErrors(t *testing.T) {
	for _, c := range []struct {
		a, b, digits int
		want         string
	}{
		{12, 34, 0, "0 digits"},
		{12, 34, MaxDigits + 1, "digits"},
		{12, 345, 2, "345 does not have exactly 2 digits"},
		{-1, 3, 1, "-1 does not have"},
		{5, 3, 2, "5 does not have exactly 2 digits"},
	} {
		_, err := NewProblem(c.a, c.b, c.digits)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("NewProblem(%d, %d, %d) error = %v; want one saying %q", c.a, c.b, c.digits, err, c.want)
		}
	}
}

func TestProblems(t *testing.T) {
	for d := 1; d <= MaxDigits; d++ {
		ps := Problems(d, 50, 7)
		if len(ps) != 50 {
			t.Fatalf("Problems(%d, 50, 7) gave %d problems", d, len(ps))
		}
		again := Problems(d, 50, 7)
		for i, p := range ps {
			if _, err := NewProblem(p.A, p.B, p.Digits); err != nil || p.Digits != d {
				t.Errorf("Problems(%d, …)[%d] = %+v: %v", d, i, p, err)
			}
			if again[i] != p {
				t.Errorf("Problems(%d, 50, 7) is not reproducible at %d: %+v then %+v", d, i, p, again[i])
			}
		}
	}
	if Problems(3, 5, 1)[0] == Problems(3, 5, 2)[0] && Problems(3, 5, 1)[1] == Problems(3, 5, 2)[1] {
		t.Error("seeds 1 and 2 give the same problems")
	}
}

func TestExamples(t *testing.T) {
	sizes := map[int]int{}
	for _, text := range Examples(Steps, 600, 1) {
		prompt, completion, ok := strings.Cut(text, "=")
		if !ok {
			t.Fatalf("example %q has no =", text)
		}
		a, b, _ := strings.Cut(prompt, "+")
		sizes[len(a)]++
		if len(a) != len(b) {
			t.Errorf("example %q: the numbers have different sizes", text)
		}
		if got, ok := ParseAnswer(completion); !ok || len(strings.Fields(completion)) != len(a)+2 {
			t.Errorf("example %q: answer %d, %v; want one step per digit and an answer", text, got, ok)
		}
	}
	// Size d has probability d/15: 40, 80, 120, 160 and 200 of 600 expected.
	for d := 1; d <= MaxDigits; d++ {
		want := 600 * d / 15
		if sizes[d] < want*2/3 || sizes[d] > want*4/3 {
			t.Errorf("Examples: %d of 600 have %d digits; want about %d, d/15 of them (%v)", sizes[d], d, want, sizes)
		}
	}
	if a, b := Examples(Direct, 3, 5), Examples(Direct, 3, 5); strings.Join(a, ",") != strings.Join(b, ",") {
		t.Errorf("Examples is not reproducible: %q then %q", a, b)
	}
}

func TestParseAnswer(t *testing.T) {
	for _, c := range []struct {
		text string
		want int
		ok   bool
	}{
		{"625", 625, true},
		{"7+8+0=15 5+6+1=12 3+2+1=06 so 625", 625, true},
		{" 42 ", 42, true},
		{"007", 7, true},
		{"", 0, false},
		{"7+8+0=15 5+6", 0, false},
		{"7+8+0=15 so", 0, false},
		{"so 6x5", 0, false},
		{"so -5", 0, false},
		{"so 1234567890123456789012", 0, false},
	} {
		got, ok := ParseAnswer(c.text)
		if got != c.want || ok != c.ok {
			t.Errorf("ParseAnswer(%q) = %d, %v; want %d, %v", c.text, got, ok, c.want, c.ok)
		}
	}
}

func TestFormat(t *testing.T) {
	for _, f := range Formats {
		g, err := ParseFormat(f.String())
		if err != nil || g != f {
			t.Errorf("ParseFormat(%q) = %v, %v", f.String(), g, err)
		}
	}
	if _, err := ParseFormat("cot"); err == nil || !strings.Contains(err.Error(), `"cot"`) {
		t.Errorf("ParseFormat(\"cot\") error = %v; want one naming it", err)
	}
}

func TestTokenizer(t *testing.T) {
	tok, err := NewTokenizer()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := tok.VocabSize(), 3+256+len(Alphabet); got != want {
		t.Errorf("vocabulary of %d tokens; want %d", got, want)
	}
	text := "357+268=7+8+0=15 5+6+1=12 3+2+1=06 so 625"
	ids, err := tok.Encode(text, true, true)
	if err != nil {
		t.Fatal(err)
	}
	// <s>, the leading space Encode adds, one token per character, </s>.
	if len(ids) != len(text)+3 {
		t.Errorf("Encode(%q) gave %d tokens; want %d, one per character plus <s>, the leading space and </s>", text, len(ids), len(text)+3)
	}
	if got := tok.DecodeAll(ids); got != text {
		t.Errorf("DecodeAll(Encode(%q)) = %q", text, got)
	}
	// A character outside the alphabet falls back to its byte token.
	ids, err = tok.Encode("x", false, false)
	if err != nil || len(ids) != 2 || tok.Piece(ids[1]) != "<0x78>" {
		t.Errorf("Encode(\"x\") = %v, %v; want the space and the byte token <0x78>", ids, err)
	}
}

func TestMaxNewTokens(t *testing.T) {
	for d := 1; d <= MaxDigits; d++ {
		p := Problems(d, 1, 1)[0]
		p.A, p.B = pow10(d)-1, pow10(d)-1 // the longest answer
		if n := len(p.Completion(Steps)) + 1; MaxNewTokens(d) < n {
			t.Errorf("MaxNewTokens(%d) = %d; the longest steps completion and </s> take %d", d, MaxNewTokens(d), n)
		}
	}
}

func TestScore(t *testing.T) {
	s := Score{Problems: 4, Correct: 3, Tokens: 10}
	if s.Accuracy() != 0.75 || s.TokensPerProblem() != 2.5 || s.String() != "75% right, 2.5 tokens per problem" {
		t.Errorf("Score%+v: accuracy %v, tokens per problem %v, %q", s, s.Accuracy(), s.TokensPerProblem(), s)
	}
	if (Score{}).Accuracy() != 0 || (Score{}).TokensPerProblem() != 0 {
		t.Error("an empty Score must give 0, not NaN")
	}
}
