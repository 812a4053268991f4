package softmax

import (
	"fmt"
	"github.com/tokenbytoken/course/engine/decoding"
	"github.com/tokenbytoken/course/exercises/internal/check"
	"math"
	"slices"
	"testing"
)

// quarters are logits that float32 stores exactly even after adding ±30000,
// so shifted copies hold exactly the same differences.
var quarters = []float32{3.75, 1.5, 1.25, 1, 0.5, 0.25, -0.25, -0.75, -1, -1.5}

// shifted returns z with c added to every logit.
func shifted(z []float32, c float32) []float32 {
	out := make([]float32, len(z))
	for i, v := range z {
		out[i] = v + c
	}
	return out
}

// TestTask1_CatSatOnThe: the notebook's ten words after "The cat sat on the";
// "mat" gets about 74% of the probability. Exact to 1e-9.
//
//grade:task 1 points 2
func TestTask1_CatSatOnThe(t *testing.T) {
	defer check.Recover(t)
	p := Softmax(slices.Clone(catLogits))
	if !expectClose(t, fmt.Sprintf("Softmax(%v)", catLogits), p, catProbs, 1e-9) {
		return
	}
	if math.Round(100*p[0]) != 74 {
		t.Errorf("Softmax gives %q %.2f%%; want about 74%%", catWords[0], 100*p[0])
	}
}

// TestTask1_SumsToOne: for logits of every size, the probabilities lie in
// [0, 1] and sum to 1 within 1e-12; the logits are not modified; no logits
// give no probabilities.
//
//grade:task 1 points 1
func TestTask1_SumsToOne(t *testing.T) {
	defer check.Recover(t)
	cases := [][]float32{catLogits, {0}, {5}, {-3}, {1, 1, 1, 1}, randomLogits(1, 50, 10), randomLogits(2, 2048, 5)}
	for _, z := range cases {
		in := slices.Clone(z)
		p := Softmax(in)
		name := fmt.Sprintf("Softmax(%s)", check.Vec(z))
		if len(z) > 12 {
			name = fmt.Sprintf("Softmax of %d random logits", len(z))
		}
		if !slices.Equal(in, z) {
			t.Errorf("%s modified its input; it must leave the logits as they are", name)
		}
		if len(p) != len(z) {
			t.Errorf("%s returned %d probabilities; want %d, one per logit", name, len(p), len(z))
			continue
		}
		sum := 0.0
		for i, v := range p {
			if !(v >= 0 && v <= 1) {
				t.Errorf("%s: p[%d] = %v, outside [0, 1]", name, i, v)
				break
			}
			sum += v
		}
		if math.Abs(sum-1) > 1e-12 {
			t.Errorf("%s sums to %.15g; want 1 (within 1e-12)", name, sum)
		}
	}
	if p := Softmax(nil); len(p) != 0 {
		t.Errorf("Softmax(nil) = %s; want an empty result", check.Vec(p))
	}
	if p := Softmax([]float32{}); len(p) != 0 {
		t.Errorf("Softmax([]) = %s; want an empty result", check.Vec(p))
	}
}

// TestTask1_OrderAndDifferences: a higher logit gets a higher probability,
// p_i / p_j = exp(z_i - z_j), equal logits share equally, and adding the
// same number to every logit changes nothing (within 1e-12).
//
//grade:task 1 points 1
func TestTask1_OrderAndDifferences(t *testing.T) {
	defer check.Recover(t)
	p := Softmax(catLogits)
	if len(p) != len(catLogits) {
		t.Fatalf("Softmax(%v) returned %d probabilities; want %d", catLogits, len(p), len(catLogits))
	}
	for i := range p {
		for j := range p {
			zi, zj := float64(catLogits[i]), float64(catLogits[j])
			if zi > zj && !(p[i] > p[j]) {
				t.Fatalf("Softmax(%v): %q (logit %.1f) got %.4g, not more than %q (logit %.1f) with %.4g", catLogits, catWords[i], zi, p[i], catWords[j], zj, p[j])
			}
			if want := math.Exp(zi - zj); math.Abs(p[i]/p[j]/want-1) > 1e-12 {
				t.Fatalf("Softmax(%v): p(%s)/p(%s) = %.12g; want exp(%.1f - %.1f) = %.12g", catLogits, catWords[i], catWords[j], p[i]/p[j], zi, zj, want)
			}
		}
	}
	expectClose(t, "Softmax([2 2 2 2])", Softmax([]float32{2, 2, 2, 2}), []float64{0.25, 0.25, 0.25, 0.25}, 1e-12)
	base := reference(quarters, 1)
	for _, c := range []float32{-50, 7, 100} {
		expectClose(t, fmt.Sprintf("Softmax(%s) (every logit %+g)", check.Vec(shifted(quarters, c)), c), Softmax(shifted(quarters, c)), base, 1e-12)
	}
}

// TestTask1_MatchesEngine: on random logits of several sizes, Softmax agrees
// with the engine's decoding.Softmax within 1e-12.
//
//grade:task 1 points 1
func TestTask1_MatchesEngine(t *testing.T) {
	defer check.Recover(t)
	for i, n := range []int{1, 3, 100, 2048} {
		z := randomLogits(uint64(10+i), n, 8)
		expectClose(t, fmt.Sprintf("Softmax of %d random logits in [-8, 8)", n), Softmax(z), decoding.Softmax(z), 1e-12)
	}
}

// TestTask2_LargeLogits: logits of ±1000 give exact probabilities, never NaN
// or Inf (within 1e-12).
//
//grade:task 2 points 2
func TestTask2_LargeLogits(t *testing.T) {
	defer check.Recover(t)
	e := math.Exp(-1)
	for _, c := range []struct {
		z    []float32
		want []float64
	}{
		{[]float32{1000, 1000}, []float64{0.5, 0.5}},
		{[]float32{-1000, -1000, -1000}, []float64{1.0 / 3, 1.0 / 3, 1.0 / 3}},
		{[]float32{1000, -1000, 0}, []float64{1, 0, 0}},
		{[]float32{1000, 999}, []float64{1 / (1 + e), e / (1 + e)}},
		{[]float32{-1000, -999}, []float64{e / (1 + e), 1 / (1 + e)}},
	} {
		expectClose(t, fmt.Sprintf("Softmax(%v)", c.z), Softmax(c.z), c.want, 1e-12)
	}
}

// TestTask2_ShiftedFarAway: the ten-word logits shifted by ±1000 and ±30000
// give exactly the probabilities of the unshifted ones (within 1e-9).
//
//grade:task 2 points 1
func TestTask2_ShiftedFarAway(t *testing.T) {
	defer check.Recover(t)
	want := reference(quarters, 1)
	for _, c := range []float32{1000, -1000, 30000, -30000} {
		z := shifted(quarters, c)
		expectClose(t, fmt.Sprintf("Softmax(%s) (every logit %+g)", check.Vec(z), c), Softmax(z), want, 1e-9)
	}
}

// TestTask2_BannedAndExtreme: a banned token (logit -Inf) gets exactly 0,
// and logits at float32's limits still give exact probabilities.
//
//grade:task 2 points 1
func TestTask2_BannedAndExtreme(t *testing.T) {
	defer check.Recover(t)
	inf := float32(math.Inf(-1))
	big := float32(math.MaxFloat32)
	e2 := math.Exp(2)
	for _, c := range []struct {
		z    []float32
		want []float64
	}{
		{[]float32{2, inf, 0}, []float64{e2 / (e2 + 1), 0, 1 / (e2 + 1)}},
		{[]float32{inf, 3}, []float64{0, 1}},
		{[]float32{big, 0, -big}, []float64{1, 0, 0}},
		{[]float32{big, big}, []float64{0.5, 0.5}},
	} {
		name := fmt.Sprintf("Softmax(%v)", c.z)
		p := Softmax(c.z)
		if expectClose(t, name, p, c.want, 1e-12) {
			for i, w := range c.want {
				if w == 0 && p[i] != 0 {
					t.Errorf("%s = %s: element %d is %g; want exactly 0", name, check.Vec(p), i, p[i])
				}
			}
		}
	}
}

// TestTask3_CourseExample: logits [3, 2, 1, 0.5] at temperatures 1, 0.5 and
// 2 give the lesson's rounded numbers (within 0.005) and the exact values
// (within 1e-9).
//
//grade:task 3 points 2
func TestTask3_CourseExample(t *testing.T) {
	defer check.Recover(t)
	z := []float32{3, 2, 1, 0.5}
	for _, c := range []struct {
		temp           float64
		rounded, exact []float64
	}{
		{1, []float64{0.63, 0.23, 0.09, 0.05}, []float64{0.630795543247, 0.232056711943, 0.085368893510, 0.051778851299}},
		{0.5, []float64{0.86, 0.12, 0.02, 0.01}, []float64{0.861780069258, 0.116629249761, 0.015784052550, 0.005806628432}},
		{2, []float64{0.44, 0.27, 0.16, 0.13}, []float64{0.442298823807, 0.268267797394, 0.162712644133, 0.126720734666}},
	} {
		call := fmt.Sprintf("SoftmaxTemperature(%v, %g)", z, c.temp)
		p := SoftmaxTemperature(slices.Clone(z), c.temp)
		if expectClose(t, call, p, c.rounded, 0.005) {
			expectClose(t, call, p, c.exact, 1e-9)
		}
	}
}

// TestTask3_SharpenAndFlatten: a lower temperature gives the top word more,
// a higher one less, the order never changes, T = 1 is plain softmax, a huge
// T is uniform, and the result matches the engine's ApplyTemperature then
// Softmax (within 1e-6: the engine divides in float32).
//
//grade:task 3 points 1
func TestTask3_SharpenAndFlatten(t *testing.T) {
	defer check.Recover(t)
	if !expectClose(t, fmt.Sprintf("SoftmaxTemperature(%v, 1)", catLogits), SoftmaxTemperature(catLogits, 1), catProbs, 1e-9) {
		return
	}
	prev := 1.0
	for _, temp := range []float64{0.25, 0.5, 1, 2, 4} {
		p := SoftmaxTemperature(catLogits, temp)
		if len(p) != len(catLogits) {
			t.Fatalf("SoftmaxTemperature(%v, %g) returned %d probabilities; want %d", catLogits, temp, len(p), len(catLogits))
		}
		if !(p[0] < prev) {
			t.Errorf("SoftmaxTemperature(cat logits, %g) gives %q %.4g; want less than %.4g, its share at the lower temperature before", temp, catWords[0], p[0], prev)
		}
		prev = p[0]
		for i := 1; i < len(p); i++ {
			if !(p[i] <= p[i-1]) {
				t.Errorf("SoftmaxTemperature(cat logits, %g) = %s: the order of the words changed at %q", temp, check.Vec(p), catWords[i])
				break
			}
		}
	}
	uniform := make([]float64, len(catLogits))
	for i := range uniform {
		uniform[i] = 1 / float64(len(uniform))
	}
	expectClose(t, fmt.Sprintf("SoftmaxTemperature(%v, 1e6)", catLogits), SoftmaxTemperature(catLogits, 1e6), uniform, 1e-5)
	for i, temp := range []float64{0.7, 1.3} {
		z := randomLogits(uint64(20+i), 300, 10)
		scaled := slices.Clone(z)
		decoding.ApplyTemperature(scaled, temp)
		expectClose(t, fmt.Sprintf("SoftmaxTemperature(300 random logits, %g)", temp), SoftmaxTemperature(z, temp), decoding.Softmax(scaled), 1e-6)
	}
}

// TestTask3_TinyTemperature: a temperature of 0.001 multiplies the logits by
// 1000; the result must still be exact, with no NaN (within 1e-12).
//
//grade:task 3 points 1
func TestTask3_TinyTemperature(t *testing.T) {
	defer check.Recover(t)
	expectClose(t, "SoftmaxTemperature([3 2 1 0.5], 0.001)", SoftmaxTemperature([]float32{3, 2, 1, 0.5}, 0.001), []float64{1, 0, 0, 0}, 1e-12)
	expectClose(t, "SoftmaxTemperature([1000 -1000 0], 0.01)", SoftmaxTemperature([]float32{1000, -1000, 0}, 0.01), []float64{1, 0, 0}, 1e-12)
	expectClose(t, "SoftmaxTemperature([-2 -2], 0.001)", SoftmaxTemperature([]float32{-2, -2}, 0.001), []float64{0.5, 0.5}, 1e-12)
}

// TestTask3_ZeroAndNegative: T = 0 gives the one-hot of the argmax (the
// first of tied maxima); T < 0 and T = NaN give nil.
//
//grade:task 3 points 1
func TestTask3_ZeroAndNegative(t *testing.T) {
	defer check.Recover(t)
	inf := float32(math.Inf(-1))
	for _, c := range []struct {
		z    []float32
		want []float64
	}{
		{[]float32{1, 3, 2}, []float64{0, 1, 0}},
		{[]float32{2, 5, 5, 1}, []float64{0, 1, 0, 0}},
		{[]float32{inf, -1}, []float64{0, 1}},
		{[]float32{-7}, []float64{1}},
	} {
		expectClose(t, fmt.Sprintf("SoftmaxTemperature(%v, 0)", c.z), SoftmaxTemperature(c.z, 0), c.want, 0)
	}
	for _, temp := range []float64{-1, -0.5, math.NaN()} {
		if p := SoftmaxTemperature([]float32{1, 3, 2}, temp); p != nil {
			t.Errorf("SoftmaxTemperature([1 3 2], %g) = %s; want nil: a temperature below 0 (or NaN) has no meaning", temp, check.Vec(p))
		}
	}
}

// TestTask4_LogSumExp: log Σ exp(z_j) on hand-computable cases, stable at
// ±1000 (within 1e-9); no logits give -Inf.
//
//grade:task 4 points 1
func TestTask4_LogSumExp(t *testing.T) {
	defer check.Recover(t)
	catSum := 0.0
	for _, z := range catLogits {
		catSum += math.Exp(float64(z))
	}
	for _, c := range []struct {
		z    []float32
		want float64
	}{
		{[]float32{0, 0}, math.Ln2},
		{[]float32{0, 0, 0, 0}, math.Log(4)},
		{[]float32{3}, 3},
		{catLogits, math.Log(catSum)},
		{[]float32{1000, 1000}, 1000 + math.Ln2},
		{[]float32{-1000}, -1000},
		{[]float32{1000, -1000, 0}, 1000},
		{[]float32{2, float32(math.Inf(-1)), 0}, 2 + math.Log1p(math.Exp(-2))},
	} {
		if got := LogSumExp(c.z); !(math.Abs(got-c.want) <= 1e-9) {
			t.Errorf("LogSumExp(%v) = %.12g; want %.12g", c.z, got, c.want)
		}
	}
	if got := LogSumExp(nil); !math.IsInf(got, -1) {
		t.Errorf("LogSumExp(nil) = %g; want -Inf, the log of an empty sum", got)
	}
}

// TestTask4_LogSoftmaxValues: log-probabilities of hand-computable cases
// and of the ten words (within 1e-9); no logits give none.
//
//grade:task 4 points 1
func TestTask4_LogSoftmaxValues(t *testing.T) {
	defer check.Recover(t)
	expectClose(t, "LogSoftmax([0 0])", LogSoftmax([]float32{0, 0}), []float64{-math.Ln2, -math.Ln2}, 1e-12)
	want := make([]float64, len(catProbs))
	for i, p := range catProbs {
		want[i] = math.Log(p)
	}
	in := slices.Clone(catLogits)
	expectClose(t, fmt.Sprintf("LogSoftmax(%v)", catLogits), LogSoftmax(in), want, 1e-9)
	if !slices.Equal(in, catLogits) {
		t.Errorf("LogSoftmax modified its input; it must leave the logits as they are")
	}
	if lp := LogSoftmax(nil); len(lp) != 0 {
		t.Errorf("LogSoftmax(nil) = %s; want an empty result", check.Vec(lp))
	}
}

// TestTask4_FarBelowMax: a logit 1000 below the largest has log-probability
// about -1000, not -Inf (within 1e-9); a banned token (-Inf) has -Inf.
//
//grade:task 4 points 2
func TestTask4_FarBelowMax(t *testing.T) {
	defer check.Recover(t)
	inf := float32(math.Inf(-1))
	l := math.Log1p(math.Exp(-2))
	for _, c := range []struct {
		z    []float32
		want []float64
	}{
		{[]float32{1000, 0}, []float64{0, -1000}},
		{[]float32{0, -1000, -2000}, []float64{0, -1000, -2000}},
		{[]float32{-1000, -1000}, []float64{-math.Ln2, -math.Ln2}},
		{[]float32{5, -995}, []float64{0, -1000}},
		{[]float32{2, inf, 0}, []float64{-l, math.Inf(-1), -2 - l}},
	} {
		expectClose(t, fmt.Sprintf("LogSoftmax(%v)", c.z), LogSoftmax(c.z), c.want, 1e-9)
	}
}

// TestTask4_MatchesEngine: on random logits, LogSoftmax agrees with
// decoding.LogSoftmax and with z_i - LogSumExp(z) (within 1e-9), and ignores a
// shift of every logit.
//
//grade:task 4 points 1
func TestTask4_MatchesEngine(t *testing.T) {
	defer check.Recover(t)
	for i, n := range []int{1, 5, 2048} {
		z := randomLogits(uint64(30+i), n, 20)
		name := fmt.Sprintf("LogSoftmax of %d random logits in [-20, 20)", n)
		lp := LogSoftmax(z)
		if !expectClose(t, name, lp, decoding.LogSoftmax(z), 1e-9) {
			continue
		}
		lse := LogSumExp(z)
		for j := range z {
			if math.Abs(lp[j]-(float64(z[j])-lse)) > 1e-9 {
				t.Errorf("%s: element %d is %.12g, but z[%d] - LogSumExp(z) = %.12g", name, j, lp[j], j, float64(z[j])-lse)
				break
			}
		}
	}
	base := LogSoftmax(quarters)
	expectClose(t, fmt.Sprintf("LogSoftmax(%s) (every logit +500)", check.Vec(shifted(quarters, 500))), LogSoftmax(shifted(quarters, 500)), base, 1e-9)
	if len(base) == 0 {
		t.Errorf("LogSoftmax(%v) returned nothing", quarters)
	}
}
