// Package training scores the next-token game and works out how to play it
// better: the pieces of one training step, seen from the model's last layer.
//
// This is the reference solution of exercise 12. Everything is computed in
// float64 around the largest logit, so no exp overflows and no probability
// that underflowed to 0 is ever passed to a log.
package training

import (
	"fmt"
	"math"
)

// CrossEntropy returns −ln p(target) under softmax(logits), computed as
// LogSumExp(logits) − logits[target]: exact even when p(target) is far too
// small for float64. Empty logits or a target outside them give NaN.
func CrossEntropy(logits []float32, target int) float64 {
	if target < 0 || target >= len(logits) {
		return math.NaN()
	}
	return logSumExp(logits) - float64(logits[target])
}

// CrossEntropyGrad returns ∂CrossEntropy/∂z_i = softmax(logits)_i − [i =
// target]: every token is pushed down by the probability it took, and the
// target is pulled up by the probability it lacked. The numbers sum to 0.
// Empty logits or a target outside them give nil.
func CrossEntropyGrad(logits []float32, target int) []float64 {
	if target < 0 || target >= len(logits) {
		return nil
	}
	lse := logSumExp(logits)
	g := make([]float64, len(logits))
	for i, z := range logits {
		g[i] = math.Exp(float64(z) - lse)
	}
	g[target]--
	return g
}

// SGDStep returns logits − lr·CrossEntropyGrad(logits, target), rounded to
// float32, in a new slice: the target's logit rises by lr·(1 − p_target),
// every other falls by lr·p_i. Empty logits or a target outside them give
// nil.
func SGDStep(logits []float32, target int, lr float64) []float32 {
	g := CrossEntropyGrad(logits, target)
	if g == nil {
		return nil
	}
	out := make([]float32, len(logits))
	for i, z := range logits {
		out[i] = float32(float64(z) - lr*g[i])
	}
	return out
}

// MeanLoss returns the mean of CrossEntropy(logits[i], tokens[i+1]) over the
// len(tokens)−1 positions of a text, in nats per token. A last extra row of
// logits (the prediction after the final token) is ignored.
func MeanLoss(logits [][]float32, tokens []int) (float64, error) {
	n := len(tokens) - 1
	if n < 1 {
		return 0, fmt.Errorf("%d tokens: a text needs at least 2, one given and one to predict", len(tokens))
	}
	if len(logits) < n {
		return 0, fmt.Errorf("%d rows of logits for %d tokens: need one per predicted token, %d", len(logits), len(tokens), n)
	}
	total := 0.0
	for i := range n {
		next := tokens[i+1]
		if next < 0 || next >= len(logits[i]) {
			return 0, fmt.Errorf("position %d: token %d is outside its row of %d logits", i, next, len(logits[i]))
		}
		total += CrossEntropy(logits[i], next)
	}
	return total / float64(n), nil
}

// BitsPerByte returns natsPerToken·tokens / ln 2 / bytes: the text's total
// loss in bits, per byte of text. A non-positive byte count gives NaN.
func BitsPerByte(natsPerToken float64, tokens, bytes int) float64 {
	if bytes <= 0 {
		return math.NaN()
	}
	return natsPerToken * float64(tokens) / math.Ln2 / float64(bytes)
}

// logSumExp returns ln Σ_j exp(z_j), as m + ln Σ_j exp(z_j − m) with m the
// largest logit; logits must not be empty.
func logSumExp(logits []float32) float64 {
	m := math.Inf(-1)
	for _, z := range logits {
		m = max(m, float64(z))
	}
	if math.IsInf(m, 0) {
		return m
	}
	var sum float64
	for _, z := range logits {
		sum += math.Exp(float64(z) - m)
	}
	return m + math.Log(sum)
}
