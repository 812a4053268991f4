// Package softmax: a second independent solution written for the
// similarity tests, in the style of a learner who keeps each function
// self-contained and writes index loops.
package softmax

import "math"

// Softmax normalises exp(logit - largest) so that nothing overflows.
func Softmax(logits []float32) []float64 {
	n := len(logits)
	result := make([]float64, n)
	if n == 0 {
		return result
	}
	largest := float64(logits[0])
	for i := 1; i < n; i++ {
		largest = math.Max(largest, float64(logits[i]))
	}
	denominator := 0.0
	for i := 0; i < n; i++ {
		e := math.Exp(float64(logits[i]) - largest)
		result[i] = e
		denominator = denominator + e
	}
	for i := 0; i < n; i++ {
		result[i] = result[i] / denominator
	}
	return result
}

// SoftmaxTemperature scales the logits and reuses the same steps.
func SoftmaxTemperature(logits []float32, temperature float64) []float64 {
	if math.IsNaN(temperature) || temperature < 0 {
		return nil
	}
	n := len(logits)
	result := make([]float64, n)
	if n == 0 {
		return result
	}
	if temperature == 0 {
		winner := 0
		for i := 0; i < n; i++ {
			if logits[i] > logits[winner] {
				winner = i
			}
		}
		result[winner] = 1.0
		return result
	}
	scaled := make([]float64, n)
	largest := math.Inf(-1)
	for i := 0; i < n; i++ {
		scaled[i] = float64(logits[i]) / temperature
		if scaled[i] > largest {
			largest = scaled[i]
		}
	}
	denominator := 0.0
	for i := 0; i < n; i++ {
		result[i] = math.Exp(scaled[i] - largest)
		denominator += result[i]
	}
	for i := 0; i < n; i++ {
		result[i] /= denominator
	}
	return result
}

// LogSumExp is largest + log Σ exp(z - largest).
func LogSumExp(logits []float32) float64 {
	n := len(logits)
	if n == 0 {
		return math.Inf(-1)
	}
	largest := math.Inf(-1)
	for i := 0; i < n; i++ {
		largest = math.Max(largest, float64(logits[i]))
	}
	if largest == math.Inf(-1) || largest == math.Inf(1) {
		return largest
	}
	s := 0.0
	for i := 0; i < n; i++ {
		s += math.Exp(float64(logits[i]) - largest)
	}
	return largest + math.Log(s)
}

// LogSoftmax subtracts the log-normaliser from every logit.
func LogSoftmax(logits []float32) []float64 {
	n := len(logits)
	result := make([]float64, n)
	norm := LogSumExp(logits)
	for i := 0; i < n; i++ {
		result[i] = float64(logits[i]) - norm
	}
	return result
}
