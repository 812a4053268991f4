package ggml

import (
	"math"
	"math/big"
)

// Exp returns e^x as the C library's expf computes it (glibc 2.36, the
// version the recordings were made with, in its form for processors with
// FMA), bit for bit: llama.cpp's online softmax takes its exponentials
// with expf. It is within 0.502 units in the last place of e^x. In
// float64: x·32/ln 2 = k + r with k a whole number (rounded by adding and
// subtracting 1.5·2⁵²) and |r| ≤ 1/2; 2^(k/32) is the float64 nearest
// 2^((k mod 32)/32) with k div 32 added to its exponent; e^x is that times
// 1 + c₂r + c₁r² + c₀r³, the polynomial by fused multiply-adds, rounded to
// float32 once. x above 88.72 gives +Inf, below −103.97 gives 0.
func Exp(x float32) float32 {
	top := math.Float32bits(x) >> 20 & 0x7ff
	if top >= 0x42b { // |x| ≥ 88, an infinity or a NaN
		switch {
		case x == float32(math.Inf(-1)):
			return 0
		case top >= 0x7f8:
			return x + x
		case x > 0x1.62e42ep6:
			return float32(math.Inf(1))
		case x < -0x1.9fe368p6:
			return 0
		}
	}
	z := float64(expInvLn2N * float64(x))
	kd := z + expShift
	ki := math.Float64bits(kd)
	kd -= expShift
	r := z - kd
	s := math.Float64frombits(exp2Table[ki%32] + ki<<47)
	p := math.FMA(expPoly[0], r, expPoly[1])
	r2 := float64(r * r)
	y := math.FMA(expPoly[2], r, 1)
	y = math.FMA(p, r2, y)
	return float32(y * s)
}

// The constants of expf: 32/ln 2 and its polynomial's coefficients (for
// 2^(r/32)), as glibc has them, and 1.5·2⁵², which rounds a float64 of
// size below 2⁵¹ to a whole number when added.
const (
	expInvLn2N = 0x1.71547652b82fep+0 * 32
	expShift   = 0x1.8p+52
)

var expPoly = [3]float64{0x1.c6af84b912394p-5 / 32 / 32 / 32, 0x1.ebfce50fac4f3p-3 / 32 / 32, 0x1.62e42ff0c52d6p-1 / 32}

// exp2Table[i] is the bits of the float64 nearest 2^(i/32), less i·2⁴⁷,
// so that adding k·2⁴⁷ for k = 32·q + i makes it 2^(k/32) (see Exp).
var exp2Table = func() (t [32]uint64) {
	for i := range t {
		t[i] = math.Float64bits(exp2Frac(i)) - uint64(i)<<47
	}
	return t
}()

// exp2Frac returns the float64 nearest 2^(i/32): the root of y³² = 2^i by
// Newton's method in 256-bit floating point, then rounded.
func exp2Frac(i int) float64 {
	const prec = 256
	target := new(big.Float).SetPrec(prec).SetMantExp(big.NewFloat(1), i)
	y := new(big.Float).SetPrec(prec).SetFloat64(math.Exp2(float64(i) / 32))
	for range 8 {
		p := new(big.Float).SetPrec(prec).Set(y) // y^31
		for range 30 {
			p.Mul(p, y)
		}
		f := new(big.Float).SetPrec(prec).Mul(p, y) // y^32
		f.Sub(f, target)
		d := new(big.Float).SetPrec(prec).Mul(p, big.NewFloat(32))
		f.Quo(f, d)
		y.Sub(y, f)
	}
	v, _ := y.Float64()
	return v
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
