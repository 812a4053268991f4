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
	return 0
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
	return nil
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
	return nil
}
