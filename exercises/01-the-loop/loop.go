// Package loop is exercise 01 of the Token by Token track: the whole road
// from text to text. Decode and Encode are a byte-pair tokenizer (text to
// token ids and back); Generate is the autoregressive loop that asks a
// model for the next token again and again, streaming each one as it is
// made.
package loop

// LM is a language model seen from outside: given the tokens so far, it
// scores every possible next token. It has the same methods as the engine's
// LM, so an *engine.ModelLM (the course's model) can be passed wherever an
// LM is expected.
type LM interface {
	// VocabSize is the number of tokens the model scores.
	VocabSize() int
	// ContextLength is the longest sequence the model accepts.
	ContextLength() int
	// NextLogits returns n rows of logits, 1 ≤ n ≤ len(prefix): row i
	// scores the token that follows prefix[:len(prefix)-n+1+i]. With n = 1
	// it returns one row, the logits of the token after the whole prefix.
	// The rows may be reused by the next call.
	NextLogits(prefix []int, n int) ([][]float32, error)
}

// Generate runs the autoregressive loop and returns the new tokens (not the
// prompt). Task 3.
//
// One step asks lm for the logits of the token after the whole sequence so
// far (NextLogits(sequence, 1): the prompt and every token made before this
// step), lets pick choose a token from that row, appends it to the sequence
// and hands it to emit at once, before the next step starts. emit may be
// nil.
//
// Generate stops after the first of:
//   - maxNew new tokens (maxNew ≤ 0: no limit of its own);
//   - a token for which isEnd reports true (that token is still emitted
//     and returned; isEnd may be nil, and then no token ends the text);
//   - emit returning false (the token it was given is kept);
//   - a full context: len(prompt) + new tokens == lm.ContextLength().
//
// Errors: an empty prompt, or one of lm.ContextLength() tokens or more (no
// room for a new token), is reported before the model is asked anything.
// An error from NextLogits, a reply without exactly one row, or a pick
// outside 0..lm.VocabSize()-1 ends the loop; Generate returns it (wrapping
// NextLogits' error, so errors.Is finds it) with the tokens made before.
//
// Generate never modifies prompt: appending to the caller's slice could
// write into its array.
func Generate(lm LM, prompt []int, maxNew int, pick func(logits []float32) int, isEnd func(id int) bool, emit func(id int) bool) ([]int, error) {
	return nil, nil
}
