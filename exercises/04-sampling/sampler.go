package sampling

// Softmax turns logits into probabilities at the given temperature (Task 5):
// p_i = exp(z_i/T) / Σ_j exp(z_j/T), computed stably by subtracting the
// largest z/T before exponentiating (compute in float64, return float32). A
// logit of -Inf gets probability 0. Temperature 0 means greedy: probability
// 1 for the largest logit (the lowest id on ties) and 0 for every other. The
// temperature is never negative, and at least one logit is finite.
//
// Example: Softmax([3 2 1 0.5], 1) ≈ [0.6308 0.2321 0.0854 0.0518].
func Softmax(logits []float32, temperature float64) []float32 {
	return nil
}

// Sampler draws the next token from logits (Task 5). Its settings mean what
// the engine's Options fields of the same names mean: Temperature 0 is
// greedy, TopK 0 keeps every token, TopP 0 or 1 keeps every token, MinP 0
// keeps every token. RNG supplies the coins: decoding.NewRNG(seed) gives
// reproducible draws.
type Sampler struct {
	Temperature float64
	TopK        int
	TopP        float64
	MinP        float64
	RNG         RNG
}

// Distribution returns the distribution the sampler draws from, for logits,
// in the engine's order: Softmax at s.Temperature, then TopK, then TopP,
// then MinP (each filter renormalises what it keeps). Do not modify logits.
func (s *Sampler) Distribution(logits []float32) []float32 {
	return nil
}

// Sample returns the next token: Draw over Distribution(logits), with one
// coin from s.RNG per call. Its shape, func(logits []float32) int, is the
// Pick function decoding.Decode takes.
func (s *Sampler) Sample(logits []float32) int {
	return 0
}
