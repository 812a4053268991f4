package projection

// TokensForMass is the smallest number of tokens whose probabilities add
// up to at least mass: take the most likely token, then the next most
// likely, and so on, until the running sum reaches mass. Task 4.
//
// probs is a probability distribution over the vocabulary, in token order
// (not sorted); do not modify it. mass is usually between 0 and 1. If mass
// is 0 or less, no token is needed: return 0. If the running sum never
// reaches mass — mass is above 1, or float64 rounding left the total just
// under it — every token is needed: return len(probs).
//
// Example: probs = [0.125 0.5 0.0625 0.25 0.0625] and mass = 0.75 give 2
// (0.5 + 0.25); mass = 0.8 gives 3.
func TokensForMass(probs []float64, mass float64) int {
	return 0
}
