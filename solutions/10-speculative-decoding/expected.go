package speculative

import "math"

// ExpectedTokensPerPass is the expected number of tokens one round, and so
// one target pass, yields when each checked proposal is accepted with
// probability alpha independently and the draft proposes gamma tokens
// (Task 5):
//
//	(1 − α^(γ+1)) / (1 − α)  =  1 + α + α² + … + α^γ
//
// The k-th term is the probability that the first k proposals are all
// accepted; the round always yields at least its correction or bonus token.
// At alpha = 1 the fraction is 0/0, and the sum gives the limit, γ + 1.
func ExpectedTokensPerPass(alpha float64, gamma int) float64 {
	if alpha == 1 {
		return float64(gamma + 1)
	}
	return (1 - math.Pow(alpha, float64(gamma+1))) / (1 - alpha)
}
