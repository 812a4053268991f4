package stopping

import (
	"context"
	"fmt"
)

// LM is a language model seen from outside, with the method set of the
// engine's decoding.LM (which *engine.ModelLM satisfies): NextLogits(prefix,
// 1) returns one row, the logits of the token that follows prefix.
type LM interface {
	VocabSize() int
	ContextLength() int
	NextLogits(prefix []int, n int) ([][]float32, error)
}

// GreedyNext turns lm into a NextToken for Generate: at each step it asks
// lm for the logits after prompt followed by the tokens generated so far,
// picks the most likely token (the first one on ties) and returns it with
// its text, decode(prev, id), where prev is the token before it (the last
// prompt token, for the first one). Errors from lm are returned as they
// are. It does not check ctx: one step of a model is not interrupted.
func GreedyNext(lm LM, prompt []int, decode func(prev, id int) string) NextToken {
	return func(_ context.Context, generated []int) (int, string, error) {
		seq := make([]int, 0, len(prompt)+len(generated))
		seq = append(append(seq, prompt...), generated...)
		if len(seq) == 0 {
			return 0, "", fmt.Errorf("no tokens to continue: the prompt needs at least one (BOS)")
		}
		rows, err := lm.NextLogits(seq, 1)
		if err != nil {
			return 0, "", err
		}
		if len(rows) != 1 {
			return 0, "", fmt.Errorf("NextLogits returned %d rows; want 1", len(rows))
		}
		id := argmax(rows[0])
		return id, decode(seq[len(seq)-1], id), nil
	}
}

// argmax returns the index of the largest value, the first one on ties.
func argmax(logits []float32) int {
	best := 0
	for i, z := range logits {
		if z > logits[best] {
			best = i
		}
	}
	return best
}
