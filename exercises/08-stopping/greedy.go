package stopping

// LM is a language model seen from outside, with the method set of the
// engine's decoding.LM (which *engine.ModelLM satisfies): NextLogits(prefix,
// 1) returns one row, the logits of the token that follows prefix.
type LM interface {
	VocabSize() int
	ContextLength() int
	NextLogits(prefix []int, n int) ([][]float32, error)
}

// GreedyNext turns lm into a NextToken for Generate (task 2), so the loop
// can run a real model. Task 3.
//
// The NextToken it returns, called with the tokens generated so far, asks
// lm.NextLogits(seq, 1) where seq is a new slice holding prompt followed by
// generated (never append to prompt or generated themselves), takes the
// index of the largest logit of the one row (the first one on ties), and
// returns that id with its text decode(prev, id), prev being the last token
// of seq (the last prompt token, for the first generated token). Errors
// from lm are returned as they are. It may ignore ctx: a model's step is
// not interrupted.
//
// With the course's model: GreedyNext(engine.NewModelLM(m, 1), ids,
// tok.Decode), where ids is the prompt encoded with BOS.
func GreedyNext(lm LM, prompt []int, decode func(prev, id int) string) NextToken {
	return nil
}
