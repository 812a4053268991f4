package decoding

import "math"

// Softmax turns logits into probabilities: p_i = exp(z_i) / Σ_j exp(z_j).
// Every p_i lies in [0, 1] and they sum to 1. Only differences between
// logits matter, so the maximum is subtracted first: exp never overflows and
// the result is unchanged.
//
// A logit of -Inf bans its token: its probability is exactly 0. When every
// logit is -Inf, every token is banned and every probability is 0 (they sum
// to 0, not 1: there is no distribution, and Sampler.Sample refuses such
// logits with an error). A logit that is NaN or +Inf makes every
// probability NaN. No logits give an empty result.
func Softmax(logits []float32) []float64 {
	p := make([]float64, len(logits))
	if len(logits) == 0 {
		return p
	}
	mx := math.Inf(-1)
	for _, z := range logits {
		mx = max(mx, float64(z))
	}
	if math.IsInf(mx, -1) {
		return p // every token banned: no probability anywhere
	}
	var sum float64
	for i, z := range logits {
		p[i] = math.Exp(float64(z) - mx)
		sum += p[i]
	}
	for i := range p {
		p[i] /= sum
	}
	return p
}

// LogSoftmax returns log p_i for every logit, computed stably as
// z_i - max - log Σ exp(z_j - max). As in Softmax, a logit of -Inf gives
// -Inf, every logit -Inf gives -Inf everywhere (log 0), and a logit that
// is NaN or +Inf gives NaN.
func LogSoftmax(logits []float32) []float64 {
	out := make([]float64, len(logits))
	if len(logits) == 0 {
		return out
	}
	mx := math.Inf(-1)
	for _, z := range logits {
		mx = max(mx, float64(z))
	}
	if math.IsInf(mx, -1) {
		for i := range out {
			out[i] = mx
		}
		return out
	}
	var sum float64
	for _, z := range logits {
		sum += math.Exp(float64(z) - mx)
	}
	lse := mx + math.Log(sum)
	for i, z := range logits {
		out[i] = float64(z) - lse
	}
	return out
}

// softmax32 turns scores into probabilities in place (float32, for the
// attention weights inside the forward pass).
func softmax32(x []float32) {
	if len(x) == 0 {
		return
	}
	mx := x[0]
	for _, v := range x[1:] {
		mx = max(mx, v)
	}
	var sum float32
	for i, v := range x {
		e := float32(math.Exp(float64(v - mx)))
		x[i] = e
		sum += e
	}
	for i := range x {
		x[i] /= sum
	}
}

// banned is the logit of a token that may not be chosen: softmax gives it
// probability exactly 0.
var banned = float32(math.Inf(-1))
