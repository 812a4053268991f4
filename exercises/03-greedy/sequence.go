package greedy

// SequenceLogProb returns the log-probability that lm gives to continuation
// following prompt. Task 3.
//
// The probability of a sequence is the product of the probabilities of its
// tokens, each given everything before it, so its logarithm (natural log)
// is the sum
//
//	Σ_i log p(continuation[i] | prompt, continuation[:i])
//
// where each p comes from the softmax of the logits lm returns for that
// step: log p(t) = z_t − log Σ_j exp(z_j). Compute it stably, subtracting
// the largest logit before exponentiating: logits in the thousands must
// work. An empty continuation has log-probability 0 (probability 1).
//
// Ask lm one question per token, NextLogits(prompt+continuation[:i], 1), or
// all of them in one call: NextLogits(prompt+continuation[:len-1], k)
// returns one row for each of the k tokens.
//
// Errors: an empty prompt, a token of continuation outside
// 0..lm.VocabSize()-1, and any error from lm (wrapped, so errors.Is finds
// it).
func SequenceLogProb(lm LM, prompt, continuation []int) (float64, error) {
	return 0, nil
}
