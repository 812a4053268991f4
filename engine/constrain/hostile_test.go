package constrain

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// hostileGrammar writes a grammar made to be ambiguous: alternatives that
// read the same bytes, repetitions of groups and of rules that can be
// empty, nested repetitions, and recursions that may close or go on, with
// several ways to close.
func hostileGrammar(r *rand.Rand) string {
	nrules := 1 + r.IntN(3)
	rule := func() string { return fmt.Sprintf("r%d", 1+r.IntN(nrules)) }
	var item func(depth int) string
	item = func(depth int) string {
		var s string
		switch k := r.IntN(10); {
		case k < 3:
			s = []string{`"a"`, `"a" "a"`, `[ab]`, `"b"`, `"ab"`}[r.IntN(5)]
		case k < 6 && depth < 3:
			var as []string
			for range 1 + r.IntN(3) {
				var seq []string
				for range r.IntN(3) {
					seq = append(seq, item(depth+1))
				}
				if len(seq) == 0 {
					seq = []string{`""`}
				}
				as = append(as, strings.Join(seq, " "))
			}
			s = "(" + strings.Join(as, " | ") + ")"
		default:
			// Recursion after a byte, never on the left.
			s = fmt.Sprintf("([ab] %s %s)", rule(), []string{`"a"`, `"b"`, `""`, rule()}[r.IntN(4)])
			if r.IntN(3) == 0 {
				s = rule()
			}
		}
		switch r.IntN(4) {
		case 0:
			s += "*"
		case 1:
			s += "+"
		case 2:
			s += "?"
		}
		return s
	}
	var b strings.Builder
	for i := range nrules + 1 {
		name := fmt.Sprintf("r%d", i)
		if i == 0 {
			name = "root"
		}
		var as []string
		for range 1 + r.IntN(3) {
			var seq []string
			for range 1 + r.IntN(3) {
				seq = append(seq, item(0))
			}
			as = append(as, strings.Join(seq, " "))
		}
		fmt.Fprintf(&b, "%s ::= %s\n", name, strings.Join(as, " | "))
	}
	return b.String()
}

// hostileVocabulary has every byte the hostile grammars use as a token,
// and long runs of them, which make a state's mask look far ahead.
func hostileVocabulary(r *rand.Rand) *Vocabulary {
	texts := [][]byte{[]byte("a"), []byte("b"), []byte("c")}
	for range 100 + r.IntN(100) {
		n := 1 + r.IntN(8)
		if r.IntN(5) == 0 {
			n = 10 + r.IntN(30)
		}
		var t []byte
		for range n {
			t = append(t, "aab"[r.IntN(3)])
		}
		texts = append(texts, t)
	}
	texts = append(texts, nil) // an end token
	v, err := NewVocabulary(texts, []int{len(texts) - 1})
	if err != nil {
		panic(err)
	}
	return v
}

// hostileHandPicked are grammars known to multiply the ways of reading
// a text with each byte.
var hostileHandPicked = []string{
	"root ::= (a | a a | r)*\na ::= \"a\"\nr ::= (\"a\" r | \"a\")*",
	"root ::= (r r | r)*\nr ::= (\"a\" r \"a\" | \"a\" r \"b\" | \"a\" r | \"a\")*",
	"root ::= ((\"a\"* | \"a\" \"a\"*)* \"b\"?)*",
	"root ::= (x | y)*\nx ::= \"a\" x \"b\" | \"a\" y \"a\" | \"a\"\ny ::= \"a\" y \"a\" | x \"b\" | \"a\"+",
	"root ::= (((\"a\" | \"a\" \"a\")+)+)+ \"b\"",
	"root ::= r*\nr ::= \"a\" r* \"b\"* | \"a\" r? \"a\"",
}

// ambiguity checks that err, from a call on a constraint, is an
// *AmbiguityError that points into the source.
func ambiguity(t *testing.T, src string, err error) {
	t.Helper()
	var ae *AmbiguityError
	if !errors.As(err, &ae) {
		t.Fatalf("grammar\n%s\nerror is not an *AmbiguityError: %v", src, err)
	}
	if ae.Line < 1 || ae.Column < 1 || ae.Offset < 0 || ae.Offset > len(src) || ae.Text < 0 {
		t.Fatalf("grammar\n%s\nthe error points nowhere: %+v", src, ae)
	}
	if !strings.Contains(err.Error(), "too ambiguous") {
		t.Fatalf("grammar\n%s\nthe error does not say what is wrong: %v", src, err)
	}
}

// bounded checks that the last call on c counted at most MaxWork steps,
// or, if it failed (err), at most the one more step or state's stacks
// that it was taking when the count ran out.
func bounded(t *testing.T, src string, c *Constraint, err error) {
	t.Helper()
	limit := MaxWork
	if err != nil {
		limit += MaxStacks + 1
	}
	if w := Work(c); w > limit {
		t.Fatalf("grammar\n%s\na call took %d steps, above %d (error: %v)", src, w, limit, err)
	}
}

// followHostile runs a random path of steps tokens through src with v.
// Every call either ends within MaxWork with a mask that is exactly the
// one found by reading each token's text, or refuses with an
// AmbiguityError. It reports whether a bound was met.
func followHostile(t *testing.T, r *rand.Rand, src string, v *Vocabulary, steps int) (refused bool) {
	g, err := ParseGrammar(src)
	if err != nil {
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Fatalf("grammar\n%s\nerror is not a SyntaxError: %v", src, err)
		}
		return false
	}
	c := New(g, v)
	s, err := c.StartErr()
	if err != nil {
		ambiguity(t, src, err)
		return true
	}
	for range steps {
		budget := []int{0, 1, 3, 20}[r.IntN(4)]
		m, err := c.Tokens(s, budget)
		bounded(t, src, c, err)
		if err != nil {
			ambiguity(t, src, err)
			if a := c.Allowed(s, budget); a.Count() != 0 {
				t.Fatalf("grammar\n%s\nAllowed gives %d tokens where Tokens fails", src, a.Count())
			}
			return true
		}
		brute, err := c.TokensBy(s, budget, v.Text)
		if err != nil {
			ambiguity(t, src, err)
			return true
		}
		for id := range v.Size() {
			if m.Allowed(id) != brute.Allowed(id) {
				t.Fatalf("grammar\n%s\ntoken %d (%q): the mask says %v, reading its text %v", src, id, v.Text(id), m.Allowed(id), brute.Allowed(id))
			}
		}
		ids := m.IDs()
		if len(ids) == 0 || s.Done() {
			return false
		}
		id := ids[r.IntN(len(ids))]
		if v.IsEnd(id) {
			return false
		}
		next, err := c.Advance(s, id)
		bounded(t, src, c, err)
		if err != nil {
			ambiguity(t, src, err)
			return true
		}
		s = next
	}
	return false
}

// TestHostileGrammars: ambiguous grammars, written by hand and at random,
// are each refused with a position, or followed within the bounds with
// masks that are exact.
func TestHostileGrammars(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	n := 300
	if testing.Short() {
		n = 60
	}
	refused := 0
	var slowest time.Duration
	var slowSrc string
	for i := range len(hostileHandPicked) + n {
		var src string
		if i < len(hostileHandPicked) {
			src = hostileHandPicked[i]
		} else {
			src = hostileGrammar(r)
		}
		t0 := time.Now()
		if followHostile(t, r, src, hostileVocabulary(r), 30) {
			if d := time.Since(t0); d > slowest {
				slowest = d
				slowSrc = src
			}
			refused++
		}
	}
	t.Logf("%d of %d grammars passed a bound; slowest %v\n%s", refused, len(hostileHandPicked)+n, slowest, slowSrc)
}
