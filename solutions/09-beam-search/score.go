package beam

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// LogProb returns the total log-probability that lm gives continuation
// after prompt: the sum over i of log p(continuation[i] | prompt +
// continuation[:i]), each term a log-softmax of the model's logits (Task 1).
//
// It asks the model once, for len(continuation) rows:
// NextLogits(prompt + continuation[:len(continuation)-1], len(continuation)),
// whose row i scores the token after prompt + continuation[:i]. An empty
// continuation has log-probability 0. It returns an error for an empty
// prompt, a continuation token outside [0, VocabSize()), or a model error
// (for example a sequence longer than the context).
func LogProb(lm LM, prompt, continuation []int) (float64, error) {
	if len(prompt) == 0 {
		return 0, errors.New("empty prompt: need at least one token (BOS)")
	}
	for _, id := range continuation {
		if id < 0 || id >= lm.VocabSize() {
			return 0, fmt.Errorf("token %d is outside the vocabulary of %d tokens", id, lm.VocabSize())
		}
	}
	k := len(continuation)
	if k == 0 {
		return 0, nil
	}
	rows, err := lm.NextLogits(slices.Concat(prompt, continuation[:k-1]), k)
	if err != nil {
		return 0, err
	}
	if len(rows) != k {
		return 0, fmt.Errorf("asked for %d rows of logits, got %d", k, len(rows))
	}
	var total float64
	for i, id := range continuation {
		total += logSoftmax(rows[i])[id]
	}
	return total, nil
}

// Score is the length-normalised score that ranks finished hypotheses, the
// length penalty of Google's neural machine translation system, as the
// course's engine uses it (Task 1):
//
//	score = logProb / ((5 + length) / 6)^alpha
//
// where length counts the generated tokens, the end token included. With
// alpha = 0 the score is the log-probability itself. A log-probability is
// negative and falls with every token, so dividing it by a normaliser that
// grows with length (alpha > 0) lets longer hypotheses compete; alpha < 0
// favours shorter ones. Length 1 gives a normaliser of exactly 1.
func Score(logProb float64, length int, alpha float64) float64 {
	return logProb / math.Pow((5+float64(length))/6, alpha)
}

// logSoftmax returns log p_i for every logit, computed stably as
// z_i − max − log Σ exp(z_j − max). A logit of −Inf gives −Inf.
func logSoftmax(logits []float32) []float64 {
	out := make([]float64, len(logits))
	if len(logits) == 0 {
		return out
	}
	mx := math.Inf(-1)
	for _, z := range logits {
		mx = max(mx, float64(z))
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
