package ggml

import "math"

// FMA32 returns a·b + c rounded once to float32, as a vector FMA
// instruction computes it. It rounds the float64 fused multiply-add, which
// is the right float32 unless that lands exactly halfway between two
// float32s (or among float32's subnormals), where rounding twice could
// be wrong: there the sum is rounded to float64 towards an odd last bit,
// which makes the second rounding the right one.
func FMA32(a, b, c float32) float32 {
	s := math.FMA(float64(a), float64(b), float64(c))
	if math.Float64bits(s)&(1<<29-1) != 1<<28 && math.Abs(s) >= 0x1p-126 {
		return float32(s)
	}
	return fma32Odd(a, b, c)
}

// fma32Odd is FMA32 by rounding to odd.
func fma32Odd(a, b, c float32) float32 {
	p := float64(float64(a) * float64(b)) // exact: 24 + 24 bits
	s := p + float64(c)
	// The error of the sum (Knuth's TwoSum): s + e is exactly p + c.
	bb := s - p
	e := (p - (s - bb)) + (float64(c) - bb)
	if e != 0 && math.Float64bits(s)&1 == 0 && !math.IsInf(s, 0) {
		// Round to odd: the neighbour of s on the side of p + c.
		if (e > 0) == (s > 0) {
			s = math.Float64frombits(math.Float64bits(s) + 1)
		} else {
			s = math.Float64frombits(math.Float64bits(s) - 1)
		}
	}
	return float32(s)
}
