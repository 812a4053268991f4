package seeds

// Coins is a source of uniform numbers in [0, 1). Your *RNG satisfies it,
// and so does the engine's *decoding.RNG.
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

// Probs returns softmax(logits / temperature), in float32. temperature is
// positive. Task 2.
//
// To draw exactly the engine's tokens, compute it the way the engine's
// sampler does, all in float32:
//
//  1. t := float32(temperature); z[i] = logits[i] / t;
//  2. m = the largest z[i];
//  3. e[i] = float32(math.Exp(float64(z[i] - m))) (the subtraction in
//     float32, then exp in float64, then back to float32);
//  4. sum = e[0] + e[1] + …, added in index order in a float32;
//  5. p[i] = e[i] / sum.
//
// Return a new slice; leave logits unchanged. An empty logits gives an
// empty result.
func Probs(logits []float32, temperature float64) []float32 {
	return nil
}

// Draw returns the token the coin falls on, by the inverse of the
// cumulative distribution: walking i = 0, 1, 2, … and keeping the running
// sum cdf = probs[0] + … + probs[i] in a float32, return the first i with
// coin < cdf. If rounding leaves the total at or below the coin, return the
// last index. coin is in [0, 1); probs is not empty. Task 2.
//
// Example: Draw([0.2 0.5 0.3], 0.1) = 0, Draw([0.2 0.5 0.3], 0.25) = 1,
// Draw([0.2 0.5 0.3], 0.75) = 2. A token of probability 0 is never drawn.
func Draw(probs []float32, coin float32) int {
	return 0
}

// Pick chooses the next token from logits. Task 2.
//
// Temperature 0 is greedy decoding: return the index of the largest logit
// (the first one on ties) and do not touch coins. Any other temperature
// takes exactly one number from coins.Float32() (no more, no less: the
// engine takes one per token, and every extra draw would shift all the
// later ones) and returns Draw(Probs(logits, temperature), coin).
func Pick(logits []float32, temperature float64, coins Coins) int {
	return 0
}

// Sample generates up to n tokens after prompt and returns them (without
// the prompt). Task 2.
//
// Make one generator, NewRNG(seed) (task 1), for the whole run. Then
// repeat: if the sequence (prompt and tokens so far) already fills
// lm.ContextLength(), stop; ask lm.NextLogits(sequence, 1) for one row of
// logits; pick the token with Pick(row, temperature, rng); append it. Stop
// after n tokens, or right after a token for which isEnd reports true (that
// token is returned too; a nil isEnd means no token ends the text). On an
// error from lm, return the tokens so far and the error. Never append to
// prompt itself.
//
// The same seed gives the same tokens; with temperature 0 the seed does not
// matter. On the course's model, Sample(engine.NewModelLM(m, 1), ids, n,
// T, seed, tok.IsEnd), with ids the prompt encoded with BOS, gives the ids
// of decoding.Generate with Options{MaxNewTokens: n, Temperature: T, Seed:
// seed}.
func Sample(lm LM, prompt []int, n int, temperature float64, seed uint64, isEnd func(id int) bool) ([]int, error) {
	return nil, nil
}
