package simd

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// sumExpBound is how far SumExp(x, m) may be from the float64 sum of
// math.Exp(x[i] − m): each term within expULPs units in the last place
// (2^-23 of it per unit, at most), plus the rounding of x[i] − m to
// float32 (half a unit of |x[i] − m|, which moves exp by that much of
// itself), plus terms below 2^-126, which count as 0.
func sumExpBound(x []float32, m float32) float64 {
	var b float64
	for _, v := range x {
		d := float64(v) - float64(m)
		b += math.Exp(d)*(expULPs*0x1p-23+math.Abs(d)*0x1p-24) + 0x1p-126
	}
	return b
}

// TestSumExpMatchesFloat64 compares SumExp with the float64 sum of
// math.Exp for lengths with every remainder modulo 8, logits spread
// narrowly and widely, and vocabulary-sized inputs, and checks that x is
// left as it was.
func TestSumExpMatchesFloat64(t *testing.T) {
	requireKernel(t)
	rng := rand.New(rand.NewPCG(9, 10))
	for _, n := range []int{1, 2, 3, 5, 7, 8, 9, 15, 16, 17, 31, 64, 100, 257, 1000, 32000, 49152} {
		for _, spread := range []float64{0.01, 1, 3, 30, 200} {
			t.Run(fmt.Sprintf("n%d/spread%g", n, spread), func(t *testing.T) {
				x := make([]float32, n)
				for i := range x {
					x[i] = float32(rng.NormFloat64() * spread)
				}
				m := maxGo(x)
				before := slices.Clone(x)
				got := SumExp(x, m)
				want := sumExpGo(x, m)
				if !slices.Equal(x, before) {
					t.Fatal("SumExp changed its input")
				}
				if d, b := math.Abs(got-want), sumExpBound(x, m); !(d <= b) {
					t.Fatalf("SumExp = %.17g, float64 sum %.17g: %g apart, more than the bound %g", got, want, d, b)
				}
			})
		}
	}
}

// TestSumExpEdges checks the numbers a log-sum-exp meets at the edges:
// the maximum (each exactly 1, so the sum is exact), terms far below it
// or -Inf (exactly 0), a NaN (NaN), and no numbers (0).
func TestSumExpEdges(t *testing.T) {
	requireKernel(t)
	inf := float32(math.Inf(1))
	for _, c := range []struct {
		x    []float32
		m    float32
		want float64
	}{
		{[]float32{5}, 5, 1},
		{[]float32{3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3}, 3, 11},
		{[]float32{0, -90, -1000, -inf, -88, -100, 0, -inf, -inf}, 0, 2},
		{[]float32{-inf, -inf, -inf, 1}, 1, 1},
		{[]float32{1, float32(math.NaN()), 2}, 2, math.NaN()},
		{nil, 0, 0},
	} {
		got := SumExp(c.x, c.m)
		if math.IsNaN(c.want) {
			if !math.IsNaN(got) {
				t.Errorf("SumExp(%v, %v) = %v, want NaN", c.x, c.m, got)
			}
			continue
		}
		if got != c.want {
			t.Errorf("SumExp(%v, %v) = %v, want %v", c.x, c.m, got, c.want)
		}
	}
}

// TestSumExpIsExpSum checks that SumExp's terms are ExpSum's: the float64
// sum of the exponentials ExpSum stores is what SumExp returns, up to the
// order of the additions.
func TestSumExpIsExpSum(t *testing.T) {
	requireKernel(t)
	rng := rand.New(rand.NewPCG(11, 12))
	for _, n := range []int{1, 7, 8, 9, 1000, 32000} {
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(rng.NormFloat64() * 4)
		}
		m := maxGo(x)
		got := SumExp(x, m)
		ExpSum(x, m)
		var want float64
		for _, e := range x {
			want += float64(e)
		}
		if d := math.Abs(got - want); d > 1e-12*want {
			t.Errorf("n=%d: SumExp %.17g, the float64 sum of ExpSum's terms %.17g", n, got, want)
		}
	}
}

func BenchmarkSumExp(b *testing.B) {
	for _, n := range []int{2048, 32000, 49152} {
		x := make([]float32, n)
		rng := rand.New(rand.NewPCG(1, 2))
		for i := range x {
			x[i] = float32(rng.NormFloat64() * 3)
		}
		m := maxGo(x)
		b.Run(fmt.Sprintf("kernel/%d", n), func(b *testing.B) {
			for b.Loop() {
				SumExp(x, m)
			}
		})
		b.Run(fmt.Sprintf("go/%d", n), func(b *testing.B) {
			for b.Loop() {
				sumExpGo(x, m)
			}
		})
	}
}
