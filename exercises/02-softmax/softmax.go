// Package softmax turns a model's logits into probabilities: the step between
// the model's last layer and every rule that picks the next token.
//
// You write four functions, one task at a time (see README.md):
//
//   - Softmax: the formula p_i = exp(z_i) / Σ_j exp(z_j) (task 1), made
//     numerically stable so that logits of ±1000 still work (task 2);
//   - SoftmaxTemperature: softmax of the logits divided by a temperature
//     (task 3);
//   - LogSumExp and LogSoftmax: log Σ_j exp(z_j) and log p_i, computed without
//     ever taking the log of a probability that underflowed to 0 (task 4).
//
// Logits come as []float32, the type the model's forward pass produces.
// Convert each one to float64 before doing any arithmetic and compute in
// float64 throughout: the tests expect results exact to about 1e-9.
package softmax

// Softmax returns the probability of every token given its logit:
//
//	p_i = exp(z_i) / Σ_j exp(z_j)
//
// The result has the same length as logits, every p_i lies in [0, 1], and
// they sum to 1 (up to float64 rounding). An empty (or nil) logits gives an
// empty result (nil or a zero-length slice, either is fine). Do not modify
// logits.
//
// Task 1: the formula itself. Task 2: make it numerically stable. exp
// overflows float64 above about 709 and underflows to 0 below about -745, so
// logits like [1000, 1000] or [-1000, -1000] break the plain formula (Inf/Inf
// and 0/0 are both NaN). Subtract the largest logit from every logit before
// exponentiating: the probabilities do not change, because only differences
// between logits matter. A logit of -Inf (a token that is banned) must get
// probability exactly 0.
func Softmax(logits []float32) []float64 {
	return nil
}

// SoftmaxTemperature returns the softmax of the logits divided by the
// temperature: p_i = exp(z_i/T) / Σ_j exp(z_j/T). Divide in float64.
//
// T = 1 gives Softmax(logits). T below 1 stretches the differences between
// logits, so the distribution sharpens toward the most likely token; T above
// 1 shrinks them and the distribution flattens toward uniform. It must stay
// stable for tiny temperatures (T = 0.001 multiplies every logit by 1000).
//
// Temperatures that are not positive:
//
//   - T = 0 is the limit of T → 0, greedy decoding: return the one-hot
//     distribution of the argmax, 1 for the token with the largest logit and
//     0 for every other (if several tie for the largest, the first of them,
//     the lowest index, gets the 1);
//   - T < 0, or T NaN, has no meaning: return nil.
//
// An empty logits gives an empty result, whatever T. Do not modify logits.
//
// Task 3.
func SoftmaxTemperature(logits []float32, temperature float64) []float64 {
	return nil
}

// LogSumExp returns log(Σ_j exp(z_j)), computed stably: with m the largest
// logit, it equals m + log(Σ_j exp(z_j - m)), in which no exp can overflow
// and the sum is at least 1. LogSumExp([1000, 1000]) is 1000 + ln 2, not +Inf;
// LogSumExp([-1000]) is -1000, not -Inf. An empty logits gives -Inf (the log
// of an empty sum, 0).
//
// Task 4.
func LogSumExp(logits []float32) float64 {
	return 0
}

// LogSoftmax returns log p_i for every logit: z_i - LogSumExp(logits).
//
// Do not compute log(Softmax(logits)[i]): a probability smaller than about
// 1e-323 is rounded to 0 in float64, and its log is -Inf, while the true
// log-probability of a logit 1000 below the largest one is a perfectly
// ordinary -1000. The result has the same length as logits; an empty logits
// gives an empty result. Do not modify logits.
//
// Task 4.
func LogSoftmax(logits []float32) []float64 {
	return nil
}
