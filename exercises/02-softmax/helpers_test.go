package softmax

import (
	"github.com/tokenbytoken/course/engine/decoding"
	"github.com/tokenbytoken/course/exercises/internal/check"
	"math"
	"testing"
)

// catWords and catLogits are the notebook's ten-word example: the next word
// after "The cat sat on the".
var (
	catWords  = []string{"mat", "floor", "bed", "sofa", "chair", "rug", "table", "the", ".", "dog"}
	catLogits = []float32{3.8, 1.5, 1.3, 1.0, 0.6, 0.2, -0.2, -0.8, -1.0, -1.5}
)

// catProbs is softmax(catLogits) computed in float64 from the float32 logits
// (3.8 is stored as 3.7999999523…, which moves the eighth decimal).
var catProbs = []float64{
	0.739191908772, 0.074110529597, 0.060676566814, 0.044950308408, 0.030131093520,
	0.020197475574, 0.013538772676, 0.007430235916, 0.006083362720, 0.003689746004,
}

// worstDiff returns the largest |got[i] - want[i]| and its index; it assumes
// equal lengths. A NaN anywhere counts as an infinite difference.
func worstDiff(got, want []float64) (float64, int) {
	worst, at := 0.0, -1
	for i := range want {
		d := math.Abs(got[i] - want[i])
		if math.IsNaN(d) {
			d = math.Inf(1)
		}
		if got[i] == want[i] { // equal infinities
			d = 0
		}
		if d > worst || at < 0 {
			worst, at = d, i
		}
	}
	return worst, at
}

// badNumber returns the index of the first NaN or ±Inf in xs, or -1.
func badNumber(xs []float64) int {
	for i, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return i
		}
	}
	return -1
}

// reference is softmax in float64, stable, for the tests' own expectations.
func reference(z []float32, temperature float64) []float64 {
	p := make([]float64, len(z))
	mx := math.Inf(-1)
	for _, v := range z {
		mx = max(mx, float64(v)/temperature)
	}
	sum := 0.0
	for i, v := range z {
		p[i] = math.Exp(float64(v)/temperature - mx)
		sum += p[i]
	}
	for i := range p {
		p[i] /= sum
	}
	return p
}

// randomLogits returns n logits spread evenly over [-scale, scale), drawn
// from the engine's seeded generator so every run sees the same ones.
func randomLogits(seed uint64, n int, scale float64) []float32 {
	rng := decoding.NewRNG(seed)
	z := make([]float32, n)
	for i := range z {
		z[i] = float32((2*float64(rng.Float32()) - 1) * scale)
	}
	return z
}

// expectClose reports, as a test error, the first way got differs from want:
// its length, a NaN or infinity where want has a finite number, or numbers
// more than tol apart (where, and the largest difference). call names what
// was called. It returns whether got passed.
func expectClose(t *testing.T, call string, got, want []float64, tol float64) bool {
	t.Helper()
	if len(got) != len(want) {
		t.Error(check.Mismatch(call, got, want, tol))
		return false
	}
	for i, g := range got {
		if (math.IsNaN(g) || math.IsInf(g, 0)) && g != want[i] {
			t.Errorf("%s = %s: element %d is %v; want %.6g", call, check.Vec(got), i, g, want[i])
			return false
		}
	}
	if d, i := worstDiff(got, want); d > tol {
		t.Errorf("%s; the largest difference is %.3g, at [%d]", check.Mismatch(call, got, want, tol), d, i)
		return false
	}
	return true
}
