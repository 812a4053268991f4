package simd

import "math"

// ExpSum is the exponential pass of a softmax: it sets x[i] = exp(x[i] − m)
// and returns the sum of the results, for x[i] ≤ m (m is their maximum,
// which a softmax subtracts so that exp never overflows). A result below
// the smallest normal float32, 2^-126, is set to exactly 0, so that no
// later sum meets the "subnormal" numbers that processors handle slowly.
//
// With the kernels it computes 8 exponentials at once with a polynomial
// (see expSum8): each result is within 2 units in the last place of
// float32(math.Exp) — a relative error below 2.4e-7 — and the sum is taken
// in another order than a plain loop's. Without them it is expSumGo, the
// plain loop over math.Exp. An x[i] above m counts as m in the kernel; a
// NaN stays NaN in both.
func ExpSum(x []float32, m float32) float32 {
	if len(x) == 0 {
		return 0
	}
	if !Available {
		return expSumGo(x, m)
	}
	return expSum8(len(x), &x[0], m)
}

// expSumGo is ExpSum one number at a time, with math.Exp in float64.
func expSumGo(x []float32, m float32) float32 {
	var sum float32
	for i, v := range x {
		var e float32
		// exp(d) < 2^-126 exactly when d < -126·ln 2; skip exp there.
		if d := float64(v - m); d > -87.3365 || d != d {
			if e = float32(math.Exp(d)); e < smallestNormal {
				e = 0
			}
		}
		x[i] = e
		sum += e
	}
	return sum
}

// smallestNormal is the smallest positive normal float32, 2^-126.
const smallestNormal = 0x1p-126

// SumExp returns Σ exp(x[i] − m), for x[i] ≤ m, without changing x: the
// denominator of a softmax, or, with m the maximum, what a log-sum-exp
// takes the log of (log Σ exp x[i] = m + log SumExp(x, m)). The sum is
// taken in float64, so a whole vocabulary of terms adds no rounding of
// its own.
//
// With the kernels each term is ExpSum's: within 2 units in the last
// place of float32(math.Exp), terms below 2^-126 counted as 0, an x[i]
// above m counted as m. Without them it is sumExpGo, math.Exp in float64.
// A NaN in x makes the sum NaN.
func SumExp(x []float32, m float32) float64 {
	if len(x) == 0 {
		return 0
	}
	if !Available {
		return sumExpGo(x, m)
	}
	return sumExp8(len(x), &x[0], m)
}

// sumExpGo is SumExp one number at a time, with math.Exp in float64.
func sumExpGo(x []float32, m float32) float64 {
	var sum float64
	for _, v := range x {
		sum += math.Exp(float64(v) - float64(m))
	}
	return sum
}
