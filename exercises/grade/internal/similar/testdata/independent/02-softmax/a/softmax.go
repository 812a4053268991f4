// Package softmax: an independent solution written for the similarity
// tests. The logits are widened (and divided by the temperature) first,
// and one helper finds the largest value and the shifted sum that every
// function needs.
package softmax

import "math"

// toFloat64 widens the logits, divided by t.
func toFloat64(logits []float32, t float64) []float64 {
	xs := make([]float64, len(logits))
	for i := range logits {
		xs[i] = float64(logits[i]) / t
	}
	return xs
}

// shiftedSum returns the largest value and Σ exp(x - largest); the sum is
// at least 1 unless the largest is infinite.
func shiftedSum(xs []float64) (hi, total float64) {
	hi = xs[0]
	for _, x := range xs[1:] {
		if x > hi {
			hi = x
		}
	}
	if math.IsInf(hi, 0) {
		return hi, 0
	}
	for _, x := range xs {
		total += math.Exp(x - hi)
	}
	return hi, total
}

// lse is log Σ exp(x) of already widened values.
func lse(xs []float64) float64 {
	if len(xs) == 0 {
		return math.Inf(-1)
	}
	hi, total := shiftedSum(xs)
	if total == 0 {
		return hi
	}
	return hi + math.Log(total)
}

// probs normalises exp(x - largest) by its sum.
func probs(xs []float64) []float64 {
	out := make([]float64, len(xs))
	if len(xs) == 0 {
		return out
	}
	hi, total := shiftedSum(xs)
	for i, x := range xs {
		switch {
		case total > 0:
			out[i] = math.Exp(x-hi) / total
		case x == hi && hi > 0:
			// +Inf takes all the mass.
			out[i] = 1
		}
	}
	return out
}

func Softmax(logits []float32) []float64 {
	return probs(toFloat64(logits, 1))
}

func SoftmaxTemperature(logits []float32, temperature float64) []float64 {
	if temperature < 0 || temperature != temperature {
		return nil
	}
	if len(logits) == 0 {
		return []float64{}
	}
	if temperature > 0 {
		return probs(toFloat64(logits, temperature))
	}
	oneHot := make([]float64, len(logits))
	arg := 0
	for i := 1; i < len(logits); i++ {
		if logits[i] > logits[arg] {
			arg = i
		}
	}
	oneHot[arg] = 1
	return oneHot
}

func LogSumExp(logits []float32) float64 {
	return lse(toFloat64(logits, 1))
}

func LogSoftmax(logits []float32) []float64 {
	xs := toFloat64(logits, 1)
	norm := lse(xs)
	for i := range xs {
		xs[i] -= norm
	}
	return xs
}
