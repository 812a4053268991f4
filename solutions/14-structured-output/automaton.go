// Package structured is exercise 14 of the Token by Token track: structured
// output, or constrained decoding. Before each token is drawn, every token
// whose text would take the output out of an allowed language gets the
// logit -Inf, so it cannot be drawn; an end-of-text token is allowed only
// once the output is a complete value.
//
// The language is given by a deterministic finite automaton over bytes
// (this file: it is given, there is nothing to write in it). Task 1 walks a
// token's text through the automaton, however many states it crosses.
// Task 2 finds the states from which the vocabulary's tokens can still
// reach a complete value, and task 3 turns that into the mask of allowed
// tokens. Task 4 is the constrained sampler, a stage in front of any other
// sampler, and task 5 checks that a text is in the language and says where
// it is not.
//
//grade:given
package structured

import (
	"fmt"
	"slices"
)

const (
	// Dead is the state after a byte the automaton has no edge for: once
	// there, the text can never be in the language.
	Dead = -1

	// NoToken is what Sampler.Sample returns when it cannot give a token.
	// It is the engine's decoding.NoToken, on which decoding.Decode stops with
	// an error instead of appending a token that does not exist.
	NoToken = -1

	// maxStates bounds an automaton's size; the tasks' automata have a few
	// dozen states.
	maxStates = 1 << 16
)

type (
	// Edge is a group of transitions: from state From, each byte of Bytes
	// leads to state To. Bytes is a set of bytes, not a text:
	// Edge{1, "0123456789", 2} reads any one digit.
	Edge struct {
		From  int
		Bytes string
		To    int
	}

	// Automaton is a deterministic finite automaton over bytes: from each
	// state, each byte leads to at most one state. A text is in its
	// language when reading the text's bytes one by one, from the start
	// state, never meets a byte without an edge and ends in an accepting
	// state.
	//
	// States are numbered from 0 to States()-1. Build one with
	// NewAutomaton.
	Automaton struct {
		start  int
		accept []bool
		next   [][256]int32 // next[s][b]: the state after byte b in state s, or Dead
		// meter, when a test sets it, counts the bytes Step reads from a
		// state, and past its limit Step answers Dead: the tests bound the
		// work of Live at a real vocabulary's size by counting, not by
		// timing, and code doing far too much work soon runs out of bytes.
		meter *meter
	}

	// meter counts the bytes an automaton reads (see Automaton.meter).
	meter struct{ steps, limit int }

	// Vocab is a model's vocabulary as a constraint sees it: what each
	// token adds to the output.
	Vocab struct {
		// Texts[id] is the bytes token id adds to the output. A text can
		// hold part of a multi-byte UTF-8 character (a byte-fallback token,
		// or a byte-level BPE token cut inside a character): the automaton
		// reads bytes, so that is no problem. Tokens that add nothing, such
		// as control tokens, have an empty text.
		Texts [][]byte
		// End lists the end-of-text tokens. Their texts are not read: an
		// end token adds nothing and ends the output.
		End []int
	}

	// LanguageError says why a text is not in an automaton's language: its
	// first Offset bytes can still be completed into a text of the
	// language, and its first Offset+1 bytes cannot. When Offset is
	// len(Text), the text is incomplete: it is the beginning of a text of
	// the language, and more bytes are needed.
	LanguageError struct {
		Text   []byte
		Offset int
	}
)

// NewAutomaton builds an automaton from its start state, its accepting
// states and its edges. The states are the numbers from 0 to the largest
// one mentioned, and every one of them must be mentioned at least once (as
// the start, as accepting, or by an edge), so the automaton is no larger
// than its description. It returns an error naming the value when a state
// is negative or not mentioned, an edge has no bytes, or two edges leave
// the same state on the same byte for different states (the automaton
// would not be deterministic).
func NewAutomaton(start int, accept []int, edges []Edge) (*Automaton, error) {
	mentioned := append([]int{start}, accept...)
	for _, e := range edges {
		mentioned = append(mentioned, e.From, e.To)
	}
	seen := map[int]bool{}
	for _, s := range mentioned {
		if s < 0 || s >= maxStates {
			return nil, fmt.Errorf("state %d: states are numbered from 0 to %d", s, maxStates-1)
		}
		seen[s] = true
	}
	n := slices.Max(mentioned) + 1
	for s := range n {
		if !seen[s] {
			return nil, fmt.Errorf("state %d is never mentioned, but state %d is: number the states from 0 without gaps", s, n-1)
		}
	}
	a := &Automaton{start: start, accept: make([]bool, n), next: make([][256]int32, n)}
	for _, s := range accept {
		a.accept[s] = true
	}
	for s := range a.next {
		for b := range a.next[s] {
			a.next[s][b] = Dead
		}
	}
	for i, e := range edges {
		if e.Bytes == "" {
			return nil, fmt.Errorf("edge %d, from %d to %d, has no bytes", i, e.From, e.To)
		}
		for _, b := range []byte(e.Bytes) {
			if to := a.next[e.From][b]; to != Dead && int(to) != e.To {
				return nil, fmt.Errorf("edge %d leaves state %d on byte %q for state %d, but another edge already leads to state %d on that byte", i, e.From, b, e.To, to)
			}
			a.next[e.From][b] = int32(e.To)
		}
	}
	return a, nil
}

// Start is the state before any byte is read.
func (a *Automaton) Start() int { return a.start }

// States is the number of states.
func (a *Automaton) States() int { return len(a.next) }

// Accepting reports whether state is accepting: whether a text that ends
// there is a complete value of the language. Dead, and any number that is
// not a state, is not accepting.
func (a *Automaton) Accepting(state int) bool {
	return state >= 0 && state < len(a.accept) && a.accept[state]
}

// Step returns the state after reading byte b in state, or Dead when state
// has no edge for b. From Dead, and from any number that is not a state,
// it returns Dead.
func (a *Automaton) Step(state int, b byte) int {
	if state < 0 || state >= len(a.next) {
		return Dead
	}
	if m := a.meter; m != nil {
		if m.steps++; m.steps > m.limit {
			return Dead
		}
	}
	return int(a.next[state][b])
}

// IsEnd reports whether id is one of v's end-of-text tokens.
func (v Vocab) IsEnd(id int) bool { return slices.Contains(v.End, id) }

func (e *LanguageError) Error() string {
	if e.Offset >= len(e.Text) {
		return fmt.Sprintf("%q is incomplete: it is the beginning of a text of the language, but not a whole one", e.Text)
	}
	return fmt.Sprintf("%q leaves the language at byte %d (%q): no text of the language begins with %q",
		e.Text, e.Offset, e.Text[e.Offset], e.Text[:e.Offset+1])
}
