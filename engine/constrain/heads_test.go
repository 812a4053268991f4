package constrain

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// randomGrammar writes a grammar of a few rules over a small alphabet, with
// the constructs whose heads the masks are split by: nesting, recursion
// (not on the left), empty alternatives, stars, and bounded repetitions
// long enough to be walked as their twins.
func randomGrammar(r *rand.Rand) string {
	var b strings.Builder
	nrules := 1 + r.IntN(4)
	var item func(depth int) string
	item = func(depth int) string {
		var s string
		terminal := false
		switch k := r.IntN(9); {
		case k < 2:
			s, terminal = fmt.Sprintf("%q", []string{"a", "b", "ab", "\"", "é", "ca"}[r.IntN(6)]), true
		case k < 4:
			s, terminal = []string{"[a-c]", "[^a]", "[b\"]", "."}[r.IntN(4)], true
		case k < 6 && depth < 2:
			s = "(" + alts(r, depth+1, item) + ")"
		default:
			// A rule to the right of a byte cannot make left recursion.
			s = fmt.Sprintf("%q r%d", "c", r.IntN(nrules))
			if r.IntN(2) == 0 {
				s = fmt.Sprintf("r%d", 1+r.IntN(max(nrules-1, 1)))
			}
			s = "(" + s + ")"
		}
		// Repeating groups and rules too makes grammars so ambiguous that
		// their states hold thousands of stacks, which is not what this
		// test is about.
		if !terminal {
			return s
		}
		switch r.IntN(6) {
		case 0:
			s += "*"
		case 1:
			s += "?"
		case 2:
			s += fmt.Sprintf("{%d,%d}", r.IntN(2), 4+r.IntN(20))
		case 3:
			s += "+"
		}
		return s
	}
	for i := range nrules {
		name := fmt.Sprintf("r%d", i)
		if i == 0 {
			name = "root"
		}
		fmt.Fprintf(&b, "%s ::= %s\n", name, alts(r, 0, item))
	}
	// root refers to r0 as itself.
	return strings.ReplaceAll(b.String(), "r0", "root")
}

func alts(r *rand.Rand, depth int, item func(int) string) string {
	var as []string
	for range 1 + r.IntN(3) {
		var seq []string
		for range r.IntN(4) {
			seq = append(seq, item(depth))
		}
		if len(seq) == 0 {
			seq = []string{`""`}
		}
		as = append(as, strings.Join(seq, " "))
	}
	return strings.Join(as, " | ")
}

// randomVocabulary has every byte the grammars use as a token of its own,
// so that every language can be written, and random texts over them, some
// long, some cutting "é" in two.
func randomVocabulary(r *rand.Rand) *Vocabulary {
	pieces := []string{"a", "b", "c", "\"", "é", "\xc3", "\xa9", "x", "\n"}
	var texts [][]byte
	for _, p := range pieces {
		texts = append(texts, []byte(p))
	}
	for range 200 + r.IntN(200) {
		n := 1 + r.IntN(6)
		if r.IntN(20) == 0 {
			n = 10 + r.IntN(30)
		}
		var t []byte
		for range n {
			t = append(t, pieces[r.IntN(len(pieces))]...)
		}
		texts = append(texts, t)
	}
	texts = append(texts, nil, nil) // an end token, and one with no text
	v, err := NewVocabulary(texts, []int{len(texts) - 2})
	if err != nil {
		panic(err)
	}
	return v
}

// TestHeadsMatchBruteForce: over random grammars, vocabularies and paths
// through them, the masks assembled from the heads' walks are those found
// by running every token's text through the automaton, for many budgets.
func TestHeadsMatchBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	grammars, twins, unsure := 0, 0, 0
	n := 200
	if testing.Short() {
		n = 50
	}
	for grammars < n {
		src := randomGrammar(r)
		g, err := ParseGrammar(src)
		if err != nil {
			continue // left recursion or an empty language: not this test's business
		}
		grammars++
		if g.twins != nil {
			twins++
		}
		v := randomVocabulary(r)
		c := New(g, v)
		s := c.Start()
		for step := range 40 {
			for _, budget := range []int{0, 1, 2, 3, 5, 8, 13, 40} {
				fast := c.Allowed(s, budget)
				brute := c.AllowedBy(s, budget, v.Text)
				if fast.Count() != brute.Count() {
					for id := range v.Size() {
						if fast.Allowed(id) != brute.Allowed(id) {
							t.Fatalf("grammar\n%s\nstep %d, budget %d: token %d (%q): heads say %v, brute force %v", src, step, budget, id, v.Text(id), fast.Allowed(id), brute.Allowed(id))
						}
					}
				}
			}
			unsure += len(s.d.checked)
			ids := c.Allowed(s, 0).IDs()
			if len(ids) == 0 || s.Done() {
				break
			}
			id := ids[r.IntN(len(ids))]
			if v.IsEnd(id) {
				break
			}
			if s, err = c.Advance(s, id); err != nil {
				t.Fatal(err)
			}
		}
	}
	// The test means something only if it met the cases it is about.
	if twins < n/10 || unsure < n {
		t.Errorf("only %d grammars with twins, %d tokens checked byte by byte: the random grammars miss the cases", twins, unsure)
	}
}
