package simd

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// swigluULPs is how far, in units in the last place, SwiGLU's results may
// be from the plain loop's: the exponential's error, then the sum, the
// division and two products, each rounded in float32 (the plain loop
// rounds σ from float64 once).
const swigluULPs = 4

// TestSwiGLUMatchesPlainLoop compares SwiGLU with swigluGo on gates from
// -100 to 100 (where σ saturates to 0 and 1), every length remainder
// modulo 8, and NaN. Results whose exact value is below 1e-30 are
// compared by their difference alone: the kernel sets e^-g below 2^-126
// to 0, so it may give 0 where the plain loop gives some 1e-37.
func TestSwiGLUMatchesPlainLoop(t *testing.T) {
	requireKernel(t)
	rng := rand.New(rand.NewPCG(9, 10))
	worst := int64(0)
	for _, n := range []int{1, 2, 7, 8, 9, 16, 23, 172, 768, 2048} {
		for _, spread := range []float64{0.5, 4, 40} {
			t.Run(fmt.Sprintf("n%d/spread%g", n, spread), func(t *testing.T) {
				gate, up := make([]float32, n), make([]float32, n+3)
				for i := range gate {
					gate[i] = float32(rng.NormFloat64() * spread)
				}
				for i := range up {
					up[i] = float32(rng.NormFloat64())
				}
				want := append([]float32(nil), gate...)
				swigluGo(want, up)
				got := append([]float32(nil), gate...)
				SwiGLU(got, up)
				for i := range got {
					if math.Abs(float64(want[i])) < 1e-30 {
						if d := math.Abs(float64(got[i] - want[i])); d > 1e-30 {
							t.Fatalf("silu(%g)·%g = %g, the plain loop gives %g", gate[i], up[i], got[i], want[i])
						}
						continue
					}
					u := ulps(got[i], want[i])
					worst = max(worst, u)
					if u > swigluULPs {
						t.Fatalf("silu(%g)·%g = %g, the plain loop gives %g (%d units apart)", gate[i], up[i], got[i], want[i], u)
					}
				}
			})
		}
	}
	t.Logf("largest difference: %d units in the last place", worst)
	gate := []float32{float32(math.NaN()), 0, 100, -100, float32(math.Inf(1))}
	SwiGLU(gate, []float32{1, 1, 2, 2, 1})
	if !math.IsNaN(float64(gate[0])) || gate[1] != 0 || gate[2] != 200 || gate[3] != 0 || !math.IsInf(float64(gate[4]), 1) {
		t.Errorf("silu of NaN, 0, 100 (×2), -100 (×2) and +Inf gave %v, want NaN, 0, 200, 0 (or -0) and +Inf", gate)
	}
}

// TestSwiGLURejectsShortUp checks that an up vector shorter than the gate
// stops with a message before the kernel reads past it.
func TestSwiGLURejectsShortUp(t *testing.T) {
	defer func() {
		want := "simd: SwiGLU: up holds 3 numbers, gate 4"
		if r := recover(); fmt.Sprint(r) != want {
			t.Errorf("panic %v, want %q", r, want)
		}
	}()
	SwiGLU(make([]float32, 4), make([]float32, 3))
}
