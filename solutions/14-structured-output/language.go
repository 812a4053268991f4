package structured

import "errors"

// Check reports whether text is in the language of a: nil when it is,
// else a *LanguageError whose Offset is the length of the longest
// beginning of text that can still be completed into a text of the
// language (len(text) when text is only incomplete). Check is about bytes,
// not tokens: a beginning can be completed when some bytes, any bytes,
// complete it. When the language has no text at all, it returns an error
// saying so (not a *LanguageError: no beginning can be completed). Task 5.
//
// Example: with the automaton of {"n":[0-9]+}, `{"n":12}` is in the
// language, `{"n":12` is incomplete (Offset 7), and `{"n":1a}` leaves it
// at byte 6, the 'a' (Offset 6).
func Check(a *Automaton, text []byte) error {
	if a == nil {
		return errors.New("no automaton (nil)")
	}
	// The states from which some bytes reach acceptance: Live over a
	// vocabulary of every single byte.
	bytes := Vocab{Texts: make([][]byte, 256)}
	for b := range bytes.Texts {
		bytes.Texts[b] = []byte{byte(b)}
	}
	live := Live(a, bytes)
	if !live[a.Start()] {
		return errors.New("the automaton's language is empty: no text is in it")
	}
	state := a.Start()
	for i, b := range text {
		state = a.Step(state, b)
		if state == Dead || !live[state] {
			return &LanguageError{Text: text, Offset: i}
		}
	}
	if !a.Accepting(state) {
		return &LanguageError{Text: text, Offset: len(text)}
	}
	return nil
}
