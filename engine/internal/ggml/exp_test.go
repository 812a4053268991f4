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

// TestExpCorrectlyRounded compares Exp with math.Exp rounded to float32
// over the whole range where e^x is neither 0 nor +Inf, and beyond it.
func TestExpCorrectlyRounded(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for range 1000000 {
		x := float32(rng.Float64()*200 - 110)
		if got, want := Exp(x), float32(math.Exp(float64(x))); got != want {
			t.Fatalf("Exp(%g) = %g; e^x rounded is %g", x, got, want)
		}
	}
	for _, c := range []struct{ x, want float32 }{
		{0, 1}, {float32(math.Inf(-1)), 0}, {float32(math.Inf(1)), float32(math.Inf(1))}, {-200, 0}, {100, float32(math.Inf(1))},
	} {
		if got := Exp(c.x); got != c.want {
			t.Errorf("Exp(%g) = %g; want %g", c.x, got, c.want)
		}
	}
	if got := Exp(float32(math.NaN())); got == got {
		t.Errorf("Exp(NaN) = %g", got)
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
