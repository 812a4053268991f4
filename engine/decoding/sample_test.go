package decoding

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// The logits of the course's temperature example (lesson 4).
var courseLogits = []float32{3, 2, 1, 0.5}

// stageProbs runs one sampling step with tracing and returns the distribution
// after the named stage.
func stageProbs(t *testing.T, o Options, logits []float32, history []int, stage string) []float64 {
	t.Helper()
	s, err := o.NewSampler(len(logits))
	if err != nil {
		t.Fatal(err)
	}
	_, trace, _ := s.SampleTrace(logits, history)
	for _, st := range trace {
		if st.Name == stage {
			return st.Probs
		}
	}
	t.Fatalf("no %q stage in trace %v", stage, stageNames(trace))
	return nil
}

func stageNames(trace []Stage) []string {
	var names []string
	for _, st := range trace {
		names = append(names, st.Name)
	}
	return names
}

func assertProbs(t *testing.T, what string, got, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d probabilities, want %d", what, len(got), len(want))
	}
	for i := range want {
		if math.Abs(got[i]-want[i]) > tol {
			t.Fatalf("%s: got %.4f, want %.4f (±%g)", what, got, want, tol)
		}
	}
}

func TestTemperatureCourseExample(t *testing.T) {
	// The course rounds to two decimals, so allow half a unit of rounding.
	const tol = 0.005 + 1e-9
	assertProbs(t, "T=1", stageProbs(t, Options{Temperature: 1}, courseLogits, nil, "model"),
		[]float64{0.63, 0.23, 0.09, 0.05}, tol)
	assertProbs(t, "T=0.5", stageProbs(t, Options{Temperature: 0.5}, courseLogits, nil, "temperature"),
		[]float64{0.86, 0.12, 0.02, 0.01}, tol)
	assertProbs(t, "T=2", stageProbs(t, Options{Temperature: 2}, courseLogits, nil, "temperature"),
		[]float64{0.44, 0.27, 0.16, 0.13}, tol)
}

// At T=1 the course logits give p = e^z / Σe^z ≈ [0.6308, 0.2321, 0.0854, 0.0518].
func TestTopKTopPMinP(t *testing.T) {
	const tol = 5e-4
	// Top-k 2: e^3/(e^3+e^2) = 0.7311.
	assertProbs(t, "top-k 2", stageProbs(t, Options{Temperature: 1, TopK: 2}, courseLogits, nil, "top-k"),
		[]float64{0.7311, 0.2689, 0, 0}, tol)
	// Top-p 0.8: 0.6308 ≤ 0.8 < 0.6308+0.2321, so the nucleus is {0, 1}.
	assertProbs(t, "top-p 0.8", stageProbs(t, Options{Temperature: 1, TopP: 0.8}, courseLogits, nil, "top-p"),
		[]float64{0.7311, 0.2689, 0, 0}, tol)
	// Top-p 0.9: the third token is needed to pass 0.9 (0.9482).
	assertProbs(t, "top-p 0.9", stageProbs(t, Options{Temperature: 1, TopP: 0.9}, courseLogits, nil, "top-p"),
		[]float64{0.6652, 0.2447, 0.0900, 0}, tol)
	// Min-p 0.1: threshold 0.0631 drops only the last token (0.0518).
	assertProbs(t, "min-p 0.1", stageProbs(t, Options{Temperature: 1, MinP: 0.1}, courseLogits, nil, "min-p"),
		[]float64{0.6652, 0.2447, 0.0900, 0}, tol)
	// Min-p 0.2: threshold 0.1262 also drops the third.
	assertProbs(t, "min-p 0.2", stageProbs(t, Options{Temperature: 1, MinP: 0.2}, courseLogits, nil, "min-p"),
		[]float64{0.7311, 0.2689, 0, 0}, tol)
}

func TestTopPTinyNucleus(t *testing.T) {
	// With top-p below 1/n even the best token is under llama2.c's
	// pre-sort cutoff (1-p)/(n-1); the nucleus is still the best token.
	for _, c := range []struct {
		probs []float32
		topP  float64
		want  []float32
	}{
		{[]float32{0.4, 0.6}, 0.1, []float32{0, 0.6}},
		{[]float32{1}, 0.5, []float32{1}},
	} {
		got := slices.Clone(c.probs)
		if ApplyTopP(got, c.topP); !slices.Equal(got, c.want) {
			t.Errorf("ApplyTopP(%v, %v) left %v, want %v", c.probs, c.topP, got, c.want)
		}
	}
}

// The stages that cut the tail leave the kept tokens' probabilities as
// they are, in place; the nucleus keeps the lower id of two equally
// likely tokens at its edge.
func TestApplyTopPMinPInPlace(t *testing.T) {
	for _, c := range []struct {
		name  string
		apply func([]float32)
		probs []float32
		want  []float32
	}{
		{"ApplyTopP 0.5 at a tie", func(p []float32) { ApplyTopP(p, 0.5) }, []float32{0.1, 0.3, 0.3, 0.3}, []float32{0, 0.3, 0.3, 0}},
		{"ApplyTopP 0.8", func(p []float32) { ApplyTopP(p, 0.8) }, []float32{0.05, 0.6, 0.25, 0.1}, []float32{0, 0.6, 0.25, 0}},
		{"ApplyMinP 0.2", func(p []float32) { ApplyMinP(p, 0.2) }, []float32{0.05, 0.6, 0.25, 0.1}, []float32{0, 0.6, 0.25, 0}},
		{"ApplyMinP 0", func(p []float32) { ApplyMinP(p, 0) }, []float32{0.05, 0.6, 0.25, 0.1}, []float32{0.05, 0.6, 0.25, 0.1}},
	} {
		got := slices.Clone(c.probs)
		if c.apply(got); !slices.Equal(got, c.want) {
			t.Errorf("%s of %v left %v, want %v", c.name, c.probs, got, c.want)
		}
	}
}

func TestCombinationsFollowTheDocumentedOrder(t *testing.T) {
	const tol = 5e-4
	// Top-p before min-p (HF, llama.cpp): top-p 0.9 keeps {0,1,2}; min-p 0.1
	// relative to the top token keeps all three. Had min-p run first, top-p
	// would then see [0.665, 0.245, 0.090] and keep only {0, 1}.
	o := Options{Temperature: 1, TopP: 0.9, MinP: 0.1}
	assertProbs(t, "top-p 0.9 then min-p 0.1", stageProbs(t, o, courseLogits, nil, "min-p"),
		[]float64{0.6652, 0.2447, 0.0900, 0}, tol)
	// Top-k before top-p: top-k 3 renormalises to [0.6652, 0.2447, 0.0900],
	// then top-p 0.8 needs only two tokens.
	o = Options{Temperature: 1, TopK: 3, TopP: 0.8}
	assertProbs(t, "top-k 3 then top-p 0.8", stageProbs(t, o, courseLogits, nil, "top-p"),
		[]float64{0.7311, 0.2689, 0, 0}, tol)
	// Temperature before top-p: at T=0.5 the first token alone holds 0.8618 > 0.8.
	o = Options{Temperature: 0.5, TopP: 0.8}
	assertProbs(t, "T=0.5 then top-p 0.8", stageProbs(t, o, courseLogits, nil, "top-p"),
		[]float64{1, 0, 0, 0}, tol)

	s, _ := Options{Temperature: 0.7, TopK: 3, TopP: 0.9, MinP: 0.05, RepetitionPenalty: 1.1,
		PresencePenalty: 0.1, FrequencyPenalty: 0.1, NoRepeatNGram: 3, LogitBias: map[int]float32{1: 1}}.NewSampler(4)
	_, trace, _ := s.SampleTrace(courseLogits, []int{0, 1})
	want := []string{"model", "logit bias", "repetition penalty", "presence/frequency penalty", "no-repeat n-gram", "temperature", "top-k", "top-p", "min-p"}
	if got := stageNames(trace); !slices.Equal(got, want) {
		t.Fatalf("stages %v, want %v", got, want)
	}
	for _, st := range trace {
		var sum float64
		for _, p := range st.Probs {
			sum += p
		}
		if math.Abs(sum-1) > 1e-6 {
			t.Errorf("stage %s sums to %v", st.Name, sum)
		}
	}
}

func TestPenalties(t *testing.T) {
	history := []int{0, 2, 0} // token 0 twice, token 2 once

	z := []float32{3, 2, -1, 0.5}
	ApplyRepetitionPenalty(z, history, 2)
	// Positive logits are divided, negative multiplied, once per token.
	if want := []float32{1.5, 2, -2, 0.5}; !slices.Equal(z, want) {
		t.Errorf("repetition penalty 2: got %v, want %v", z, want)
	}

	z = []float32{3, 2, 1, 0.5}
	ApplyPresenceFrequencyPenalty(z, history, 0.5, 0.25)
	// token 0: 3 - 0.5 - 2×0.25 = 2; token 2: 1 - 0.5 - 0.25 = 0.25.
	if want := []float32{2, 2, 0.25, 0.5}; !slices.Equal(z, want) {
		t.Errorf("presence 0.5, frequency 0.25: got %v, want %v", z, want)
	}

	z = []float32{3, 2, 1, 0.5}
	ApplyLogitBias(z, map[int]float32{1: 2, 3: float32(math.Inf(-1))})
	if want := []float32{3, 4, 1, banned}; !slices.Equal(z, want) {
		t.Errorf("logit bias: got %v, want %v", z, want)
	}
}

// TestPenaltyWindow checks that only the last PenaltyWindow tokens of the
// text are penalised.
func TestPenaltyWindow(t *testing.T) {
	logits := []float32{3, 2.9, 2.8, 2}
	history := []int{0, 1, 2} // the text so far; token 0 is the oldest
	pick := func(o Options) int {
		s, err := o.NewSampler(len(logits))
		if err != nil {
			t.Fatal(err)
		}
		return mustSample(t, s, logits, history...)
	}
	// Repetition penalty 2 on the whole text: 1.5, 1.45, 1.4, 2 → token 3.
	for _, w := range []int{0, 3, 10} {
		if got := pick(Options{RepetitionPenalty: 2, PenaltyWindow: w}); got != 3 {
			t.Errorf("repetition penalty, window %d (the whole text): picked %d, want 3", w, got)
		}
	}
	// Window 2 holds tokens 1 and 2 only: 3, 1.45, 1.4, 2 → token 0.
	if got := pick(Options{RepetitionPenalty: 2, PenaltyWindow: 2}); got != 0 {
		t.Errorf("repetition penalty, window 2: picked %d, want 0", got)
	}
	// Presence 1 with window 1 penalises token 2 only: the distribution
	// after the stage is softmax(3, 2.9, 1.8, 2).
	s, err := Options{PresencePenalty: 1, PenaltyWindow: 1, Temperature: 1}.NewSampler(len(logits))
	if err != nil {
		t.Fatal(err)
	}
	_, stages, _ := s.SampleTrace(logits, history)
	var got []float64
	for _, st := range stages {
		if st.Name == "presence/frequency penalty" {
			got = st.Probs
		}
	}
	want := Softmax([]float32{3, 2.9, 1.8, 2})
	if len(got) != len(want) {
		t.Fatalf("no presence/frequency stage in the trace: %v", stages)
	}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-6 {
			t.Fatalf("presence 1, window 1: %v after the penalty, want %v", got, want)
		}
	}
	if _, err := (Options{PenaltyWindow: -1}).NewSampler(4); err == nil || !strings.Contains(err.Error(), "PenaltyWindow") {
		t.Errorf("PenaltyWindow -1: error %v, want one naming PenaltyWindow", err)
	}
}

func TestNoRepeatNGram(t *testing.T) {
	for _, c := range []struct {
		n       int
		history []int
		banned  []int
	}{
		{2, []int{5, 6, 5, 7, 5}, []int{6, 7}}, // after 5 came 6 and 7
		{3, []int{1, 2, 3, 1, 2}, []int{3}},    // "1 2 3" must not repeat
		{3, []int{1, 2, 3, 2, 1}, nil},         // "2 1" was never seen before
		{1, []int{4, 0, 4}, []int{0, 4}},       // unigrams: every used token
		{4, []int{1, 2}, nil},                  // too short to hold a 4-gram prefix
		{0, []int{1, 1, 1}, nil},               // off
	} {
		z := make([]float32, 8)
		BanRepeatedNGrams(z, c.history, c.n)
		var got []int
		for id, v := range z {
			if v == banned {
				got = append(got, id)
			}
		}
		if !slices.Equal(got, c.banned) {
			t.Errorf("n=%d history %v: banned %v, want %v", c.n, c.history, got, c.banned)
		}
	}
}

func TestGreedyUsesPenaltiesButIgnoresTruncation(t *testing.T) {
	logits := []float32{3, 2.9, 1, 0.5}
	pick := func(o Options, history ...int) int {
		s, err := o.NewSampler(len(logits))
		if err != nil {
			t.Fatal(err)
		}
		return mustSample(t, s, logits, history...)
	}
	if got := pick(Options{}); got != 0 {
		t.Errorf("greedy picked %d, want 0", got)
	}
	// 3/1.2 = 2.5 < 2.9: the penalty makes greedy move on.
	if got := pick(Options{RepetitionPenalty: 1.2}, 0); got != 1 {
		t.Errorf("greedy with repetition penalty picked %d, want 1", got)
	}
	if got := pick(Options{LogitBias: map[int]float32{3: 5}}); got != 3 {
		t.Errorf("greedy with logit bias picked %d, want 3", got)
	}
	if got := pick(Options{TopK: 2, TopP: 0.5, MinP: 0.9}); got != 0 {
		t.Errorf("greedy with truncation picked %d, want 0", got)
	}
	// Bans that remove every token fall back to the model's favourite.
	if got := pick(Options{NoRepeatNGram: 1}, 0, 1, 2, 3); got != 0 {
		t.Errorf("all tokens banned: picked %d, want 0", got)
	}
}

// llama2cSample is run.c's sample(): temperature, softmax, one coin, then
// top-p (sample_topp) or plain multinomial (sample_mult), transcribed
// directly. The sampler must reproduce it token for token.
func llama2cSample(logits []float32, temperature, topp float32, rng *RNG) int {
	if temperature == 0 {
		return Argmax(logits)
	}
	p := make([]float32, len(logits))
	for i := range logits {
		p[i] = logits[i] / temperature
	}
	softmax32(p)
	coin := rng.Float32()
	if topp <= 0 || topp >= 1 {
		var cdf float32
		for i := range p {
			cdf += p[i]
			if coin < cdf {
				return i
			}
		}
		return len(p) - 1
	}
	n0 := 0
	type pi struct {
		p float32
		i int
	}
	var probindex []pi
	cutoff := (1 - topp) / float32(len(p)-1)
	for i := range p {
		if p[i] >= cutoff {
			probindex = append(probindex, pi{p[i], i})
			n0++
		}
	}
	slices.SortStableFunc(probindex, func(a, b pi) int {
		switch {
		case a.p > b.p:
			return -1
		case a.p < b.p:
			return 1
		}
		return 0
	})
	var cum float32
	last := n0 - 1
	for i := range n0 {
		cum += probindex[i].p
		if cum > topp {
			last = i
			break
		}
	}
	r := coin * cum
	var cdf float32
	for i := 0; i <= last; i++ {
		cdf += probindex[i].p
		if r < cdf {
			return probindex[i].i
		}
	}
	return probindex[last].i
}

func TestSamplerMatchesLlama2c(t *testing.T) {
	gen := NewRNG(7)
	logits := make([]float32, 512)
	for _, c := range []struct{ temp, topp float64 }{{1, 1}, {0.8, 0.9}, {1.3, 0.5}, {0.5, 0.99}, {0, 0.9}} {
		for seed := uint64(1); seed <= 5; seed++ {
			s, err := NewSampler(c.temp, c.topp, seed)
			if err != nil {
				t.Fatal(err)
			}
			ref := NewRNG(seed)
			for step := range 50 {
				for i := range logits {
					logits[i] = 6 * (gen.Float32() - 0.5)
				}
				got, want := mustSample(t, s, logits), llama2cSample(logits, float32(c.temp), float32(c.topp), ref)
				if got != want {
					t.Fatalf("T=%v top-p=%v seed %d step %d: sampler %d, llama2.c %d", c.temp, c.topp, seed, step, got, want)
				}
			}
		}
	}
}

func TestSameSeedSameTokens(t *testing.T) {
	draw := func(seed uint64) []int {
		s, err := Options{Temperature: 1, TopK: 3, TopP: 0.95, Seed: seed}.NewSampler(4)
		if err != nil {
			t.Fatal(err)
		}
		var ids []int
		for range 200 {
			ids = append(ids, mustSample(t, s, courseLogits))
		}
		return ids
	}
	a, b, c := draw(42), draw(42), draw(43)
	if !slices.Equal(a, b) {
		t.Fatal("the same seed gave different tokens")
	}
	if slices.Equal(a, c) {
		t.Fatal("seeds 42 and 43 gave the same 200 tokens")
	}
	// SampleTrace must consume the RNG exactly as Sample does.
	s, _ := Options{Temperature: 1, TopK: 3, TopP: 0.95, Seed: 42}.NewSampler(4)
	for i := range 200 {
		if id, _, _ := s.SampleTrace(courseLogits, nil); id != a[i] {
			t.Fatalf("draw %d: SampleTrace gave %d, Sample %d", i, id, a[i])
		}
	}
}

// TestSamplingFrequencies draws 20,000 tokens and compares the counts with
// the expected distribution by Pearson's chi-square test. The threshold is
// the 1e-4 upper quantile of chi-square with 3 degrees of freedom (21.11):
// a correct sampler with a random seed fails with probability 1 in 10,000.
// The seed is fixed, so the outcome here is deterministic.
func TestSamplingFrequencies(t *testing.T) {
	const draws = 20000
	const chi2Crit = 21.108 // chi-square, 3 degrees of freedom, p = 1e-4
	for _, c := range []struct {
		o    Options
		want []float64
	}{
		{Options{Temperature: 1}, []float64{0.6308, 0.2321, 0.0854, 0.0518}},
		{Options{Temperature: 2}, []float64{0.4417, 0.2679, 0.1625, 0.1280}},
		{Options{Temperature: 1, TopP: 0.9}, []float64{0.6652, 0.2447, 0.0900, 0}},
		{Options{Temperature: 1, TopK: 2}, []float64{0.7311, 0.2689, 0, 0}},
	} {
		c.o.Seed = 2024
		s, err := c.o.NewSampler(4)
		if err != nil {
			t.Fatal(err)
		}
		counts := make([]int, 4)
		for range draws {
			counts[mustSample(t, s, courseLogits)]++
		}
		var chi2 float64
		df := -1
		for i, p := range c.want {
			if p == 0 {
				if counts[i] != 0 {
					t.Errorf("%+v: token %d drawn %d times, want never", c.o, i, counts[i])
				}
				continue
			}
			e := p * draws
			chi2 += (float64(counts[i]) - e) * (float64(counts[i]) - e) / e
			df++
		}
		// Fewer categories need a smaller threshold; 21.11 is for df=3 and
		// is conservative (more lenient) for df < 3.
		if chi2 > chi2Crit {
			t.Errorf("%+v: counts %v, chi-square %.2f (df %d) > %.2f", c.o, counts, chi2, df, chi2Crit)
		}
	}
}

func TestValidationNamesSettingAndValue(t *testing.T) {
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{Temperature: -0.5}, "Temperature = -0.5"},
		{Options{Temperature: math.NaN()}, "Temperature = NaN"},
		{Options{TopP: 1.5}, "TopP = 1.5"},
		{Options{TopP: -0.1}, "TopP = -0.1"},
		{Options{TopK: -1}, "TopK = -1"},
		{Options{MinP: 2}, "MinP = 2"},
		{Options{MinP: -0.1}, "MinP = -0.1"},
		{Options{RepetitionPenalty: -1}, "RepetitionPenalty = -1"},
		{Options{PresencePenalty: math.Inf(1)}, "PresencePenalty = +Inf"},
		{Options{FrequencyPenalty: math.NaN()}, "FrequencyPenalty = NaN"},
		{Options{NoRepeatNGram: -2}, "NoRepeatNGram = -2"},
		{Options{Stop: []string{"a", ""}}, `Stop[1] = ""`},
		{Options{MaxNewTokens: -3}, "MaxNewTokens = -3"},
		{Options{TopLogProbs: -1}, "TopLogProbs = -1"},
		{Options{LogitBias: map[int]float32{600: 1}}, "LogitBias[600] = 1"},
		{Options{LogitBias: map[int]float32{3: float32(math.NaN())}}, "LogitBias[3] = NaN"},
	} {
		err := c.o.Validate(512)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Validate(%+v) = %v, want an error containing %q", c.o, err, c.want)
		}
	}
	ok := Options{Temperature: 0.8, TopP: 1, TopK: 40, MinP: 0.05, RepetitionPenalty: 1.1,
		PresencePenalty: -0.5, FrequencyPenalty: 0.5, NoRepeatNGram: 3, Stop: []string{"\n"},
		LogitBias: map[int]float32{2: float32(math.Inf(-1))}}
	if err := ok.Validate(512); err != nil {
		t.Errorf("valid options rejected: %v", err)
	}
}

// mustSample is Sample for logits and settings the test knows are fine.
func mustSample(t testing.TB, s *Sampler, logits []float32, history ...int) int {
	t.Helper()
	id, err := s.Sample(logits, history...)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// TestArgmaxMatchesPlainLoop compares Argmax with the loop it speeds up on
// vectors of every length up to 40 and of a vocabulary's size, drawn from
// a few values so that ties are common, with infinities, both zeros and
// NaN among them: the two must pick the same index every time.
func TestArgmaxMatchesPlainLoop(t *testing.T) {
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	pool := []float32{-inf, -2, -1, float32(math.Copysign(0, -1)), 0, 1, 2, inf, nan}
	rng := NewRNG(7)
	for _, n := range []int{0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 33, 40, 32000} {
		for trial := range 200 {
			x := make([]float32, n)
			// Some trials draw from the whole pool, some leave out NaN
			// or the infinities, so each kind of largest number occurs.
			kinds := len(pool) - trial%3
			for i := range x {
				x[i] = pool[rng.Uint32()%uint32(kinds)]
			}
			if got, want := Argmax(x), argmaxLoop(x); got != want {
				t.Fatalf("Argmax(%d logits, trial %d) = %d, the plain loop %d (logits %v)", n, trial, got, want, x[:min(n, 40)])
			}
		}
	}
}
