package experiment

import (
	"github.com/tokenbytoken/course/engine/decoding"
	"github.com/tokenbytoken/course/engine/models"
	"math"
	"slices"
	"testing"
)

func TestCount(t *testing.T) {
	ids := []int{0, 4, 0, 2, 0}
	for id, want := range []int{3, 0, 1, 0, 1, 0} {
		if got := Count(ids, id); got != want {
			t.Errorf("Count(%v, %d) = %d, want %d", ids, id, got, want)
		}
	}
}

func TestRepeatedNGramRateOnLoops(t *testing.T) {
	for _, c := range []struct {
		ids  []int
		n    int
		want float64
	}{
		{[]int{1, 2, 3, 4}, 2, 0},            // 3 bigrams, all new
		{[]int{1, 2, 1, 2, 1, 2}, 2, 3. / 5}, // 12 21 12 21 12: 3 of 5 seen before
		{[]int{7, 7, 7, 7}, 1, 3. / 4},
		{[]int{1, 2, 3, 1, 2, 3, 1}, 4, 1. / 4}, // 1231 2312 3123 1231
		{[]int{1, 2}, 3, 0},                     // shorter than n
	} {
		if got := RepeatedNGramRate(c.ids, c.n); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("RepeatedNGramRate(%v, %d) = %v, want %v", c.ids, c.n, got, c.want)
		}
	}
}

func TestDistinctShare(t *testing.T) {
	if got := DistinctShare([]int{5, 5, 6, 5}); got != 0.5 {
		t.Errorf("DistinctShare = %v, want 0.5", got)
	}
	if got := DistinctShare(nil); got != 0 {
		t.Errorf("DistinctShare(nil) = %v, want 0", got)
	}
}

func TestAfterPenalties(t *testing.T) {
	logits := []float32{2, 1, -0.5, 0.5, 3, -1}
	history := []int{0, 4, 0, 2, 0}
	softmax := func(z ...float64) []float64 {
		p, sum := make([]float64, len(z)), 0.0
		for i, v := range z {
			p[i] = math.Exp(v)
			sum += p[i]
		}
		for i := range p {
			p[i] /= sum
		}
		return p
	}
	inf := math.Inf(-1)
	for _, c := range []struct {
		opts decoding.Options
		want []float64
	}{
		{decoding.Options{}, softmax(2, 1, -0.5, 0.5, 3, -1)},
		{decoding.Options{RepetitionPenalty: 2}, softmax(1, 1, -1, 0.5, 1.5, -1)},
		{decoding.Options{PresencePenalty: 1}, softmax(1, 1, -1.5, 0.5, 2, -1)},
		{decoding.Options{FrequencyPenalty: 1}, softmax(-1, 1, -1.5, 0.5, 2, -1)},
		// Only the last 2 tokens, 2 and 0, count: 4 is left alone.
		{decoding.Options{FrequencyPenalty: 1, PenaltyWindow: 2}, softmax(1, 1, -1.5, 0.5, 3, -1)},
		// The text ends with 0, followed earlier by 4 and 2.
		{decoding.Options{NoRepeatNGram: 2}, softmax(2, 1, inf, 0.5, inf, -1)},
	} {
		before := slices.Clone(logits)
		got := AfterPenalties(logits, history, c.opts)
		if !slices.Equal(logits, before) {
			t.Fatal("AfterPenalties changed the logits")
		}
		for i := range got {
			if math.Abs(got[i]-c.want[i]) > 1e-6 {
				t.Errorf("%+v: p = %v, want %v", c.opts, got, c.want)
				break
			}
		}
	}
}

func TestRankAndTopTokens(t *testing.T) {
	p := []float64{0.1, 0.4, 0.1, 0.3, 0.1}
	for id, want := range []int{3, 1, 3, 2, 3} {
		if got := Rank(p, id); got != want {
			t.Errorf("Rank(p, %d) = %d, want %d", id, got, want)
		}
	}
	if got := TopTokens(p, 3); !slices.Equal(got, []int{1, 3, 0}) {
		t.Errorf("TopTokens(p, 3) = %v, want [1 3 0]", got)
	}
	if got := TopTokens(p, 9); len(got) != 5 {
		t.Errorf("TopTokens(p, 9) has %d ids, want all 5", len(got))
	}
}

func TestFirstDifference(t *testing.T) {
	for _, c := range []struct {
		a, b []int
		want int
	}{
		{[]int{1, 2, 3}, []int{1, 2, 4}, 2},
		{[]int{1, 2, 3}, []int{1, 2, 3}, 3},
		{[]int{1, 2}, []int{1, 2, 3}, 2},
		{[]int{5}, []int{6}, 0},
	} {
		if got := FirstDifference(c.a, c.b); got != c.want {
			t.Errorf("FirstDifference(%v, %v) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

func TestContinueAndLoopStats(t *testing.T) {
	m, tok, err := models.Default()
	if err != nil {
		t.Fatal(err)
	}
	const prompt = "func (b *Buffer) Len() int {\n\t"
	out := Continue(m, tok, prompt, 20, decoding.Options{})
	if len(out) != 20 || slices.Contains(out, tok.EOS()) || slices.Contains(out, tok.BOS()) {
		t.Fatalf("Continue gave %d tokens %v; want 20, none of them the end of the text", len(out), out)
	}
	rep, dist := LoopStats(m, tok, []string{prompt, prompt}, 20, decoding.Options{})
	if rep != RepeatedNGramRate(out, 4) || dist != DistinctShare(out) {
		t.Errorf("LoopStats of the same prompt twice = %v, %v; want the prompt's own %v, %v", rep, dist, RepeatedNGramRate(out, 4), DistinctShare(out))
	}
	_, logits := NextLogits(m, tok, prompt)
	if len(logits) != m.Config.VocabSize || decoding.Argmax(logits) != out[0] {
		t.Errorf("NextLogits' favourite %d is not greedy's first token %d", decoding.Argmax(logits), out[0])
	}
	if next := NextTokenOf(tok, prompt, tok.DecodeAll(out)); next != out[0] && next != -1 {
		t.Errorf("NextTokenOf = %d, want %d (or -1)", next, out[0])
	}
}
