package f16

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestKnownValues checks hand-computed conversions: exact values, ties
// (to even), overflow, subnormals and their rounding, signed zeros and
// NaNs.
func TestKnownValues(t *testing.T) {
	for _, c := range []struct {
		x float32
		h uint16
	}{
		{0, 0x0000},
		{float32(math.Copysign(0, -1)), 0x8000},
		{1, 0x3c00},
		{-2, 0xc000},
		{0.5, 0x3800},
		{65504, 0x7bff},                            // the largest f16
		{65519.996, 0x7bff},                        // just below the tie with 65536
		{65520, 0x7c00},                            // the tie rounds to even: 65536, which overflows
		{1e10, 0x7c00},                             // overflow
		{float32(math.Inf(-1)), 0xfc00},            // infinity
		{1 + 0x1p-11, 0x3c00},                      // tie between 1 and 1+2⁻¹⁰: to even
		{1 + 3*0x1p-11, 0x3c02},                    // tie between 1+2⁻¹⁰ and 1+2⁻⁹: to even
		{1 + 0x1p-11 + 0x1p-20, 0x3c01},            // just above the tie
		{0x1p-14, 0x0400},                          // the smallest normal
		{0x1p-24, 0x0001},                          // the smallest subnormal
		{0x1p-25, 0x0000},                          // tie between 0 and 2⁻²⁴: to even
		{0x1.8p-25, 0x0001},                        // above the tie
		{-0x1p-26, 0x8000},                         // rounds to −0
		{1023.5 * 0x1p-24, 0x0400},                 // tie between 1023 and 1024·2⁻²⁴: even, a normal
		{2.5 * 0x1p-24, 0x0002},                    // tie between 2 and 3 subnormal units: 2
		{3.5 * 0x1p-24, 0x0004},                    // tie between 3 and 4: 4
		{0x1p-149, 0x0000},                         // a float32 subnormal
		{float32(math.NaN()), 0x7e00},              // NaN, quiet
		{math.Float32frombits(0xff800001), 0xfe00}, // a signalling NaN becomes quiet
	} {
		if got := FromFloat32(c.x); got != c.h {
			t.Errorf("FromFloat32(%g) = %#04x; want %#04x", c.x, got, c.h)
		}
	}
	for _, c := range []struct {
		h uint16
		x float32
	}{
		{0x3c00, 1}, {0xbc00, -1}, {0x7bff, 65504}, {0x0001, 0x1p-24}, {0x03ff, 1023 * 0x1p-24},
		{0x0400, 0x1p-14}, {0x3555, 0x1.554p-2}, {0x7c00, float32(math.Inf(1))},
	} {
		if got := ToFloat32(c.h); got != c.x {
			t.Errorf("ToFloat32(%#04x) = %g; want %g", c.h, got, c.x)
		}
	}
	if got := ToFloat32(0x8000); got != 0 || !math.Signbit(float64(got)) {
		t.Errorf("ToFloat32(0x8000) = %g; want −0", got)
	}
	if got := ToFloat32(0x7e00); got == got {
		t.Errorf("ToFloat32(0x7e00) = %g; want NaN", got)
	}
}

// TestEveryHalf checks every f16 against the definition of rounding to
// nearest: each converts to float32 and back to itself, and between two
// neighbours a and b, numbers below the midpoint go to a, above it to b,
// and the midpoint itself to whichever of them is even.
func TestEveryHalf(t *testing.T) {
	for h := range uint32(0x7c00) { // the finite non-negative f16s
		for _, s := range []uint16{0, 0x8000} {
			a := uint16(h) | s
			x := ToFloat32(a)
			if got := FromFloat32(x); got != a && !(x == 0 && got == a) {
				t.Fatalf("FromFloat32(ToFloat32(%#04x) = %g) = %#04x", a, x, got)
			}
			if h == 0x7bff {
				continue
			}
			b := a + 1 // the next f16 away from zero
			y := ToFloat32(b)
			mid := x + (y-x)/2 // exact: f16s have 11 significant bits
			even := a
			if a&1 == 1 {
				even = b
			}
			below := math.Nextafter32(mid, x)
			above := math.Nextafter32(mid, y)
			if got := FromFloat32(mid); got != even {
				t.Fatalf("FromFloat32(%g), halfway between %#04x and %#04x: %#04x; want %#04x", mid, a, b, got, even)
			}
			if got := FromFloat32(below); got != a {
				t.Fatalf("FromFloat32(%g), just nearer %#04x than %#04x: %#04x", below, a, b, got)
			}
			if got := FromFloat32(above); got != b {
				t.Fatalf("FromFloat32(%g), just nearer %#04x than %#04x: %#04x", above, b, a, got)
			}
		}
	}
}

// TestKernelsMatchGo converts numbers of every float32 exponent (and
// infinities, NaNs, zeros, float32 subnormals) with the F16C kernels and
// with FromFloat32 and ToFloat32: the bits must be the same.
func TestKernelsMatchGo(t *testing.T) {
	if !hasF16C {
		t.Skip("this CPU has no F16C")
	}
	defer func(u bool) { useF16C = u }(useF16C)
	rng := rand.New(rand.NewPCG(1, 2))
	var x []float32
	for exp := range uint32(256) {
		for range 64 {
			x = append(x, math.Float32frombits(rng.Uint32()&0x807fffff|exp<<23))
		}
	}
	x = append(x, 65520, 0x1p-25, 1+0x1p-11, 1023.5*0x1p-24) // ties
	for len(x)%8 != 5 {
		x = append(x, float32(rng.NormFloat64()))
	}
	var got, want [2][]uint16
	for i, f16c := range []bool{false, true} {
		useF16C = f16c
		got[i] = make([]uint16, len(x))
		Encode(got[i], x)
	}
	want[0] = got[0]
	for i, v := range x {
		if got[1][i] != got[0][i] {
			t.Fatalf("Encode(%g) (bits %#08x): F16C %#04x, Go %#04x", v, math.Float32bits(v), got[1][i], got[0][i])
		}
	}
	all := make([]uint16, 1<<16)
	for h := range all {
		all[h] = uint16(h)
	}
	var dec [2][]float32
	for i, f16c := range []bool{false, true} {
		useF16C = f16c
		dec[i] = make([]float32, len(all))
		Decode(dec[i], all)
	}
	for h := range all {
		if math.Float32bits(dec[0][h]) != math.Float32bits(dec[1][h]) {
			t.Fatalf("Decode(%#04x): F16C %g, Go %g", h, dec[1][h], dec[0][h])
		}
	}
}

func BenchmarkEncode(b *testing.B) {
	x := make([]float32, 192)
	for i := range x {
		x[i] = float32(i) * 0.37
	}
	h := make([]uint16, len(x))
	b.SetBytes(int64(4 * len(x)))
	for b.Loop() {
		Encode(h, x)
	}
}
