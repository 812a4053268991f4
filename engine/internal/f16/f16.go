// Package f16 converts between float32 and IEEE 754 half precision
// ("f16": a sign bit, 5 bits of exponent and 10 of mantissa), the format
// in which llama.cpp keeps a model's keys and values by default and stores
// the scales of its quantized blocks.
//
// A float32 becomes the nearest f16, ties to even, as the F16C instruction
// VCVTPS2PH does with rounding control 0: numbers beyond the largest f16
// (65504) round to an infinity, numbers too small for it to a subnormal or
// a signed zero, and a NaN stays a NaN, made quiet. Every f16 is a float32
// exactly. Encode and Decode convert slices, with F16C where the CPU has
// it, giving the same bits as FromFloat32 and ToFloat32.
package f16

import "math"

// FromFloat32 returns the f16 nearest x, ties to even.
func FromFloat32(x float32) uint16 {
	b := math.Float32bits(x)
	sign := uint16(b>>16) & 0x8000
	exp := int(b>>23) & 0xff
	mant := b & 0x7fffff
	if exp == 0xff { // an infinity, or a NaN, kept quiet
		if mant == 0 {
			return sign | 0x7c00
		}
		return sign | 0x7e00 | uint16(mant>>13)
	}
	if e := exp - 127 + 15; e > 0 {
		// Normal in f16, unless it rounds up past the largest: keep the
		// top 10 bits of the mantissa, round on the 13 others. A carry out
		// of the mantissa moves the exponent up, to infinity at the top.
		if e >= 0x1f {
			return sign | 0x7c00
		}
		h := uint32(e)<<10 | mant>>13
		if rest := mant & 0x1fff; rest > 0x1000 || rest == 0x1000 && h&1 == 1 {
			h++
		}
		return sign | uint16(h)
	}
	// A subnormal f16, k·2⁻²⁴ for k below 1024, or zero: k is the
	// significand 1.mant (24 bits) shifted right by 126 − exp, rounded.
	shift := uint(126 - exp)
	if exp == 0 || shift > 24 {
		return sign // below 2⁻²⁵: rounds to zero (float32 subnormals too)
	}
	m := mant | 0x800000
	k := m >> shift
	half := uint32(1) << (shift - 1)
	if rest := m & (1<<shift - 1); rest > half || rest == half && k&1 == 1 {
		k++
	}
	return sign | uint16(k)
}

// ToFloat32 returns the value of the f16 h, exactly.
func ToFloat32(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f && mant == 0: // an infinity
		return math.Float32frombits(sign | 0x7f800000)
	case exp == 0x1f: // a NaN, made quiet as VCVTPH2PS makes it
		return math.Float32frombits(sign | 0x7fc00000 | mant<<13)
	case exp != 0: // normal: rebias the exponent from 15 to 127
		return math.Float32frombits(sign | (exp+127-15)<<23 | mant<<13)
	}
	// Zero or subnormal, mant·2⁻²⁴: a normal float32 unless 0.
	v := float32(mant) * 0x1p-24
	return math.Float32frombits(math.Float32bits(v) | sign)
}

// Round returns x rounded to the nearest f16, as a float32.
func Round(x float32) float32 { return ToFloat32(FromFloat32(x)) }

// Encode sets dst[i] to the f16 nearest src[i]. It panics unless both
// have the same length.
func Encode(dst []uint16, src []float32) {
	if len(dst) != len(src) {
		panic("f16: Encode of slices of different lengths")
	}
	i := 0
	if useF16C && len(src) >= 8 {
		i = len(src) &^ 7
		encode8(i/8, &dst[0], &src[0])
	}
	for ; i < len(src); i++ {
		dst[i] = FromFloat32(src[i])
	}
}

// Decode sets dst[i] to the value of the f16 src[i]. It panics unless
// both have the same length.
func Decode(dst []float32, src []uint16) {
	if len(dst) != len(src) {
		panic("f16: Decode of slices of different lengths")
	}
	i := 0
	if useF16C && len(src) >= 8 {
		i = len(src) &^ 7
		decode8(i/8, &dst[0], &src[0])
	}
	for ; i < len(src); i++ {
		dst[i] = ToFloat32(src[i])
	}
}
