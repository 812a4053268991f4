package beam

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

// tableLM is a hand-built language model for the tests. rows gives the
// next-token probabilities after a whole prefix (prompt included), keyed by
// key(prefix...); a token missing from a row has probability 0 (its logit
// is −Inf, as after a top-k filter). A prefix missing from rows gets
// fallback. The logits are the logs of the probabilities, so
// log softmax(logits) gives the probabilities back.
type tableLM struct {
	vocab, context int
	rows           map[string]map[int]float64
	fallback       map[int]float64
	calls          int // NextLogits calls so far
	budget         *check.Budget
}

// searchHint says what bounds a search's model calls, for a budget's
// message.
const searchHint = "a search asks the model once per live beam at each step (or once per step for all of them), for at most MaxNewTokens steps, and LogProb once per token: does your loop stop when no beam is live, after MaxNewTokens steps and when the context is full?"

// calling starts m's budget for one call of the code under test, doing
// (as the failure messages write it), which may ask it max times, and
// returns m.
func (m *tableLM) calling(doing string, max int) *tableLM {
	m.budget.For(doing, max, searchHint)
	return m
}

// boundedLM is a model, such as the course's, whose questions a budget
// bounds.
type boundedLM struct {
	LM
	budget *check.Budget
}

func (m boundedLM) NextLogits(prefix []int, n int) ([][]float32, error) {
	m.budget.Spend()
	return m.LM.NextLogits(prefix, n)
}

// bounded wraps lm for the call doing, which may ask it max times.
func bounded(t *testing.T, lm LM, doing string, max int) LM {
	return boundedLM{lm, check.NewBudget(t, "the model's NextLogits").For(doing, max, searchHint)}
}

func key(ids ...int) string { return fmt.Sprint(ids) }

func (m *tableLM) VocabSize() int     { return m.vocab }
func (m *tableLM) ContextLength() int { return m.context }

func (m *tableLM) NextLogits(prefix []int, n int) ([][]float32, error) {
	m.budget.Spend()
	m.calls++
	if n < 1 || n > len(prefix) {
		return nil, fmt.Errorf("NextLogits(%v, %d): need 1 ≤ n ≤ len(prefix)", prefix, n)
	}
	if len(prefix) > m.context {
		return nil, fmt.Errorf("NextLogits: prefix of %d tokens is longer than the context of %d", len(prefix), m.context)
	}
	out := make([][]float32, n)
	for i := range out {
		p := prefix[:len(prefix)-n+1+i]
		row, ok := m.rows[key(p...)]
		if !ok {
			row = m.fallback
		}
		logits := make([]float32, m.vocab)
		for id := range logits {
			logits[id] = float32(math.Log(row[id]))
		}
		out[i] = logits
	}
	return out, nil
}

// The words tree of notebook 09, with an end-of-text token: greedy takes
// " nice" (0.5) and ends at "The nice woman" (0.5 × 0.4 = 0.20); a beam of
// 2 keeps " dog" (0.4) too and finds "The dog has" (0.4 × 0.9 = 0.36).
// Every sequence of two words is then followed by the end token.
const (
	bos = iota
	eot
	nice
	dog
	car
	woman
	house
	guy
	has
	runs
	is
	drives
	ta // a and b are the tokens of the length tree below
	tb
)

var wordNames = []string{"<s>", "</s>", " nice", " dog", " car", " woman", " house", " guy", " has", " runs", " is", " drives", " a", " b"}

func words(ids []int) string {
	var b strings.Builder
	b.WriteString("[")
	for i, id := range ids {
		if i > 0 {
			b.WriteString(",")
		}
		if id >= 0 && id < len(wordNames) {
			b.WriteString(wordNames[id])
		} else {
			fmt.Fprintf(&b, "%d", id)
		}
	}
	b.WriteString("]")
	return b.String()
}

func isEOT(id int) bool { return id == eot }

// The hand-built models are small: a correct search of them asks a few
// dozen questions at most, and their budgets allow 100 in each test, or in
// each call the test names with calling.

func wordsLM(t *testing.T) *tableLM {
	return &tableLM{
		budget: check.NewBudget(t, "the model's NextLogits").For("your code (in "+t.Name()+")", 100, searchHint),
		vocab:  len(wordNames), context: 16,
		rows: map[string]map[int]float64{
			key(bos):       {nice: 0.5, dog: 0.4, car: 0.1},
			key(bos, nice): {woman: 0.4, house: 0.3, guy: 0.3},
			key(bos, dog):  {has: 0.9, runs: 0.1},
			key(bos, car):  {is: 0.5, drives: 0.5},
		},
		fallback: map[int]float64{eot: 1},
	}
}

// The length tree, over tokens <s>, </s>, a, b: ending at once has
// probability 0.4; "a b </s>" has 0.6 × 0.6 × 1 = 0.36 and "a </s>" 0.24.
// Raw log-probability prefers the short "</s>"; a length penalty of 1
// prefers "a b </s>".
func lengthLM(t *testing.T) *tableLM {
	return &tableLM{
		budget: check.NewBudget(t, "the model's NextLogits").For("your code (in "+t.Name()+")", 100, searchHint),
		vocab:  len(wordNames), context: 16,
		rows: map[string]map[int]float64{
			key(bos):     {eot: 0.4, ta: 0.6},
			key(bos, ta): {tb: 0.6, eot: 0.4},
			// the same tree again after the prompt [<s> b], with the
			// end token less likely than two tokens: for Step's tests
			key(bos, tb): {ta: 0.5, tb: 0.3, eot: 0.2},
			// and one where the end token is the likeliest
			key(bos, tb, tb): {eot: 0.5, ta: 0.3, tb: 0.2},
		},
		fallback: map[int]float64{eot: 1},
	}
}

func near(a, b, tol float64) bool {
	if math.IsInf(a, 0) || math.IsInf(b, 0) {
		return a == b
	}
	return math.Abs(a-b) <= tol
}

// beamsString formats beams for messages, the first few of a long list.
func beamsString(bs []Beam) string {
	return braces(len(bs), "beams", func(i int) string { return fmt.Sprintf("%s %.4g", words(bs[i].Tokens), bs[i].LogProb) })
}

// braces writes n items as {a; b; c}, and only the first five and the
// count when there are more than six.
func braces(n int, noun string, item func(i int) string) string {
	var parts []string
	for i := range n {
		if i == 5 && n > 6 {
			parts = append(parts, fmt.Sprintf("… %d %s", n, noun))
			break
		}
		parts = append(parts, item(i))
	}
	return "{" + strings.Join(parts, "; ") + "}"
}

// wantBeams checks beams against tokens and probabilities (not logs).
func wantBeams(t *testing.T, call, what string, got []Beam, tokens [][]int, probs []float64) {
	t.Helper()
	want := make([]Beam, len(tokens))
	for i := range tokens {
		want[i] = Beam{Tokens: tokens[i], LogProb: math.Log(probs[i])}
	}
	ok := len(got) == len(want)
	for i := 0; ok && i < len(got); i++ {
		ok = slices.Equal(got[i].Tokens, want[i].Tokens) && near(got[i].LogProb, want[i].LogProb, 1e-6)
	}
	if !ok {
		t.Errorf("%s: %s = %s; want %s (log-probabilities to 1e-6, best first)", call, what, beamsString(got), beamsString(want))
	}
}

// TestTask1_Score: the length-normalised score, computed by hand.
//
//grade:task 1 points 1
func TestTask1_Score(t *testing.T) {
	defer check.Recover(t)
	cases := []struct {
		logProb float64
		length  int
		alpha   float64
		want    float64
	}{
		{-2, 7, 0, -2},                   // α = 0: the log-probability itself
		{-2, 7, 1, -1},                   // (5+7)/6 = 2
		{-3, 13, 0.5, -3 / math.Sqrt(3)}, // (5+13)/6 = 3
		{-2, 7, -1, -4},                  // α < 0 multiplies
		{-1.5, 1, 2, -1.5},               // length 1: the normaliser is 1
		{-0.9, 19, 0.6, -0.9 / math.Pow(4, 0.6)},
	}
	for _, c := range cases {
		if got := Score(c.logProb, c.length, c.alpha); !near(got, c.want, 1e-9) {
			t.Errorf("Score(%g, %d, %g) = %.6g; want %.6g = %g / ((5+%d)/6)^%g", c.logProb, c.length, c.alpha, got, c.want, c.logProb, c.length, c.alpha)
		}
	}
}

// TestTask1_LogProb: log-probabilities of continuations on the words tree.
//
//grade:task 1 points 2
func TestTask1_LogProb(t *testing.T) {
	defer check.Recover(t)
	cases := []struct {
		prompt, cont []int
		want         float64
	}{
		{[]int{bos}, []int{dog}, math.Log(0.4)},
		{[]int{bos}, []int{dog, has}, math.Log(0.4 * 0.9)},
		{[]int{bos}, []int{nice, woman, eot}, math.Log(0.5 * 0.4 * 1)},
		{[]int{bos, car}, []int{drives, eot}, math.Log(0.5)},
		{[]int{bos}, []int{nice, has}, math.Inf(-1)}, // " has" never follows " nice"
		{[]int{bos}, nil, 0},
	}
	for _, c := range cases {
		got, err := LogProb(wordsLM(t), c.prompt, c.cont)
		if err != nil {
			t.Errorf("LogProb(lm, %s, %s) returned error %v; want %.6g", words(c.prompt), words(c.cont), err, c.want)
			continue
		}
		if !near(got, c.want, 1e-6) {
			t.Errorf("LogProb(lm, %s, %s) = %.6g; want %.6g", words(c.prompt), words(c.cont), got, c.want)
		}
	}
}

// TestTask1_LogProbErrors: an empty prompt, a token outside the vocabulary
// and a sequence longer than the context are errors.
//
//grade:task 1 points 1
func TestTask1_LogProbErrors(t *testing.T) {
	defer check.Recover(t)
	if got, err := LogProb(wordsLM(t), []int{bos}, []int{dog, has}); err != nil || !near(got, math.Log(0.36), 1e-6) {
		t.Fatalf("LogProb(lm, [<s>], [dog has]) = %.6g, %v; want %.6g, nil", got, err, math.Log(0.36))
	}
	short := wordsLM(t)
	short.context = 2
	cases := []struct {
		name         string
		lm           *tableLM
		prompt, cont []int
	}{
		{"an empty prompt", wordsLM(t), nil, []int{dog}},
		{"token 14 in a vocabulary of 14", wordsLM(t), []int{bos}, []int{dog, 14}},
		{"token -1", wordsLM(t), []int{bos}, []int{-1}},
		{"three tokens in a context of 2", short, []int{bos}, []int{dog, has, eot}},
	}
	for _, c := range cases {
		if got, err := LogProb(c.lm, c.prompt, c.cont); err == nil {
			t.Errorf("LogProb with %s (prompt %v, continuation %v) = %.4g, nil; want an error", c.name, c.prompt, c.cont, got)
		}
	}
}

// courseModel loads the course's embedded model and tokenizer.
func courseModel(t *testing.T) (*engine.Model, *engine.Tokenizer) {
	t.Helper()
	m, tok, err := models.Default()
	if err != nil {
		t.Fatalf("models.Default(): %v", err)
	}
	return m, tok
}

func encode(t *testing.T, tok *engine.Tokenizer, text string) []int {
	t.Helper()
	ids, err := tok.Encode(text, true, false)
	if err != nil {
		t.Fatalf("Encode(%q): %v", text, err)
	}
	return ids
}

// TestTask1_LogProbCourseModel: on the course's model, LogProb equals the
// sum of the engine's per-token log-probabilities.
//
//grade:task 1 points 1
func TestTask1_LogProbCourseModel(t *testing.T) {
	defer check.Recover(t)
	m, tok := courseModel(t)
	prompt := encode(t, tok, "func (b *Buffer) Len() int {")
	cont := encode(t, tok, "\n\treturn len(b.buf)\n}")[1:] // without BOS
	var want float64
	seq := slices.Clone(prompt)
	lm := engine.NewModelLM(m, 1)
	for _, id := range cont {
		rows, err := lm.NextLogits(seq, 1)
		if err != nil {
			t.Fatal(err)
		}
		want += decoding.LogProbOf(rows[0], id)
		seq = append(seq, id)
	}
	got, err := LogProb(bounded(t, engine.NewModelLM(m, 1), "LogProb(course model, …)", len(cont)+10), prompt, cont)
	if err != nil || !near(got, want, 1e-4) {
		t.Errorf("LogProb(course model, %q, %q) = %.6g, %v; want %.6g (the engine's, to 1e-4)",
			"func (b *Buffer) Len() int {", "\n\treturn len(b.buf)\n}", got, err, want)
	}
}

// TestTask2_FirstStep: from the empty beam, one model call, and the two
// likeliest first words.
//
//grade:task 2 points 1
func TestTask2_FirstStep(t *testing.T) {
	defer check.Recover(t)
	lm := wordsLM(t)
	live, ended, err := Step(lm, []int{bos}, []Beam{{}}, 2, isEOT)
	if err != nil {
		t.Fatalf("Step(words, [<s>], [empty beam], 2) returned error %v", err)
	}
	call := "Step(words, [<s>], [empty beam], width 2)"
	wantBeams(t, call, "live", live, [][]int{{nice}, {dog}}, []float64{0.5, 0.4})
	if len(ended) != 0 {
		t.Errorf("%s: ended = %s; want none", call, beamsString(ended))
	}
	if lm.calls != 1 {
		t.Errorf("%s called NextLogits %d times; want 1 (one call per beam)", call, lm.calls)
	}
}

// TestTask2_RanksAllBeamsTogether: the candidates of every beam are ranked
// together by total log-probability; " dog has" (0.36) overtakes " nice
// woman" (0.20); with width 3, " nice house" and " nice guy" tie at 0.15 and
// the lexicographically smaller (house, id 6) wins.
//
//grade:task 2 points 2
func TestTask2_RanksAllBeamsTogether(t *testing.T) {
	defer check.Recover(t)
	lm := wordsLM(t)
	beams := []Beam{{Tokens: []int{nice}, LogProb: math.Log(0.5)}, {Tokens: []int{dog}, LogProb: math.Log(0.4)}}
	live, ended, err := Step(lm, []int{bos}, beams, 2, isEOT)
	call := "Step(words, [<s>], " + beamsString(beams) + ", width 2)"
	if err != nil {
		t.Fatalf("%s returned error %v", call, err)
	}
	wantBeams(t, call, "live", live, [][]int{{dog, has}, {nice, woman}}, []float64{0.36, 0.2})
	if len(ended) != 0 {
		t.Errorf("%s: ended = %s; want none", call, beamsString(ended))
	}
	if lm.calls != 2 {
		t.Errorf("%s called NextLogits %d times; want 2 (one call per beam)", call, lm.calls)
	}

	beams = append(beams, Beam{Tokens: []int{car}, LogProb: math.Log(0.1)})
	live, _, err = Step(wordsLM(t), []int{bos}, beams, 3, isEOT)
	call = "Step(words, [<s>], " + beamsString(beams) + ", width 3)"
	if err != nil {
		t.Fatalf("%s returned error %v", call, err)
	}
	wantBeams(t, call, "live", live, [][]int{{dog, has}, {nice, woman}, {nice, house}}, []float64{0.36, 0.2, 0.15})
}

// TestTask2_EndedCandidates: a candidate ending the text is set aside if it
// ranks within the width, and takes a place in the ranking but not among the
// live beams; ranked below the width it is dropped.
//
//grade:task 2 points 2
func TestTask2_EndedCandidates(t *testing.T) {
	defer check.Recover(t)
	// After [<s> b b]: </s> 0.5, a 0.3, b 0.2.
	prompt := []int{bos, tb, tb}
	for _, width := range []int{1, 2} {
		live, ended, err := Step(lengthLM(t), prompt, []Beam{{}}, width, isEOT)
		call := fmt.Sprintf("Step(lm, %v, [empty beam], width %d) after which </s> 0.5, a 0.3, b 0.2", prompt, width)
		if err != nil {
			t.Fatalf("%s returned error %v", call, err)
		}
		wantBeams(t, call, "ended", ended, [][]int{{eot}}, []float64{0.5})
		if width == 1 {
			wantBeams(t, call, "live", live, [][]int{{ta}}, []float64{0.3})
		} else {
			wantBeams(t, call, "live", live, [][]int{{ta}, {tb}}, []float64{0.3, 0.2})
		}
	}
	// After [<s> b]: a 0.5, b 0.3, </s> 0.2: the end token ranks third.
	prompt = []int{bos, tb}
	live, ended, err := Step(lengthLM(t), prompt, []Beam{{}}, 2, isEOT)
	call := fmt.Sprintf("Step(lm, %v, [empty beam], width 2) after which a 0.5, b 0.3, </s> 0.2", prompt)
	if err != nil {
		t.Fatalf("%s returned error %v", call, err)
	}
	wantBeams(t, call, "live", live, [][]int{{ta}, {tb}}, []float64{0.5, 0.3})
	if len(ended) != 0 {
		t.Errorf("%s: ended = %s; want none: </s> ranks third, below the width", call, beamsString(ended))
	}
}

// TestTask2_NewSlices: candidates of one beam do not share memory, even when
// the beam's Tokens has spare capacity (appending to it in place would make
// them overwrite each other).
//
//grade:task 2 points 1
func TestTask2_NewSlices(t *testing.T) {
	defer check.Recover(t)
	tokens := make([]int, 1, 8)
	tokens[0] = nice
	beams := []Beam{{Tokens: tokens, LogProb: math.Log(0.5)}}
	live, _, err := Step(wordsLM(t), []int{bos}, beams, 3, isEOT)
	call := "Step(words, [<s>], {[ nice] with spare capacity}, width 3)"
	if err != nil {
		t.Fatalf("%s returned error %v", call, err)
	}
	wantBeams(t, call, "live", live, [][]int{{nice, woman}, {nice, house}, {nice, guy}}, []float64{0.2, 0.15, 0.15})
	if len(live) == 3 && len(live[0].Tokens) > 0 && len(live[1].Tokens) > 0 {
		live[0].Tokens[0] = car
		if live[1].Tokens[0] != nice || tokens[0] != nice {
			t.Errorf("%s: changing live[0].Tokens changed another beam's tokens; build each candidate's Tokens in a new slice", call)
		}
	}
}

// hypString formats hypotheses for messages, the first few of a long list.
func hypString(hs []Hypothesis) string {
	return braces(len(hs), "hypotheses", func(i int) string {
		h := hs[i]
		return fmt.Sprintf("%s log p %.4g score %.4g ended %v", words(h.Tokens), h.LogProb, h.Score, h.Ended)
	})
}

type wantHyp struct {
	tokens []int
	prob   float64
	ended  bool
}

// wantHyps checks hypotheses: tokens, log-probability, score and Ended.
func wantHyps(t *testing.T, call string, got []Hypothesis, alpha float64, want []wantHyp) {
	t.Helper()
	ok := len(got) == len(want)
	wants := make([]Hypothesis, len(want))
	for i, w := range want {
		lp := math.Log(w.prob)
		wants[i] = Hypothesis{Tokens: w.tokens, LogProb: lp, Score: lp / math.Pow((5+float64(len(w.tokens)))/6, alpha), Ended: w.ended}
		if ok {
			g := got[i]
			ok = slices.Equal(g.Tokens, w.tokens) && near(g.LogProb, lp, 1e-6) && near(g.Score, wants[i].Score, 1e-6) && g.Ended == w.ended
		}
	}
	if !ok {
		t.Errorf("%s = %s; want %s (best first, numbers to 1e-6)", call, hypString(got), hypString(wants))
	}
}

// TestTask3_BeamBeatsGreedy: on the words tree, width 1 follows greedy to
// "The nice woman" (0.20), width 2 finds "The dog has" (0.36), and width 3
// keeps three hypotheses.
//
//grade:task 3 points 2
func TestTask3_BeamBeatsGreedy(t *testing.T) {
	defer check.Recover(t)
	run := func(width int) []Hypothesis {
		lm := wordsLM(t).calling(fmt.Sprintf("Search(words, [<s>], width %d, max 5)", width), 100)
		hs, err := Search(lm, []int{bos}, Options{Width: width, MaxNewTokens: 5, IsEnd: isEOT})
		if err != nil {
			t.Fatalf("Search(words, width %d) returned error %v", width, err)
		}
		return hs
	}
	wantHyps(t, "Search(words, [<s>], width 1, max 5)", run(1), 0, []wantHyp{
		{[]int{nice, woman, eot}, 0.2, true},
	})
	wantHyps(t, "Search(words, [<s>], width 2, max 5)", run(2), 0, []wantHyp{
		{[]int{dog, has, eot}, 0.36, true},
		{[]int{nice, woman, eot}, 0.2, true},
	})
	wantHyps(t, "Search(words, [<s>], width 3, max 5)", run(3), 0, []wantHyp{
		{[]int{dog, has, eot}, 0.36, true},
		{[]int{nice, woman, eot}, 0.2, true},
		{[]int{nice, house, eot}, 0.15, true},
	})
}

// TestTask3_LengthPenalty: on the length tree, raw log-probability prefers
// ending at once (0.4 > 0.36); a length penalty of 1 prefers "a b </s>":
// log 0.36 / (8/6) = −0.766 beats log 0.4 / 1 = −0.916; a penalty of −1
// multiplies instead: log 0.36 × (8/6) = −1.362. Width 1 is greedy and takes
// "a b </s>".
//
//grade:task 3 points 2
func TestTask3_LengthPenalty(t *testing.T) {
	defer check.Recover(t)
	run := func(width int, alpha float64) []Hypothesis {
		lm := lengthLM(t).calling(fmt.Sprintf("Search(length tree, [<s>], width %d, max 5, α %g)", width, alpha), 100)
		hs, err := Search(lm, []int{bos}, Options{Width: width, MaxNewTokens: 5, LengthPenalty: alpha, IsEnd: isEOT})
		if err != nil {
			t.Fatalf("Search(length tree, width %d, α %g) returned error %v", width, alpha, err)
		}
		return hs
	}
	short := wantHyp{[]int{eot}, 0.4, true}
	long := wantHyp{[]int{ta, tb, eot}, 0.36, true}
	wantHyps(t, "Search(length tree, [<s>], width 2, max 5, α 0)", run(2, 0), 0, []wantHyp{short, long})
	wantHyps(t, "Search(length tree, [<s>], width 2, max 5, α 1)", run(2, 1), 1, []wantHyp{long, short})
	wantHyps(t, "Search(length tree, [<s>], width 2, max 5, α −1)", run(2, -1), -1, []wantHyp{short, long})
	wantHyps(t, "Search(length tree, [<s>], width 1, max 5, α 0)", run(1, 0), 0, []wantHyp{long})
}

// TestTask3_MaxLength: without an end token, the search stops at
// MaxNewTokens, or where the context is full, and the live beams become
// hypotheses with Ended false.
//
//grade:task 3 points 1
func TestTask3_MaxLength(t *testing.T) {
	defer check.Recover(t)
	want := []wantHyp{{[]int{dog, has}, 0.36, false}, {[]int{nice, woman}, 0.2, false}}
	hs, err := Search(wordsLM(t).calling("Search(words, [<s>], width 2, max 2, α 0.6, no end token)", 100), []int{bos}, Options{Width: 2, MaxNewTokens: 2, LengthPenalty: 0.6})
	if err != nil {
		t.Fatalf("Search(words, width 2, max 2, α 0.6) returned error %v", err)
	}
	wantHyps(t, "Search(words, [<s>], width 2, max 2, α 0.6, no end token)", hs, 0.6, want)
	small := wordsLM(t)
	small.context = 3
	hs, err = Search(small.calling("Search(words with a context of 3, [<s>], width 2, max 5, α 0.6)", 100), []int{bos}, Options{Width: 2, MaxNewTokens: 5, LengthPenalty: 0.6, IsEnd: isEOT})
	if err != nil {
		t.Fatalf("Search(words with a context of 3, width 2, max 5) returned error %v", err)
	}
	wantHyps(t, "Search(words with a context of 3, [<s>], width 2, max 5, α 0.6): room for 2 tokens", hs, 0.6, want)
}

// TestTask3_Errors: impossible settings are errors, not empty results.
//
//grade:task 3 points 1
func TestTask3_Errors(t *testing.T) {
	defer check.Recover(t)
	ok := Options{Width: 2, MaxNewTokens: 5, IsEnd: isEOT}
	if hs, err := Search(wordsLM(t), []int{bos}, ok); err != nil || len(hs) == 0 {
		t.Fatalf("Search(words, width 2, max 5) = %s, %v; want hypotheses and no error", hypString(hs), err)
	}
	full := []int{bos, nice, woman, eot, bos, dog, has, eot, bos, car, is, eot, bos, nice, guy, eot}
	cases := []struct {
		name   string
		prompt []int
		opts   Options
	}{
		{"width 0", []int{bos}, Options{Width: 0, MaxNewTokens: 5}},
		{"max new tokens 0", []int{bos}, Options{Width: 2, MaxNewTokens: 0}},
		{"length penalty NaN", []int{bos}, Options{Width: 2, MaxNewTokens: 5, LengthPenalty: math.NaN()}},
		{"length penalty +Inf", []int{bos}, Options{Width: 2, MaxNewTokens: 5, LengthPenalty: math.Inf(1)}},
		{"an empty prompt", nil, Options{Width: 2, MaxNewTokens: 5}},
		{"a prompt filling the context of 16", full, Options{Width: 2, MaxNewTokens: 5}},
	}
	for _, c := range cases {
		if hs, err := Search(wordsLM(t), c.prompt, c.opts); err == nil {
			t.Errorf("Search with %s = %s, nil; want an error", c.name, hypString(hs))
		}
	}
}

// TestTask4_MatchesEngine: on the course's model, your search returns the
// same hypotheses as decoding.Beam, for widths 1 to 3, with and without
// a length penalty, on a prompt whose continuation ends and one cut at the
// length limit.
//
//grade:task 4 points 2
func TestTask4_MatchesEngine(t *testing.T) {
	defer check.Recover(t)
	m, tok := courseModel(t)
	fails := check.NewLimit(t, 4)
	defer fails.Close()
	for _, text := range []string{"func (b *Buffer) Len() int {", "for i := 0; i < len(s); i++ {"} {
		prompt := encode(t, tok, text)
		for width := 1; width <= 3; width++ {
			for _, alpha := range []float64{0, 1} {
				ref, err := engineBeamSearch(engine.NewModelLM(m, 2*width), prompt, decoding.Options{MaxNewTokens: 10, IsEnd: tok.IsEnd, Decoder: decoding.Beam{Width: width, LengthPenalty: alpha}})
				if err != nil {
					t.Fatal(err)
				}
				call := fmt.Sprintf("Search(course model, %q, width %d, max 10, α %g)", text, width, alpha)
				got, err := Search(bounded(t, engine.NewModelLM(m, 2*width), call, 3*10*width+10), prompt, Options{Width: width, MaxNewTokens: 10, LengthPenalty: alpha, IsEnd: tok.IsEnd})
				if err != nil {
					t.Fatalf("%s returned error %v", call, err)
				}
				if len(got) != len(ref.Hypotheses) {
					fails.Errorf("%s returned %d hypotheses; want %d, as decoding.Beam", call, len(got), len(ref.Hypotheses))
					continue
				}
				for i, h := range got {
					r := ref.Hypotheses[i]
					if !slices.Equal(h.Tokens, r.Tokens) || !near(h.LogProb, r.CumLogProb, 1e-4) || !near(h.Score, r.Score, 1e-4) || h.Ended != r.Ended {
						fails.Errorf("%s: hypothesis %d = %q %s, log p %.6g, score %.6g, ended %v;\ndecoding.Beam's is %q %s, log p %.6g, score %.6g, ended %v",
							call, i, tok.DecodeAll(h.Tokens), check.Vec(h.Tokens), h.LogProb, h.Score, h.Ended,
							tok.DecodeAll(r.Tokens), check.Vec(r.Tokens), r.CumLogProb, r.Score, r.Ended)
					}
				}
			}
		}
	}
}

// TestTask4_WidthOneIsGreedy: on the course's model, width 1 without a
// length penalty returns exactly the greedy continuation.
//
//grade:task 4 points 1
func TestTask4_WidthOneIsGreedy(t *testing.T) {
	defer check.Recover(t)
	m, tok := courseModel(t)
	for _, text := range []string{"func (b *Buffer) Len() int {", "// Copyright"} {
		prompt := encode(t, tok, text)
		var greedy []int
		for step, err := range decoding.Decode(context.Background(), engine.NewModelLM(m, 1), prompt, decoding.Options{MaxNewTokens: 20, IsEnd: tok.IsEnd}) {
			id := step.ID
			if err != nil {
				t.Fatal(err)
			}
			greedy = append(greedy, id)
		}
		hs, err := Search(bounded(t, engine.NewModelLM(m, 2), fmt.Sprintf("Search(course model, %q, width 1, max 20)", text), 3*20+10), prompt, Options{Width: 1, MaxNewTokens: 20, IsEnd: tok.IsEnd})
		if err != nil || len(hs) == 0 {
			t.Fatalf("Search(course model, %q, width 1, max 20) = %d hypotheses, %v; want 1", text, len(hs), err)
		}
		if !slices.Equal(hs[0].Tokens, greedy) {
			t.Errorf("Search(course model, %q, width 1, max 20) = %q %s; want greedy's %q %s",
				text, tok.DecodeAll(hs[0].Tokens), check.Vec(hs[0].Tokens), tok.DecodeAll(greedy), check.Vec(greedy))
		}
	}
}

// TestTask4_ScoresAgreeWithLogProb: every hypothesis's LogProb is what your
// LogProb gives its tokens, and its Score follows from it.
//
//grade:task 4 points 1
func TestTask4_ScoresAgreeWithLogProb(t *testing.T) {
	defer check.Recover(t)
	m, tok := courseModel(t)
	text := "for i := 0; i < len(s); i++ {"
	prompt := encode(t, tok, text)
	const alpha = 0.6
	hs, err := Search(bounded(t, engine.NewModelLM(m, 6), fmt.Sprintf("Search(course model, %q, width 3, max 12, α %g)", text, alpha), 3*3*12+10), prompt, Options{Width: 3, MaxNewTokens: 12, LengthPenalty: alpha, IsEnd: tok.IsEnd})
	if err != nil || len(hs) == 0 {
		t.Fatalf("Search(course model, %q, width 3, max 12, α %g) = %d hypotheses, %v; want 3", text, alpha, len(hs), err)
	}
	for _, h := range hs {
		lp, err := LogProb(bounded(t, engine.NewModelLM(m, 1), fmt.Sprintf("LogProb(course model, %q, %s)", text, check.Vec(h.Tokens)), len(h.Tokens)+10), prompt, h.Tokens)
		if err != nil {
			t.Fatalf("LogProb(course model, %q, %s) returned error %v", text, check.Vec(h.Tokens), err)
		}
		score := lp / math.Pow((5+float64(len(h.Tokens)))/6, alpha)
		if !near(h.LogProb, lp, 1e-4) || !near(h.Score, score, 1e-4) {
			t.Errorf("Search(course model, %q, width 3, α %g): hypothesis %q has log p %.6g, score %.6g; LogProb gives %.6g, so the score should be %.6g",
				text, alpha, tok.DecodeAll(h.Tokens), h.LogProb, h.Score, lp, score)
		}
	}
}

// TestQuiz1: one step of beam search.
//
//grade:task 5 selfcheck
func TestQuiz1(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "09-beam-search", 1, "Answer1", Answer1, "abcd", "e0f73d0daac4eaaaba64ead2ec7094a21a778081aca93e22b3b2231937e27484")
}

// TestQuiz2: where greedy and beam search disagree.
//
//grade:task 5 selfcheck
func TestQuiz2(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "09-beam-search", 2, "Answer2", Answer2, "abcd", "894f59ab460628a78e8328f87b5368c54c518b234c559c0d5b7b4b4bb88a7afb")
}

// TestQuiz3: the length penalty.
//
//grade:task 5 selfcheck
func TestQuiz3(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "09-beam-search", 3, "Answer3", Answer3, "abcd", "7e2adcc277747bb6778a470cb56e633625eaeb2dc659bc5811d9f8047c188f9f")
}

// TestQuiz4: translation versus chat.
//
//grade:task 5 selfcheck
func TestQuiz4(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "09-beam-search", 4, "Answer4", Answer4, "abcd", "6151eafdf1eb1e60583d18e48744a0908a98ceab5c617cdc4f552298509585b4")
}

// engineBeamSearch runs decoding.Decode with opts, whose Decoder is a
// decoding.Beam, to its end and returns the search's result, which the
// last step carries.
func engineBeamSearch(lm decoding.LM, prompt []int, opts decoding.Options) (*decoding.BeamResult, error) {
	for step, err := range decoding.Decode(context.Background(), lm, prompt, opts) {
		if err != nil {
			return nil, err
		}
		if step.Finish != "" {
			res, _ := step.Stats.Report.(*decoding.BeamResult)
			return res, nil
		}
	}
	return nil, fmt.Errorf("the engine's beam search ended without a last step")
}
