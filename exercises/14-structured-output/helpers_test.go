package structured

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tokenbytoken/course/exercises/internal/check"
)

// The tests' references are brute force: they try every token sequence,
// or every byte string, up to a length that is enough to reach any state,
// and only ever read the automaton through Step and Accepting.

// build is NewAutomaton for a test's own automata, which are valid.
func build(t testing.TB, start int, accept []int, edges ...Edge) *Automaton {
	t.Helper()
	a, err := NewAutomaton(start, accept, edges)
	if err != nil {
		t.Fatalf("NewAutomaton: %v", err)
	}
	return a
}

const digits = "0123456789"

// jsonN is the automaton of {"n":[0-9]+}: an object with one key whose
// value is a whole number.
//
//	0 -{-> 1 -"-> 2 -n-> 3 -"-> 4 -:-> 5 -[0-9]-> 6 -[0-9]-> 6 -}-> 7 (accepting)
func jsonN(t testing.TB) *Automaton {
	return build(t, 0, []int{7},
		Edge{0, "{", 1}, Edge{1, `"`, 2}, Edge{2, "n", 3}, Edge{3, `"`, 4}, Edge{4, ":", 5},
		Edge{5, digits, 6}, Edge{6, digits, 6}, Edge{6, "}", 7})
}

// trapped is the language "ab" with a trap: "x" leads to state 3, which
// loops on "x" and never accepts.
//
//	0 -a-> 1 -b-> 2 (accepting);  0 -x-> 3 -x-> 3
func trapped(t testing.TB) *Automaton {
	return build(t, 0, []int{2}, Edge{0, "a", 1}, Edge{1, "b", 2}, Edge{0, "x", 3}, Edge{3, "x", 3})
}

// accents is the language of one or more "é" or "è", written in UTF-8:
// each is two bytes, 0xC3 then 0xA9 or 0xA8.
//
//	0 -\xc3-> 1 -[\xa8\xa9]-> 2 (accepting) -\xc3-> 1
func accents(t testing.TB) *Automaton {
	return build(t, 0, []int{2}, Edge{0, "\xc3", 1}, Edge{1, "\xa8\xa9", 2}, Edge{2, "\xc3", 1})
}

// vocab makes a Vocab from texts; the ids in end are end tokens.
func vocab(end []int, texts ...string) Vocab {
	v := Vocab{Texts: make([][]byte, len(texts)), End: end}
	for i, s := range texts {
		v.Texts[i] = []byte(s)
	}
	return v
}

// jsonVocab is a vocabulary for jsonN whose tokens do not line up with the
// language's symbols: `":` closes the key and reads the colon, `3}` ends
// the number and the object, `{"n":1` crosses six states.
func jsonVocab() Vocab {
	return vocab([]int{10},
		`{"`, `n`, `":`, `12`, `3}`, `}`, `{"n":1`, `a`, ``, `"`, `<end>`, `1a`, `{`)
}

// describeVocab writes a vocabulary as its ids and texts, and its end
// tokens: [0 "{\"" 1 "n" … ; end 10].
func describeVocab(v Vocab) string {
	var parts []string
	for id, text := range v.Texts {
		parts = append(parts, fmt.Sprintf("%d %s", id, strconv.Quote(string(text))))
	}
	return "[" + strings.Join(parts, ", ") + "; end " + fmt.Sprint(v.End) + "]"
}

// token writes a token id with its text: 3 "12", or 10 (end).
func token(id int, v Vocab) string {
	switch {
	case id < 0 || id >= len(v.Texts):
		return fmt.Sprintf("%d (not a token)", id)
	case v.IsEnd(id):
		return fmt.Sprintf("%d (end)", id)
	}
	return fmt.Sprintf("%d %s", id, strconv.Quote(string(v.Texts[id])))
}

// ids lists the indices of the true entries of a mask, with their texts.
func ids(mask []bool, v Vocab) string {
	var out []string
	for id, ok := range mask {
		if ok {
			out = append(out, token(id, v))
		}
	}
	return "[" + strings.Join(out, ", ") + "]"
}

// walkRef reads text from state with Step, byte by byte.
func walkRef(a *Automaton, state int, text []byte) int {
	if state < 0 || state >= a.States() {
		return Dead
	}
	for _, b := range text {
		state = a.Step(state, b)
	}
	return state
}

// finisher answers, by trying every sequence of v's writing tokens up to
// a length, whether one leads from a state to an accepting state. It
// remembers its answers, so each (state, length) is tried once.
type finisher struct {
	a    *Automaton
	v    Vocab
	memo map[[2]int]bool
}

func newFinisher(a *Automaton, v Vocab) *finisher {
	return &finisher{a: a, v: v, memo: map[[2]int]bool{}}
}

// can reports whether some sequence of at most depth tokens leads from
// state to an accepting state. A state that can reach one at all can reach
// it in fewer tokens than there are states.
func (f *finisher) can(state, depth int) bool {
	if state == Dead {
		return false
	}
	if f.a.Accepting(state) {
		return true
	}
	if depth == 0 {
		return false
	}
	key := [2]int{state, depth}
	if ok, seen := f.memo[key]; seen {
		return ok
	}
	ok := false
	for id, text := range f.v.Texts {
		if len(text) == 0 || f.v.IsEnd(id) {
			continue
		}
		if f.can(walkRef(f.a, state, text), depth-1) {
			ok = true
			break
		}
	}
	f.memo[key] = ok
	return ok
}

// liveRef is Live by brute force: a state that can reach acceptance at all
// can reach it in fewer tokens than there are states.
func liveRef(a *Automaton, v Vocab) []bool {
	f := newFinisher(a, v)
	live := make([]bool, a.States())
	for s := range live {
		live[s] = f.can(s, a.States())
	}
	return live
}

// maskRef is Mask by brute force: every token tried, then every sequence
// after it.
func maskRef(a *Automaton, v Vocab, state int) []bool {
	f := newFinisher(a, v)
	allowed := make([]bool, len(v.Texts))
	if !f.can(state, a.States()) {
		return allowed
	}
	for id, text := range v.Texts {
		switch {
		case v.IsEnd(id):
			allowed[id] = a.Accepting(state)
		case len(text) > 0:
			allowed[id] = f.can(walkRef(a, state, text), a.States())
		}
	}
	return allowed
}

// completable reports whether some byte string over alphabet, of at most
// depth bytes, completes text into a text of the language, trying them
// all (each state and remaining length once).
func completable(a *Automaton, alphabet string, text []byte, depth int) bool {
	memo := map[[2]int]bool{}
	var try func(s, depth int) bool
	try = func(s, depth int) bool {
		switch {
		case s == Dead:
			return false
		case a.Accepting(s):
			return true
		case depth == 0:
			return false
		}
		key := [2]int{s, depth}
		if ok, seen := memo[key]; seen {
			return ok
		}
		ok := false
		for i := 0; i < len(alphabet) && !ok; i++ {
			ok = try(a.Step(s, alphabet[i]), depth-1)
		}
		memo[key] = ok
		return ok
	}
	return try(walkRef(a, a.Start(), text), depth)
}

// offsetRef is the Offset of Check by brute force: the longest beginning
// of text that some bytes complete, -1 when none does (an empty language).
func offsetRef(a *Automaton, alphabet string, text []byte) int {
	for k := len(text); k >= 0; k-- {
		if completable(a, alphabet, text[:k], a.States()) {
			return k
		}
	}
	return -1
}

// alphabet is the bytes of the random automata: "a", "b", and the two
// bytes of "é".
const alphabet = "ab\xc3\xa9"

// randomAutomaton has 1 to 6 states, each byte of alphabet leading from
// each state somewhere about half the time, and each state accepting about
// a third of the time. Traps, unreachable states and empty languages all
// come up.
func randomAutomaton(t testing.TB, r *rand.Rand) *Automaton {
	n := 1 + r.IntN(6)
	start := r.IntN(n)
	mentioned := map[int]bool{start: true}
	var accept []int
	var edges []Edge
	for s := range n {
		if r.IntN(3) == 0 {
			accept = append(accept, s)
			mentioned[s] = true
		}
		for i := 0; i < len(alphabet); i++ {
			if r.IntN(2) == 0 {
				to := r.IntN(n)
				edges = append(edges, Edge{s, alphabet[i : i+1], to})
				mentioned[s], mentioned[to] = true, true
			}
		}
	}
	// NewAutomaton wants every state mentioned: a state nothing mentions
	// gets an edge on a byte no text here holds.
	for s := range n {
		if !mentioned[s] {
			edges = append(edges, Edge{s, "z", s})
		}
	}
	return build(t, start, accept, edges...)
}

// randomText has up to max bytes of alphabet, and now and then a byte
// outside it.
func randomText(r *rand.Rand, max int) []byte {
	text := make([]byte, r.IntN(max+1))
	for i := range text {
		if r.IntN(12) == 0 {
			text[i] = "q\xa8"[r.IntN(2)]
		} else {
			text[i] = alphabet[r.IntN(len(alphabet))]
		}
	}
	return text
}

// randomVocab has 1 to 7 tokens of up to 3 bytes (some empty), one or two
// of which are end tokens.
func randomVocab(r *rand.Rand) Vocab {
	var v Vocab
	n := 1 + r.IntN(7)
	for range n {
		v.Texts = append(v.Texts, randomText(r, 3))
	}
	v.End = append(v.End, r.IntN(n))
	if r.IntN(3) == 0 {
		v.End = append(v.End, r.IntN(n))
	}
	return v
}

// stateName writes a state for a failure message: its number, or Dead.
func stateName(s int) string {
	if s == Dead {
		return "Dead"
	}
	return strconv.Itoa(s)
}

// maskProblem describes what is wrong with a mask, or returns "": its
// length, then the tokens it allows.
func maskProblem(got, want []bool, v Vocab) string {
	switch {
	case sameBools(got, want):
		return ""
	case len(got) != len(want):
		return fmt.Sprintf("returned %d entries; want one per token, %d, allowing %s", len(got), len(want), ids(want, v))
	}
	return fmt.Sprintf("allows %s; want %s", ids(got, v), ids(want, v))
}

// bools writes a []bool compactly: [T F T].
func bools(v []bool) string {
	return check.List(v, func(b bool) string {
		if b {
			return "T"
		}
		return "F"
	})
}

// sameBools reports whether two []bool hold the same values.
func sameBools(a, b []bool) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// describe writes an automaton on one line, its edges grouped by the pair
// of states they join, reading it only through States, Start, Accepting
// and Step:
//
//	start 0, accept [2]: 0 -[0-9]-> 1, 1 -[0-9]-> 1, 1 -"}"-> 2
func describe(a *Automaton) string {
	var b strings.Builder
	var accept []int
	for s := range a.States() {
		if a.Accepting(s) {
			accept = append(accept, s)
		}
	}
	fmt.Fprintf(&b, "start %d, accept %v:", a.Start(), accept)
	first := true
	for from := range a.States() {
		var targets []int
		byTarget := map[int][]byte{}
		for c := range 256 {
			to := a.Step(from, byte(c))
			if to == Dead {
				continue
			}
			if byTarget[to] == nil {
				targets = append(targets, to)
			}
			byTarget[to] = append(byTarget[to], byte(c))
		}
		slices.Sort(targets)
		for _, to := range targets {
			if !first {
				b.WriteByte(',')
			}
			first = false
			fmt.Fprintf(&b, " %d -%s-> %d", from, byteSet(byTarget[to]), to)
		}
	}
	if first {
		b.WriteString(" no edges")
	}
	return b.String()
}

// byteSet writes a sorted set of bytes: one byte quoted, "}", several as a
// class with runs of three or more as ranges, [0-9a-f], and bytes that are
// not printable ASCII as \xNN.
func byteSet(set []byte) string {
	if len(set) == 1 {
		return strconv.QuoteToASCII(string(set))
	}
	one := func(c byte) string {
		if c < 0x20 || c >= 0x7f || c == '[' || c == ']' || c == '-' || c == '\\' {
			return fmt.Sprintf(`\x%02x`, c)
		}
		return string(c)
	}
	var b strings.Builder
	b.WriteByte('[')
	for i := 0; i < len(set); {
		j := i
		for j+1 < len(set) && set[j+1] == set[j]+1 {
			j++
		}
		if j-i >= 2 {
			b.WriteString(one(set[i]) + "-" + one(set[j]))
		} else {
			for k := i; k <= j; k++ {
				b.WriteString(one(set[k]))
			}
		}
		i = j + 1
	}
	b.WriteByte(']')
	return b.String()
}

// idLanguageName is what idLanguage's automaton accepts, for messages.
const idLanguageName = `{"id":"[0-9]{32}"}`

// idLanguage is a language and a vocabulary at a real model's scale: the
// automaton of {"id":"[0-9]{32}"}, a JSON object holding a 32-digit id,
// and a vocabulary of 49,152 tokens, the size of SmolLM2's. The automaton
// is a row of 42 states, one per byte read, and a trap: a '-' among the
// digits leads to a state that reads only more '-' and never accepts. Its
// states are numbered in a shuffled order, so a loop over the states meets
// them in no useful order. The vocabulary has the end token (id 0), three
// tokens that write nothing, every printable ASCII byte, a few pieces of
// JSON, and words of letters for the rest, half of them with a space
// before, as byte-pair vocabularies have them: the digits come one token
// each. It returns the trap's state too.
func idLanguage(t testing.TB) (a *Automaton, v Vocab, trap int) {
	const prefix, digitCount, suffix = `{"id":"`, 32, `"}`
	r := rand.New(rand.NewPCG(14, 7))
	rowLen := len(prefix) + digitCount + len(suffix) // bytes read, so rowLen+1 states in the row
	num := r.Perm(rowLen + 2)                        // num[i]: the state after i bytes; the last, the trap
	trap = num[rowLen+1]
	edges := []Edge{{trap, "-", trap}}
	for i := range rowLen {
		switch j := i - len(prefix); {
		case j < 0:
			edges = append(edges, Edge{num[i], prefix[i : i+1], num[i+1]})
		case j < digitCount:
			edges = append(edges, Edge{num[i], digits, num[i+1]}, Edge{num[i], "-", trap})
		default:
			edges = append(edges, Edge{num[i], suffix[j-digitCount : j-digitCount+1], num[i+1]})
		}
	}
	a = build(t, num[0], []int{num[rowLen]}, edges...)

	texts := []string{"<end>", "", "", ""}
	for b := byte(' '); b <= '~'; b++ {
		texts = append(texts, string(b))
	}
	texts = append(texts, `{"`, `":"`, `":`, `"}`, `",`, `","`, `"]`, `["`, "--", "->", "{}", "[]")
	const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	for len(texts) < 49152 {
		word := make([]byte, 0, 10)
		if r.IntN(2) == 0 {
			word = append(word, ' ')
		}
		for range 2 + r.IntN(8) {
			word = append(word, letters[r.IntN(len(letters))])
		}
		texts = append(texts, string(word))
	}
	return a, vocab([]int{0}, texts...), trap
}
