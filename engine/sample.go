package engine

import (
	"fmt"
	"math"
	"sort"
)

// Sampler picks the next token from the logits.
//
// With Temperature 0 it is greedy: it always takes the highest logit. Above
// 0 it divides the logits by the temperature, turns them into probabilities
// with softmax and draws one token at random; with TopP in (0, 1) the draw is
// restricted to the nucleus: the smallest set of most likely tokens whose
// probabilities add up to at least TopP.
type Sampler struct {
	Temperature float64
	TopP        float64
	rng         *RNG
	probs       []float32
	order       []int
}

// NewSampler checks the settings and seeds the random number generator.
func NewSampler(temperature, topP float64, seed uint64) (*Sampler, error) {
	if math.IsNaN(temperature) || temperature < 0 {
		return nil, fmt.Errorf("temperature = %v: must be 0 (greedy) or positive", temperature)
	}
	if math.IsNaN(topP) || topP <= 0 || topP > 1 {
		return nil, fmt.Errorf("top-p = %v: must be in (0, 1]", topP)
	}
	return &Sampler{Temperature: temperature, TopP: topP, rng: NewRNG(seed)}, nil
}

// Sample returns the chosen token id. It does not modify logits.
func (s *Sampler) Sample(logits []float32) int {
	if s.Temperature == 0 {
		return Argmax(logits)
	}
	if cap(s.probs) < len(logits) {
		s.probs = make([]float32, len(logits))
	}
	p := s.probs[:len(logits)]
	t := float32(s.Temperature)
	for i, z := range logits {
		p[i] = z / t
	}
	softmax32(p)
	coin := s.rng.Float32()
	if s.TopP >= 1 {
		return sampleMult(p, coin)
	}
	return s.sampleTopP(p, coin)
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

// sampleTopP draws from the nucleus of p.
func (s *Sampler) sampleTopP(p []float32, coin float32) int {
	// Tokens below (1-topP)/(n-1) can never be part of the nucleus, so they
	// are dropped before sorting, as llama2.c does.
	cutoff := float32((1 - s.TopP) / float64(len(p)-1))
	s.order = s.order[:0]
	for i, v := range p {
		if v >= cutoff {
			s.order = append(s.order, i)
		}
	}
	order := s.order
	sort.SliceStable(order, func(a, b int) bool { return p[order[a]] > p[order[b]] })
	var cum float32
	last := len(order) - 1
	for i, id := range order {
		cum += p[id]
		if float64(cum) > s.TopP {
			last = i
			break
		}
	}
	r := coin * cum
	var cdf float32
	for _, id := range order[:last+1] {
		cdf += p[id]
		if r < cdf {
			return id
		}
	}
	return order[last]
}
