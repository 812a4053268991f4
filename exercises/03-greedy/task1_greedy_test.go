package greedy

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/decoding"
	"github.com/tokenbytoken/course/engine/models"
	"github.com/tokenbytoken/course/exercises/internal/check"
)

var (
	inf = float32(math.Inf(1))
	nan = float32(math.NaN())
)

// errModel is the error funcLM returns when told to fail.
var errModel = errors.New("the test's model failed on purpose")

// funcLM is a hand-built model: logits(prefix) is the row of logits for the
// token after prefix. It keeps a copy of every prefix it is asked about,
// and its budget stops code that keeps asking.
type funcLM struct {
	vocab, context int
	logits         func(prefix []int) []float32
	failAt         int // the question (1, 2, …) that fails with errModel; 0: none
	asked          [][]int
	budget         *check.Budget
}

// loopHint says what bounds the questions of a generation, for a budget's
// message.
const loopHint = "each step asks the model once and makes one token, so a generation cannot ask more often than the context has room for tokens: does your loop stop after maxNew tokens, at an end token, when the context is full, and at an error?"

// newFuncLM returns a funcLM with a budget: one call of the code under
// test, which may ask about every prefix the context holds. Before such a
// call, calling(doing) says what it is, for the failure message.
func newFuncLM(t *testing.T, vocab, context int, logits func(prefix []int) []float32) *funcLM {
	m := &funcLM{vocab: vocab, context: context, logits: logits, budget: check.NewBudget(t, "the model's NextLogits")}
	return m.calling("your code")
}

// calling starts m's budget for the call doing, and returns m.
func (m *funcLM) calling(doing string) *funcLM {
	m.budget.For(doing, m.context+10, loopHint)
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
	return boundedLM{lm, check.NewBudget(t, "the model's NextLogits").For(doing, max, loopHint)}
}

func (m *funcLM) VocabSize() int     { return m.vocab }
func (m *funcLM) ContextLength() int { return m.context }

func (m *funcLM) NextLogits(prefix []int, n int) ([][]float32, error) {
	m.budget.Spend()
	m.asked = append(m.asked, slices.Clone(prefix))
	if len(m.asked) == m.failAt {
		return nil, errModel
	}
	if n < 1 || n > len(prefix) || len(prefix) > m.context {
		return nil, fmt.Errorf("NextLogits(a prefix of %d tokens, n = %d): want 1 ≤ n ≤ prefix length ≤ %d", len(prefix), n, m.context)
	}
	for _, id := range prefix {
		if id < 0 || id >= m.vocab {
			return nil, fmt.Errorf("NextLogits(%v, %d): %d is not a token of this %d-token model", prefix, n, id, m.vocab)
		}
	}
	rows := make([][]float32, n)
	for i := range rows {
		rows[i] = m.logits(prefix[:len(prefix)-n+1+i])
	}
	return rows, nil
}

// tableLM makes a model whose logits depend only on the last token.
func tableLM(t *testing.T, context int, table map[int][]float32, vocab int) *funcLM {
	return newFuncLM(t, vocab, context, func(prefix []int) []float32 {
		if row, ok := table[prefix[len(prefix)-1]]; ok {
			return slices.Clone(row)
		}
		return make([]float32, vocab)
	})
}

// sumLM makes a model that puts its weight on (sum of the whole prefix) mod
// vocab: what comes next depends on every token so far.
func sumLM(t *testing.T, context, vocab int) *funcLM {
	return newFuncLM(t, vocab, context, func(prefix []int) []float32 {
		sum := 0
		for _, id := range prefix {
			sum += id
		}
		row := make([]float32, vocab)
		row[sum%vocab] = 1
		return row
	})
}

// TestTask1_PicksLargestLowestOnTies: Argmax finds the largest logit,
// anywhere, with the lowest id among equals, and handles ±Inf.
//
//grade:task 1 points 1
func TestTask1_PicksLargestLowestOnTies(t *testing.T) {
	defer check.Recover(t)
	for _, c := range []struct {
		logits []float32
		want   int
	}{
		{[]float32{0.1, 2.5, -1, 2.4}, 1},
		{[]float32{-3, -2, -5}, 1},
		{[]float32{1, 2, 3, 4, 5}, 4},
		{[]float32{7}, 0},
		{[]float32{1, 3, 3, 2}, 1},
		{[]float32{0, 0, 4, 1, 4, 4}, 2},
		{[]float32{5, 5, 5}, 0},
		{[]float32{1e30, inf, 3, inf}, 1},
		{[]float32{-inf, -inf, -1e30}, 2},
		{[]float32{-inf, -inf}, 0},
	} {
		if got := Argmax(c.logits); got != c.want {
			t.Errorf("Argmax(%v) = %d; want %d", c.logits, got, c.want)
		}
	}
}

// TestTask1_NaNAndEmpty: a NaN logit is never picked; with nothing to pick
// (no logits, or only NaN) Argmax returns -1.
//
//grade:task 1 points 1
func TestTask1_NaNAndEmpty(t *testing.T) {
	defer check.Recover(t)
	for _, c := range []struct {
		logits []float32
		want   int
	}{
		{[]float32{nan, 1, 3, nan}, 2},
		{[]float32{nan, -inf}, 1},
		{[]float32{2, nan, 2}, 0},
		{[]float32{inf, nan, 1}, 0},
		{[]float32{nan, nan, 0}, 2},
		{[]float32{nan}, -1},
		{[]float32{nan, nan, nan}, -1},
		{[]float32{}, -1},
		{nil, -1},
	} {
		if got := Argmax(c.logits); got != c.want {
			t.Errorf("Argmax(%v) = %d; want %d", c.logits, got, c.want)
		}
	}
}

// at is row[i], or NaN when i is not an index of row.
func at(row []float32, i int) float32 {
	if i < 0 || i >= len(row) {
		return nan
	}
	return row[i]
}

// TestTask1_MatchesEngine: Argmax agrees with decoding.Argmax on the course
// model's logits and on 500 random rows full of ties.
//
//grade:task 1 points 1
func TestTask1_MatchesEngine(t *testing.T) {
	defer check.Recover(t)
	m, tok, err := models.Default()
	if err != nil {
		t.Fatalf("loading the course's model: %v", err)
	}
	ids, err := tok.Encode("func (b *Buffer) Len() int {\n\treturn len(b.buf) - b.off\n}", true, false)
	if err != nil {
		t.Fatalf("engine's Encode: %v", err)
	}
	rows, err := engine.NewModelLM(m, 1).NextLogits(ids, len(ids))
	if err != nil {
		t.Fatalf("course model's NextLogits: %v", err)
	}
	fails := check.NewLimit(t, 3)
	for i, row := range rows {
		if got, want := Argmax(row), decoding.Argmax(row); got != want {
			fails.Errorf("your Argmax(the course model's %d logits after %q) = %d; decoding.Argmax, the reference, gives %d (its logit is %.4g; your pick's is %.4g)",
				len(row), tok.DecodeAll(ids[:i+1]), got, want, at(row, want), at(row, got))
		}
	}
	fails.Close()
	r := rand.New(rand.NewPCG(3, 4))
	wrong := 0
	for range 500 {
		row := make([]float32, 1+r.IntN(12))
		for j := range row {
			row[j] = float32(r.IntN(6)) - 2.5 // few values, so many ties
		}
		if got, want := Argmax(row), decoding.Argmax(row); got != want {
			t.Errorf("your Argmax(%v) = %d; decoding.Argmax, the reference, gives %d", row, got, want)
			if wrong++; wrong == 3 {
				t.FailNow()
			}
		}
	}
}

// TestTask2_FollowsTheArgmax: Greedy appends the argmax at every step,
// asks the model about the whole sequence so far, and returns only the new
// tokens.
//
//grade:task 2 points 2
func TestTask2_FollowsTheArgmax(t *testing.T) {
	defer check.Recover(t)
	lm := tableLM(t, 100, map[int][]float32{
		0: {0, 1, 3, 3, 2},    // → 2 (tied with 3)
		2: {5, 0, 0, 0, 9},    // → 4
		4: {1, 7, 0, 7, -inf}, // → 1 (tied with 3)
		1: {2, 2, 2, 2, 2},    // → 0
		3: {0, 0, 0, 1, 0},    // → 3
	}, 5)
	got, err := Greedy(lm.calling("Greedy(table model, prompt [0], maxNew 6, nil)"), []int{0}, 6, nil)
	if want := []int{2, 4, 1, 0, 2, 4}; err != nil || !slices.Equal(got, want) {
		t.Fatalf("Greedy(table model, prompt [0], maxNew 6, nil) = %s, %v; want %v, nil", check.Vec(got), err, want)
	}
	if len(lm.asked) != 6 {
		t.Errorf("Greedy with maxNew 6 asked the model %d times; want 6", len(lm.asked))
	}

	lm = sumLM(t, 100, 7)
	backing := []int{1, 2, -1, -1, -1, -1, -1, -1}
	got, err = Greedy(lm.calling("Greedy(model predicting the sum of the whole prefix mod 7, prompt [1 2], maxNew 5, nil)"), backing[:2], 5, nil)
	want := []int{3, 6, 5, 3, 6}
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("Greedy(model predicting the sum of the whole prefix mod 7, prompt [1 2], maxNew 5, nil) = %s, %v; want %v, nil", check.Vec(got), err, want)
	}
	seq := append([]int{1, 2}, want...)
	for i, prefix := range lm.asked {
		if !slices.Equal(prefix, seq[:2+i]) {
			t.Errorf("step %d asked the model about %s; want %v (the prompt and every token made so far)", i+1, check.Vec(prefix), seq[:2+i])
		}
	}
	if !slices.Equal(backing, []int{1, 2, -1, -1, -1, -1, -1, -1}) {
		t.Errorf("Greedy changed the array under the caller's prompt to %v; want it untouched (copy the prompt before appending)", backing)
	}
}

// TestTask2_StopConditions: an end token stops greedy decoding and is
// returned; a full context stops it; maxNew = 0 sets no limit of its own.
//
//grade:task 2 points 1
func TestTask2_StopConditions(t *testing.T) {
	defer check.Recover(t)
	// The sum model over 7 tokens from [1 2] makes 3 6 5 3 6 5 …
	isFive := func(id int) bool { return id == 5 }
	for _, c := range []struct {
		maxNew, context int
		isEnd           func(int) bool
		ending          string
		want            []int
	}{
		{10, 100, isFive, "isEnd(5)", []int{3, 6, 5}},
		{0, 100, isFive, "isEnd(5)", []int{3, 6, 5}},
		{2, 100, isFive, "isEnd(5)", []int{3, 6}},
		{0, 6, nil, "nil", []int{3, 6, 5, 3}},
		{100, 6, nil, "nil", []int{3, 6, 5, 3}},
		{0, 3, nil, "nil", []int{3}},
	} {
		call := fmt.Sprintf("Greedy(sum model with a context of %d, prompt [1 2], maxNew %d, %s)", c.context, c.maxNew, c.ending)
		lm := sumLM(t, c.context, 7).calling(call)
		got, err := Greedy(lm, []int{1, 2}, c.maxNew, c.isEnd)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("%s = %s, %v; want %v, nil", call, check.Vec(got), err, c.want)
		}
	}
}

// TestTask2_Errors: an empty prompt or one that fills the context is an
// error before any model call; a model error comes back with the tokens
// made before it; logits with nothing to pick are an error.
//
//grade:task 2 points 1
func TestTask2_Errors(t *testing.T) {
	defer check.Recover(t)
	lm := sumLM(t, 4, 7).calling("Greedy(model, empty prompt, …)")
	if got, err := Greedy(lm, nil, 5, nil); err == nil || len(lm.asked) != 0 {
		t.Errorf("Greedy(model, empty prompt, …) = %s, %v after %d model calls; want an error and no call", check.Vec(got), err, len(lm.asked))
	}
	lm = sumLM(t, 4, 7).calling("Greedy(model with a context of 4, prompt of 4 tokens, …)")
	if got, err := Greedy(lm, []int{1, 2, 3, 4}, 5, nil); err == nil || len(lm.asked) != 0 {
		t.Errorf("Greedy(model with a context of 4, prompt of 4 tokens, …) = %s, %v after %d model calls; want an error (no room for a new token) and no call", check.Vec(got), err, len(lm.asked))
	}
	lm = sumLM(t, 100, 7).calling("Greedy(model that fails at its 3rd call, prompt [1 2], maxNew 10)")
	lm.failAt = 3
	got, err := Greedy(lm, []int{1, 2}, 10, nil)
	if !errors.Is(err, errModel) || !slices.Equal(got, []int{3, 6}) {
		t.Errorf("Greedy(model that fails at its 3rd call, prompt [1 2], maxNew 10) = %s, %v; want [3 6] and the model's error (wrapped with %%w is fine)", check.Vec(got), err)
	}
	lm = tableLM(t, 100, map[int][]float32{0: {0, 5, 1}, 1: {nan, nan, nan}}, 3).calling("Greedy(model whose logits after token 1 are all NaN, prompt [0], maxNew 10)")
	got, err = Greedy(lm, []int{0}, 10, nil)
	if err == nil || !slices.Equal(got, []int{1}) {
		t.Errorf("Greedy(model whose logits after token 1 are all NaN, prompt [0], maxNew 10) = %s, %v; want [1] and an error: no token can be picked at step 2", check.Vec(got), err)
	}
}

// TestTask2_CourseModel: Greedy on the course's model writes exactly what
// decoding.Generate writes at temperature 0, token for token (its end token
// included).
//
//grade:task 2 points 2
func TestTask2_CourseModel(t *testing.T) {
	defer check.Recover(t)
	m, tok, err := models.Default()
	if err != nil {
		t.Fatalf("loading the course's model: %v", err)
	}
	for _, c := range []struct {
		prompt string
		maxNew int
	}{
		{"func (b *Buffer) Len() int {\n\t", 40}, // ends with the end token after 10
		{"// Package ", 60},
		{"\tif err != nil {\n\t\t", 60},
	} {
		var want []int
		for step, err := range decoding.Generate(context.Background(), m, tok, c.prompt, decoding.Options{MaxNewTokens: c.maxNew, Temperature: 0}) {
			if err != nil {
				t.Fatalf("decoding.Generate: %v", err)
			}
			if step.ID != decoding.NoToken {
				want = append(want, step.ID)
			}
		}
		ids, err := tok.Encode(c.prompt, true, false)
		if err != nil {
			t.Fatalf("engine's Encode(%q): %v", c.prompt, err)
		}
		lm := bounded(t, engine.NewModelLM(m, 1), fmt.Sprintf("Greedy(course model, %q, maxNew %d, tok.IsEnd)", c.prompt, c.maxNew), c.maxNew+10)
		got, err := Greedy(lm, ids, c.maxNew, tok.IsEnd)
		if err != nil || !slices.Equal(got, want) {
			at := 0
			for at < min(len(got), len(want)) && got[at] == want[at] {
				at++
			}
			t.Errorf("Greedy(course model, %q, maxNew %d, tok.IsEnd) = %d tokens, %v; they differ from decoding.Generate's %d tokens at token %d\ngot  %q\nwant %q",
				c.prompt, c.maxNew, len(got), err, len(want), at, tok.DecodeAll(got), tok.DecodeAll(want))
		}
	}
}
