package structured

// Walk returns the state after reading every byte of text from state, or
// Dead as soon as a byte has no edge: once dead, the text never comes back
// into the language, whatever follows. A token's text can cross many
// states (the token `":` closes a quoted key and reads the colon after it)
// or stop in the middle of a symbol of the language (the token "\xc3" is
// half of "é"), so read it one byte at a time. From Dead, or from a number
// that is not a state, Walk returns Dead, even for an empty text; from a
// state, an empty text leaves it where it is. Task 1.
//
// Example: with the automaton of {"n":[0-9]+}, Walk(5, []byte("12")) is 6
// (5 -1-> 6 -2-> 6), and Walk(5, []byte("1a")) is Dead.
func (a *Automaton) Walk(state int, text []byte) int {
	if state < 0 || state >= a.States() {
		return Dead
	}
	for _, b := range text {
		if state = a.Step(state, b); state == Dead {
			return Dead
		}
	}
	return state
}

// Live reports, for every state of a, whether the vocabulary v can still
// write a whole text of the language from there: whether some sequence of
// zero or more of v's tokens leads from the state to an accepting state.
// An accepting state is live (the end token may come next). Only tokens
// that write something count: an end token (v.End) or a token with an
// empty text does not move the automaton. The result has a.States()
// entries. Task 2.
//
// A state can be live for bytes and not for tokens: in the language "ab",
// with the tokens "a" and "ab" but no "b", the state after "a" can never be
// left, so it is not live.
func Live(a *Automaton, v Vocab) []bool {
	n := a.States()
	end := make(map[int]bool, len(v.End))
	for _, id := range v.End {
		end[id] = true
	}
	// into[t] lists the states one token leads from into t, each once.
	into := make([][]int, n)
	for s := range n {
		for id, text := range v.Texts {
			if len(text) == 0 || end[id] {
				continue
			}
			t := a.Walk(s, text)
			if t == Dead {
				continue
			}
			if k := len(into[t]); k == 0 || into[t][k-1] != s {
				into[t] = append(into[t], s)
			}
		}
	}
	// Walk the edges backwards from the accepting states.
	live := make([]bool, n)
	var todo []int
	for s := range n {
		if a.Accepting(s) {
			live[s] = true
			todo = append(todo, s)
		}
	}
	for len(todo) > 0 {
		t := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		for _, s := range into[t] {
			if !live[s] {
				live[s] = true
				todo = append(todo, s)
			}
		}
	}
	return live
}

// Mask returns which tokens may come next when the text so far has left a
// in state: allowed[id] for every id of v.Texts. live is Live(a, v),
// computed once for the whole generation. Task 3.
//
//   - An end token (v.End) is allowed exactly when state is accepting:
//     the text so far is a complete value.
//   - A token with an empty text is never allowed: it writes nothing, and a
//     model could repeat it for ever.
//   - Any other token is allowed when Walk(state, its text) is a live
//     state: not Dead, and not a state from which the vocabulary can no
//     longer reach a complete value.
//
// When state is Dead, not a state, or not live (live has no entry for it,
// or false), no token is allowed.
func Mask(a *Automaton, v Vocab, live []bool, state int) []bool {
	allowed := make([]bool, len(v.Texts))
	if state < 0 || state >= len(live) || !live[state] {
		return allowed
	}
	isLive := func(s int) bool { return s >= 0 && s < len(live) && live[s] }
	for id, text := range v.Texts {
		switch {
		case v.IsEnd(id):
			allowed[id] = a.Accepting(state)
		case len(text) > 0:
			allowed[id] = isLive(a.Walk(state, text))
		}
	}
	return allowed
}
