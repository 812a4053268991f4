package structured

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/tokenbytoken/course/exercises/internal/check"
)

// q quotes a text for a failure message.
func q(text string) string { return strconv.Quote(text) }

// TestTask1_Walk: tokens that cross several states, that stop inside a
// symbol of the language, that leave it at their first byte or at a later
// one; the empty text; Dead and numbers that are not states.
//
//grade:task 1 points 2
func TestTask1_Walk(t *testing.T) {
	defer check.Recover(t)
	fails := check.NewLimit(t, 4)
	defer fails.Close()
	for _, c := range []struct {
		name  string
		a     *Automaton
		state int
		text  string
		want  int
		why   string
	}{
		{"jsonN", jsonN(t), 0, `{"n":12}`, 7, "the whole object"},
		{"jsonN", jsonN(t), 0, `{"`, 2, "two states in one token"},
		{"jsonN", jsonN(t), 3, `":`, 5, "the token closes the key and reads the colon"},
		{"jsonN", jsonN(t), 5, "12", 6, "5 -1-> 6 -2-> 6"},
		{"jsonN", jsonN(t), 6, "3}", 7, "the token ends the number and the object"},
		{"jsonN", jsonN(t), 0, `{"n":1`, 6, "six states in one token"},
		{"jsonN", jsonN(t), 5, "1a", Dead, "the first byte is fine, the second has no edge"},
		{"jsonN", jsonN(t), 0, `{"n":}`, Dead, "no digit before }"},
		{"jsonN", jsonN(t), 6, "}{", Dead, "after the object nothing may follow, not even what state 0 would read"},
		{"jsonN", jsonN(t), 6, "a1", Dead, "once dead, always dead: a digit after the a does not bring it back"},
		{"jsonN", jsonN(t), 7, "", 7, "an empty text stays where it is"},
		{"jsonN", jsonN(t), Dead, "", Dead, "from Dead"},
		{"jsonN", jsonN(t), Dead, "{", Dead, "from Dead, even a byte state 0 would read"},
		{"jsonN", jsonN(t), 8, "", Dead, "8 is not a state"},
		{"jsonN", jsonN(t), -3, "", Dead, "-3 is not a state"},
		{"accents", accents(t), 0, "é", 2, "é is two bytes, 0xc3 0xa9"},
		{"accents", accents(t), 0, "\xc3", 1, "the first half of é"},
		{"accents", accents(t), 1, "\xa9\xc3", 1, "the second half of é, then the first half of the next"},
		{"accents", accents(t), 0, "éè", 2, "four bytes"},
		{"accents", accents(t), 0, "e", Dead, "e is not é"},
		{"accents", accents(t), 2, "\xa9", Dead, "a second half without its first"},
	} {
		if got := c.a.Walk(c.state, []byte(c.text)); got != c.want {
			fails.Errorf("%s.Walk(%s, %s) = %s; want %s (%s)\n  %s: %s", c.name, stateName(c.state), q(c.text), stateName(got), stateName(c.want), c.why, c.name, describe(c.a))
		}
	}
}

// TestTask1_WalkIdentities: on random automata and texts, Walk reads one
// byte as Step does, leaves a state alone on the empty text, and reading x
// then y is reading x+y.
//
//grade:task 1 points 1
func TestTask1_WalkIdentities(t *testing.T) {
	defer check.Recover(t)
	r := rand.New(rand.NewPCG(14, 1))
	fails := check.NewLimit(t, 3)
	defer fails.Close()
	for range 300 {
		a := randomAutomaton(t, r)
		s := r.IntN(a.States())
		if got := a.Walk(s, nil); got != s {
			fails.Errorf("Walk(%d, \"\") = %s; want %d (an empty text stays where it is)\n  automaton: %s", s, stateName(got), s, describe(a))
		}
		b := alphabet[r.IntN(len(alphabet))]
		if got, want := a.Walk(s, []byte{b}), a.Step(s, b); got != want {
			fails.Errorf("Walk(%d, %s) = %s; want %s, as Step(%d, %q)\n  automaton: %s", s, q(string(b)), stateName(got), stateName(want), s, b, describe(a))
		}
		x, y := randomText(r, 4), randomText(r, 4)
		xy := append(append([]byte{}, x...), y...)
		if got, want := a.Walk(s, xy), a.Walk(a.Walk(s, x), y); got != want {
			fails.Errorf("Walk(%d, %s) = %s; but Walk(%d, %s) = %s and Walk(%s, %s) = %s\n  automaton: %s",
				s, q(string(xy)), stateName(got), s, q(string(x)), stateName(a.Walk(s, x)), stateName(a.Walk(s, x)), q(string(y)), stateName(want), describe(a))
		}
		if got, want := a.Walk(s, xy), walkRef(a, s, xy); got != want {
			fails.Errorf("Walk(%d, %s) = %s; want %s\n  automaton: %s", s, q(string(xy)), stateName(got), stateName(want), describe(a))
		}
	}
}

// TestTask2_Live: live states worked out by hand. A trap state is not
// live; a state the bytes could leave but no token can is not live either;
// end tokens and empty texts move nothing.
//
//grade:task 2 points 2
func TestTask2_Live(t *testing.T) {
	defer check.Recover(t)
	fails := check.NewLimit(t, 4)
	defer fails.Close()
	ab := build(t, 0, []int{2}, Edge{0, "a", 1}, Edge{1, "b", 2})
	abc := build(t, 0, []int{3}, Edge{0, "a", 1}, Edge{1, "b", 2}, Edge{2, "c", 3})
	for _, c := range []struct {
		name string
		a    *Automaton
		v    Vocab
		want []bool
		why  string
	}{
		{"trapped", trapped(t), vocab([]int{3}, "a", "b", "x", "<end>"), []bool{true, true, true, false}, "state 3 is a trap: it never accepts"},
		{"ab", ab, vocab([]int{2}, "a", "ab", "<end>"), []bool{true, false, true}, `after "a" only "b" could follow, and no token writes "b"`},
		{"ab", ab, vocab([]int{2}, "a", "b", "<end>"), []bool{true, true, true}, `"a" then "b"`},
		{"ab", ab, vocab([]int{2}, "a", "", "<end>", "ab"), []bool{true, false, true}, "an empty text moves nothing"},
		{"ab", ab, vocab([]int{1}, "a", "b"), []bool{false, false, true}, `"b" is the end token: its text is never read, so nothing writes "b"`},
		{"ab", ab, vocab([]int{0, 1}, "a", "b", "ab"), []bool{true, false, true}, `"a" and "b" are end tokens: only "ab" writes`},
		{"abc", abc, vocab([]int{2}, "ab", "c", "<end>"), []bool{true, false, true, true}, `"ab" then "c"; nothing leaves state 1`},
		{"abc", abc, vocab([]int{2}, "a", "bc", "<end>"), []bool{true, true, false, true}, `"a" then "bc"; nothing leaves state 2`},
		{"abc", abc, vocab([]int{1}, "abcd", "<end>"), []bool{false, false, false, true}, `"abcd" overshoots: only the accepting state is live`},
		{"jsonN", jsonN(t), jsonVocab(), []bool{true, true, true, true, false, true, true, true}, "every state but 4, by tokens that cross symbols; state 4 needs a colon, and no token begins with one"},
		{"accents", accents(t), vocab([]int{0}, "<end>", "\xc3", "\xa9"), []bool{true, true, true}, "halves of é"},
		{"accents", accents(t), vocab([]int{0}, "<end>", "é", "\xc3"), []bool{true, false, true}, "no token writes the second half of é on its own"},
	} {
		got := Live(c.a, c.v)
		if !sameBools(got, c.want) {
			fails.Errorf("Live(%s, %s) = %s; want %s (%s)\n  %s: %s", c.name, describeVocab(c.v), bools(got), bools(c.want), c.why, c.name, describe(c.a))
		}
	}
}

// TestTask2_LiveBruteForce: on random automata and vocabularies, Live
// agrees with trying every token sequence.
//
//grade:task 2 points 3
func TestTask2_LiveBruteForce(t *testing.T) {
	defer check.Recover(t)
	r := rand.New(rand.NewPCG(14, 2))
	fails := check.NewLimit(t, 3)
	defer fails.Close()
	for range 400 {
		a, v := randomAutomaton(t, r), randomVocab(r)
		if got, want := Live(a, v), liveRef(a, v); !sameBools(got, want) {
			fails.Errorf("Live(a, %s) = %s; want %s, by trying every token sequence\n  a: %s", describeVocab(v), bools(got), bools(want), describe(a))
		}
	}
}

// TestTask2_LiveAtScale: on a vocabulary of SmolLM2's size, 49,152
// tokens, Live walks each token once from each state, as task 2's hints
// say, not once from each state in every round of a loop that repeats
// until nothing changes. The work is counted, not timed: the automaton
// counts the bytes Step reads, and the test allows twice what walking
// every token once from every state reads. The language, a 32-digit id in
// a JSON object, whose tokens write one digit at a time, takes a loop that
// goes over the states until nothing changes about 20 rounds over its 43
// states: 8 to 10 times the bytes.
//
//grade:task 2 points 1
func TestTask2_LiveAtScale(t *testing.T) {
	defer check.Recover(t)
	a, v, trap := idLanguage(t)
	want := make([]bool, a.States())
	for s := range want {
		want[s] = s != trap
	}
	// The bytes that walking every writing token once from every state
	// reads, byte by byte until Dead, as Walk reads them.
	once := 0
	for s := range a.States() {
		for id, text := range v.Texts {
			if len(text) == 0 || v.IsEnd(id) {
				continue
			}
			for i, state := 0, s; i < len(text) && state != Dead; i++ {
				state = a.Step(state, text[i])
				once++
			}
		}
	}
	limit := 2 * once
	a.meter = &meter{limit: limit}
	got := Live(a, v)
	read := a.meter.steps
	a.meter = nil
	call := fmt.Sprintf("Live(a, v) with a vocabulary of %s tokens and the %d states of %s", check.Count(len(v.Texts)), a.States(), idLanguageName)
	switch {
	case read > limit:
		t.Fatalf("%s read more than %s bytes through Step, where the test stopped it (it counts them): walking each token once from each state reads %s, and the test allows twice that.\n"+
			"Does Live walk every token again in each round of a loop? Walk each token once from each state, keep the state it leads to, and find the live states on those edges (task 2's hints).",
			call, check.Count(limit), check.Count(once))
	case read == 0 && len(got) == a.States():
		t.Fatalf("%s read no byte through Step: this test counts Live's work in calls of Step, so read the automaton with a.Step (in Walk too), not through its fields", call)
	case !sameBools(got, want):
		t.Errorf("%s = %s; want %s: every state is live but the trap, state %d", call, bools(got), bools(want), trap)
	}
}

// maskCase is one Mask question and its answer.
type maskCase struct {
	name  string
	a     *Automaton
	v     Vocab
	state int
	want  []int // the allowed ids
	why   string
}

func (c maskCase) check(fails *check.Limit) {
	live := liveRef(c.a, c.v)
	want := make([]bool, len(c.v.Texts))
	for _, id := range c.want {
		want[id] = true
	}
	if msg := maskProblem(Mask(c.a, c.v, live, c.state), want, c.v); msg != "" {
		fails.Errorf("Mask(%s, v, live %s, %s) %s (%s)\n  v: %s\n  %s: %s",
			c.name, bools(live), stateName(c.state), msg, c.why, describeVocab(c.v), c.name, describe(c.a))
	}
}

// TestTask3_Mask: the allowed tokens of {"n":[0-9]+}, worked out by hand,
// with tokens that do not line up with the language's symbols.
//
//	ids: 0 `{"`  1 `n`  2 `":`  3 `12`  4 `3}`  5 `}`  6 `{"n":1`  7 `a`  8 ``  9 `"`  10 end  11 `1a`  12 `{`
//
//grade:task 3 points 2
func TestTask3_Mask(t *testing.T) {
	defer check.Recover(t)
	fails := check.NewLimit(t, 4)
	defer fails.Close()
	a, v := jsonN(t), jsonVocab()
	for _, c := range []maskCase{
		{"jsonN", a, v, 0, []int{0, 6, 12}, `nothing written yet: the tokens that begin {"n":`},
		{"jsonN", a, v, 2, []int{1}, `after {": the key`},
		{"jsonN", a, v, 3, []int{2}, `after {"n: the closing quote with the colon; the quote alone would leave state 4, and no token begins with the colon that state 4 needs`},
		{"jsonN", a, v, 5, []int{3, 4}, `after {"n": a number must come, and "3}" is a whole number and the end of the object; "1a" has a digit, then a byte that leaves the language`},
		{"jsonN", a, v, 6, []int{3, 4, 5}, `in the number: more digits, or the end of the object; not the end of text, the object is open`},
		{"jsonN", a, v, 7, []int{10}, "complete: only the end token"},
		{"jsonN", a, v, Dead, nil, "from Dead nothing is allowed"},
	} {
		c.check(fails)
	}
}

// TestTask3_MaskTraps: the mistakes a mask can make. A token whose text
// ends in a trap state, or in a state the vocabulary cannot leave; a
// token that leaves the language after its first byte; the end token
// before the value is complete; a token that writes nothing; tokens that
// hold half a UTF-8 character.
//
//grade:task 3 points 2
func TestTask3_MaskTraps(t *testing.T) {
	defer check.Recover(t)
	fails := check.NewLimit(t, 4)
	defer fails.Close()
	ab := build(t, 0, []int{2}, Edge{0, "a", 1}, Edge{1, "b", 2})
	for _, c := range []maskCase{
		{"trapped", trapped(t), vocab([]int{3}, "a", "b", "x", "<end>", "ab"), 0, []int{0, 4},
			`"x" leads to state 3, which is not Dead but can never accept`},
		{"ab", ab, vocab([]int{2}, "a", "ab", "<end>"), 0, []int{1},
			`"a" leads to state 1, and no token writes the "b" that state 1 needs`},
		{"jsonN", jsonN(t), jsonVocab(), 5, []int{3, 4},
			`"1a": the 1 is fine, the a is not`},
		{"ab", ab, vocab([]int{2}, "a", "b", "<end>"), 1, []int{1},
			`"a" was written: the end token must wait for "b"`},
		{"ab", ab, vocab([]int{2}, "a", "b", "<end>"), 2, []int{2},
			`"ab" is complete: only the end token`},
		{"ab", ab, vocab([]int{3}, "a", "", "b", "<end>"), 0, []int{0},
			"an empty text writes nothing: never allowed"},
		{"ab", ab, vocab([]int{3}, "a", "", "b", "<end>"), 2, []int{3},
			"an empty text is not allowed in an accepting state either"},
		{"accents", accents(t), vocab([]int{0}, "<end>", "\xc3", "\xa9", "é", "e", "\xa9\xc3", "\xa8"), 0, []int{1, 3},
			"the first half of é, or the whole é"},
		{"accents", accents(t), vocab([]int{0}, "<end>", "\xc3", "\xa9", "é", "e", "\xa9\xc3", "\xa8"), 1, []int{2, 5, 6},
			"a second half, alone or followed by the next first half"},
		{"accents", accents(t), vocab([]int{0}, "<end>", "\xc3", "\xa9", "é", "e", "\xa9\xc3", "\xa8"), 2, []int{0, 1, 3},
			"complete: end, or another character"},
		{"accents", accents(t), vocab([]int{0}, "<end>", "é", "\xc3"), 0, []int{1},
			"no token writes a second half on its own: the lone first half would be stuck"},
	} {
		c.check(fails)
	}
}

// TestTask3_MaskBruteForce: on random automata and vocabularies, at every
// state, Mask agrees with trying every token, then every token sequence
// after it.
//
//grade:task 3 points 2
func TestTask3_MaskBruteForce(t *testing.T) {
	defer check.Recover(t)
	r := rand.New(rand.NewPCG(14, 3))
	fails := check.NewLimit(t, 3)
	defer fails.Close()
	for range 300 {
		a, v := randomAutomaton(t, r), randomVocab(r)
		live := liveRef(a, v)
		for s := Dead; s < a.States(); s++ {
			if msg := maskProblem(Mask(a, v, live, s), maskRef(a, v, s), v); msg != "" {
				fails.Errorf("Mask(a, v, live %s, %s) %s, by trying every token sequence\n  v: %s\n  a: %s",
					bools(live), stateName(s), msg, describeVocab(v), describe(a))
			}
		}
	}
}
