package greedy

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// SequenceLogProb returns the log-probability that lm gives to continuation
// following prompt. Task 3.
//
// The probability of a sequence is the product of the probabilities of its
// tokens, each given everything before it, so its logarithm (natural log)
// is the sum
//
//	Σ_i log p(continuation[i] | prompt, continuation[:i])
//
// where each p comes from the softmax of the logits lm returns for that
// step: log p(t) = z_t − log Σ_j exp(z_j). Compute it stably, subtracting
// the largest logit before exponentiating: logits in the thousands must
// work. An empty continuation has log-probability 0 (probability 1).
//
// Ask lm one question per token, NextLogits(prompt+continuation[:i], 1), or
// all of them in one call: NextLogits(prompt+continuation[:len-1], k)
// returns one row for each of the k tokens.
//
// Errors: an empty prompt, a token of continuation outside
// 0..lm.VocabSize()-1, and any error from lm (wrapped, so errors.Is finds
// it).
func SequenceLogProb(lm LM, prompt, continuation []int) (float64, error) {
	if len(prompt) == 0 {
		return 0, errors.New("empty prompt: the first token needs something to follow")
	}
	for i, id := range continuation {
		if id < 0 || id >= lm.VocabSize() {
			return 0, fmt.Errorf("token %d of the continuation is %d, outside the vocabulary 0..%d", i, id, lm.VocabSize()-1)
		}
	}
	seq := slices.Clone(prompt)
	total := 0.0
	for i, id := range continuation {
		rows, err := lm.NextLogits(seq, 1)
		if err != nil {
			return 0, fmt.Errorf("token %d of the continuation: %w", i, err)
		}
		if len(rows) != 1 || len(rows[0]) <= id {
			return 0, fmt.Errorf("token %d of the continuation: the model returned %d rows, want 1 with a logit for token %d", i, len(rows), id)
		}
		total += logProb(rows[0], id)
		seq = append(seq, id)
	}
	return total, nil
}

// logProb is log softmax(logits)[id]. After subtracting the largest logit
// every exponent is at most 0, so no exp overflows, and the largest term of
// the sum is exactly 1, so the log never sees 0.
func logProb(logits []float32, id int) float64 {
	top := math.Inf(-1)
	for _, z := range logits {
		top = max(top, float64(z))
	}
	sum := 0.0
	for _, z := range logits {
		sum += math.Exp(float64(z) - top)
	}
	return float64(logits[id]) - top - math.Log(sum)
}
