package seeds

import (
	"fmt"
	"math"
)

// Coins is a source of uniform numbers in [0, 1). *RNG satisfies it, and so
// does the engine's *decoding.RNG.
type Coins interface {
	Float32() float32
}

// LM is a language model seen from outside, with the method set of the
// engine's decoding.LM (which *engine.ModelLM satisfies): NextLogits(prefix,
// 1) returns one row, the logits of the token that follows prefix.
type LM interface {
	VocabSize() int
	ContextLength() int
	NextLogits(prefix []int, n int) ([][]float32, error)
}

// Probs returns softmax(logits / temperature) in float32, computed the way
// the engine's sampler computes it so that the same coin picks the same
// token: divide each logit by float32(temperature), subtract the largest,
// take float32(math.Exp(float64(z - max))), add them up in order in a
// float32, and divide each by the sum. temperature must be positive.
func Probs(logits []float32, temperature float64) []float32 {
	p := make([]float32, len(logits))
	if len(logits) == 0 {
		return p
	}
	t := float32(temperature)
	for i, z := range logits {
		p[i] = z / t
	}
	mx := p[0]
	for _, v := range p[1:] {
		mx = max(mx, v)
	}
	var sum float32
	for i, v := range p {
		p[i] = float32(math.Exp(float64(v - mx)))
		sum += p[i]
	}
	for i := range p {
		p[i] /= sum
	}
	return p
}

// Draw returns the token that the coin (uniform in [0, 1)) falls on: the
// first index i where coin < probs[0] + … + probs[i], the running sum kept
// in a float32. If rounding leaves the total at or below the coin, it
// returns the last index. probs must not be empty.
func Draw(probs []float32, coin float32) int {
	var cdf float32
	for i, p := range probs {
		cdf += p
		if coin < cdf {
			return i
		}
	}
	return len(probs) - 1
}

// Pick chooses the next token from logits. Temperature 0 is greedy
// decoding: the largest logit (the first on ties), and no coin is used.
// Otherwise it takes exactly one coin and draws from Probs(logits,
// temperature).
func Pick(logits []float32, temperature float64, coins Coins) int {
	if temperature == 0 {
		return argmax(logits)
	}
	return Draw(Probs(logits, temperature), coins.Float32())
}

// argmax returns the index of the largest logit, the first one on ties.
func argmax(logits []float32) int {
	best := 0
	for i, z := range logits {
		if z > logits[best] {
			best = i
		}
	}
	return best
}

// Sample generates up to n tokens after prompt with a generator seeded
// with seed, and returns them (without the prompt). Each step asks lm for
// the logits after the sequence so far and picks with Pick. It stops early
// after a token for which isEnd reports true (that token is returned; nil
// isEnd means none ends the text) or when the sequence fills the model's
// context. On an error from lm it returns the tokens so far and the error.
func Sample(lm LM, prompt []int, n int, temperature float64, seed uint64, isEnd func(id int) bool) ([]int, error) {
	rng := NewRNG(seed)
	seq := make([]int, 0, len(prompt)+n)
	seq = append(seq, prompt...)
	var out []int
	for range n {
		if len(seq) >= lm.ContextLength() {
			break
		}
		rows, err := lm.NextLogits(seq, 1)
		if err != nil {
			return out, err
		}
		if len(rows) != 1 {
			return out, fmt.Errorf("NextLogits returned %d rows; want 1", len(rows))
		}
		id := Pick(rows[0], temperature, rng)
		out, seq = append(out, id), append(seq, id)
		if isEnd != nil && isEnd(id) {
			break
		}
	}
	return out, nil
}
