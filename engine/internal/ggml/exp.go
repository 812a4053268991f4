package ggml

import "math"

// Exp returns e^x correctly rounded to float32 (but for the rarest of
// ties, far below what any test can see): the exponential llama.cpp's
// online softmax takes with the C library's expf. It is computed in
// float64, e^x = 2^k·e^r with k = round(x/ln 2), r = x − k·ln 2 and e^r
// by its Taylor series to r¹³/13!, within 10⁻¹⁶ of e^x, then rounded. x
// above 89 gives +Inf and below −104 gives 0, as e^x rounds there; a NaN
// gives a NaN.
func Exp(x float32) float32 {
	if x != x {
		return x
	}
	xd := min(max(float64(x), -104), 89)
	k := math.RoundToEven(float64(xd * invLn2))
	r := math.FMA(-k, ln2Hi, xd)
	r = math.FMA(-k, ln2Lo, r)
	p := expTaylor[0]
	for _, c := range expTaylor[1:] {
		p = math.FMA(p, r, c)
	}
	return float32(p * math.Float64frombits(uint64(int64(k)+1023)<<52))
}

const (
	invLn2 = 1.4426950408889634     // 1/ln 2
	ln2Hi  = 0.6931471805599453     // ln 2 rounded to float64
	ln2Lo  = 2.3190468138462996e-17 // ln 2 − ln2Hi
)

// expTaylor are the coefficients 1/i! of e^r's series, from i = 13 down
// to 0, for Horner's rule.
var expTaylor = [14]float64{
	1.0 / 6227020800, 1.0 / 479001600, 1.0 / 39916800, 1.0 / 3628800, 1.0 / 362880, 1.0 / 40320,
	1.0 / 5040, 1.0 / 720, 1.0 / 120, 1.0 / 24, 1.0 / 6, 0.5, 1, 1,
}

// VExp returns llama.cpp's vector exponential of x (ggml_v_expf, in its
// AVX-512 form), bit for bit: x = n·ln 2 + b with n = round(x·log₂e)
// (the rounding by adding and subtracting 1.5·2²³), b reduced in two
// steps; then 2ⁿ·(1 + c₁b + c₂b² + c₃b³ + c₄b⁴ + c₅b⁵), the polynomial
// by fused multiply-adds in a fixed order. Its error is within 1.5 units
// in the last place. |n| above 192 gives 0 or +Inf.
func VExp(x float32) float32 {
	const shift = 0x1.8p23
	z := FMA32(x, 0x1.715476p+0, shift)
	n := z - shift
	b := FMA32(-n, 0x1.7f7d1cp-20, FMA32(-n, 0x1.62e4p-1, x))
	if math.Abs(float64(n)) > 192 {
		if n <= 0 {
			return 0
		}
		return float32(math.Inf(1))
	}
	u := float32(b * b)
	j := FMA32(FMA32(FMA32(0x1.0e4020p-7, b, 0x1.573e2ep-5), u, FMA32(0x1.555e66p-3, b, 0x1.fffdb6p-2)),
		u, FMA32(0x1.ffffecp-1, b, 1))
	// j·2ⁿ rounded once (n is a whole number).
	return float32(float64(j) * math.Ldexp(1, int(n)))
}

// SwiGLU sets gate[i] to silu(gate[i])·up[i], silu(x) = x/(1 + e^−x) with
// VExp, as llama.cpp's ggml_vec_swiglu_f32 computes it. It panics unless
// both have the same length.
func SwiGLU(gate, up []float32) {
	if len(gate) != len(up) {
		panic("ggml: SwiGLU of slices of different lengths")
	}
	i := 0
	if useAVX2 && len(gate) >= 8 {
		i = len(gate) &^ 7
		swiglu8(i/8, &gate[0], &up[0])
	}
	swigluGo(gate[i:], up[i:len(gate)])
}

func swigluGo(gate, up []float32) {
	for i, x := range gate {
		gate[i] = x / (1 + VExp(0-x)) * up[i]
	}
}
