package train

import "math"

// The trainer spends much of a step in exp: every attention weight, every
// vocabulary probability and every SwiGLU gate needs one. math.Exp is exact
// to the last bit of a float64, far more than the float32 values the
// trainer keeps; expf is a shorter route to the same float32 result.
//
// expf splits x = n·ln2 + r with |r| ≤ ln2/2, so e^x = 2^n · e^r, and
// computes e^r with its Taylor series to the r^7 term, whose error (below
// 6e-9 relative) is a tenth of a float32's last bit. 2^n goes straight
// into the exponent bits.

const (
	expLog2e = 1.4426950408889634
	expLn2   = 0.6931471805599453
	// expShifter rounds to the nearest integer when added and subtracted:
	// at 1.5·2^52 a float64 has no bits left for fractions.
	expShifter = 0x1.8p52
)

// expf returns e^x, to float32 accuracy: its result, rounded to float32,
// matches float32(math.Exp(x)) to within one unit in the last place. It
// returns 0 below -745 and +Inf above 709, as math.Exp does.
func expf(x float64) float64 {
	if x < -708 {
		return math.Exp(x) // subnormal or zero
	}
	if x > 709 {
		return math.Inf(1)
	}
	k := x*expLog2e + expShifter - expShifter // n as a float64
	r := x - k*expLn2
	// Estrin's scheme: independent pairs, so the CPU can overlap them.
	r2 := r * r
	r4 := r2 * r2
	p := (1 + r) + r2*(1.0/2+r*(1.0/6)) + r4*((1.0/24+r*(1.0/120))+r2*(1.0/720+r*(1.0/5040)))
	return p * math.Float64frombits(uint64(int64(k)+1023)<<52)
}

// expShifted replaces every x[i] by e^(x[i]-shift) and returns their sum.
func expShifted(x []float32, shift float32) float32 {
	var sum float32
	for i, v := range x {
		e := float32(expf(float64(v - shift)))
		x[i] = e
		sum += e
	}
	return sum
}

// sigmoid is the logistic function 1/(1+e^-a).
//
// It is kept out of line on purpose: inlined into the loops that call it
// for every element (swigluRows, swigluBackward), it makes the code the
// compiler writes for them run far slower than when they call it, and
// whether it is inlined there otherwise depends on how those loops are
// wrapped (see BenchmarkSwiGLU).
//
//go:noinline
func sigmoid(a float64) float64 { return 1 / (1 + expf(-a)) }
