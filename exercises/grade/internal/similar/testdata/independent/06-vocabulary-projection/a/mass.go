package projection

import "sort"

func TokensForMass(probs []float64, mass float64) int {
	if mass <= 0 {
		return 0
	}
	p := append([]float64{}, probs...)
	sort.Sort(sort.Reverse(sort.Float64Slice(p)))
	total := 0.0
	for i, x := range p {
		total += x
		if total >= mass {
			return i + 1
		}
	}
	return len(p)
}
