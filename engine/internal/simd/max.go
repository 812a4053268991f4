package simd

import "math"

// Max returns the largest of x, the number a softmax subtracts before its
// exponentials, or NaN if any of x is NaN (as the max builtin gives). It
// returns -Inf for an empty x. With the kernels it compares 8 numbers at
// once; the result is the same number either way.
func Max(x []float32) float32 {
	if len(x) == 0 {
		return float32(math.Inf(-1))
	}
	if !Available {
		return maxGo(x)
	}
	return max8(len(x), &x[0])
}

// maxGo is Max one number at a time.
func maxGo(x []float32) float32 {
	m := x[0]
	for _, v := range x[1:] {
		m = max(m, v)
	}
	return m
}
