package decoding

import (
	"errors"
	"fmt"
	"iter"
	"math"

	"github.com/tokenbytoken/course/engine/internal/simd"
)

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
// settings of the Options it was made with (Options.NewSampler):
// Temperature, TopK, TopP, MinP, RepetitionPenalty, PresencePenalty,
// FrequencyPenalty, PenaltyWindow, NoRepeatNGram, LogitBias and Seed. The
// other fields are ignored. The settings are checked once, when it is
// made, and cannot change after. A Sampler is not safe for concurrent
// use.
type Sampler struct {
	opts  Options // checked by NewSampler
	vocab int     // the vocabulary the LogitBias ids were checked against

	rng   *RNG
	z     []float32 // working copy of the logits
	probs []float32 // probabilities after softmax
	kept  []int     // the nucleus of top-p
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
	s := o.sampler()
	s.vocab = vocabSize
	return s, nil
}

// sampler returns a sampler for settings already checked.
func (o Options) sampler() *Sampler { return &Sampler{opts: o, rng: NewRNG(o.Seed)} }

// Stage is the probability distribution over the whole vocabulary after one
// stage of the sampler. Stages with nothing to do are skipped.
type Stage struct {
	Name string // "model", "constraint" (Options.Constraint, in Generate), "logit bias", "repetition penalty", "presence/frequency penalty", "no-repeat n-gram", "fallback", "temperature", "top-k", "top-p", "min-p" or "greedy"
	// Probs holds one probability per token. They sum to 1, except after a
	// stage that banned every token: then they are all 0, and the next
	// stage is "fallback", the model's own distribution, which the sampler
	// goes back to when nothing else is left.
	Probs []float64
}

// Sample returns the chosen token id. history is the text so far as token
// ids (prompt and generated, without BOS); only the penalties read it. The
// logits are not modified.
//
// It refuses, with an error and NoToken, to draw from anything that is not
// a probability distribution: no logits, a logit that is NaN or +Inf (-Inf
// bans a token and is fine), every logit -Inf, settings out of range (see
// Options.Validate), or a stage whose arithmetic overflows float32 on these
// logits — the error names the token and the stage. It never falls back
// on a default token.
func (s *Sampler) Sample(logits []float32, history ...int) (int, error) {
	return s.sample(logits, history, nil)
}

// SampleTrace is Sample that also returns the distribution after every
// stage that did something, starting with the model's own ("model"). It
// draws the same token and advances the RNG exactly as Sample does.
func (s *Sampler) SampleTrace(logits []float32, history []int) (int, []Stage, error) {
	var trace []Stage
	id, err := s.sample(logits, history, &trace)
	return id, trace, err
}

func (s *Sampler) sample(logits []float32, history []int, trace *[]Stage) (int, error) {
	if s == nil {
		return NoToken, errors.New("no sampler (nil *Sampler)")
	}
	n := len(logits)
	if n == 0 {
		return NoToken, errors.New("no logits: there is nothing to sample from")
	}
	if n != s.vocab {
		// Logits of a vocabulary the LogitBias ids were not checked
		// against (NewSampler's vocabSize 0 skips that check): check
		// them once for it.
		for id, b := range s.opts.LogitBias {
			if id < 0 || id >= n {
				return NoToken, &SettingError{fmt.Sprintf("LogitBias[%d]", id), b, fmt.Sprintf("token id %d is outside the vocabulary (0..%d)", id, n-1)}
			}
		}
		s.vocab = n
	}
	if err := checkScores(logits, "the model"); err != nil {
		return NoToken, err
	}
	if s.opts.Temperature == 0 && trace == nil && !s.edits() {
		// Greedy decoding of the model's own scores: nothing to copy.
		return Argmax(logits), nil
	}
	if s.rng == nil { // the zero Sampler: greedy
		s.rng = NewRNG(0)
	}
	if cap(s.z) < n {
		s.z, s.probs, s.kept = make([]float32, n), make([]float32, n), make([]int, 0, n)
	}
	z, p := s.z[:n], s.probs[:n]
	copy(z, logits)
	record := func(name string) {
		if trace != nil {
			*trace = append(*trace, Stage{name, distribution(z)})
		}
	}
	// edit runs a stage that changes the logits, checks that it left them
	// numbers, and records it.
	edit := func(name, setting string, apply func()) error {
		before := allBanned(z)
		apply()
		if err := checkEdited(z, name, setting, before); err != nil {
			return err
		}
		record(name)
		return nil
	}
	record("model")

	// 1–4: edit the scores using the text so far.
	if len(s.opts.LogitBias) > 0 {
		if err := edit("logit bias", "LogitBias", func() { ApplyLogitBias(z, s.opts.LogitBias) }); err != nil {
			return NoToken, err
		}
	}
	recent := history
	if s.opts.PenaltyWindow > 0 && len(recent) > s.opts.PenaltyWindow {
		recent = recent[len(recent)-s.opts.PenaltyWindow:]
	}
	if s.opts.RepetitionPenalty != 0 && s.opts.RepetitionPenalty != 1 {
		if err := edit("repetition penalty", fmt.Sprintf("RepetitionPenalty = %v", s.opts.RepetitionPenalty), func() {
			ApplyRepetitionPenalty(z, recent, s.opts.RepetitionPenalty)
		}); err != nil {
			return NoToken, err
		}
	}
	if s.opts.PresencePenalty != 0 || s.opts.FrequencyPenalty != 0 {
		setting := fmt.Sprintf("PresencePenalty = %v, FrequencyPenalty = %v", s.opts.PresencePenalty, s.opts.FrequencyPenalty)
		if err := edit("presence/frequency penalty", setting, func() {
			ApplyPresenceFrequencyPenalty(z, recent, s.opts.PresencePenalty, s.opts.FrequencyPenalty)
		}); err != nil {
			return NoToken, err
		}
	}
	if s.opts.NoRepeatNGram > 0 {
		BanRepeatedNGrams(z, history, s.opts.NoRepeatNGram)
		record("no-repeat n-gram")
	}
	if allBanned(z) {
		// Bans removed every token; the only sensible answer left is the
		// model's own favourite.
		z = append(z[:0], logits...)
		record("fallback")
	}

	// Temperature 0: greedy decoding.
	if s.opts.Temperature == 0 {
		id := Argmax(z)
		if trace != nil {
			onehot := make([]float64, n)
			onehot[id] = 1
			*trace = append(*trace, Stage{"greedy", onehot})
		}
		return id, nil
	}

	// 5–7: temperature, top-k, softmax.
	if s.opts.Temperature != 1 {
		if err := edit("temperature", fmt.Sprintf("Temperature = %v", s.opts.Temperature), func() { ApplyTemperature(z, s.opts.Temperature) }); err != nil {
			return NoToken, err
		}
	}
	if s.opts.TopK > 0 && s.opts.TopK < n {
		ApplyTopK(z, s.opts.TopK)
		record("top-k")
	}
	copy(p, z)
	softmax32(p)

	// 8–9: cut the tail of the distribution: the tokens cut get
	// probability 0. order is the nucleus, most likely first, which the
	// draw walks in that order, as llama2.c does; nil means every token,
	// in id order.
	var order []int
	cut := false
	if s.opts.TopP > 0 && s.opts.TopP < 1 {
		order = nucleus(p, s.opts.TopP, s.kept) // ApplyTopP, keeping the order
		keepNucleus(p, order)
		s.recordKept(trace, "top-p", p, order)
		cut = true
	}
	if s.opts.MinP > 0 {
		ApplyMinP(p, s.opts.MinP)
		s.recordKept(trace, "min-p", p, order)
		cut = true
	}

	// 10: draw.
	coin := s.rng.Float32()
	if !cut {
		return sampleMult(p, coin)
	}
	return sampleFrom(p, order, coin)
}

// edits reports whether a stage before the temperature (1–4 in sample)
// may change the scores.
func (s *Sampler) edits() bool {
	return len(s.opts.LogitBias) > 0 || s.opts.RepetitionPenalty != 0 && s.opts.RepetitionPenalty != 1 ||
		s.opts.PresencePenalty != 0 || s.opts.FrequencyPenalty != 0 || s.opts.NoRepeatNGram > 0
}

// checkScores returns an error naming the first logit that is NaN or +Inf,
// or saying that every logit is -Inf: in both cases there is no
// distribution to draw from. source says whose logits they are.
func checkScores(z []float32, source string) error {
	if finiteMax(z) {
		return nil
	}
	for id, v := range z {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 1) {
			return fmt.Errorf("%s gave token %d the logit %v: logits must be numbers (-Inf bans a token)", source, id, v)
		}
	}
	if allBanned(z) {
		return fmt.Errorf("%s gave every one of its %d tokens the logit -Inf: no token can be chosen", source, len(z))
	}
	return nil
}

// checkEdited returns an error when a sampling stage turned a logit into
// NaN or +Inf, or turned every logit into -Inf (when some were not before,
// and not by a logit bias, which may ban on purpose): its setting
// overflows float32 on these logits.
func checkEdited(z []float32, stage, setting string, bannedBefore bool) error {
	if finiteMax(z) {
		return nil
	}
	for id, v := range z {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 1) {
			return fmt.Errorf("the %s stage made token %d's logit %v: %s overflows float32 on these logits", stage, id, v, setting)
		}
	}
	if allBanned(z) && !bannedBefore && stage != "logit bias" {
		return fmt.Errorf("the %s stage made every logit -Inf: %s overflows float32 on these logits", stage, setting)
	}
	return nil
}

// finiteMax reports whether the largest of z is a finite number: then no
// logit is NaN or +Inf and not every one is -Inf, which is the usual case,
// found with the vectorised maximum instead of a check of every logit.
func finiteMax(z []float32) bool {
	m := float64(simd.Max(z))
	return !math.IsNaN(m) && !math.IsInf(m, 0)
}

// allBanned reports whether no token has a logit above -Inf.
func allBanned(z []float32) bool {
	for _, v := range z {
		if v > banned {
			return false
		}
	}
	return true
}

// distribution is Softmax for the trace, except that logits that are all
// -Inf (every token banned) give all zeros: no token has any probability
// left.
func distribution(z []float32) []float64 {
	if allBanned(z) {
		return make([]float64, len(z))
	}
	return Softmax(z)
}

// recordKept adds to the trace the distribution p, whose tail a stage
// set to 0, renormalised: summed in order (every token in id order when
// order is nil), as the draw walks it.
func (s *Sampler) recordKept(trace *[]Stage, name string, p []float32, order []int) {
	if trace == nil {
		return
	}
	out := make([]float64, len(p))
	var sum float64
	for id := range candidates(p, order) {
		sum += float64(p[id])
	}
	for id := range candidates(p, order) {
		out[id] = float64(p[id]) / sum
	}
	*trace = append(*trace, Stage{name, out})
}

// candidates yields the tokens that still have a probability in p, in
// order, or in id order when order is nil.
func candidates(p []float32, order []int) iter.Seq[int] {
	return func(yield func(int) bool) {
		if order == nil {
			for id, v := range p {
				if v != 0 && !yield(id) {
					return
				}
			}
			return
		}
		for _, id := range order {
			if p[id] != 0 && !yield(id) {
				return
			}
		}
	}
}

// Argmax returns the index of the largest logit (the first, on ties). NaN
// is not a score and is never picked; with no logits, or only NaN, it
// returns NoToken (-1).
//
// It gives what argmaxLoop, the loop a learner would write, gives, faster
// on a large vocabulary: simd.Max finds the largest logit of each block
// of argmaxBlock 8 at a time, and only the block with the largest of
// those is searched for its index. A NaN in a block makes its largest
// number NaN, and the plain loop then does the whole search.
func Argmax(logits []float32) int {
	best, top := NoToken, float32(0)
	for start := 0; start < len(logits); start += argmaxBlock {
		m := simd.Max(logits[start:min(start+argmaxBlock, len(logits))])
		if math.IsNaN(float64(m)) {
			return argmaxLoop(logits)
		}
		if best < 0 || m > top {
			best, top = start, m
		}
	}
	if best < 0 {
		return NoToken
	}
	for i, z := range logits[best:] {
		if z == top {
			return best + i
		}
	}
	return argmaxLoop(logits) // not reached: top is one of the block's logits
}

// argmaxBlock is how many logits Argmax takes at a time: 1 kB of them.
const argmaxBlock = 256

// argmaxLoop is Argmax one logit at a time.
func argmaxLoop(logits []float32) int {
	best := NoToken
	for i, z := range logits {
		if math.IsNaN(float64(z)) {
			continue
		}
		if best < 0 || z > logits[best] {
			best = i
		}
	}
	return best
}

// sampleMult draws index i with probability p[i], given a uniform coin in
// [0, 1). It refuses a p whose total is not a positive number.
func sampleMult(p []float32, coin float32) (int, error) {
	var total float32
	for _, v := range p {
		total += v
	}
	if !(total > 0) || math.IsInf(float64(total), 0) {
		return NoToken, fmt.Errorf("the probabilities add up to %v, not a distribution", total)
	}
	var cdf float32
	last := NoToken
	for i, v := range p {
		cdf += v
		if coin < cdf {
			return i, nil
		}
		if v > 0 {
			last = i
		}
	}
	// Rounding left the running total just under the coin: the answer is
	// the last token that has any probability.
	return last, nil
}

// sampleFrom draws one of the tokens left in p (those whose probability a
// stage did not set to 0) with probability proportional to p[id], walking
// them in order (in id order when order is nil), as llama2.c does for the
// nucleus: the coin is scaled by their total instead of renormalising.
func sampleFrom(p []float32, order []int, coin float32) (int, error) {
	var total float32
	n := 0
	for id := range candidates(p, order) {
		total += p[id]
		n++
	}
	if !(total > 0) || math.IsInf(float64(total), 0) {
		return NoToken, fmt.Errorf("the %d candidate tokens' probabilities add up to %v, not a distribution", n, total)
	}
	r := coin * total
	var cdf float32
	last := NoToken
	for id := range candidates(p, order) {
		cdf += p[id]
		if r < cdf {
			return id, nil
		}
		if p[id] > 0 {
			last = id
		}
	}
	return last, nil
}
