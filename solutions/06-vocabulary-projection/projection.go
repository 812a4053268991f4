// Package projection is exercise 06 of the Token by Token track: the last
// layer of a model, which turns the final hidden state into one logit per
// vocabulary token, and what that layer costs.
//
// This is the reference solution. The exercise's stubs, tests and tasks are
// in exercises/06-vocabulary-projection.
package projection

// Project returns the logits of one step: logits = W_out · h, where wOut
// holds vocab rows of d = len(h) weights, row-major, as llama2.c stores its
// classifier. Entry i is the dot product of row i with h. It returns nil
// when the sizes do not fit together.
//
// The sum runs in float32, in order, like the engine's plain loops; the
// engine's own kernel adds in another order, so the two differ in the last
// bits.
func Project(h, wOut []float32, vocab int) []float32 {
	d := len(h)
	if d == 0 || vocab <= 0 || len(wOut) != vocab*d {
		return nil
	}
	logits := make([]float32, vocab)
	for i := range logits {
		row := wOut[i*d : (i+1)*d]
		var sum float32
		for j, w := range row {
			sum += w * h[j]
		}
		logits[i] = sum
	}
	return logits
}
