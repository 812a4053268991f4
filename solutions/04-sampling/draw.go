// Package sampling turns a model's logits into a token drawn at random: a
// coin flip laid over the probabilities, the filters that cut off the
// unlikely tail (top-k, top-p, min-p), and a Sampler that chains them in the
// same order as the course's engine.
//
// Every filter takes a probability distribution and returns a new one of the
// same length: the tokens it drops get probability 0, the tokens it keeps
// are rescaled so that they sum to 1 again. Filters therefore chain, and the
// last distribution is what Draw samples from.
package sampling

// RNG is a source of uniform random numbers in [0, 1). The engine's
// *decoding.RNG satisfies it, and so does any scripted source a test builds.
type RNG interface {
	Float32() float32
}

// Draw picks a token from probs with exactly one coin from rng (Task 1).
//
// Lay the probabilities end to end on [0, 1): token i owns the stretch from
// the sum of the probabilities before it up to that sum plus probs[i]. Draw
// returns the first token whose running sum is strictly greater than the
// coin, so a coin landing exactly on a boundary belongs to the token after
// it, and a token of probability 0 is never drawn. When rounding leaves the
// total just under 1 and the coin beyond it, Draw returns the last token of
// positive probability.
//
// probs must hold at least one positive probability.
func Draw(probs []float32, rng RNG) int {
	coin := rng.Float32()
	var cum float32
	last := 0
	for i, p := range probs {
		if p <= 0 {
			continue
		}
		cum += p
		last = i
		if coin < cum {
			return i
		}
	}
	return last // the running sum stopped just under 1, below the coin
}
