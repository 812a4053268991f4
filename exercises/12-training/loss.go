// Package training scores the next-token game and works out how to play it
// better: the pieces of one training step, seen from the model's last layer.
//
// At every position of a text the model gives each token of its vocabulary a
// logit; softmax turns them into probabilities, and the loss at that position
// is the cross-entropy −ln p(the token that really came next). Training
// lowers the mean of that loss over huge amounts of text, by moving every
// weight a little against the loss's gradient. You write (see README.md):
//
//   - CrossEntropy: the loss at one position, computed stably (task 1);
//   - CrossEntropyGrad: its gradient with respect to the logits,
//     softmax(logits) − onehot(target) (task 2);
//   - SGDStep: one step of gradient descent on the logits themselves (task 3);
//   - MeanLoss and BitsPerByte: the score of a whole text, per token and per
//     byte (task 4).
//
// Logits come as []float32, the type the model's forward pass produces.
// Convert each one to float64 before doing any arithmetic and compute in
// float64 throughout.
package training

// CrossEntropy returns the loss of one position: −ln p(target), where p is
// the softmax of the logits. Compute it without forming the probabilities:
//
//	−ln p(target) = LogSumExp(logits) − logits[target]
//
// with LogSumExp(z) = m + ln Σ_j exp(z_j − m) and m the largest logit (as in
// exercise 02). That stays exact where the probability underflows:
// CrossEntropy([1000, 0], 1) is 1000, not +Inf. Equal logits over V tokens
// give ln V, whatever the target. A target whose logit is -Inf (a banned
// token) has probability 0 and costs +Inf.
//
// If logits is empty or target is not an index of logits, return NaN
// (math.NaN()).
//
// Task 1.
func CrossEntropy(logits []float32, target int) float64 {
	return 0
}

// CrossEntropyGrad returns the gradient of CrossEntropy(logits, target) with
// respect to every logit:
//
//	∂loss/∂z_i = p_i − 1   for i = target
//	∂loss/∂z_i = p_i       for every other i
//
// that is softmax(logits) − onehot(target), with softmax computed stably.
// The result has one number per logit and sums to 0. It must not contain
// NaN for logits like [1000, 0].
//
// If logits is empty or target is not an index of logits, return nil. Do not
// modify logits.
//
// Task 2.
func CrossEntropyGrad(logits []float32, target int) []float64 {
	return nil
}

// SGDStep returns the logits after one step of plain gradient descent on
// CrossEntropy(logits, target), treating the logits themselves as the
// parameters (the simplest model there is: one bias per token, whatever the
// context):
//
//	new_i = z_i − lr · ∂loss/∂z_i
//
// computed in float64 and rounded to float32. The target's logit rises by
// lr·(1 − p_target); every other logit falls by lr·p_i. For a small enough
// lr > 0 the loss at the new logits is lower.
//
// Return a new slice; do not modify logits. If logits is empty or target is
// not an index of logits, return nil.
//
// Task 3.
func SGDStep(logits []float32, target int, lr float64) []float32 {
	return nil
}

// MeanLoss scores a text: the mean cross-entropy, in nats per token, of the
// model's predictions at every position of tokens.
//
// logits[i] are the model's logits after reading tokens[0..i], so they
// predict tokens[i+1]: position i costs CrossEntropy(logits[i], tokens[i+1]),
// for i = 0 … len(tokens)−2. That is len(tokens)−1 positions; the first token
// (<s> in a real text) is given, never predicted. logits may hold one more
// row, the prediction after the last token (what the engine's PrefillAll
// returns); it has nothing to be scored against and is ignored.
//
// Return an error if tokens holds fewer than 2 tokens, if logits has fewer
// than len(tokens)−1 rows, or if a token to predict is not an index of its
// row.
//
// Task 4.
func MeanLoss(logits [][]float32, tokens []int) (float64, error) {
	return 0, nil
}

// BitsPerByte converts a score in nats per token into bits per byte of text:
// the total loss, natsPerToken × tokens nats, converted to bits (divide by
// ln 2) and divided by the text's length in bytes. Unlike nats per token it
// compares models with different tokenizers, and models with compressors.
//
// Example: a model that spreads its bets evenly over 256 tokens, one token
// per byte, scores ln 256 nats per token, which is 8 bits per byte: no
// better than storing the bytes as they are.
//
// If bytes is not positive, return NaN.
//
// Task 4.
func BitsPerByte(natsPerToken float64, tokens, bytes int) float64 {
	return 0
}
