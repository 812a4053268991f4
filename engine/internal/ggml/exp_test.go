package ggml

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// TestFMA32 checks FMA32 against the exact a·b + c (math/big), rounded
// once to float32, on random numbers of every size and on a sum that
// rounding twice gets wrong: (1 + 2⁻¹²)² + 2⁻⁸⁰, just above the midpoint
// between two float32s, where a float64 sum lands on the midpoint.
func TestFMA32(t *testing.T) {
	exact := func(a, b, c float32) float32 {
		p := new(big.Float).SetPrec(200).Mul(big.NewFloat(float64(a)), big.NewFloat(float64(b)))
		p.Add(p, big.NewFloat(float64(c)))
		f, _ := p.Float32()
		return f
	}
	if got, want := FMA32(1+0x1p-12, 1+0x1p-12, 0x1p-80), float32(1+0x1p-11+0x1p-23); got != want {
		t.Errorf("FMA32(1+2⁻¹², 1+2⁻¹², 2⁻⁸⁰) = %g; want %g", got, want)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	num := func() float32 {
		return float32(rng.NormFloat64() * math.Ldexp(1, rng.IntN(60)-30))
	}
	for range 200000 {
		a, b, c := num(), num(), num()
		if rng.IntN(4) == 0 { // sums that nearly cancel
			c = -a * b * (1 + float32(rng.NormFloat64())*0x1p-20)
		}
		if got, want := FMA32(a, b, c), exact(a, b, c); got != want {
			t.Fatalf("FMA32(%g, %g, %g) = %g; want %g", a, b, c, got, want)
		}
	}
}

// TestExpMatchesCLibrary compares Exp with glibc's expf on the inputs of
// testdata/expf.bin (uint32 n; n float32 x; n float32 expf(x)): random
// ones over its whole range, ones where expf is not the float32 nearest
// e^x, and edges (±0, ±Inf, NaN, the ends of the range).
func TestExpMatchesCLibrary(t *testing.T) {
	r := open(t, "expf.bin")
	n := r.u32()
	x, want := r.f32s(n), r.f32s(n)
	r.end()
	notNearest := 0
	for i := range x {
		if got := Exp(x[i]); !same(got, want[i]) {
			t.Fatalf("Exp(%g) = %g; expf %g", x[i], got, want[i])
		}
		if want[i] != float32(math.Exp(float64(x[i]))) {
			notNearest++
		}
	}
	if notNearest < 100 {
		t.Errorf("only %d of the recorded exponentials are not the nearest float32; the fixture should hold more", notNearest)
	}
}

// TestSinCosMatchesCLibrary compares SinCos with glibc's sincosf on the
// inputs of testdata/sincosf.bin (uint32 n; n float32 x; n float32 sines;
// n float32 cosines): rotary angles, numbers below 200, numbers up to
// 2³⁰, numbers of every exponent, and edges.
func TestSinCosMatchesCLibrary(t *testing.T) {
	r := open(t, "sincosf.bin")
	n := r.u32()
	x, sin, cos := r.f32s(n), r.f32s(n), r.f32s(n)
	r.end()
	notNearest := 0
	for i := range x {
		s, c := SinCos(x[i])
		if !same(s, sin[i]) || !same(c, cos[i]) {
			t.Fatalf("SinCos(%g) = %g, %g; sincosf %g, %g", x[i], s, c, sin[i], cos[i])
		}
		if sin[i] != float32(math.Sin(float64(x[i]))) || cos[i] != float32(math.Cos(float64(x[i]))) {
			notNearest++
		}
	}
	if notNearest < 20 {
		t.Errorf("only %d of the recorded sines and cosines are not the nearest float32s; the fixture should hold more", notNearest)
	}
}

// TestVExpKernel compares vexp8 with VExp on numbers of every exponent,
// and the edges of its range.
func TestVExpKernel(t *testing.T) {
	if !hasAVX2 {
		t.Skip("this CPU has no AVX2")
	}
	rng := rand.New(rand.NewPCG(11, 12))
	var x []float32
	for e := range uint32(256) {
		for range 32 {
			x = append(x, math.Float32frombits(rng.Uint32()&0x807fffff|e<<23))
		}
	}
	for v := float32(-200); v <= 200; v += 0.37 {
		x = append(x, v)
	}
	x = append(x, 88.72, 88.73, -87.33, -103.9, -104, 192*0.6931472, -192*0.6931472, float32(math.NaN()))
	for len(x)%8 != 0 {
		x = append(x, 0)
	}
	got := make([]float32, len(x))
	vexp8(len(x)/8, &got[0], &x[0])
	for i, v := range x {
		if want := VExp(v); !same(got[i], want) {
			t.Fatalf("vexp8(%g) = %g; VExp %g", v, got[i], want)
		}
	}
}
