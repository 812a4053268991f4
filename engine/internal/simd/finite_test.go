package simd

import (
	"fmt"
	"math"
	"testing"
)

// TestFiniteMatchesPlainLoop puts each kind of number that is not finite
// (NaN, both infinities, and a NaN with a payload) at every place of
// vectors of every length up to 40, and the largest and smallest finite
// numbers everywhere else: Finite must say what the plain loop says.
func TestFiniteMatchesPlainLoop(t *testing.T) {
	bad := []float32{
		float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)),
		math.Float32frombits(0xffc00001), // a negative NaN with a payload
	}
	for n := 0; n <= 40; n++ {
		x := make([]float32, n)
		for i := range x {
			x[i] = []float32{math.MaxFloat32, -math.MaxFloat32, math.SmallestNonzeroFloat32, 0, -1.5}[i%5]
		}
		if !Finite(x) || !finiteGo(x) {
			t.Fatalf("n=%d, all finite: Finite %v, plain loop %v, want true", n, Finite(x), finiteGo(x))
		}
		for place := range n {
			for _, b := range bad {
				keep := x[place]
				x[place] = b
				if Finite(x) || finiteGo(x) {
					t.Fatalf("n=%d, %v at %d: Finite %v, plain loop %v, want false", n, b, place, Finite(x), finiteGo(x))
				}
				x[place] = keep
			}
		}
	}
}

// TestFiniteReadsNothingPastTheEnd puts an infinity right after the
// numbers it is given: it must not see it.
func TestFiniteReadsNothingPastTheEnd(t *testing.T) {
	for n := 0; n <= 40; n++ {
		x := make([]float32, n+1)
		x[n] = float32(math.Inf(1))
		if !Finite(x[:n]) {
			t.Fatalf("Finite of %d finite numbers followed by +Inf = false, want true", n)
		}
	}
}

func BenchmarkFinite(b *testing.B) {
	x := make([]float32, 32000)
	for i := range x {
		x[i] = float32(i%17) - 8
	}
	for _, impl := range []struct {
		name string
		f    func([]float32) bool
	}{{"kernel", Finite}, {"plain", finiteGo}} {
		b.Run(fmt.Sprintf("%s/%d", impl.name, len(x)), func(b *testing.B) {
			for b.Loop() {
				if !impl.f(x) {
					b.Fatal("finite numbers reported as not finite")
				}
			}
		})
	}
}
