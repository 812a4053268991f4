package softmax

import "math"

// A copy of the reference solution edited by hand: names changed, the
// helper inlined into one function, index loops for range loops, the cases
// of a switch reordered, another way to write the empty case.

func Softmax(logits []float32) []float64 {
	if len(logits) == 0 {
		return []float64{}
	}
	probs := make([]float64, len(logits))
	top := largest(logits, 1)
	var total float64
	for j, logit := range logits {
		probs[j] = math.Exp(float64(logit) - top)
		total += probs[j]
	}
	for j := 0; j < len(probs); j++ {
		probs[j] /= total
	}
	return probs
}

func SoftmaxTemperature(logits []float32, temperature float64) []float64 {
	switch {
	case len(logits) == 0 && !(temperature < 0):
		return []float64{}
	case math.IsNaN(temperature) || temperature < 0:
		return nil
	case temperature == 0:
		probs := make([]float64, len(logits))
		winner := 0
		for j, logit := range logits {
			if logit > logits[winner] {
				winner = j
			}
		}
		probs[winner] = 1
		return probs
	}
	probs := make([]float64, len(logits))
	top := largest(logits, temperature)
	var total float64
	for j, logit := range logits {
		probs[j] = math.Exp(float64(logit)/temperature - top)
		total += probs[j]
	}
	for j := 0; j < len(probs); j++ {
		probs[j] /= total
	}
	return probs
}

func LogSumExp(logits []float32) float64 {
	if len(logits) == 0 {
		return math.Inf(-1)
	}
	top := largest(logits, 1)
	if math.IsInf(top, 0) {
		return top
	}
	var total float64
	for _, logit := range logits {
		total += math.Exp(float64(logit) - top)
	}
	return top + math.Log(total)
}

func LogSoftmax(logits []float32) []float64 {
	result := make([]float64, len(logits))
	norm := LogSumExp(logits)
	for j, logit := range logits {
		result[j] = float64(logit) - norm
	}
	return result
}

func largest(logits []float32, temperature float64) float64 {
	top := math.Inf(-1)
	for _, logit := range logits {
		if v := float64(logit) / temperature; v > top {
			top = v
		}
	}
	return top
}
