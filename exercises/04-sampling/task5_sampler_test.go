package sampling

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/decoding"
	"github.com/tokenbytoken/course/engine/models"
	"github.com/tokenbytoken/course/exercises/internal/check"
)

// logOf returns the logs of p as logits: softmax at temperature 1 gives p
// back.
func logOf(p ...float64) []float32 {
	z := make([]float32, len(p))
	for i, v := range p {
		z[i] = float32(math.Log(v))
	}
	return z
}

// describe writes a Sampler's settings as a literal, leaving out the
// filters that are off: Sampler{Temperature: 0.7, TopK: 5}.
func describe(s Sampler) string {
	parts := []string{fmt.Sprintf("Temperature: %v", s.Temperature)}
	if s.TopK != 0 {
		parts = append(parts, fmt.Sprintf("TopK: %d", s.TopK))
	}
	if s.TopP != 0 {
		parts = append(parts, fmt.Sprintf("TopP: %v", s.TopP))
	}
	if s.MinP != 0 {
		parts = append(parts, fmt.Sprintf("MinP: %v", s.MinP))
	}
	return "Sampler{" + strings.Join(parts, ", ") + "}"
}

// TestTask5_Softmax: Softmax at temperatures 1, 0.5 and 2 (the lesson's
// example), with huge logits, with -Inf, and at temperature 0 (greedy).
//
//grade:task 5 points 1
func TestTask5_Softmax(t *testing.T) {
	defer check.Recover(t)
	small := []float32{3, 2, 1, 0.5}
	for _, c := range []struct {
		temp    float64
		rounded []float64 // the lesson's figures, to two decimals
	}{
		{1, []float64{0.63, 0.23, 0.09, 0.05}},
		{0.5, []float64{0.86, 0.12, 0.02, 0.01}},
		{2, []float64{0.44, 0.27, 0.16, 0.13}},
	} {
		z := slices.Clone(small)
		decoding.ApplyTemperature(z, c.temp)
		want := f32(decoding.Softmax(z))
		got := Softmax(small, c.temp)
		if !close32(got, want, 1e-6) {
			t.Errorf("%s (about %v)", check.Mismatch(fmt.Sprintf("Softmax(%v, %v)", small, c.temp), got, want, 1e-6), c.rounded)
		}
	}
	inf := float32(math.Inf(-1))
	for _, c := range []struct {
		logits []float32
		temp   float64
		want   []float32
	}{
		{[]float32{1000, -1000, 999}, 1, []float32{0.7310586, 0, 0.2689414}},
		{[]float32{1, inf, 1}, 1, []float32{0.5, 0, 0.5}},
		{[]float32{1, 3, 3, 2}, 0, []float32{0, 1, 0, 0}}, // greedy: the lowest id of the tied largest
		{[]float32{-5, -2, -9}, 0, []float32{0, 1, 0}},
	} {
		got := Softmax(c.logits, c.temp)
		if !close32(got, c.want, 1e-6) {
			t.Error(probsMismatch(fmt.Sprintf("Softmax(%v, %v)", c.logits, c.temp), got, c.want, 1e-6, ""))
		}
	}
}

// TestTask5_Order: Distribution applies temperature, top-k, top-p and min-p
// in that order. Each case is built so that another order gives another
// answer (worked out in the comments).
//
//grade:task 5 points 2
func TestTask5_Order(t *testing.T) {
	defer check.Recover(t)
	quarters := logOf(0.4, 0.3, 0.2, 0.1) // softmax at T = 1 gives 0.4, 0.3, 0.2, 0.1 back
	cases := []struct {
		s    Sampler
		z    []float32
		want []float32
		why  string
	}{
		{Sampler{Temperature: 1}, quarters, []float32{0.4, 0.3, 0.2, 0.1}, "nothing to filter"},
		// Top-k 3 gives [4/9 3/9 2/9 0]; top-p 0.75 on that stops at
		// 4/9 + 3/9 = 0.78. Top-p first would keep three tokens (0.4 + 0.3 = 0.7 < 0.75).
		{Sampler{Temperature: 1, TopK: 3, TopP: 0.75}, quarters, []float32{4. / 7, 3. / 7, 0, 0}, "top-k before top-p"},
		// Top-p 0.75 keeps three tokens [4/9 3/9 2/9]; min-p 0.3 (bar 0.13)
		// keeps them all. Min-p first (bar 0.12) would give the same three,
		// and top-p after it would keep only two.
		{Sampler{Temperature: 1, TopP: 0.75, MinP: 0.3}, quarters, []float32{4. / 9, 3. / 9, 2. / 9, 0}, "top-p before min-p"},
		// Temperature 0.5 squares and renormalises: [16 9 4 1]/30; top-p 0.8
		// stops at 25/30 = 0.83. Top-p before temperature would keep three.
		{Sampler{Temperature: 0.5, TopP: 0.8}, quarters, []float32{16. / 25, 9. / 25, 0, 0}, "temperature before top-p"},
		{Sampler{Temperature: 0, TopK: 3, TopP: 0.5, MinP: 0.1}, []float32{1, 3, 3, 2}, []float32{0, 1, 0, 0}, "temperature 0 is greedy"},
	}
	for _, c := range cases {
		in := slices.Clone(c.z)
		got := c.s.Distribution(in)
		if !slices.Equal(in, c.z) {
			t.Errorf("Distribution changed its logits to %s; it must not modify them", check.Vec(in))
		}
		if !close32(got, c.want, 1e-5) {
			call := fmt.Sprintf("%s.Distribution(%s)", describe(c.s), check.Vec(c.z))
			t.Error(probsMismatch(call, got, c.want, 1e-5, ": "+c.why))
		}
	}
	// The same against the engine's sampler, on 12 tokens: the distribution
	// after its last stage (SampleTrace).
	z := randomLogits(12, 11)
	fails := check.NewLimit(t, 2)
	defer fails.Close()
	for _, s := range []Sampler{
		{Temperature: 0.7, TopK: 5},
		{Temperature: 1.3, TopP: 0.9},
		{Temperature: 0.8, TopK: 8, TopP: 0.85, MinP: 0.1},
		{Temperature: 2, MinP: 0.2},
	} {
		es, err := decoding.Options{Temperature: s.Temperature, TopK: s.TopK, TopP: s.TopP, MinP: s.MinP, Seed: 1}.NewSampler(len(z))
		if err != nil {
			t.Fatal(err)
		}
		_, stages, _ := es.SampleTrace(z, nil)
		want := f32(stages[len(stages)-1].Probs)
		got := s.Distribution(z)
		if !close32(got, want, 1e-5) {
			call := fmt.Sprintf("%s.Distribution(%s)", describe(s), check.Vec(z))
			fails.Errorf("%s", probsMismatch(call, got, want, 1e-5, ", as the engine's sampler"))
		}
	}
}

// TestTask5_SampleDraws: Sample draws from Distribution with one coin per
// call, and has the shape of the Pick of decoding.Decode.
//
//grade:task 5 points 1
func TestTask5_SampleDraws(t *testing.T) {
	defer check.Recover(t)
	rng := scripted(t, "Sampler{Temperature: 1, TopK: 2}.Sample, 5 times,", 0.1, 0.7, 0.5, 0.95, 0.6)
	s := &Sampler{Temperature: 1, TopK: 2, RNG: rng}
	var pick func(logits []float32) int = s.Sample
	z := logOf(0.5, 0.25, 0.125, 0.125) // top-2 gives [2/3 1/3 0 0]
	want := []int{0, 1, 0, 1, 0}
	var got []int
	for i := range want {
		got = append(got, pick(z))
		if rng.calls != i+1 {
			t.Fatalf("after %d calls of Sample, rng.Float32() was called %d times; want once per Sample", i+1, rng.calls)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("Sampler{Temperature: 1, TopK: 2}.Sample(%v) with coins %v gave %s; want %v (Draw over [0.6667 0.3333 0 0])", z, rng.vals, check.Vec(got), want)
	}
}

// TestTask5_Frequencies: over 40,000 draws with decoding.NewRNG, the share of
// each token matches the distribution the engine's sampler draws from, and
// the filtered tokens never come up.
//
//grade:task 5 points 1
func TestTask5_Frequencies(t *testing.T) {
	defer check.Recover(t)
	z := randomLogits(10, 21)
	opts := decoding.Options{Temperature: 0.8, TopK: 6, TopP: 0.9, MinP: 0.05, Seed: 1}
	es, err := opts.NewSampler(len(z))
	if err != nil {
		t.Fatal(err)
	}
	_, stages, _ := es.SampleTrace(z, nil)
	want := stages[len(stages)-1].Probs
	const n = 40000
	rng := seeded(t, 2024, fmt.Sprintf("Sample, %s times with decoding.NewRNG(2024),", check.Count(n)), 10*n)
	s := &Sampler{Temperature: 0.8, TopK: 6, TopP: 0.9, MinP: 0.05, RNG: rng}
	counts := make([]int, len(z))
	for range n {
		id := s.Sample(z)
		if id < 0 || id >= len(z) {
			t.Fatalf("Sample(%s) = %d; want a token id from 0 to %d", check.Vec(z), id, len(z)-1)
		}
		counts[id]++
	}
	if msg := binomialCheck(counts, want, n); msg != "" {
		t.Errorf("Sampler{Temperature: 0.8, TopK: 6, TopP: 0.9, MinP: 0.05} with decoding.NewRNG(2024), %d draws: %s\nwant shares %s\n(a correct implementation fails this check less than once in 10⁶ runs)",
			n, msg, check.Vec(want))
	}
}

// TestTask5_OnTheModel: on the course's model, Sample as decoding.Decode's
// pick reproduces greedy decoding at temperature 0, and, with temperature
// and top-k only, the engine's own sampler with the same seed token for token
// (both then draw in token-id order with one coin per step).
//
//grade:task 5 points 1
func TestTask5_OnTheModel(t *testing.T) {
	defer check.Recover(t)
	m, tok, err := models.Default()
	if err != nil {
		t.Fatal(err)
	}
	prompt, err := tok.Encode("func (b *Buffer) Len() int {\n\treturn", true, false)
	if err != nil {
		t.Fatal(err)
	}
	lm := engine.NewModelLM(m, 1)
	run := func(pick func([]float32) int) ([]int, error) {
		var ids []int
		for step, err := range decoding.Decode(context.Background(), lm, prompt, decoding.Options{MaxNewTokens: 30, Decoder: decoding.Pick(pick), IsEnd: tok.IsEnd}) {
			id := step.ID
			if err != nil {
				return ids, err
			}
			ids = append(ids, id)
		}
		return ids, nil
	}
	compare := func(what string, mine *Sampler, ref func([]float32) int) {
		want, err := run(ref)
		if err != nil {
			t.Fatal(err)
		}
		got, err := run(mine.Sample)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: decoding.Decode with your Sample generated %q;\nwant %q\nids: %s",
				what, tok.DecodeAll(got), tok.DecodeAll(want), check.Diff(got, want, 0))
		}
	}
	compare("temperature 0", &Sampler{RNG: seeded(t, 1, "decoding.Decode with your Sample at temperature 0, for 30 tokens,", 300)}, decoding.Argmax)
	opts := decoding.Options{Temperature: 0.8, TopK: 40, Seed: 7}
	es, err := opts.NewSampler(m.Config.VocabSize)
	if err != nil {
		t.Fatal(err)
	}
	compare(fmt.Sprintf("temperature %v, top-k %d, seed %d", opts.Temperature, opts.TopK, opts.Seed),
		&Sampler{Temperature: 0.8, TopK: 40, RNG: seeded(t, 7, "decoding.Decode with your Sample at temperature 0.8, top-k 40, for 30 tokens,", 300)}, func(l []float32) int { id, _ := es.Sample(l); return id })
}
