// Package penalties: an independent solution written for the similarity
// tests, counting tokens in maps.
package penalties

// counts returns how often each token occurs in history.
func counts(history []int) map[int]int {
	c := make(map[int]int)
	for _, tok := range history {
		c[tok] += 1
	}
	return c
}

func ApplyRepetitionPenalty(logits []float32, history []int, penalty float64) {
	f := float32(penalty)
	for tok := range counts(history) {
		switch v := logits[tok]; {
		case v > 0:
			logits[tok] = v / f
		case v < 0:
			logits[tok] = v * f
		}
	}
}

func ApplyPresenceFrequencyPenalty(logits []float32, history []int, presence, frequency float64) {
	for tok, c := range counts(history) {
		logits[tok] -= float32(presence + frequency*float64(c))
	}
}
