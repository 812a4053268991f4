package structured

// Constrain returns a copy of logits in which every token that is not
// allowed has the logit -Inf (math.Inf(-1), exactly: -Inf stays -Inf
// through every later stage of the sampler, where a large negative
// stand-in can be moved, or overflow when a penalty multiplies it) and
// every allowed token keeps its logit unchanged.
// A token past the end of allowed is not allowed. logits is not modified.
// Softmax over the result is the model's distribution restricted to the
// allowed tokens and renormalised. Task 4.
func Constrain(logits []float32, allowed []bool) []float32 {
	return nil
}

// Sampler is constrained decoding as one stage in front of any other
// sampler: it masks the logits, lets the pick function it was made with
// choose among the allowed tokens, and follows the chosen token's text
// through the automaton. Task 4.
//
// Its Sample method has the shape of decoding.Pick, and
// so has the pick function it wraps: the rest of the chain can be greedy
// (decoding.Argmax), the engine's Sampler, or the one you wrote in exercise
// 04.
type Sampler struct {
	// State is the automaton's state after the tokens sampled so far.
	State int
	// Ended reports that an end token has been sampled: the output is a
	// complete value, and Sample gives no more tokens.
	Ended bool
	// Err says why the last call of Sample returned NoToken; it is nil
	// after a call that returned a token.
	Err error

	// Add the fields you need: the automaton, the vocabulary, the pick
	// function and the live states, for a start.
}

// NewSampler returns a Sampler in the automaton's start state. It computes
// Live(a, v) once, for every call of Sample. It returns an error naming
// the value when a or pick is nil, when v has no end token (the output
// could never end) or an end token that is not one of v.Texts's ids, and
// when the start state is not live: no sequence of the vocabulary's tokens
// writes a text of the language. Task 4.
func NewSampler(a *Automaton, v Vocab, pick func(logits []float32) int) (*Sampler, error) {
	return nil, nil
}

// Sample returns the next token, chosen by the pick function among the
// tokens Mask allows in the current state. The pick function is given
// Constrain(logits, allowed), exactly once per call,
// never logits itself, which Sample does not modify. When the token is an
// end token, Ended becomes true; otherwise State moves along the token's
// text. Task 4.
//
// It returns NoToken, sets Err to say why, and leaves State as it was,
// when: the output has already ended; len(logits) is not the vocabulary's
// size; no token is allowed (a dead end, which a live state never is); or
// the pick function chooses a token that is not allowed (or not a token at
// all). A Sampler not made by NewSampler returns NoToken.
func (s *Sampler) Sample(logits []float32) int {
	return 0
}
