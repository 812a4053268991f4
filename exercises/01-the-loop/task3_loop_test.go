package loop

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/decoding"
	"github.com/tokenbytoken/course/engine/models"
	"github.com/tokenbytoken/course/exercises/internal/check"
)

// errModel is the error countingLM returns when told to fail.
var errModel = errors.New("the test's model failed on purpose")

// countingLM is a tiny deterministic model: after token t it puts all its
// weight on (t+1) mod vocab, so greedy decoding counts 3, 4, 5, … It keeps a
// copy of every prefix it is asked about, and its budget stops a loop that
// keeps asking.
type countingLM struct {
	vocab, context int
	failAt         int // the question (1, 2, …) that fails with errModel; 0: none
	asked          [][]int
	budget         *check.Budget
}

// loopHint says what bounds the questions of a generation, for a budget's
// message.
const loopHint = "each step asks the model once and makes one token, so a generation cannot ask more often than the context has room for tokens: does your loop stop after maxNew tokens, at an end token, when emit returns false, when the context is full, and at an error?"

// countingModel returns a countingLM for one call of Generate, doing (as the
// failure messages write it), which may ask it as often as the context
// has room for tokens.
func countingModel(t *testing.T, vocab, context int, doing string) *countingLM {
	return &countingLM{vocab: vocab, context: context, budget: check.NewBudget(t, "the model's NextLogits").For(doing, context+10, loopHint)}
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

func (m *countingLM) VocabSize() int     { return m.vocab }
func (m *countingLM) ContextLength() int { return m.context }

func (m *countingLM) NextLogits(prefix []int, n int) ([][]float32, error) {
	m.budget.Spend()
	m.asked = append(m.asked, slices.Clone(prefix))
	if len(m.asked) == m.failAt {
		return nil, errModel
	}
	if n != 1 || len(prefix) == 0 || len(prefix) > m.context {
		return nil, fmt.Errorf("countingLM: NextLogits(a prefix of %d tokens, n = %d); want n = 1 and 1 to %d tokens", len(prefix), n, m.context)
	}
	row := make([]float32, m.vocab)
	last := prefix[len(prefix)-1]
	row[((last+1)%m.vocab+m.vocab)%m.vocab] = 1
	return [][]float32{row}, nil
}

// firstDifference is the first index where a and b differ, or -1.
func firstDifference(a, b []int) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}

// TestTask3_CountingModel: Generate makes maxNew tokens with pick, asks the
// model once per token with the whole sequence so far, returns only the
// new tokens, and leaves the caller's prompt alone.
//
//grade:task 3 points 2
func TestTask3_CountingModel(t *testing.T) {
	defer check.Recover(t)
	lm := countingModel(t, 10, 100, "Generate(counting model, prompt [1 2 3], maxNew 5)")
	got, err := Generate(lm, []int{1, 2, 3}, 5, decoding.Argmax, nil, nil)
	if want := []int{4, 5, 6, 7, 8}; err != nil || !slices.Equal(got, want) {
		t.Fatalf("Generate(counting model, prompt [1 2 3], maxNew 5) = %s, %v; want %v, nil", check.Vec(got), err, want)
	}
	if len(lm.asked) != 5 {
		t.Errorf("Generate with maxNew 5 asked the model %d times; want 5 (one step per new token)", len(lm.asked))
	}
	seq := []int{1, 2, 3, 4, 5, 6, 7, 8}
	for i, prefix := range lm.asked {
		if want := seq[:3+i]; !slices.Equal(prefix, want) {
			t.Errorf("step %d asked the model about %s; want %v (the prompt and every token made so far)", i+1, check.Vec(prefix), want)
		}
	}

	// The prompt has room after its end: appending to it in place would
	// overwrite the -1s.
	backing := []int{8, -1, -1, -1, -1, -1}
	prompt := backing[:1]
	lm = countingModel(t, 10, 100, "Generate(counting model over 10 tokens, prompt [8], maxNew 4)")
	got, err = Generate(lm, prompt, 4, decoding.Argmax, nil, nil)
	if want := []int{9, 0, 1, 2}; err != nil || !slices.Equal(got, want) {
		t.Errorf("Generate(counting model over 10 tokens, prompt [8], maxNew 4) = %s, %v; want %v, nil", check.Vec(got), err, want)
	}
	if want := []int{8, -1, -1, -1, -1, -1}; !slices.Equal(backing, want) {
		t.Errorf("Generate changed the array under the caller's prompt to %v; want it untouched %v (copy the prompt before appending)", backing, want)
	}
}

// TestTask3_StopConditions: an end token stops the loop and is included;
// a full context stops it; maxNew = 0 sets no limit of its own.
//
//grade:task 3 points 2
func TestTask3_StopConditions(t *testing.T) {
	defer check.Recover(t)
	isSix := func(id int) bool { return id == 6 }
	for _, c := range []struct {
		prompt         []int
		maxNew         int
		isEnd          func(int) bool
		context        int
		want           []int
		why            string
		wantQuestions  int
		longestPrefix  int
		describeEnding string
	}{
		{[]int{3}, 10, isSix, 100, []int{4, 5, 6}, "6 is the end token: it ends the text and is part of it", 3, 3, "isEnd(6)"},
		{[]int{3}, 0, isSix, 100, []int{4, 5, 6}, "maxNew 0 sets no limit; the end token still ends the text", 3, 3, "isEnd(6)"},
		{[]int{5}, 10, isSix, 100, []int{6}, "the very first token can end the text", 1, 1, "isEnd(6)"},
		{[]int{0, 1}, 0, nil, 6, []int{2, 3, 4, 5}, "a context of 6 tokens holds the prompt and 4 new ones", 4, 5, "no end token"},
		{[]int{0, 1}, 100, nil, 6, []int{2, 3, 4, 5}, "the context is full long before maxNew", 4, 5, "no end token"},
		{[]int{0, 1, 2, 3, 4}, 0, nil, 6, []int{5}, "room for exactly one token", 1, 5, "no end token"},
	} {
		call := fmt.Sprintf("Generate(counting model with a context of %d, prompt %v, maxNew %d, %s)", c.context, c.prompt, c.maxNew, c.describeEnding)
		lm := countingModel(t, 10, c.context, call)
		got, err := Generate(lm, c.prompt, c.maxNew, decoding.Argmax, c.isEnd, nil)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("%s = %s, %v; want %v, nil (%s)", call, check.Vec(got), err, c.want, c.why)
			continue
		}
		if len(lm.asked) != c.wantQuestions {
			t.Errorf("%s asked the model %d times; want %d", call, len(lm.asked), c.wantQuestions)
		}
		if n := len(lm.asked); n > 0 && len(lm.asked[n-1]) != c.longestPrefix {
			t.Errorf("%s last asked about %d tokens; want %d", call, len(lm.asked[n-1]), c.longestPrefix)
		}
	}
}

// TestTask3_Streams: emit gets each token as soon as it is made, before the
// model is asked for the next one; returning false stops the loop.
//
//grade:task 3 points 2
func TestTask3_Streams(t *testing.T) {
	defer check.Recover(t)
	lm := countingModel(t, 10, 100, "Generate(counting model, prompt [0], maxNew 4, emit)")
	var emitted, askedWhenEmitted []int
	emit := func(id int) bool {
		emitted = append(emitted, id)
		askedWhenEmitted = append(askedWhenEmitted, len(lm.asked))
		return true
	}
	got, err := Generate(lm, []int{0}, 4, decoding.Argmax, nil, emit)
	if want := []int{1, 2, 3, 4}; err != nil || !slices.Equal(got, want) || !slices.Equal(emitted, want) {
		t.Fatalf("Generate(counting model, prompt [0], maxNew 4, emit) returned %s, %v and emitted %s; want %v returned and emitted", check.Vec(got), err, check.Vec(emitted), want)
	}
	if want := []int{1, 2, 3, 4}; !slices.Equal(askedWhenEmitted, want) {
		t.Errorf("when emit got tokens 1, 2, 3, 4 the model had been asked %s times; want %v: each token is emitted as soon as it is made", check.Vec(askedWhenEmitted), want)
	}

	lm = countingModel(t, 10, 100, "Generate(counting model, prompt [0], maxNew 10, emit that returns false at the 3rd token)")
	emitted = nil
	stopAfter3 := func(id int) bool {
		emitted = append(emitted, id)
		return len(emitted) < 3
	}
	got, err = Generate(lm, []int{0}, 10, decoding.Argmax, nil, stopAfter3)
	if want := []int{1, 2, 3}; err != nil || !slices.Equal(got, want) || !slices.Equal(emitted, want) {
		t.Errorf("Generate(counting model, prompt [0], maxNew 10, emit that returns false at the 3rd token) returned %s, %v and emitted %s; want %v returned and emitted", check.Vec(got), err, check.Vec(emitted), want)
	}
	if len(lm.asked) != 3 {
		t.Errorf("after emit returned false at the 3rd token the model had been asked %d times; want 3", len(lm.asked))
	}
}

// TestTask3_Errors: an empty prompt and a prompt that fills the context are
// errors before any model call; a model error is returned with the tokens
// made before it; a pick outside the vocabulary is an error.
//
//grade:task 3 points 1
func TestTask3_Errors(t *testing.T) {
	defer check.Recover(t)
	lm := countingModel(t, 10, 4, "Generate(model, empty prompt, …)")
	if got, err := Generate(lm, nil, 5, decoding.Argmax, nil, nil); err == nil || len(lm.asked) != 0 {
		t.Errorf("Generate(model, empty prompt, …) = %s, %v after %d model calls; want an error and no call", check.Vec(got), err, len(lm.asked))
	}
	lm = countingModel(t, 10, 4, "Generate(model with a context of 4, prompt of 4 tokens, …)")
	if got, err := Generate(lm, []int{0, 1, 2, 3}, 5, decoding.Argmax, nil, nil); err == nil || len(lm.asked) != 0 {
		t.Errorf("Generate(model with a context of 4, prompt of 4 tokens, …) = %s, %v after %d model calls; want an error (no room for a new token) and no call", check.Vec(got), err, len(lm.asked))
	}
	lm = countingModel(t, 10, 100, "Generate(model that fails at its 3rd call, prompt [1], maxNew 10)")
	lm.failAt = 3
	got, err := Generate(lm, []int{1}, 10, decoding.Argmax, nil, nil)
	if !errors.Is(err, errModel) || !slices.Equal(got, []int{2, 3}) {
		t.Errorf("Generate(model that fails at its 3rd call, prompt [1], maxNew 10) = %s, %v; want [2 3] and the model's error (wrapped with %%w is fine)", check.Vec(got), err)
	}
	for _, bad := range []int{10, -1} {
		lm = countingModel(t, 10, 100, fmt.Sprintf("Generate(model with 10 tokens, pick that returns %d)", bad))
		pick := func([]float32) int { return bad }
		if got, err := Generate(lm, []int{1}, 3, pick, nil, nil); err == nil {
			t.Errorf("Generate(model with 10 tokens, pick that returns %d) = %s with no error; want an error: %d is not a token", bad, check.Vec(got), bad)
		}
	}
}

// TestTask3_CourseModel: on the course's model, Generate with decoding.Argmax
// (and with a seeded sampler) makes exactly the tokens decoding.Decode
// makes, end token included, and emits each of them.
//
//grade:task 3 points 2
func TestTask3_CourseModel(t *testing.T) {
	defer check.Recover(t)
	m, tok, err := models.Default()
	if err != nil {
		t.Fatalf("loading the course's model: %v", err)
	}
	// sampler returns a pick function: greedy, or seeded sampling.
	sampler := func(seed uint64) func([]float32) int {
		if seed == 0 {
			return decoding.Argmax
		}
		s, err := decoding.NewSampler(1, 0.9, seed)
		if err != nil {
			t.Fatalf("decoding.NewSampler: %v", err)
		}
		return func(logits []float32) int { id, _ := s.Sample(logits); return id }
	}
	for _, c := range []struct {
		prompt string
		maxNew int
		seed   uint64 // 0: greedy
	}{
		{"func (b *Buffer) Len() int {\n\t", 40, 0}, // ends with the end token after 10
		{"for i := 0; i <", 25, 0},
		{"// Copyright 2009 The Go Authors. All rights reserved.\n", 30, 0},
		{"type Reader struct {\n\t", 30, 7},
	} {
		ids, err := tok.Encode(c.prompt, true, false)
		if err != nil {
			t.Fatalf("engine's Encode(%q): %v", c.prompt, err)
		}
		var want []int
		for step, err := range decoding.Decode(context.Background(), engine.NewModelLM(m, 1), ids, decoding.Options{MaxNewTokens: c.maxNew, Decoder: decoding.Pick(sampler(c.seed)), IsEnd: tok.IsEnd}) {
			id := step.ID
			if err != nil {
				t.Fatalf("decoding.Decode: %v", err)
			}
			want = append(want, id)
		}
		var emitted []int
		lm := boundedLM{engine.NewModelLM(m, 1), check.NewBudget(t, "the model's NextLogits").For(fmt.Sprintf("Generate(course model, %q, maxNew %d, …)", c.prompt, c.maxNew), c.maxNew+10, loopHint)}
		got, err := Generate(lm, ids, c.maxNew, sampler(c.seed), tok.IsEnd, func(id int) bool {
			emitted = append(emitted, id)
			return true
		})
		how := "decoding.Argmax"
		if c.seed != 0 {
			how = fmt.Sprintf("a sampler seeded with %d", c.seed)
		}
		if err != nil || !slices.Equal(got, want) {
			at := firstDifference(got, want)
			t.Errorf("Generate(course model, %q, maxNew %d, %s, tok.IsEnd) = %d tokens, %v; they differ from decoding.Decode's %d tokens at token %d\ngot  %q\nwant %q",
				c.prompt, c.maxNew, how, len(got), err, len(want), at, tok.DecodeAll(got), tok.DecodeAll(want))
		} else if !slices.Equal(emitted, want) {
			t.Errorf("Generate(course model, %q, …) returned the right tokens but emitted %s; want every token emitted, %s\n%s", c.prompt, check.Vec(emitted), check.Vec(want), check.Diff(emitted, want, 0))
		}
	}
}
