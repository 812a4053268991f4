package decoding

import (
	"math"
	"testing"
)

// TestSoftmaxEdges checks the documented contract at the edges: banned
// tokens get exactly 0, all tokens banned gives all zeros (and -Inf for the
// logs), a NaN or +Inf logit gives NaN everywhere, no logits nothing.
func TestSoftmaxEdges(t *testing.T) {
	inf := float32(math.Inf(-1))
	nan := float32(math.NaN())
	for _, c := range []struct {
		z    []float32
		want []float64 // nil: every element NaN
	}{
		{[]float32{0, 0}, []float64{0.5, 0.5}},
		{[]float32{inf, 3, inf}, []float64{0, 1, 0}},
		{[]float32{inf}, []float64{0}},
		{[]float32{inf, inf, inf}, []float64{0, 0, 0}},
		{[]float32{1, nan}, nil},
		{[]float32{nan, inf}, nil},
		{[]float32{float32(math.Inf(1)), 0}, nil},
		{[]float32{}, []float64{}},
	} {
		p, lp := Softmax(c.z), LogSoftmax(c.z)
		if len(p) != len(c.z) || len(lp) != len(c.z) {
			t.Fatalf("Softmax(%v), LogSoftmax: %d and %d values, want %d", c.z, len(p), len(lp), len(c.z))
		}
		for i := range p {
			if c.want == nil {
				if !math.IsNaN(p[i]) || !math.IsNaN(lp[i]) {
					t.Errorf("Softmax(%v) = %v, LogSoftmax = %v: want NaN everywhere", c.z, p, lp)
				}
				continue
			}
			if p[i] != c.want[i] {
				t.Errorf("Softmax(%v) = %v, want %v", c.z, p, c.want)
			}
			if want := math.Log(c.want[i]); lp[i] != want && math.Abs(lp[i]-want) > 1e-15 {
				t.Errorf("LogSoftmax(%v) = %v, want the logs of %v", c.z, lp, c.want)
			}
		}
	}
}
