// Package greedy is exercise 03 of the Token by Token track: greedy
// decoding. Argmax picks the most likely token, Greedy runs the loop with
// it, SequenceLogProb scores a whole continuation (and shows that the
// locally best token need not start the most likely sequence), and
// RepeatedNGramRate measures how much a text repeats itself, the way greedy
// text falls into loops.
package greedy

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

// Argmax returns the id of the largest logit: the token greedy decoding
// picks. Task 1.
//
// Ties go to the lowest id. +Inf is larger than every number and -Inf
// smaller, as usual, so logits that are all -Inf tie and give id 0.
//
// A NaN logit is not a score at all: it is never picked, whatever its
// place. When there is nothing to pick, because logits is empty or every
// logit is NaN, Argmax returns -1.
//
// On logits without NaN this is exactly decoding.Argmax, which does not look
// for NaN (its models never produce one) and returns 0 for an empty slice.
func Argmax(logits []float32) int {
	return 0
}

// Greedy continues prompt by greedy decoding and returns the new tokens
// (not the prompt). Task 2.
//
// Each step asks lm for the logits of the token after the whole sequence
// so far (NextLogits(sequence, 1)), picks their Argmax and appends it.
// Greedy stops after the first of:
//   - maxNew new tokens (maxNew ≤ 0: no limit of its own);
//   - a token for which isEnd reports true (that token is returned too;
//     isEnd may be nil, and then no token ends the text);
//   - a full context: len(prompt) + new tokens == lm.ContextLength().
//
// Errors: an empty prompt, or one of lm.ContextLength() tokens or more (no
// room for a new token), is reported before the model is asked anything.
// An error from NextLogits, a reply without exactly one row, or a row with
// nothing to pick (Argmax returns -1) ends the loop; Greedy returns it
// (wrapping NextLogits' error, so errors.Is finds it) with the tokens made
// before. Greedy never modifies prompt.
func Greedy(lm LM, prompt []int, maxNew int, isEnd func(id int) bool) ([]int, error) {
	return nil, nil
}
