package ggml

import "math"

// SinCos returns sin(x) and cos(x) as the C library's sincosf computes
// them (glibc 2.36 in its form for processors with FMA), bit for bit:
// llama.cpp takes the cosines and sines of its rotary angles with it,
// which are within 0.561 units in the last place but not always the
// nearest float32s. In float64: x is reduced to r in [−π/4, π/4] and a
// quadrant n, by one fused multiply-subtract of the nearest whole number
// of π/2 below |x| < 120, by fixed-point arithmetic with 4/π to 192 bits
// above; then sin and cos of r (swapped and negated as n says) are
// polynomials in r², by fused multiply-adds, each rounded to float32
// once. An infinity or a NaN gives NaNs.
func SinCos(x float32) (sin, cos float32) {
	const (
		pio4Top = 0x3f4 // the top 12 bits of π/4 as float32
		tinyTop = 0x39800000 >> 20
		top120  = 0x42f00000 >> 20
		infTop  = 0x7f800000 >> 20
	)
	top := math.Float32bits(x) >> 20 & 0x7ff
	xd := float64(x)
	switch {
	case top < pio4Top:
		if top < tinyTop { // |x| < 2⁻¹²
			return x, 1
		}
		return sincosPoly(xd, float64(xd*xd), &sincosTable[0], 0)
	case top < top120:
		r := float64(xd * 0x1.45F306DC9C883p+23) // 2/π, times 2²⁴
		n := (int32(r) + 0x800000) >> 24
		xd = math.FMA(-float64(n), 0x1.921FB54442D18p0, xd) // − n·π/2
		p := &sincosTable[(n>>1)&1]
		s := sincosSign[n&3]
		return sincosPoly(float64(xd*s), float64(xd*xd), p, int(n))
	case top < infTop:
		bits := math.Float32bits(x)
		sign := int(bits >> 31)
		r, n := reduceLarge(bits)
		q := n + sign
		p := &sincosTable[(q>>1)&1]
		s := sincosSign[q&3]
		return sincosPoly(float64(r*s), float64(r*r), p, n)
	}
	nan := x - x
	return nan, nan
}

// sincosCoef are a pair of polynomials, for cos (c0..c4, in x²) and sin
// (s1..s3: x + s1·x³ + …); the second entry of sincosTable has the cosine
// negated, for the quadrants where it is.
type sincosCoef struct{ c0, c1, c2, c3, c4, s1, s2, s3 float64 }

var sincosTable = [2]sincosCoef{
	{0x1p0, -0x1.ffffffd0c621cp-2, 0x1.55553e1068f19p-5, -0x1.6c087e89a359dp-10, 0x1.99343027bf8c3p-16,
		-0x1.555545995a603p-3, 0x1.1107605230bc4p-7, -0x1.994eb3774cf24p-13},
	{-0x1p0, 0x1.ffffffd0c621cp-2, -0x1.55553e1068f19p-5, 0x1.6c087e89a359dp-10, -0x1.99343027bf8c3p-16,
		-0x1.555545995a603p-3, 0x1.1107605230bc4p-7, -0x1.994eb3774cf24p-13},
}

// sincosSign is the sign of the sine in each quadrant.
var sincosSign = [4]float64{1, -1, -1, 1}

// sincosPoly is sin and cos of x (x2 = x²) with the polynomials p,
// swapped for odd quadrants n.
func sincosPoly(x, x2 float64, p *sincosCoef, n int) (sin, cos float32) {
	x4 := float64(x2 * x2)
	x3 := float64(x2 * x)
	c2 := math.FMA(x2, p.c4, p.c3)
	s1 := math.FMA(x2, p.s3, p.s2)
	c1 := math.FMA(x2, p.c1, p.c0)
	x5 := float64(x3 * x2)
	x6 := float64(x4 * x2)
	s := math.FMA(x3, p.s1, x)
	c := math.FMA(x4, p.c2, c1)
	sin, cos = float32(math.FMA(x5, s1, s)), float32(math.FMA(x6, c2, c))
	if n&1 != 0 {
		sin, cos = cos, sin
	}
	return sin, cos
}

// invPio4 is 4/π to 192 bits, as overlapping 32-bit words: word i is bits
// 8i to 8i+31 after the binary point (the first ones padded with leading
// zeros), so that three words 4 apart read 96 bits starting at any byte.
var invPio4 = [24]uint32{
	0xa2, 0xa2f9, 0xa2f983, 0xa2f9836e,
	0xf9836e4e, 0x836e4e44, 0x6e4e4415, 0x4e441529,
	0x441529fc, 0x1529fc27, 0x29fc2757, 0xfc2757d1,
	0x2757d1f5, 0x57d1f534, 0xd1f534dd, 0xf534ddc0,
	0x34ddc0db, 0xddc0db62, 0xc0db6295, 0xdb629599,
	0x6295993c, 0x95993c43, 0x993c4390, 0x3c439041,
}

// reduceLarge returns x mod π/2 in [−π/4, π/4] and the quadrant, for the
// float32 of bits xb of size at least 120: the significand times 96 bits
// of 4/π chosen by the exponent gives x·4/π in fixed point with 62 bits
// after the point, exactly; the nearest quadrant is taken off and the
// rest scaled by π/2·2⁻⁶².
func reduceLarge(xb uint32) (float64, int) {
	arr := invPio4[(xb>>26)&15:]
	shift := (xb >> 23) & 7
	m := (xb&0xffffff | 0x800000) << shift
	res0 := uint64(m * arr[0])
	res1 := uint64(m) * uint64(arr[4])
	res2 := uint64(m) * uint64(arr[8])
	res0 = res2>>32 | res0<<32
	res0 += res1
	n := (res0 + 1<<61) >> 62
	res0 -= n << 62
	return float64(int64(res0)) * 0x1.921FB54442D18p-62, int(n)
}
