package simd

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestMaxMatchesPlainLoop compares Max with the max builtin over every
// length remainder modulo 16, all-negative numbers (so that lanes past the
// end must not count as 0), the largest number at every place, and NaN
// anywhere: the results must be the same number.
func TestMaxMatchesPlainLoop(t *testing.T) {
	requireKernel(t)
	rng := rand.New(rand.NewPCG(11, 12))
	for n := 1; n <= 40; n++ {
		for _, shift := range []float64{0, -1000} {
			for place := range n {
				x := make([]float32, n)
				for i := range x {
					x[i] = float32(rng.NormFloat64() + shift)
				}
				x[place] = float32(10 + shift)
				if got, want := Max(x), maxGo(x); got != want {
					t.Fatalf("n=%d, largest at %d: Max %v, the plain loop %v", n, place, got, want)
				}
				x[place] = float32(math.NaN())
				if got := Max(x); !math.IsNaN(float64(got)) {
					t.Fatalf("n=%d, NaN at %d: Max %v, want NaN", n, place, got)
				}
			}
		}
	}
	for _, c := range []struct {
		x    []float32
		want float32
	}{
		{nil, float32(math.Inf(-1))},
		{[]float32{float32(math.Inf(-1))}, float32(math.Inf(-1))},
		{[]float32{-3, float32(math.Inf(1)), 2}, float32(math.Inf(1))},
	} {
		if got := Max(c.x); got != c.want {
			t.Errorf("Max(%v) = %v, want %v", c.x, got, c.want)
		}
	}
}
