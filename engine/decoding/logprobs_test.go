package decoding

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

// TestLogProbOfEdges: a token outside the logits, and any token when every
// logit is -Inf, has probability 0, so log-probability -Inf; no panic.
func TestLogProbOfEdges(t *testing.T) {
	inf := float32(math.Inf(-1))
	z := []float32{1, 2, 3}
	for _, id := range []int{-1, 3, 1 << 40, math.MinInt} {
		if got := LogProbOf(z, id); !math.IsInf(got, -1) {
			t.Errorf("LogProbOf(%v, %d) = %v, want -Inf: the token is outside the vocabulary", z, id, got)
		}
	}
	if got := LogProbOf(nil, 0); !math.IsInf(got, -1) {
		t.Errorf("LogProbOf(nil, 0) = %v, want -Inf", got)
	}
	for id := range z {
		if got, want := LogProbOf(z, id), LogSoftmax(z)[id]; math.Abs(got-want) > 1e-6 {
			t.Errorf("LogProbOf(%v, %d) = %v, want LogSoftmax's %v", z, id, got, want)
		}
	}
	banned := []float32{inf, 0, inf}
	if got := LogProbOf(banned, 0); !math.IsInf(got, -1) {
		t.Errorf("LogProbOf(%v, 0) = %v, want -Inf (a banned token)", banned, got)
	}
	if got := LogProbOf(banned, 1); got != 0 {
		t.Errorf("LogProbOf(%v, 1) = %v, want 0 (the only token left)", banned, got)
	}
	all := []float32{inf, inf}
	if got := LogProbOf(all, 1); !math.IsInf(got, -1) {
		t.Errorf("LogProbOf(%v, 1) = %v, want -Inf: every token is banned", all, got)
	}
	if got := LogProbOf([]float32{0, float32(math.Inf(1))}, 0); !math.IsNaN(got) {
		t.Errorf("LogProbOf([0 +Inf], 0) = %v, want NaN", got)
	}
	top := TopLogProbs([]float32{inf, inf, inf}, 2)
	if len(top) != 2 || top[0].ID != 0 || top[1].ID != 1 || !math.IsInf(top[0].LogProb, -1) || !math.IsInf(top[1].LogProb, -1) {
		t.Errorf("TopLogProbs of three -Inf logits, 2 = %+v, want ids 0 and 1 with -Inf", top)
	}
}

// TestLogSumExpMatchesLoop compares logSumExp, which runs on the kernels,
// with the float64 loop over math.Exp (logSumExpLoop) and with sums done
// by hand: random logits of vocabulary sizes, some banned, narrow and wide,
// and the edges (no logits, all banned, NaN, +Inf, the largest float32s).
// The kernels' exponentials are float32: each term is within 2 units in
// the last place (2^-22 of itself), and z − max is rounded to float32
// first (2^-24 of |z − max|, which moves the term by that much of itself),
// so the log of the sum moves by at most the terms' weighted mean of
// those errors.
func TestLogSumExpMatchesLoop(t *testing.T) {
	inf := float32(math.Inf(1))
	for _, c := range []struct {
		z    []float32
		want float64
	}{
		{[]float32{0, 0}, math.Ln2},
		{[]float32{1, 2, 3}, 3 + math.Log(1+math.Exp(-1)+math.Exp(-2))},
		{[]float32{-inf, 7, -inf}, 7},
		{[]float32{math.MaxFloat32, -math.MaxFloat32}, math.MaxFloat32},
		{[]float32{-math.MaxFloat32, -math.MaxFloat32}, -math.MaxFloat32 + math.Ln2},
		{nil, math.Inf(-1)},
		{[]float32{-inf, -inf}, math.Inf(-1)},
		{[]float32{1, float32(math.NaN()), 2}, math.NaN()},
		{[]float32{1, inf, 2}, math.NaN()},
		{[]float32{-inf, inf}, math.NaN()},
	} {
		got := logSumExp(c.z)
		if math.IsNaN(c.want) || math.IsInf(c.want, 0) {
			if !(math.IsNaN(c.want) && math.IsNaN(got)) && got != c.want {
				t.Errorf("logSumExp(%v) = %v, want %v", c.z, got, c.want)
			}
			continue
		}
		if d := math.Abs(got - c.want); d > 3e-7*max(1, math.Abs(c.want)) {
			t.Errorf("logSumExp(%v) = %.17g, want %.17g", c.z, got, c.want)
		}
	}

	rng := rand.New(rand.NewPCG(13, 14))
	for _, n := range []int{1, 5, 8, 9, 512, 32000, 49152} {
		for _, spread := range []float64{0.01, 1, 4, 30} {
			t.Run(fmt.Sprintf("n%d/spread%g", n, spread), func(t *testing.T) {
				z := make([]float32, n)
				for i := range z {
					z[i] = float32(rng.NormFloat64()*spread + 10)
					if n > 1 && rng.IntN(10) == 0 {
						z[i] = -inf // banned
					}
				}
				want := logSumExpLoop(z)
				var mass, bound float64
				m := maxOf(z)
				for _, v := range z {
					if v == -inf {
						continue // exactly 0 both ways
					}
					e := math.Exp(float64(v) - want)
					mass += e
					bound += e * (0x1p-22 + float64(m-v)*0x1p-24)
				}
				bound = bound/mass + 1e-12
				if got := logSumExp(z); !(math.Abs(got-want) <= bound) {
					t.Errorf("logSumExp = %.17g, the float64 loop %.17g: %g apart, more than the bound %g", got, want, math.Abs(got-want), bound)
				}
			})
		}
	}
}

// maxOf is the largest of z.
func maxOf(z []float32) float32 {
	m := float32(math.Inf(-1))
	for _, v := range z {
		m = max(m, v)
	}
	return m
}

func BenchmarkLogProbOf(b *testing.B) {
	for _, n := range []int{32000, 49152} {
		rng := rand.New(rand.NewPCG(1, 2))
		z := make([]float32, n)
		for i := range z {
			z[i] = float32(rng.NormFloat64() * 3)
		}
		b.Run(fmt.Sprintf("kernels/%d", n), func(b *testing.B) {
			for b.Loop() {
				LogProbOf(z, 7)
			}
		})
		b.Run(fmt.Sprintf("loop/%d", n), func(b *testing.B) {
			for b.Loop() {
				logProb(z[7], logSumExpLoop(z))
			}
		})
	}
}

// TestLogSumExpSameOnAnyNumberOfCores checks that logSumExp gives the same
// bits whatever the number of cores sharing its pieces (see sumExp): a
// token's log-probability must not depend on the machine's cores.
func TestLogSumExpSameOnAnyNumberOfCores(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	for _, n := range []int{lseChunk - 1, lseChunk, lseChunk + 1, lseShared, 32000, 49152, 100003} {
		z := make([]float32, n)
		for i := range z {
			z[i] = float32(rng.NormFloat64() * 4)
		}
		at := func(procs int) float64 {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			return logSumExp(z)
		}
		want := at(1)
		for _, procs := range []int{2, 3, 4} {
			if got := at(procs); math.Float64bits(got) != math.Float64bits(want) {
				t.Errorf("%d logits: logSumExp with %d cores = %.17g, with one core %.17g", n, procs, got, want)
			}
		}
	}
}
