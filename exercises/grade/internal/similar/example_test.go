package similar_test

import (
	"fmt"

	"github.com/tokenbytoken/course/exercises/grade/internal/similar"
)

func Example() {
	// The stub every learner starts from, and the reference solution.
	stub := map[string][]byte{"mean.go": []byte(`package stats

// Mean returns the mean of xs, 0 for none.
func Mean(xs []float64) float64 {
	return 0
}
`)}
	solution := map[string][]byte{"mean.go": []byte(`package stats

// Mean returns the mean of xs, 0 for none.
func Mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	var sum float64
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}
`)}
	learners := map[string]map[string][]byte{
		// ann renamed the solution's variables and squeezed its layout.
		"ann": {"mean.go": []byte(`package stats

func Mean(values []float64) float64 {
	if len(values) == 0 { return 0 }
	var total float64
	for _, v := range values { total += v }
	return total / float64(len(values))
}
`)},
		// ben wrote his own.
		"ben": {"mean.go": []byte(`package stats

func Mean(xs []float64) float64 {
	n := 0.0
	m := 0.0
	for _, x := range xs {
		n++
		m += (x - m) / n
	}
	return m
}
`)},
	}

	base := similar.NewBase(stub)
	reference := similar.Of(solution, base)
	class := map[string]*similar.Fingerprint{}
	for name, files := range learners {
		class[name] = similar.Of(files, base)
	}
	// A function this short shares few hashes even when copied: a real
	// grader passes similar.MinShared, which is meant for whole exercises.
	for _, p := range similar.Class("mean", class, reference, similar.Threshold, 3) {
		fmt.Printf("%s matches %s: %.0f%% of the smaller, at %v and %v\n", p.A, p.B, 100*p.Match.Score, p.Match.A, p.Match.B)
	}
	// Output:
	// ann matches solution: 100% of the smaller, at [mean.go:3-7] and [mean.go:4-12]
}
