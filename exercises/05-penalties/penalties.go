// Package penalties lowers, before a token is picked, the logits of tokens
// that are already in the text: the repetition penalty, the presence and
// frequency penalties, a window that limits them to the recent text, and a
// ban on repeating n-grams. They fight the loops of greedy decoding, at the
// price of sometimes blocking a token that should repeat.
//
// Every function works in place on one step's logits, given history: the
// text so far as token ids (the prompt and everything generated, without
// BOS). Every id in history is a valid index into logits.
package penalties

// ApplyRepetitionPenalty lowers, in place, the logit of every token that
// occurs in history, once per distinct token however often it occurs (Task 1).
// This is the rule of the CTRL paper and of Hugging Face: a positive logit
// is divided by penalty, a negative one multiplied by it (dividing a
// negative logit would raise it), so for penalty > 1 the token always
// becomes less likely. A logit of exactly 0 stays 0. Penalty 1 changes
// nothing; below 1 it rewards repetition. Tokens not in history are not
// touched. Compute in float32: divide or multiply by float32(penalty).
//
// Example: logits [2 -1 0.5], history [0 1 1], penalty 2 → [1 -2 0.5]
// (token 1 occurs twice but is penalised once).
func ApplyRepetitionPenalty(logits []float32, history []int, penalty float64) {
}

// ApplyPresenceFrequencyPenalty subtracts, in place, OpenAI's two penalties
// from the logit of every token that occurs in history (Task 2):
//
//	logit -= presence + frequency × count
//
// where count is how many times the token occurs. The presence penalty is
// paid once by every token used at all; the frequency penalty grows with
// every use. Negative values encourage repetition instead. Tokens not in
// history are not touched. Subtract in one go, as the engine does:
// logits[id] -= float32(presence + frequency*float64(count)).
//
// Example: logits [1 1 1], history [2 0 2 2], presence 0, frequency 0.25 →
// [0.75 1 0.25].
func ApplyPresenceFrequencyPenalty(logits []float32, history []int, presence, frequency float64) {
}
