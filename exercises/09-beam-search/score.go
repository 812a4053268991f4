package beam

// LogProb returns the total log-probability that lm gives continuation
// after prompt: the sum over i of log p(continuation[i] | prompt +
// continuation[:i]), each term a log-softmax of the model's logits (Task 1).
//
// One model call is enough: NextLogits(prompt +
// continuation[:len(continuation)-1], len(continuation)) returns one row
// per continuation token, row i scoring the token after prompt +
// continuation[:i]. (One call per token, with n = 1, gives the same
// numbers.) An empty continuation has log-probability 0. Return an error
// for an empty prompt, for a continuation token outside
// [0, VocabSize()), and for any error of the model (for example a
// sequence longer than its context).
//
// Example: if the model gives " dog" 0.4 after [<s>] and " has" 0.9 after
// [<s> dog], LogProb(lm, [<s>], [dog has]) = log 0.36 ≈ −1.0217.
func LogProb(lm LM, prompt, continuation []int) (float64, error) {
	return 0, nil
}

// Score is the length-normalised score that ranks finished hypotheses: the
// length penalty of Google's neural machine translation system, as the
// course's engine uses it (Task 1):
//
//	score = logProb / ((5 + length) / 6)^alpha
//
// where length counts the generated tokens, the end token included. With
// alpha = 0 the score is the log-probability itself; length 1 gives a
// normaliser of exactly 1.
//
// Example: Score(−2, 7, 1) = −2 / ((5+7)/6) = −1.
func Score(logProb float64, length int, alpha float64) float64 {
	return 0
}
