package simd

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestAttentionKernelsMatchFloat64 compares Scores and WeightedSum with
// the same sums done in float64, for head sizes the kernels take (multiples
// of 8) and one they leave to the plain loop, position counts with every
// remainder modulo 8 and 4, and rows wider than a head (a head's slice of
// a cache row). The tolerance is that of Gemv: 1e-6 of the sum of the
// products' magnitudes, which bounds float32 rounding in any order.
func TestAttentionKernelsMatchFloat64(t *testing.T) {
	requireKernel(t)
	rng := rand.New(rand.NewPCG(7, 8))
	vec := func(n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(rng.NormFloat64())
		}
		return v
	}
	for _, hs := range []int{8, 16, 48, 64, 12} {
		for _, n := range []int{1, 3, 4, 7, 8, 9, 15, 16, 17, 63, 64, 65, 512} {
			for _, extra := range []int{0, 5, 3 * hs} {
				stride := hs + extra
				t.Run(fmt.Sprintf("hs%d/n%d/stride%d", hs, n, stride), func(t *testing.T) {
					q, keys, values := vec(hs), vec((n-1)*stride+hs), vec((n-1)*stride+hs)
					w := vec(n)
					scale := float32(1 / math.Sqrt(float64(hs)))
					a, out := make([]float32, n), make([]float32, hs)
					for i := range out {
						out[i] = float32(math.NaN()) // must be overwritten
					}
					Scores(a, q, keys, stride, scale)
					WeightedSum(out, w, values, stride)
					for p := range n {
						var want, mag float64
						for i := range hs {
							x := float64(q[i]) * float64(keys[p*stride+i])
							want += x
							mag += math.Abs(x)
						}
						want *= float64(scale)
						mag *= float64(scale)
						if d := math.Abs(float64(a[p]) - want); !(d <= 1e-6*mag+1e-7) {
							t.Fatalf("score %d: %g, float64 sum %g (difference %g)", p, a[p], want, d)
						}
					}
					for i := range hs {
						var want, mag float64
						for p := range n {
							x := float64(w[p]) * float64(values[p*stride+i])
							want += x
							mag += math.Abs(x)
						}
						if d := math.Abs(float64(out[i]) - want); !(d <= 1e-6*mag+1e-7) {
							t.Fatalf("output %d: %g, float64 sum %g (difference %g)", i, out[i], want, d)
						}
					}
				})
			}
		}
	}
}

// TestAttentionKernelsRejectShortRows checks that a cache slice too short
// for its rows stops with a message before the kernel reads past it, and
// that no positions give empty sums.
func TestAttentionKernelsRejectShortRows(t *testing.T) {
	out := []float32{7, 7, 7, 7, 7, 7, 7, 7}
	WeightedSum(out, nil, nil, 8)
	for _, v := range out {
		if v != 0 {
			t.Fatalf("a weighted sum over no positions gave %v, want zeros", out)
		}
	}
	Scores(nil, make([]float32, 8), nil, 8, 1)
	for _, c := range []struct {
		want string
		f    func()
	}{
		{"simd: Scores: keys holds 23 numbers, not 2 rows of 8 with stride 16", func() { Scores(make([]float32, 2), make([]float32, 8), make([]float32, 23), 16, 1) }},
		{"simd: WeightedSum: values holds 16 numbers, not 3 rows of 8 with stride 8", func() { WeightedSum(make([]float32, 8), make([]float32, 3), make([]float32, 16), 8) }},
		{"simd: Scores: keys holds 64 numbers, not 2 rows of 16 with stride 8", func() { Scores(make([]float32, 2), make([]float32, 16), make([]float32, 64), 8, 1) }},
	} {
		func() {
			defer func() {
				if r := recover(); fmt.Sprint(r) != c.want {
					t.Errorf("panic %v, want %q", r, c.want)
				}
			}()
			c.f()
		}()
	}
}
