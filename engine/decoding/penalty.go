package decoding

// Penalties fight the repetition loops of greedy decoding by lowering the
// logits of tokens that already appear in the text. history is the text so
// far as token ids (the prompt and everything generated, without BOS).

// ApplyRepetitionPenalty lowers, in place, the logit of every token that
// occurs in history, once per distinct token, as in the CTRL paper and HF
// transformers: a positive logit is divided by penalty, a negative one is
// multiplied by it, so for penalty > 1 the token always becomes less likely
// (dividing a negative logit would raise it). Penalty 1 changes nothing;
// below 1 it rewards repetition.
func ApplyRepetitionPenalty(logits []float32, history []int, penalty float64) {
	p := float32(penalty)
	for id := range countTokens(history, len(logits)) {
		if logits[id] > 0 {
			logits[id] /= p
		} else {
			logits[id] *= p
		}
	}
}

// ApplyPresenceFrequencyPenalty subtracts, in place, the OpenAI penalties
// from the logit of every token in history:
//
//	logit -= presence  (once, if the token occurs at all)
//	logit -= frequency × count (count = how often it occurs)
//
// Presence pushes the text toward new tokens; frequency especially punishes
// tokens used over and over. Negative values encourage repetition instead.
func ApplyPresenceFrequencyPenalty(logits []float32, history []int, presence, frequency float64) {
	for id, n := range countTokens(history, len(logits)) {
		logits[id] -= float32(presence + frequency*float64(n))
	}
}

// countTokens counts how often each token id in 0..vocab-1 occurs.
func countTokens(history []int, vocab int) map[int]int {
	counts := make(map[int]int)
	for _, id := range history {
		if id >= 0 && id < vocab {
			counts[id]++
		}
	}
	return counts
}
