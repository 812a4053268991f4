package decoding

// MinP keeps the tokens whose probability is at least minP times the
// probability of the most likely token: with p_max = 0.6 and min-p 0.1,
// everything under 0.06 is dropped. Like top-p it adapts to the model's
// certainty, but it is defined relative to the best token rather than by a
// cumulative mass.
//
// kept is the candidate set left by earlier stages (nil means every token).
// The result keeps kept's order; for nil it lists token ids in increasing
// order. It reuses kept's storage, or buf's when kept is nil.
func MinP(probs []float32, minP float64, kept, buf []int) []int {
	var pmax float32
	if kept == nil {
		for _, p := range probs {
			pmax = max(pmax, p)
		}
	} else {
		for _, id := range kept {
			pmax = max(pmax, probs[id])
		}
	}
	threshold := float32(minP) * pmax
	if kept == nil {
		out := buf[:0]
		for id, p := range probs {
			if p >= threshold {
				out = append(out, id)
			}
		}
		return out
	}
	out := kept[:0]
	for _, id := range kept {
		if probs[id] >= threshold {
			out = append(out, id)
		}
	}
	return out
}
