package training

import (
	"fmt"
	"github.com/tokenbytoken/course/engine/decoding"
	"github.com/tokenbytoken/course/engine/models"
	"github.com/tokenbytoken/course/engine/train"
	"github.com/tokenbytoken/course/exercises/internal/check"
	"math"
	"slices"
	"testing"
)

// TestTask1_UniformIsLnV: equal logits over V tokens cost ln V nats, whatever
// the target (within 1e-9): the loss of a model that knows nothing.
//
//grade:task 1 points 1
func TestTask1_UniformIsLnV(t *testing.T) {
	defer check.Recover(t)
	for _, c := range []struct {
		v      int
		logit  float32
		target int
	}{{2, 0, 1}, {10, 0, 3}, {2048, 0, 2047}, {2048, 7.5, 0}, {50000, -3, 12345}} {
		z := make([]float32, c.v)
		for i := range z {
			z[i] = c.logit
		}
		want := math.Log(float64(c.v))
		if got := CrossEntropy(z, c.target); !(math.Abs(got-want) <= 1e-9) {
			t.Errorf("CrossEntropy(%d logits all %g, target %d) = %.10g; want ln %d = %.10g", c.v, c.logit, c.target, got, c.v, want)
		}
	}
}

// TestTask1_HandValues: losses worked out by hand (within 1e-9), and NaN
// for a target that is not an index of the logits.
//
//grade:task 1 points 2
func TestTask1_HandValues(t *testing.T) {
	defer check.Recover(t)
	e := math.E
	for _, c := range []struct {
		z      []float32
		target int
		want   float64
		why    string
	}{
		{[]float32{1, 0}, 1, math.Log(1 + e), "ln(1 + e)"},
		{[]float32{1, 0}, 0, math.Log(1 + 1/e), "ln(1 + 1/e)"},
		{[]float32{2, 0, 0}, 0, math.Log(1 + 2/(e*e)), "ln(1 + 2/e²)"},
		{[]float32{3, 3, 0}, 2, math.Log(2*e*e*e + 1), "ln(2e³ + 1)"},
		{catLogits, 0, 0.302197704640, "−ln 0.7392 (mat, lesson 2's ten words)"},
		{catLogits, 7, 4.902197668877, "−ln 0.007430 (the)"},
		{catLogits, 8, 5.102197656957, "−ln 0.006083 (.)"},
	} {
		if got := CrossEntropy(c.z, c.target); !(math.Abs(got-c.want) <= 1e-9) {
			t.Errorf("CrossEntropy(%v, %d) = %.10g; want %s = %.10g", c.z, c.target, got, c.why, c.want)
		}
	}
	for _, c := range []struct {
		z      []float32
		target int
	}{{[]float32{1, 0}, 2}, {[]float32{1, 0}, -1}, {nil, 0}} {
		if got := CrossEntropy(c.z, c.target); !math.IsNaN(got) {
			t.Errorf("CrossEntropy(%v, %d) = %g; want NaN: %d is not an index of the logits", c.z, c.target, got, c.target)
		}
	}
}

// TestTask1_Stable: the loss stays exact far from the largest logit
// (within 1e-9): a target 1000 below the best costs 1000 nats, not +Inf.
//
//grade:task 1 points 2
func TestTask1_Stable(t *testing.T) {
	defer check.Recover(t)
	for _, c := range []struct {
		z      []float32
		target int
		want   float64
	}{
		{[]float32{1000, 0}, 1, 1000},
		{[]float32{1000, 0}, 0, 0},
		{[]float32{0, -1000, -2000}, 2, 2000},
		{[]float32{-1000, -1000}, 1, math.Ln2},
		{[]float32{1000, 1000, 1000, 1000}, 2, math.Log(4)},
		{[]float32{5, -995}, 1, 1000},
		{[]float32{0, float32(math.Inf(-1))}, 1, math.Inf(1)},
	} {
		got := CrossEntropy(c.z, c.target)
		if !(math.Abs(got-c.want) <= 1e-9 || got == c.want) {
			t.Errorf("CrossEntropy(%v, %d) = %.10g; want %.10g", c.z, c.target, got, c.want)
		}
	}
}

// TestTask1_MatchesEngine: on random logits the loss is never negative and
// agrees with −decoding.LogSoftmax, computed in float64 (within 1e-9).
//
//grade:task 1 points 1
func TestTask1_MatchesEngine(t *testing.T) {
	defer check.Recover(t)
	for i, n := range []int{3, 100, 2048} {
		z := randomLogits(uint64(40+i), n, 12)
		for _, target := range []int{0, n / 2, n - 1} {
			got, want := CrossEntropy(z, target), -decoding.LogSoftmax(z)[target]
			if !(math.Abs(got-want) <= 1e-9) || got < 0 {
				t.Errorf("CrossEntropy(%d random logits in [-12, 12), %d) = %.10g; want −decoding.LogSoftmax(z)[%d] = %.10g", n, target, got, target, want)
			}
		}
	}
}

// TestTask2_FiniteDifferences: the gradient agrees with central finite
// differences of the loss, computed by the test in float64 with a step of
// 1e-5 (within 1e-6; the differences themselves are good to about 1e-10).
//
//grade:task 2 points 2
func TestTask2_FiniteDifferences(t *testing.T) {
	defer check.Recover(t)
	const h = 1e-5
	cases := []struct {
		z      []float32
		target int
	}{
		{catLogits, 0}, {catLogits, 7},
		{randomLogits(50, 7, 4), 3}, {randomLogits(51, 30, 8), 29}, {[]float32{0.5}, 0},
	}
	for _, c := range cases {
		g := CrossEntropyGrad(c.z, c.target)
		call := fmt.Sprintf("CrossEntropyGrad(%s, %d)", name(c.z), c.target)
		if len(g) != len(c.z) {
			t.Fatalf("%s returned %d numbers (%s); want %d, one per logit", call, len(g), check.Vec(g), len(c.z))
		}
		z := to64(c.z)
		for i := range z {
			zi := z[i]
			z[i] = zi + h
			up := refLoss(z, c.target)
			z[i] = zi - h
			down := refLoss(z, c.target)
			z[i] = zi
			fd := (up - down) / (2 * h)
			if !(math.Abs(g[i]-fd) <= 1e-6) {
				t.Errorf("%s = %s: element %d is %.8g, but nudging logit %d by ±%g changes the loss at a rate of %.8g", call, check.Vec(g), i, g[i], i, h, fd)
				break
			}
		}
	}
}

// TestTask2_Shape: the gradient is softmax − onehot: on equal logits it is
// 1/V everywhere but the target, where it is 1/V − 1; it sums to 0, only the
// target's entry is negative, and it matches decoding.Softmax − onehot (within
// 1e-12). A target outside the logits gives nil.
//
//grade:task 2 points 1
func TestTask2_Shape(t *testing.T) {
	defer check.Recover(t)
	g := CrossEntropyGrad([]float32{0, 0, 0, 0}, 2)
	want := []float64{0.25, 0.25, -0.75, 0.25}
	if len(g) != 4 || slices.ContainsFunc([]int{0, 1, 2, 3}, func(i int) bool { return math.Abs(g[i]-want[i]) > 1e-12 }) {
		t.Fatalf("CrossEntropyGrad([0 0 0 0], 2) = %s; want %s", check.Vec(g), check.Vec(want))
	}
	for i, n := range []int{5, 2048} {
		z := randomLogits(uint64(60+i), n, 10)
		target := n / 3
		g := CrossEntropyGrad(z, target)
		call := fmt.Sprintf("CrossEntropyGrad(%d random logits, %d)", n, target)
		if len(g) != n {
			t.Fatalf("%s returned %d numbers; want %d", call, len(g), n)
		}
		p := decoding.Softmax(z)
		p[target]--
		sum := 0.0
		for j := range g {
			sum += g[j]
			if math.Abs(g[j]-p[j]) > 1e-12 || (j == target) != (g[j] < 0) {
				t.Fatalf("%s: element %d is %.10g; want softmax − onehot = %.10g", call, j, g[j], p[j])
			}
		}
		if math.Abs(sum) > 1e-12 {
			t.Errorf("%s sums to %.3g; want 0", call, sum)
		}
	}
	for _, target := range []int{-1, 4} {
		if g := CrossEntropyGrad([]float32{0, 0, 0, 0}, target); g != nil {
			t.Errorf("CrossEntropyGrad([0 0 0 0], %d) = %s; want nil: %d is not an index of the logits", target, check.Vec(g), target)
		}
	}
}

// TestTask2_Stable: the gradient at logits of ±1000 is exact, with no NaN
// (within 1e-12).
//
//grade:task 2 points 1
func TestTask2_Stable(t *testing.T) {
	defer check.Recover(t)
	for _, c := range []struct {
		z      []float32
		target int
		want   []float64
	}{
		{[]float32{1000, 0}, 1, []float64{1, -1}},
		{[]float32{1000, 0}, 0, []float64{0, 0}},
		{[]float32{-1000, -1000}, 0, []float64{-0.5, 0.5}},
		{[]float32{1000, 1000, -1000, 1000}, 2, []float64{1.0 / 3, 1.0 / 3, -1, 1.0 / 3}},
	} {
		g := CrossEntropyGrad(c.z, c.target)
		ok := len(g) == len(c.want)
		for i := 0; ok && i < len(g); i++ {
			ok = math.Abs(g[i]-c.want[i]) <= 1e-12
		}
		if !ok {
			t.Errorf("CrossEntropyGrad(%v, %d) = %s; want %s", c.z, c.target, check.Vec(g), check.Vec(c.want))
		}
	}
}

// TestTask3_OneStep: one step moves each logit by −lr × its gradient
// (within 1e-6, float32 rounding), in a new slice.
//
//grade:task 3 points 1
func TestTask3_OneStep(t *testing.T) {
	defer check.Recover(t)
	pe := math.E / (1 + math.E) // p of the first of [1 0]
	for _, c := range []struct {
		z      []float32
		target int
		lr     float64
		want   []float64
	}{
		{[]float32{0, 0, 0, 0}, 2, 1, []float64{-0.25, -0.25, 0.75, -0.25}},
		{[]float32{1, 0}, 1, 0.5, []float64{1 - 0.5*pe, 0.5 * pe}},
		{[]float32{1000, 0}, 1, 2, []float64{998, 2}},
		{[]float32{3, 1}, 0, 0, []float64{3, 1}},
	} {
		in := slices.Clone(c.z)
		got := SGDStep(in, c.target, c.lr)
		call := fmt.Sprintf("SGDStep(%v, %d, %g)", c.z, c.target, c.lr)
		if !slices.Equal(in, c.z) {
			t.Errorf("%s modified its input to %s; return a new slice instead", call, check.Vec(in))
		}
		ok := len(got) == len(c.want)
		for i := 0; ok && i < len(got); i++ {
			ok = math.Abs(float64(got[i])-c.want[i]) <= 1e-6
		}
		if !ok {
			t.Errorf("%s = %s; want %s", call, check.Vec(got), check.Vec(c.want))
		}
	}
	if got := SGDStep([]float32{1, 2}, 2, 0.1); got != nil {
		t.Errorf("SGDStep([1 2], 2, 0.1) = %s; want nil: 2 is not an index of the logits", check.Vec(got))
	}
}

// TestTask3_LossFalls: repeated steps toward "the" in the cat example lower
// its loss at every step and raise its probability.
//
//grade:task 3 points 1
func TestTask3_LossFalls(t *testing.T) {
	defer check.Recover(t)
	const target = 7 // "the"
	z := slices.Clone(catLogits)
	prev := refLoss(to64(z), target)
	for step := 1; step <= 20; step++ {
		next := SGDStep(z, target, 0.5)
		if len(next) != len(z) {
			t.Fatalf("SGDStep(%s, %d, 0.5) returned %d logits; want %d", check.Vec(z), target, len(next), len(z))
		}
		loss := refLoss(to64(next), target)
		if !(loss < prev) {
			t.Fatalf("step %d: SGDStep(%s, %d, 0.5) = %s, and the loss went from %.6g to %.6g; want it lower", step, check.Vec(z), target, check.Vec(next), prev, loss)
		}
		z, prev = next, loss
	}
	if p := math.Exp(-prev); p < 0.5 {
		t.Errorf("after 20 steps of lr 0.5 toward %q its probability is %.3g; want more than 0.5 (it starts at 0.0074)", "the", p)
	}
}

// TestTask3_LearnsFrequencies: a bias-only model trained by SGDStep on the
// stream a a b c (1000 passes, lr 0.05) ends up predicting the stream's
// frequencies, 1/2, 1/4, 1/4 (within 0.02), and its mean loss falls from
// ln 3 to close to their entropy, 1.5 ln 2 ≈ 1.040 nats (within 0.01).
//
//grade:task 3 points 2
func TestTask3_LearnsFrequencies(t *testing.T) {
	defer check.Recover(t)
	stream := []int{0, 0, 1, 2}
	z := []float32{0, 0, 0}
	for pass := range 1000 {
		for _, target := range stream {
			next := SGDStep(z, target, 0.05)
			if len(next) != len(z) {
				t.Fatalf("pass %d: SGDStep(%s, %d, 0.05) returned %s; want 3 logits", pass, check.Vec(z), target, check.Vec(next))
			}
			z = next
		}
	}
	p := decoding.Softmax(z)
	for i, want := range []float64{0.5, 0.25, 0.25} {
		if math.Abs(p[i]-want) > 0.02 {
			t.Errorf("after training on a a b c the logits are %s, probabilities %s; want about [0.5 0.25 0.25]", check.Vec(z), check.Vec(p))
			break
		}
	}
	loss := 0.0
	for _, target := range stream {
		loss += refLoss(to64(z), target) / float64(len(stream))
	}
	if want := 1.5 * math.Ln2; math.Abs(loss-want) > 0.01 {
		t.Errorf("after training on a a b c the mean loss is %.4g nats; want about 1.5 ln 2 = %.4g (it starts at ln 3 = %.4g)", loss, want, math.Log(3))
	}
}

// TestTask4_MeanLossByHand: the mean loss of small sequences worked out by
// hand (within 1e-9): position i is scored against tokens[i+1], an extra
// last row is ignored, and bad input is an error.
//
//grade:task 4 points 2
func TestTask4_MeanLossByHand(t *testing.T) {
	defer check.Recover(t)
	zeros := []float32{0, 0, 0, 0}
	for _, c := range []struct {
		logits [][]float32
		tokens []int
		want   float64
		why    string
	}{
		{[][]float32{zeros, zeros, zeros}, []int{0, 1, 2, 3}, math.Log(4), "ln 4: uniform over 4 tokens"},
		{[][]float32{{0, 0}, {1000, 0}}, []int{1, 1, 0}, math.Ln2 / 2, "(ln 2 + 0) / 2"},
		{[][]float32{{5, 0}, {0, 5}}, []int{0, 1, 1}, (math.Log1p(math.Exp(5)) + math.Log1p(math.Exp(-5))) / 2, "(ln(1+e⁵) + ln(1+e⁻⁵)) / 2: row i predicts tokens[i+1]"},
		{[][]float32{{5, 0}, {0, 5}, {1000, 0}}, []int{0, 1, 1}, (math.Log1p(math.Exp(5)) + math.Log1p(math.Exp(-5))) / 2, "the same: the last row predicts past the end"},
		{[][]float32{{0, 0, 0}}, []int{2, 0}, math.Log(3), "ln 3: one position"},
	} {
		got, err := MeanLoss(c.logits, c.tokens)
		if err != nil || !(math.Abs(got-c.want) <= 1e-9) {
			t.Errorf("MeanLoss(%v, %v) = %.10g, %v; want %s = %.10g, nil", c.logits, c.tokens, got, err, c.why, c.want)
		}
	}
	for _, c := range []struct {
		logits [][]float32
		tokens []int
		why    string
	}{
		{[][]float32{zeros}, []int{1}, "one token: nothing to predict"},
		{nil, nil, "no tokens"},
		{[][]float32{zeros}, []int{0, 1, 2}, "2 tokens to predict but 1 row of logits"},
		{[][]float32{zeros, zeros}, []int{0, 1, 4}, "token 4 is outside a row of 4 logits"},
	} {
		if _, err := MeanLoss(c.logits, c.tokens); err == nil {
			t.Errorf("MeanLoss(%v, %v) returned no error; want one (%s)", c.logits, c.tokens, c.why)
		}
	}
}

// TestTask4_MeanLossOnModel: the course's model reads a line of Go; the mean
// loss of its logits agrees with −ln softmax from the engine (within 1e-9)
// and with the trainer's train.Evaluate (within 1e-4 nats per token: the
// trainer's forward pass rounds differently).
//
//grade:task 4 points 2
func TestTask4_MeanLossOnModel(t *testing.T) {
	defer check.Recover(t)
	const text = "func (b *Buffer) Len() int { return len(b.buf) - b.off }"
	m, tok, err := models.Default()
	if err != nil {
		t.Fatalf("models.Default(): %v", err)
	}
	ids, err := tok.Encode(text, true, false)
	if err != nil {
		t.Fatalf("Encode(%q): %v", text, err)
	}
	rows, err := m.NewState().PrefillAll(ids, 0)
	if err != nil {
		t.Fatalf("PrefillAll: %v", err)
	}
	logits := make([][]float32, len(rows))
	want := 0.0
	for i, r := range rows {
		logits[i] = slices.Clone(r)
		if i+1 < len(ids) {
			want -= decoding.LogSoftmax(r)[ids[i+1]] / float64(len(ids)-1)
		}
	}
	got, err := MeanLoss(logits, ids)
	if err != nil || !(math.Abs(got-want) <= 1e-9) {
		t.Fatalf("MeanLoss(the model's logits on %q, its %d tokens) = %.10g, %v; want %.10g nats per token", text, len(ids), got, err, want)
	}
	res, err := train.Evaluate(m, tok, text)
	if err != nil {
		t.Fatalf("train.Evaluate: %v", err)
	}
	if math.Abs(got-res.NatsPerToken()) > 1e-4 {
		t.Errorf("MeanLoss on %q = %.6g nats per token; train.Evaluate says %.6g", text, got, res.NatsPerToken())
	}
}

// TestTask4_BitsPerByte: converting nats per token to bits per byte, by hand
// and as train.EvalResult does (within 1e-12); no bytes give NaN.
//
//grade:task 4 points 1
func TestTask4_BitsPerByte(t *testing.T) {
	defer check.Recover(t)
	for _, c := range []struct {
		nats          float64
		tokens, bytes int
		want          float64
		why           string
	}{
		{math.Log(256), 100, 100, 8, "uniform over 256 tokens, one per byte: 8 bits"},
		{math.Ln2, 1, 1, 1, "ln 2 nats is one bit"},
		{math.Ln2, 10, 40, 0.25, "10 bits over 40 bytes"},
	} {
		if got := BitsPerByte(c.nats, c.tokens, c.bytes); !(math.Abs(got-c.want) <= 1e-12) {
			t.Errorf("BitsPerByte(%.6g, %d, %d) = %.10g; want %g (%s)", c.nats, c.tokens, c.bytes, got, c.want, c.why)
		}
	}
	for _, r := range []train.EvalResult{{Bytes: 56, Tokens: 24, Nats: 38.19}, {Bytes: 40960, Tokens: 13000, Nats: 29620}} {
		if got, want := BitsPerByte(r.NatsPerToken(), r.Tokens, r.Bytes), r.BitsPerByte(); !(math.Abs(got-want) <= 1e-12) {
			t.Errorf("BitsPerByte(%.6g, %d, %d) = %.10g; want %.10g, as train.EvalResult computes it", r.NatsPerToken(), r.Tokens, r.Bytes, got, want)
		}
	}
	if got := BitsPerByte(1, 5, 0); !math.IsNaN(got) {
		t.Errorf("BitsPerByte(1, 5, 0) = %g; want NaN: there are no bytes to divide by", got)
	}
}
