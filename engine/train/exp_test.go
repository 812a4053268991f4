package train

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestExpfMatchesMathExp checks expf against math.Exp in float32: within
// one unit in the last place everywhere, and equal for nearly all inputs.
func TestExpfMatchesMathExp(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	check := func(x float64) bool {
		want := float32(math.Exp(x))
		got := float32(expf(x))
		if got == want {
			return true
		}
		if math.IsInf(float64(want), 0) || math.IsInf(float64(got), 0) || want == 0 || got == 0 {
			// Near the ends of the range rounding may differ by one step
			// to the largest float32 or the smallest.
			if math.Abs(x) < 87 {
				t.Fatalf("expf(%v) = %v, math.Exp gives %v", x, got, want)
			}
			return false
		}
		d := int64(math.Float32bits(got)) - int64(math.Float32bits(want))
		if d < -1 || d > 1 {
			t.Fatalf("expf(%v) = %v, math.Exp gives %v: %d units in the last place apart", x, got, want, d)
		}
		return false
	}
	off := 0
	const n = 2_000_000
	for range n {
		x := (rng.Float64()*2 - 1) * 100
		if !check(x) {
			off++
		}
	}
	for _, x := range []float64{0, -0.0, 1, -1, 0.5, -0.5, 88.7, 88.8, -87.3, -103, -104, -745, -746, 709, 710, 1e300, -1e300, math.Inf(-1)} {
		check(x)
	}
	if off > n/100 {
		t.Errorf("expf differs from float32(math.Exp) by one unit on %d of %d inputs; want under 1%%", off, n)
	}
	if got := expf(math.Inf(-1)); got != 0 {
		t.Errorf("expf(-Inf) = %v, want 0", got)
	}
	if got := expf(math.Inf(1)); !math.IsInf(got, 1) {
		t.Errorf("expf(+Inf) = %v, want +Inf", got)
	}
	if got := expf(math.NaN()); !math.IsNaN(got) {
		t.Errorf("expf(NaN) = %v, want NaN", got)
	}
}

func BenchmarkExpf(b *testing.B) {
	x := make([]float32, 1024)
	for i := range x {
		x[i] = float32(-i) / 64
	}
	buf := make([]float32, len(x))
	b.Run("expf", func(b *testing.B) {
		for b.Loop() {
			copy(buf, x)
			expShifted(buf, 0)
		}
	})
	b.Run("math.Exp", func(b *testing.B) {
		for b.Loop() {
			for i, v := range x {
				buf[i] = float32(math.Exp(float64(v)))
			}
		}
	})
}
