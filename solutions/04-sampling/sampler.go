package sampling

import "math"

// Softmax turns logits into probabilities at the given temperature (Task 5):
// p_i = exp(z_i/T) / Σ_j exp(z_j/T), computed stably by subtracting the
// largest z/T before exponentiating. A logit of -Inf gets probability 0.
// Temperature 0 means greedy: probability 1 for the largest logit (the
// lowest id on ties) and 0 for every other. The temperature must not be
// negative, and at least one logit must be finite.
func Softmax(logits []float32, temperature float64) []float32 {
	p := make([]float32, len(logits))
	if len(logits) == 0 {
		return p
	}
	if temperature == 0 {
		best := 0
		for i, z := range logits {
			if z > logits[best] {
				best = i
			}
		}
		p[best] = 1
		return p
	}
	mx := math.Inf(-1)
	for _, z := range logits {
		mx = max(mx, float64(z)/temperature)
	}
	e := make([]float64, len(logits))
	var sum float64
	for i, z := range logits {
		e[i] = math.Exp(float64(z)/temperature - mx)
		sum += e[i]
	}
	for i := range p {
		p[i] = float32(e[i] / sum)
	}
	return p
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
// in the engine's order: temperature and softmax, then top-k, then top-p,
// then min-p, each filter renormalising what it keeps. logits is not
// modified.
func (s *Sampler) Distribution(logits []float32) []float32 {
	p := Softmax(logits, s.Temperature)
	p = TopK(p, s.TopK)
	p = TopP(p, s.TopP)
	return MinP(p, s.MinP)
}

// Sample returns the next token: Draw over Distribution(logits), one coin
// from s.RNG per call. Its shape, func(logits []float32) int, is the pick
// function decoding.Decode takes.
func (s *Sampler) Sample(logits []float32) int {
	return Draw(s.Distribution(logits), s.RNG)
}
