package projection

import (
	"fmt"
	"github.com/tokenbytoken/course/engine/decoding"
	"github.com/tokenbytoken/course/exercises/internal/check"
	"slices"
	"testing"
)

// TestTask4_HandCases: the smallest number of most likely tokens that
// hold a given mass. The probabilities are powers of two, so every sum is
// exact; the input is not sorted and must stay as it was.
//
//grade:task 4 points 2
func TestTask4_HandCases(t *testing.T) {
	defer check.Recover(t)
	probs := []float64{0.125, 0.5, 0.0625, 0.25, 0.0625}
	orig := slices.Clone(probs)
	cases := []struct {
		mass float64
		want int
	}{
		{0.1, 1},    // 0.5 alone
		{0.5, 1},    // exactly 0.5 is enough
		{0.75, 2},   // 0.5 + 0.25
		{0.8, 3},    // + 0.125
		{0.875, 3},  // exactly reached
		{0.9, 4},    // + 0.0625
		{1, 5},      // all of them
		{0, 0},      // nothing to hold
		{0.9375, 4}, // 0.5 + 0.25 + 0.125 + 0.0625
	}
	for _, c := range cases {
		if got := TokensForMass(probs, c.mass); got != c.want {
			t.Errorf("TokensForMass(%v, %g) = %d; want %d", orig, c.mass, got, c.want)
		}
		if !slices.Equal(probs, orig) {
			t.Fatalf("TokensForMass changed its input: %v became %v", orig, probs)
		}
	}
}

// TestTask4_Edges: a total rounded just under 1 (ten times 0.1 adds up to
// 0.9999999999999999 in float64) or a mass above 1 means every token; a
// mass of 0 or less means none.
//
//grade:task 4 points 1
func TestTask4_Edges(t *testing.T) {
	defer check.Recover(t)
	tenths := make([]float64, 10)
	for i := range tenths {
		tenths[i] = 0.1
	}
	cases := []struct {
		probs []float64
		mass  float64
		want  int
	}{
		{tenths, 0.25, 3},
		{tenths, 1, 10},
		{tenths, 1.5, 10},
		{tenths, -1, 0},
		{[]float64{1}, 1, 1},
		{[]float64{0, 0, 1, 0}, 0.5, 1},
	}
	for _, c := range cases {
		if got := TokensForMass(c.probs, c.mass); got != c.want {
			t.Errorf("TokensForMass(%v, %g) = %d; want %d", c.probs, c.mass, got, c.want)
		}
	}
}

// TestTask4_CourseModel: on the course model's next-token distribution
// after a prompt, the tokens holding 50%, 90% and 99% of the probability
// are a small part of the vocabulary. (The expected counts are computed
// here by sorting; an answer whose running sum differs from the test's
// only by rounding, within 1e-12 of the mass, is accepted too.)
//
//grade:task 4 points 1
func TestTask4_CourseModel(t *testing.T) {
	defer check.Recover(t)
	_, _, logits := courseStep(t)
	probs := decoding.Softmax(logits)
	sorted := slices.Clone(probs)
	slices.Sort(sorted)
	slices.Reverse(sorted)
	cum := make([]float64, len(sorted)) // cum[i]: mass of the i+1 most likely
	var sum float64
	for i, p := range sorted {
		sum += p
		cum[i] = sum
	}
	for _, mass := range []float64{0.5, 0.9, 0.99} {
		want := len(probs)
		for i, c := range cum {
			if c >= mass {
				want = i + 1
				break
			}
		}
		got := TokensForMass(probs, mass)
		ok := got == want ||
			(got >= 1 && got <= len(cum) && cum[got-1] >= mass-1e-12 && (got == 1 || cum[got-2] < mass+1e-12))
		if !ok {
			t.Errorf("TokensForMass(the course model's next-token probabilities, %g) = %d; want %d of %d tokens", mass, got, want, len(probs))
		}
		if mass == 0.9 && !(want < len(probs)/4) {
			panic(fmt.Sprintf("test fixture: %d of %d tokens hold 90%%", want, len(probs)))
		}
	}
}
