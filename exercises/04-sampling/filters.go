package sampling

// TopK keeps the k most likely tokens of probs and renormalises them
// (Task 2). Return a new slice of the same length: the k kept tokens with
// their probabilities divided by the kept total (so they sum to 1), every
// other token 0. Ties are broken by the lower token id, so exactly k tokens
// are kept. k ≤ 0 or k ≥ len(probs) keeps every token. Do not modify probs.
//
// Example: TopK([0.1 0.4 0.2 0.3], 2) = [0 0.5714 0 0.4286].
func TopK(probs []float32, k int) []float32 {
	return nil
}

// TopP keeps the nucleus of probs and renormalises it (Task 3). Walk the
// tokens from most to least likely (ties by lower id), keeping each, until
// the kept probabilities add up to more than p; return a new slice with the
// kept tokens divided by their total and every other token 0.
//
//   - Tokens of probability 0 are never kept.
//   - If the sum never passes p (rounding), keep every token of positive
//     probability.
//   - p ≥ 1 keeps every token of positive probability, and so does p ≤ 0
//     (the engine's Options treat TopP 0 as unset).
//
// "More than p" is the engine's rule (and llama2.c's); Hugging Face stops as
// soon as the sum reaches p. The two differ only when the sum lands exactly
// on p, and the tests accept either. Do not modify probs.
//
// Example: TopP([0.5 0.3 0.2], 0.7) = [0.625 0.375 0].
func TopP(probs []float32, p float64) []float32 {
	return nil
}

// MinP keeps every token whose probability is at least minP times the
// largest probability, and renormalises them (Task 4). Return a new slice
// with the kept tokens divided by their total and every other token 0.
// minP ≤ 0 keeps every token; minP = 1 keeps only the most likely token and
// any tied with it. Do not modify probs.
//
// Example: MinP([0.1 0.6 0.3], 0.4) = [0 0.6667 0.3333] (the bar is 0.24).
func MinP(probs []float32, minP float64) []float32 {
	return nil
}
