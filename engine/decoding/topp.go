package decoding

import "sort"

// ApplyTopP keeps, in place, the nucleus of a probability distribution:
// the smallest set of most likely tokens whose probabilities add up to
// more than topP. Every other token gets probability 0; the nucleus keeps
// its probabilities as they are, not renormalised (the sampler's draw
// scales its coin by their total, as llama2.c does). Because the set
// grows and shrinks with the model's certainty — one token when it is
// sure, many when it is not — top-p adapts where top-k cannot. topP ≥ 1
// keeps every token.
//
// This is the "more than p" rule. The nucleus-sampling paper (Holtzman et
// al., 2020) and Hugging Face's TopPLogitsWarper keep the smallest set
// whose probabilities add up to at least topP instead. The two differ
// only when a running sum equals topP exactly: for [0.5 0.25 0.125 0.125]
// and topP 0.75 ApplyTopP keeps three tokens, the "at least" rule two.
// Notebook 04 shows both.
//
// It follows llama2.c exactly, so that the same seed gives the same text:
// tokens below (1-topP)/(n-1) can never be in the nucleus and are dropped
// before sorting, the sort is stable (of two equally likely tokens, the
// lower id comes first), and sums are float32.
func ApplyTopP(probs []float32, topP float64) {
	if topP >= 1 {
		return
	}
	keepNucleus(probs, nucleus(probs, topP, nil))
}

// nucleus returns the nucleus of ApplyTopP, ordered from most to least
// likely: the order in which the sampler's draw walks it. topP ≥ 1 keeps
// every token (in order of probability), even when the float32 running
// sum would pass 1 before the last one. The result reuses buf's storage.
func nucleus(probs []float32, topP float64, buf []int) []int {
	order := buf[:0]
	if topP >= 1 {
		for i := range probs {
			order = append(order, i)
		}
		sort.SliceStable(order, func(a, b int) bool { return probs[order[a]] > probs[order[b]] })
		return order
	}
	cutoff := float32((1 - topP) / float64(len(probs)-1))
	for i, p := range probs {
		if p >= cutoff {
			order = append(order, i)
		}
	}
	if len(order) == 0 {
		// Only possible when topP < 1/n (or n = 1): then even the best
		// token is under the cutoff, and every token stays a candidate.
		for i := range probs {
			order = append(order, i)
		}
	}
	sort.SliceStable(order, func(a, b int) bool { return probs[order[a]] > probs[order[b]] })
	var cum float32
	for i, id := range order {
		cum += probs[id]
		if float64(cum) > topP {
			return order[:i+1]
		}
	}
	return order // rounding kept the total at or below topP: keep them all
}

// keepNucleus sets to 0 the probability of every token outside nuc, a
// nucleus as nucleus returns it: a prefix of the tokens sorted from most to
// least likely, lower id first on ties. So a token is outside it when it
// is less likely than the nucleus's last token, or as likely and after it.
func keepNucleus(probs []float32, nuc []int) {
	if len(nuc) == 0 {
		return
	}
	last := nuc[len(nuc)-1]
	floor := probs[last]
	for i, p := range probs {
		if p < floor || p == floor && i > last {
			probs[i] = 0
		}
	}
}
