package decoding

// ApplyMinP keeps, in place, the tokens whose probability is at least
// minP times the probability of the most likely token: with p_max = 0.6
// and min-p 0.1, every token under 0.06 gets probability 0. The others
// keep theirs, not renormalised. Like top-p it adapts to the model's
// certainty, but it is defined relative to the best token rather than by
// a cumulative mass. After ApplyTopP it judges what top-p left: the best
// token is always in the nucleus.
func ApplyMinP(probs []float32, minP float64) {
	var pmax float32
	for _, p := range probs {
		pmax = max(pmax, p)
	}
	threshold := float32(minP) * pmax
	for i, p := range probs {
		if p < threshold {
			probs[i] = 0
		}
	}
}
