package projection

import "slices"

// TokensForMass is the smallest number of tokens whose probabilities add
// up to at least mass. The most likely tokens are the ones to take, so it
// sorts a copy of probs and adds from the largest down until the running
// sum reaches mass. If it never does (mass above 1, or a total rounded just
// under it), every token is needed.
func TokensForMass(probs []float64, mass float64) int {
	if mass <= 0 {
		return 0
	}
	sorted := slices.Clone(probs)
	slices.Sort(sorted) // ascending: the most likely token is last
	var sum float64
	for n := 1; n <= len(sorted); n++ {
		sum += sorted[len(sorted)-n]
		if sum >= mass {
			return n
		}
	}
	return len(probs)
}
