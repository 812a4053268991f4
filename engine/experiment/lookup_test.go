package experiment

import (
	"github.com/tokenbytoken/course/engine/decoding"
	"github.com/tokenbytoken/course/engine/models"
	"math"
	"slices"
	"testing"
)

// TestLookupGuesses works a short text by hand. The prompt 5 6 7 8 is
// followed by 5 6 9: before the first 5 the last token, 8, never occurred
// before (no guess); before 6 the lookup finds 5 earlier, followed by 6
// (right); before 9 it finds 5 6, followed by 7 (wrong).
func TestLookupGuesses(t *testing.T) {
	logits := lateTableLM{0, 0, 0, 0, 0, float32(math.Log(2)), 0, float32(math.Log(3)), 0, 0}
	var sum float64 // the table's softmax denominator
	for _, z := range logits {
		sum += math.Exp(float64(z))
	}
	guesses, err := LookupGuesses(logits, []int{5, 6, 7, 8}, []int{5, 6, 9}, decoding.PromptLookup{})
	// (Token 9's text is a byte that is not UTF-8 on its own.)
	if err != nil {
		t.Fatal(err)
	}
	want := []LookupGuess{
		{Actual: 5, Guess: decoding.NoToken, Top: 7},
		{Actual: 6, Guess: 6, P: 1 / sum, Top: 7},
		{Actual: 9, Guess: 7, P: 3 / sum, Top: 7},
	}
	if len(guesses) != len(want) {
		t.Fatalf("%d guesses, want %d", len(guesses), len(want))
	}
	for i, g := range guesses {
		w := want[i]
		if g.Actual != w.Actual || g.Guess != w.Guess || g.Top != w.Top || math.Abs(g.P-w.P) > 1e-6 {
			t.Errorf("guess %d = %+v, want %+v", i, g, w)
		}
	}
	right, wrong, none := LookupShares(guesses)
	if math.Abs(right-1.0/3) > 1e-12 || math.Abs(wrong-1.0/3) > 1e-12 || math.Abs(none-1.0/3) > 1e-12 {
		t.Errorf("shares right %v, wrong %v, none %v; want a third each", right, wrong, none)
	}
	if _, err := LookupGuesses(logits, nil, []int{1}, decoding.PromptLookup{}); err == nil {
		t.Error("an empty prompt was accepted")
	}
	if _, err := LookupGuesses(logits, []int{1}, []int{1}, decoding.PromptLookup{MaxN: 1, MinN: 2}); err == nil {
		t.Error("MaxN 1 below MinN 2 was accepted")
	}
}

// TestFirstDrawsFollowTheTarget: prompt lookup proposes token 1 (the text
// ends with 0, earlier followed by 1), a point mass, so at temperature 1
// token 1 is kept with probability p(1) and otherwise replaced from p
// without 1. Either way the first token must follow p: the counts are
// checked against it with a chi-square test, and the target is asked once.
func TestFirstDrawsFollowTheTarget(t *testing.T) {
	p := []float64{0.1, 0.5, 0.3, 0.1}
	logits := make(lateTableLM, len(p))
	for i, v := range p {
		logits[i] = float32(math.Log(v))
	}
	counter := &passCounter{LM: logits}
	const draws = 20000
	counts, err := FirstDraws(counter, decoding.PromptLookup{}, []int{0, 1, 2, 0}, 1, draws)
	if err != nil {
		t.Fatal(err)
	}
	if counter.passes != 1 {
		t.Errorf("the target was asked %d times, want once: every draw asks the same question", counter.passes)
	}
	chi2 := 0.0
	for i, c := range counts {
		e := p[i] * draws
		chi2 += (float64(c) - e) * (float64(c) - e) / e
	}
	// 3 degrees of freedom: P(χ² > 16.27) = 0.001.
	if chi2 > 16.27 {
		t.Errorf("counts %v against p %v: χ² = %.2f, above 16.27 (p < 0.001)", counts, p, chi2)
	}
	// At temperature 0 the first token is the target's top one, always.
	counts, err = FirstDraws(logits, decoding.PromptLookup{}, []int{0, 2, 2, 0}, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	if counts[1] != 10 {
		t.Errorf("greedy first tokens %v, want token 1 ten times", counts)
	}
	if _, err := FirstDraws(logits, decoding.PromptLookup{}, []int{0}, 1, 0); err == nil {
		t.Error("0 draws were accepted")
	}
}

// TestRememberLM: a question asked again is answered from memory, with the
// same rows, and the rows kept are copies.
func TestRememberLM(t *testing.T) {
	counter := &passCounter{LM: lateTableLM{1, 2, 3}}
	r := &rememberLM{LM: counter}
	a, err := r.NextLogits([]int{0, 1}, 2)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := r.NextLogits([]int{0, 1}, 2)
	c, _ := r.NextLogits([]int{0, 1}, 1)
	if counter.passes != 2 {
		t.Errorf("%d passes for two distinct questions, one asked twice; want 2", counter.passes)
	}
	if len(a) != 2 || len(c) != 1 || !slices.Equal(a[1], b[1]) || !slices.Equal(a[0], []float32{1, 2, 3}) {
		t.Errorf("answers %v, %v, %v", a, b, c)
	}
	for i := range rememberMax + 4 {
		if _, err := r.NextLogits([]int{i}, 1); err != nil {
			t.Fatal(err)
		}
	}
	if len(r.answers) > rememberMax {
		t.Errorf("%d answers kept, more than %d", len(r.answers), rememberMax)
	}
}

// TestLookupLM: the argmax of every row is prompt lookup's guess, and
// token 0 when it has none.
func TestLookupLM(t *testing.T) {
	lm := LookupLM{Vocab: 10, Context: 32}
	seq := []int{3, 4, 5, 3, 4}
	rows, err := lm.NextLogits(seq, 3)
	if err != nil {
		t.Fatal(err)
	}
	// After 3 4 5: 5 never occurred before, no guess. After 3 4 5 3: 3
	// was followed by 4. After 3 4 5 3 4: 3 4 was followed by 5.
	for i, want := range []int{0, 4, 5} {
		if got := decoding.Argmax(rows[i]); got != want {
			t.Errorf("row %d: argmax %d, want %d", i, got, want)
		}
	}
	for _, id := range []int{1, 2, 9} {
		if rows[0][id] != rows[0][0] {
			t.Errorf("row 0 without a guess: logit of %d is %v, want all equal", id, rows[0][id])
		}
	}
	if _, err := lm.NextLogits(seq, 6); err == nil {
		t.Error("6 rows after 5 tokens were accepted")
	}
	if _, err := (LookupLM{}).NextLogits(seq, 1); err == nil {
		t.Error("a LookupLM without a vocabulary was accepted")
	}
	// It drafts for decoding.Speculation like PromptLookup itself: the same
	// tokens as the target alone.
	target := lateTableLM{0, 0, 1, 0, 0, 0, 0, 0, 0, 0}
	run, err := MeasureSpeculative(target, []int{2, 2, 2}, decoding.Options{MaxNewTokens: 8, Decoder: decoding.Speculation{Drafter: decoding.DraftLM{LM: lm}, Gamma: 3}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(run.Stats.Tokens, []int{2, 2, 2, 2, 2, 2, 2, 2}) || run.Stats.Rejected != 0 {
		t.Errorf("tokens %v with %d rejections, want eight 2s and none", run.Stats.Tokens, run.Stats.Rejected)
	}
}

// TestLookupDrawsAt: both ways draw the asked number of tokens from the
// course's model, and p is a distribution over its vocabulary.
func TestLookupDrawsAt(t *testing.T) {
	m, tok, err := models.Default()
	if err != nil {
		t.Fatal(err)
	}
	seq, err := tok.Encode("x := x + 1\nx := x", true, false)
	if err != nil {
		t.Fatal(err)
	}
	p, alone, spec, err := LookupDrawsAt(m, seq, 1, 50)
	if err != nil {
		t.Fatal(err)
	}
	sum := func(c []int) (n int) {
		for _, v := range c {
			n += v
		}
		return n
	}
	var total float64
	for _, v := range p {
		total += v
	}
	if len(p) != m.Config.VocabSize || math.Abs(total-1) > 1e-6 || sum(alone) != 50 || sum(spec) != 50 {
		t.Errorf("%d probabilities summing to %v, %d and %d draws; want %d, 1, 50 and 50", len(p), total, sum(alone), sum(spec), m.Config.VocabSize)
	}
	if _, _, _, err := LookupDrawsAt(m, seq, 0, 50); err == nil {
		t.Error("temperature 0 was accepted: there is no distribution to draw from")
	}
}
