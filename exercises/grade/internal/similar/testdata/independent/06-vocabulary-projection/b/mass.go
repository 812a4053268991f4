package projection

// TokensForMass repeatedly takes the largest probability not yet taken,
// marking taken ones, which needs no sorted copy.
func TokensForMass(probs []float64, mass float64) int {
	if !(mass > 0) {
		return 0
	}
	taken := make([]bool, len(probs))
	acc := 0.0
	for count := 1; count <= len(probs); count++ {
		best := -1
		for i, p := range probs {
			if !taken[i] && (best < 0 || p > probs[best]) {
				best = i
			}
		}
		taken[best] = true
		acc += probs[best]
		if acc >= mass {
			return count
		}
	}
	return len(probs)
}
