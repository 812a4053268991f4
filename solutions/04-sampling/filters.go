package sampling

import (
	"cmp"
	"slices"
)

// TopK keeps the k most likely tokens of probs and renormalises them
// (Task 2). Ties are broken by the lower token id, so exactly k tokens are
// kept. k ≤ 0 or k ≥ len(probs) keeps every token. probs is not modified.
//
// Example: TopK([0.1 0.4 0.2 0.3], 2) = [0 0.5714 0 0.4286].
func TopK(probs []float32, k int) []float32 {
	out := slices.Clone(probs)
	if k <= 0 || k >= len(probs) {
		return normalize(out)
	}
	clear(out)
	for _, id := range ranked(probs)[:k] {
		out[id] = probs[id]
	}
	return normalize(out)
}

// TopP keeps the nucleus of probs and renormalises it (Task 3): walking the
// tokens from most to least likely (ties by lower id), it keeps tokens until
// their probabilities add up to more than p. Tokens of probability 0 are
// never kept. If the sum never passes p (rounding), every token of positive
// probability is kept. p ≥ 1 keeps every token of positive probability, and
// so does p ≤ 0 (the engine's Options treat TopP 0 as unset). probs is not
// modified.
//
// Example: TopP([0.5 0.3 0.2], 0.7) = [0.625 0.375 0].
func TopP(probs []float32, p float64) []float32 {
	if p <= 0 || p >= 1 {
		return normalize(slices.Clone(probs))
	}
	out := make([]float32, len(probs))
	var cum float64
	for _, id := range ranked(probs) {
		if probs[id] <= 0 {
			break // the rest have probability 0 too
		}
		out[id] = probs[id]
		cum += float64(probs[id])
		if cum > p {
			break
		}
	}
	return normalize(out)
}

// MinP keeps every token whose probability is at least minP times the
// largest probability, and renormalises them (Task 4). minP ≤ 0 keeps every
// token; minP = 1 keeps only the most likely token and any tied with it.
// probs is not modified.
//
// Example: MinP([0.1 0.6 0.3], 0.4) = [0 0.6667 0.3333] (the bar is 0.24).
func MinP(probs []float32, minP float64) []float32 {
	var pmax float32
	for _, v := range probs {
		pmax = max(pmax, v)
	}
	threshold := minP * float64(pmax)
	out := make([]float32, len(probs))
	for i, v := range probs {
		if v > 0 && float64(v) >= threshold {
			out[i] = v
		}
	}
	return normalize(out)
}

// ranked returns the token ids ordered from most to least likely, ties by
// lower id.
func ranked(probs []float32) []int {
	ids := make([]int, len(probs))
	for i := range ids {
		ids[i] = i
	}
	slices.SortFunc(ids, func(a, b int) int {
		return cmp.Or(cmp.Compare(probs[b], probs[a]), cmp.Compare(a, b))
	})
	return ids
}

// normalize divides p, in place, by its sum so that it sums to 1, and
// returns it. A slice that sums to 0 is returned as it is.
func normalize(p []float32) []float32 {
	var sum float64
	for _, v := range p {
		sum += float64(v)
	}
	if sum <= 0 {
		return p
	}
	for i, v := range p {
		p[i] = float32(float64(v) / sum)
	}
	return p
}
