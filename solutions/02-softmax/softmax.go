// Package softmax turns a model's logits into probabilities: the step between
// the model's last layer and every rule that picks the next token.
//
// This is the reference solution of exercise 02. Every function works in
// float64 and subtracts the largest logit before exponentiating, so no exp
// can overflow and the largest term of every sum is exactly exp(0) = 1.
package softmax

import "math"

// Softmax returns the probability of every token given its logit:
//
//	p_i = exp(z_i) / Σ_j exp(z_j)
//
// computed as exp(z_i - m) / Σ_j exp(z_j - m) with m the largest logit. The
// two are equal (the factor exp(-m) cancels), but the second never
// overflows, and its sum is at least 1, so it never divides by 0. A banned
// token (logit -Inf) gets exp(-Inf) = 0. Empty logits give an empty result.
func Softmax(logits []float32) []float64 {
	p := make([]float64, len(logits))
	if len(logits) == 0 {
		return p
	}
	m := maxLogit(logits, 1)
	var sum float64
	for i, z := range logits {
		p[i] = math.Exp(float64(z) - m)
		sum += p[i]
	}
	for i := range p {
		p[i] /= sum
	}
	return p
}

// SoftmaxTemperature returns the softmax of the logits divided by the
// temperature T: p_i = exp(z_i/T) / Σ_j exp(z_j/T).
//
// Below 1 the temperature stretches the differences between logits and the
// distribution sharpens; above 1 it flattens toward uniform; the order of
// the tokens never changes. T = 0 returns the limit of T → 0, the one-hot
// distribution of the argmax (the first of tied maxima), which is what
// greedy decoding picks. T < 0 or NaN returns nil. Empty logits give an
// empty result.
func SoftmaxTemperature(logits []float32, temperature float64) []float64 {
	switch {
	case math.IsNaN(temperature) || temperature < 0:
		return nil
	case len(logits) == 0:
		return []float64{}
	case temperature == 0:
		p := make([]float64, len(logits))
		best := 0
		for i, z := range logits {
			if z > logits[best] {
				best = i
			}
		}
		p[best] = 1
		return p
	}
	p := make([]float64, len(logits))
	m := maxLogit(logits, temperature)
	var sum float64
	for i, z := range logits {
		p[i] = math.Exp(float64(z)/temperature - m)
		sum += p[i]
	}
	for i := range p {
		p[i] /= sum
	}
	return p
}

// LogSumExp returns log(Σ_j exp(z_j)), computed as m + log(Σ_j exp(z_j - m))
// with m the largest logit: no term exceeds 1, so nothing overflows, and the
// sum is at least 1, so its log is finite. Empty logits give -Inf, the log
// of an empty sum.
func LogSumExp(logits []float32) float64 {
	if len(logits) == 0 {
		return math.Inf(-1)
	}
	m := maxLogit(logits, 1)
	if math.IsInf(m, 0) {
		// Every logit is -Inf (or one is +Inf): m itself is the answer, and
		// z - m below would be NaN.
		return m
	}
	var sum float64
	for _, z := range logits {
		sum += math.Exp(float64(z) - m)
	}
	return m + math.Log(sum)
}

// LogSoftmax returns log p_i = z_i - LogSumExp(logits) for every logit. It
// never computes a probability, so a token far below the largest logit gets
// its true log-probability (a logit 1000 below the largest gives about
// -1000) instead of the log of a probability that underflowed to 0. Empty
// logits give an empty result.
func LogSoftmax(logits []float32) []float64 {
	out := make([]float64, len(logits))
	lse := LogSumExp(logits)
	for i, z := range logits {
		out[i] = float64(z) - lse
	}
	return out
}

// maxLogit returns the largest z/temperature in float64 (temperature > 0);
// logits must not be empty.
func maxLogit(logits []float32, temperature float64) float64 {
	m := math.Inf(-1)
	for _, z := range logits {
		m = max(m, float64(z)/temperature)
	}
	return m
}
