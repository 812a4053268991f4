package simd

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// expULPs is how far, in units in the last place, ExpSum's exponentials
// may be from float32(math.Exp): the polynomial's error plus the rounding
// of its steps.
const expULPs = 2

// ulps is the distance between two float32 numbers of the same sign, in
// units in the last place.
func ulps(a, b float32) int64 {
	d := int64(math.Float32bits(a)) - int64(math.Float32bits(b))
	return max(d, -d)
}

// TestExpSumMatchesMathExp compares ExpSum with the plain loop over
// math.Exp (expSumGo): every exponential within expULPs of it, the same
// zeros below 2^-126 (up to the arguments right at the edge, where the two
// may round to either side), and the sums within float32 rounding of a
// float64 sum. Lengths cover every remainder modulo 8.
func TestExpSumMatchesMathExp(t *testing.T) {
	requireKernel(t)
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{1, 2, 3, 5, 7, 8, 9, 15, 16, 17, 31, 64, 100, 257, 1000} {
		for _, spread := range []float64{0.1, 3, 30, 200} {
			t.Run(fmt.Sprintf("n%d/spread%g", n, spread), func(t *testing.T) {
				x := make([]float32, n)
				for i := range x {
					x[i] = float32(rng.NormFloat64() * spread)
				}
				m := x[0]
				for _, v := range x {
					m = max(m, v)
				}
				want, got := append([]float32(nil), x...), append([]float32(nil), x...)
				expSumGo(want, m)
				sum := ExpSum(got, m)
				var wantSum float64
				for i := range x {
					wantSum += float64(got[i])
					d := float64(x[i] - m)
					if want[i] == 0 || got[i] == 0 {
						if want[i] != got[i] && d > -87.33 {
							t.Fatalf("exp(%g): %g, math.Exp gives %g", d, got[i], want[i])
						}
						continue
					}
					if u := ulps(got[i], want[i]); u > expULPs {
						t.Fatalf("exp(%g): %g, math.Exp gives %g (%d units apart)", d, got[i], want[i], u)
					}
				}
				if d := math.Abs(float64(sum) - wantSum); !(d <= 1e-6*wantSum) {
					t.Fatalf("sum %g, float64 sum of the results %g", sum, wantSum)
				}
			})
		}
	}
}

// TestExpSumEveryArgument runs ExpSum over every float32 from -88 to 0
// (one in 97, some ten million), checking each against math.Exp: the
// polynomial's worst case is somewhere in there.
func TestExpSumEveryArgument(t *testing.T) {
	requireKernel(t)
	if testing.Short() {
		t.Skip("-short: the sweep over arguments takes a second")
	}
	var x, want []float32
	worst := int64(0)
	check := func() {
		want = append(want[:0], x...)
		expSumGo(want, 0)
		ExpSum(x, 0)
		for i, e := range x {
			if want[i] == 0 || e == 0 {
				if want[i] != e && want[i] > 0x1.01p-126 {
					t.Fatalf("exp: %g, math.Exp gives %g", e, want[i])
				}
				continue
			}
			worst = max(worst, ulps(e, want[i]))
			if ulps(e, want[i]) > expULPs {
				t.Fatalf("exp: %g, math.Exp gives %g", e, want[i])
			}
		}
		x = x[:0]
	}
	for b := uint32(0x80000000); b <= math.Float32bits(-88); b += 97 {
		x = append(x, math.Float32frombits(b))
		if len(x) == 4096 {
			check()
		}
	}
	check()
	t.Logf("largest error: %d units in the last place", worst)
}

// TestExpSumEdges checks the numbers a softmax can meet at the edges:
// the maximum itself (exactly 1), arguments far below it (exactly 0, never
// a subnormal), infinities and NaN.
func TestExpSumEdges(t *testing.T) {
	requireKernel(t)
	inf := float32(math.Inf(1))
	nan := float32(math.NaN())
	for _, c := range []struct {
		x    []float32
		m    float32
		want []float32
	}{
		{[]float32{5}, 5, []float32{1}},
		{[]float32{0, -90, -1000, float32(math.Inf(-1)), -87.4, -88, -100, 0}, 0, []float32{1, 0, 0, 0, 0, 0, 0, 1}},
		{[]float32{-3.5, 2, 2, -inf, 1, 2, 2, 2, 2, 2}, 2, nil},
		{[]float32{1, nan, 2}, 2, []float32{0.36787945, nan, 1}},
	} {
		for _, fast := range []bool{false, true} {
			x := append([]float32(nil), c.x...)
			var sum float32
			if fast {
				sum = ExpSum(x, c.m)
			} else {
				sum = expSumGo(x, c.m)
			}
			want := c.want
			if want == nil {
				want = append([]float32(nil), c.x...)
				expSumGo(want, c.m)
			}
			var wantSum float32
			nanSum := false
			for i := range x {
				if math.IsNaN(float64(want[i])) {
					nanSum = true
					if !math.IsNaN(float64(x[i])) {
						t.Errorf("fast=%v: exp(%v − %v) = %v, want NaN", fast, c.x[i], c.m, x[i])
					}
					continue
				}
				if ulps(x[i], want[i]) > expULPs {
					t.Errorf("fast=%v: exp(%v − %v) = %v, want %v", fast, c.x[i], c.m, x[i], want[i])
				}
				wantSum += x[i]
				if x[i] != 0 && x[i] < smallestNormal {
					t.Errorf("fast=%v: exp(%v − %v) = %v, a subnormal", fast, c.x[i], c.m, x[i])
				}
			}
			if nanSum {
				if !math.IsNaN(float64(sum)) {
					t.Errorf("fast=%v: sum %v of %v, want NaN", fast, sum, c.x)
				}
			} else if math.Abs(float64(sum-wantSum)) > 1e-6*float64(wantSum) {
				t.Errorf("fast=%v: sum %v of %v, want %v", fast, sum, x, wantSum)
			}
		}
	}
	if ExpSum(nil, 1) != 0 {
		t.Error("the sum over no numbers is not 0")
	}
}
