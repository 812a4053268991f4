package simd

import "math"

// Finite reports whether every number of x is finite: none is NaN, +Inf
// or -Inf. A decoding step checks its logits with it, since no
// distribution can be made from a logit that is not a number. With the
// kernels it looks at 16 numbers at once, by their exponent bits: all ones
// in exactly the numbers that are not finite.
func Finite(x []float32) bool {
	n := 0
	if Available && len(x) >= 16 {
		n = len(x) &^ 15
		if !finite16(n, &x[0]) {
			return false
		}
	}
	return finiteGo(x[n:])
}

// finiteGo is Finite one number at a time.
func finiteGo(x []float32) bool {
	for _, v := range x {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return false
		}
	}
	return true
}
