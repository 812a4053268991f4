package sampling

import (
	"fmt"
	"testing"

	"github.com/tokenbytoken/course/exercises/internal/check"
)

// TestTask1_Boundaries: with a scripted coin, Draw returns the token whose
// stretch of [0, 1) the coin lands in; a coin exactly on a boundary belongs
// to the next token; every Draw uses exactly one coin.
//
//grade:task 1 points 2
func TestTask1_Boundaries(t *testing.T) {
	defer check.Recover(t)
	probs := []float32{0.25, 0.5, 0.25} // stretches [0, 0.25), [0.25, 0.75), [0.75, 1)
	cases := []struct {
		coin float32
		want int
	}{
		{0.25, 1}, {0.5, 1}, {0.7499999, 1}, // 0.25 is on the boundary: token 1
		{0.75, 2}, {0.99999994, 2}, // 0.75 is on the boundary: token 2
		{0, 0}, {0.1, 0}, {0.2499999, 0},
	}
	calledBadly := false
	fails := check.NewLimit(t, 3)
	defer fails.Close()
	for _, c := range cases {
		rng := scripted(t, fmt.Sprintf("Draw(%v) with coin %v", probs, c.coin), c.coin)
		got := Draw(probs, rng)
		if got != c.want {
			fails.Errorf("Draw(%v) with coin %v = %d; want %d (the first token whose running sum is greater than the coin)", probs, c.coin, got, c.want)
		}
		if rng.calls != 1 && !calledBadly {
			t.Errorf("Draw(%v) with coin %v called rng.Float32() %d times; want exactly once", probs, c.coin, rng.calls)
			calledBadly = true // say it once
		}
	}
}

// TestTask1_ZeroAndRounding: a token of probability 0 is never drawn, even
// by a coin of 0; when the probabilities add up to just under 1 and the coin
// lies beyond them, the last token of positive probability is drawn.
//
//grade:task 1 points 1
func TestTask1_ZeroAndRounding(t *testing.T) {
	defer check.Recover(t)
	cases := []struct {
		probs []float32
		coin  float32
		want  int
		why   string
	}{
		{[]float32{0, 0.5, 0, 0.5}, 0, 1, "token 0 has probability 0: its stretch is empty"},
		{[]float32{0, 0.5, 0, 0.5}, 0.25, 1, "token 1 owns [0, 0.5)"},
		{[]float32{0, 0.5, 0, 0.5}, 0.5, 3, "token 2 has probability 0: a coin on the boundary goes to token 3"},
		{[]float32{0, 0.5, 0, 0.5}, 0.75, 3, "token 3 owns [0.5, 1)"},
		// 0.5 + 0.49999994 = 0.99999994 exactly, the largest coin the
		// engine's RNG can return: no running sum is greater than it.
		{[]float32{0.5, 0.49999994}, 0.99999994, 1, "the sum stops just under 1: take the last token"},
		{[]float32{0.5, 0.49999994, 0}, 0.99999994, 1, "the sum stops just under 1: take the last token of positive probability, not the one of probability 0"},
		{[]float32{0.25, 0.25, 0.25, 0.24999994, 0}, 0.99999994, 3, "the sum stops just under 1: take the last token of positive probability"},
	}
	fails := check.NewLimit(t, 4)
	defer fails.Close()
	for _, c := range cases {
		got := Draw(c.probs, scripted(t, fmt.Sprintf("Draw(%v) with coin %v", c.probs, c.coin), c.coin))
		if got != c.want {
			fails.Errorf("Draw(%v) with coin %v = %d; want %d (%s)", c.probs, c.coin, got, c.want, c.why)
		}
	}
}

// TestTask1_Frequencies: over 20,000 draws with the engine's RNG, each token
// comes up in proportion to its probability.
//
//grade:task 1 points 1
func TestTask1_Frequencies(t *testing.T) {
	defer check.Recover(t)
	probs := []float32{0.1, 0.2, 0.3, 0.4}
	const n = 20000
	rng := seeded(t, 42, fmt.Sprintf("Draw(%v), %d times with decoding.NewRNG(42),", probs, n), 10*n)
	counts := make([]int, len(probs))
	for range n {
		id := Draw(probs, rng)
		if id < 0 || id >= len(probs) {
			t.Fatalf("Draw(%v) = %d; want a token id from 0 to %d", probs, id, len(probs)-1)
		}
		counts[id]++
	}
	if msg := binomialCheck(counts, []float64{0.1, 0.2, 0.3, 0.4}, n); msg != "" {
		t.Errorf("Draw(%v) %d times with decoding.NewRNG(42): %s\n(a correct implementation fails this check less than once in 10⁶ runs)", probs, n, msg)
	}
}
