package speculative

// ExpectedTokensPerPass is the expected number of tokens one round, and so
// one target pass, yields when each checked proposal is accepted with
// probability alpha independently and the draft proposes gamma tokens
// (Task 5):
//
//	(1 − α^(γ+1)) / (1 − α)
//
// At alpha = 1 the fraction is 0/0: return its limit, γ + 1 (every
// proposal accepted, plus the bonus token). At alpha = 0 it is 1.
//
// Example: ExpectedTokensPerPass(0.5, 2) = (1 − 0.125) / 0.5 = 1.75.
func ExpectedTokensPerPass(alpha float64, gamma int) float64 {
	return 0
}
