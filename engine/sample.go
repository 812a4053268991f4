package engine

import "math"

// The sampler turns one step's logits into the next token. It runs a fixed
// chain of small stages, each in its own file, always in this order:
//
//	 1. logit bias          bias.go         the caller's per-token offsets
//	 2. repetition penalty  penalty.go      CTRL/HF: shrink logits of seen tokens
//	 3. presence/frequency  penalty.go      OpenAI: subtract per seen token / per use
//	 4. no-repeat n-gram    ngram.go        ban tokens that would repeat an n-gram
//	    — temperature 0 stops here and takes the argmax (greedy) —
//	 5. temperature         temperature.go  divide the logits by T
//	 6. top-k               topk.go         keep the k largest logits
//	 7. softmax             softmax.go      logits → probabilities
//	 8. top-p               topp.go         keep the nucleus
//	 9. min-p               minp.go         keep p ≥ min_p × p_max
//	10. draw                                one coin from the xorshift RNG
//
// Why this order. Stages 1–4 edit the model's scores using what is already
// written; they are not about randomness, so they also steer greedy decoding
// (HF applies its "logits processors" before its sampling "warpers" in the
// same way). Among the sampling stages temperature comes first, as in HF
// transformers and llama2.c, so that top-p and min-p judge the distribution
// that will really be sampled; top-k only looks at the order of the logits,
// which temperature never changes. Top-p comes before min-p as in both HF
// and llama.cpp. Top-k, top-p and min-p always keep the most likely token,
// so none of them could change a greedy pick.
//
// With only temperature and top-p set, the arithmetic is llama2.c's: the
// same float32 softmax, the same nucleus, the same coin, so the same seed
// gives the same text on every machine.

// Sampler picks the next token from the logits, applying the sampling
// fields of its Options: Temperature, TopK, TopP, MinP, RepetitionPenalty,
// PresencePenalty, FrequencyPenalty, PenaltyWindow, NoRepeatNGram, LogitBias and Seed. The
// other fields are ignored. A Sampler is not safe for concurrent use.
type Sampler struct {
	Options

	rng   *RNG
	z     []float32 // working copy of the logits
	probs []float32 // probabilities after softmax
	kept  []int     // candidate token ids after top-p / min-p
}

// NewSampler makes llama2.c's sampler: temperature (0 is greedy), then
// top-p (1 disables it), with a seeded random number generator.
func NewSampler(temperature, topP float64, seed uint64) (*Sampler, error) {
	return Options{Temperature: temperature, TopP: topP, Seed: seed}.NewSampler(0)
}

// NewSampler checks the sampling settings (see Validate; vocabSize 0 skips
// the check of LogitBias ids) and returns a sampler seeded with o.Seed.
func (o Options) NewSampler(vocabSize int) (*Sampler, error) {
	if err := o.validateSampling(vocabSize); err != nil {
		return nil, err
	}
	return o.sampler(), nil
}

// sampler returns a sampler for settings already checked.
func (o Options) sampler() *Sampler { return &Sampler{Options: o, rng: NewRNG(o.Seed)} }

// Stage is the probability distribution over the whole vocabulary after one
// stage of the sampler. Stages with nothing to do are skipped.
type Stage struct {
	Name  string    // "model", "logit bias", "repetition penalty", "presence/frequency penalty", "no-repeat n-gram", "temperature", "top-k", "top-p", "min-p" or "greedy"
	Probs []float64 // one probability per token; they sum to 1
}

// Sample returns the chosen token id. history is the text so far as token
// ids (prompt and generated, without BOS); only the penalties read it. The
// logits are not modified.
func (s *Sampler) Sample(logits []float32, history ...int) int {
	return s.sample(logits, history, nil)
}

// SampleTrace is Sample that also returns the distribution after every
// stage that did something, starting with the model's own ("model"). It
// draws the same token and advances the RNG exactly as Sample does.
func (s *Sampler) SampleTrace(logits []float32, history []int) (int, []Stage) {
	var trace []Stage
	id := s.sample(logits, history, &trace)
	return id, trace
}

func (s *Sampler) sample(logits []float32, history []int, trace *[]Stage) int {
	n := len(logits)
	if cap(s.z) < n {
		s.z, s.probs, s.kept = make([]float32, n), make([]float32, n), make([]int, 0, n)
	}
	z, p := s.z[:n], s.probs[:n]
	copy(z, logits)
	record := func(name string) {
		if trace != nil {
			*trace = append(*trace, Stage{name, Softmax(z)})
		}
	}
	record("model")

	// 1–4: edit the scores using the text so far.
	if len(s.LogitBias) > 0 {
		ApplyLogitBias(z, s.LogitBias)
		record("logit bias")
	}
	recent := history
	if s.PenaltyWindow > 0 && len(recent) > s.PenaltyWindow {
		recent = recent[len(recent)-s.PenaltyWindow:]
	}
	if s.RepetitionPenalty != 0 && s.RepetitionPenalty != 1 {
		ApplyRepetitionPenalty(z, recent, s.RepetitionPenalty)
		record("repetition penalty")
	}
	if s.PresencePenalty != 0 || s.FrequencyPenalty != 0 {
		ApplyPresenceFrequencyPenalty(z, recent, s.PresencePenalty, s.FrequencyPenalty)
		record("presence/frequency penalty")
	}
	if s.NoRepeatNGram > 0 {
		BanRepeatedNGrams(z, history, s.NoRepeatNGram)
		record("no-repeat n-gram")
	}
	if z[Argmax(z)] == banned {
		// Bans removed every token; the only sensible answer left is the
		// model's own favourite.
		z = append(z[:0], logits...)
	}

	// Temperature 0: greedy decoding.
	if s.Temperature == 0 {
		id := Argmax(z)
		if trace != nil {
			onehot := make([]float64, n)
			onehot[id] = 1
			*trace = append(*trace, Stage{"greedy", onehot})
		}
		return id
	}

	// 5–7: temperature, top-k, softmax.
	if s.Temperature != 1 {
		ApplyTemperature(z, s.Temperature)
		record("temperature")
	}
	if s.TopK > 0 && s.TopK < n {
		ApplyTopK(z, s.TopK)
		record("top-k")
	}
	copy(p, z)
	softmax32(p)

	// 8–9: cut the tail of the distribution. kept == nil means every token.
	var kept []int
	if s.TopP > 0 && s.TopP < 1 {
		kept = TopP(p, s.TopP, s.kept)
		s.recordKept(trace, "top-p", p, kept)
	}
	if s.MinP > 0 {
		kept = MinP(p, s.MinP, kept, s.kept)
		s.recordKept(trace, "min-p", p, kept)
	}

	// 10: draw.
	coin := s.rng.Float32()
	if kept == nil {
		return sampleMult(p, coin)
	}
	return sampleFrom(p, kept, coin)
}

// recordKept adds to the trace the distribution p restricted to kept and
// renormalised.
func (s *Sampler) recordKept(trace *[]Stage, name string, p []float32, kept []int) {
	if trace == nil {
		return
	}
	out := make([]float64, len(p))
	var sum float64
	for _, id := range kept {
		sum += float64(p[id])
	}
	for _, id := range kept {
		out[id] = float64(p[id]) / sum
	}
	*trace = append(*trace, Stage{name, out})
}

// Argmax returns the index of the largest logit (the first, on ties).
func Argmax(logits []float32) int {
	best := 0
	for i, z := range logits {
		if z > logits[best] {
			best = i
		}
	}
	return best
}

// sampleMult draws index i with probability p[i], given a uniform coin in
// [0, 1).
func sampleMult(p []float32, coin float32) int {
	var cdf float32
	for i, v := range p {
		cdf += v
		if coin < cdf {
			return i
		}
	}
	return len(p) - 1 // rounding left the total just under 1
}

// sampleFrom draws one of the candidate ids with probability proportional
// to p[id], walking them in the given order, as llama2.c does for the
// nucleus: the coin is scaled by the candidates' total instead of
// renormalising.
func sampleFrom(p []float32, kept []int, coin float32) int {
	var total float32
	for _, id := range kept {
		total += p[id]
	}
	r := coin * total
	var cdf float32
	for _, id := range kept {
		cdf += p[id]
		if r < cdf {
			return id
		}
	}
	return kept[len(kept)-1]
}

// banned is the logit of a token that may not be chosen: softmax gives it
// probability exactly 0.
var banned = float32(math.Inf(-1))
