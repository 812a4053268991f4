// Package projection is exercise 06 of the Token by Token track: the last
// layer of a model, which turns the final hidden state into one logit per
// vocabulary token, and what that layer costs.
//
// You write the projection itself (task 1), count its multiply-adds, FLOPs,
// bytes and parameters (task 2), price a whole decode step of a Llama model
// to see the projection's share of it (task 3), and measure how few tokens
// hold most of the probability the projection spreads over the whole
// vocabulary (task 4). The notebook 06-vocabulary-projection.ipynb is the
// lesson; README.md lists the tasks.
package projection

// Project returns the logits of one step: logits = W_out · h. Task 1.
//
// h is the final hidden state, d = len(h) numbers. wOut is the output
// matrix with vocab rows and d columns, stored row-major in one slice the
// way llama2.c stores its classifier: row i (the weights of token i) is
// wOut[i*d : (i+1)*d]. The result has vocab entries, and entry i is the dot
// product of row i with h.
//
// Return nil when h is empty, vocab is not positive, or len(wOut) is not
// vocab × d. Do not modify h or wOut.
//
// Example: h = [1 2], wOut = [1 0  0 1  1 1] (3 rows of 2), vocab = 3 gives
// [1 2 3].
func Project(h, wOut []float32, vocab int) []float32 {
	return nil
}
