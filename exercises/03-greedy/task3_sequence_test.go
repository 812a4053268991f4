package greedy

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/decoding"
	"github.com/tokenbytoken/course/engine/models"
	"github.com/tokenbytoken/course/exercises/internal/check"
)

// The tokens of treeLM.
const (
	bos = iota
	the
	a
	one
	cat
	dog
	bird
	fish
	day
	period
)

// treeLM is the notebook's two-word example as a model. After <s> it says
// The 0.5, A 0.4, One 0.1; after The: cat 0.3, dog 0.3, bird 0.2, fish 0.2;
// after A: cat 0.9, dog 0.1; after One: cat 0.5, day 0.5; after two words
// "." for certain. Its logits are log p + 3 (and -Inf for impossible
// tokens): only after softmax do they become probabilities.
func treeLM(t *testing.T) *funcLM {
	step1 := map[int]float64{the: 0.5, a: 0.4, one: 0.1}
	step2 := map[int]map[int]float64{
		the: {cat: 0.3, dog: 0.3, bird: 0.2, fish: 0.2},
		a:   {cat: 0.9, dog: 0.1},
		one: {cat: 0.5, day: 0.5},
	}
	return newFuncLM(t, 10, 16, func(prefix []int) []float32 {
		p := map[int]float64{period: 1}
		if len(prefix) == 1 {
			p = step1
		} else if next, ok := step2[prefix[1]]; ok && len(prefix) == 2 {
			p = next
		}
		row := make([]float32, 10)
		for id := range row {
			row[id] = float32(math.Log(p[id]) + 3) // log 0 = -Inf
		}
		return row
	})
}

// scoring starts lm's budget for one call of SequenceLogProb, doing, which
// asks the model at most once per token of the continuation, n, and
// returns lm.
func scoring(lm *funcLM, doing string, n int) *funcLM {
	lm.budget.For(doing, n+10, "SequenceLogProb asks the model at most once per token of the continuation (or once for all of them): does a loop keep asking?")
	return lm
}

// constLM gives the same logits after every prefix.
func constLM(t *testing.T, logits []float32) *funcLM {
	return newFuncLM(t, len(logits), 100, func([]int) []float32 { return slices.Clone(logits) })
}

// TestTask3_HandComputed: on the two-word model, SequenceLogProb is the sum
// of the log-probabilities of the steps (to 1e-5).
//
//grade:task 3 points 1
func TestTask3_HandComputed(t *testing.T) {
	defer check.Recover(t)
	for _, c := range []struct {
		continuation []int
		words        string
		want         float64
	}{
		{[]int{the}, "The", math.Log(0.5)},
		{[]int{the, cat}, "The cat", math.Log(0.5 * 0.3)},
		{[]int{a, cat}, "A cat", math.Log(0.4 * 0.9)},
		{[]int{one, day}, "One day", math.Log(0.1 * 0.5)},
		{[]int{a, dog, period}, "A dog .", math.Log(0.4 * 0.1 * 1)},
		{nil, "nothing", 0},
	} {
		got, err := SequenceLogProb(scoring(treeLM(t), fmt.Sprintf("SequenceLogProb(two-word model, [<s>], %v)", c.continuation), len(c.continuation)), []int{bos}, c.continuation)
		if err != nil || math.Abs(got-c.want) > 1e-5 {
			t.Errorf("SequenceLogProb(two-word model, [<s>], %v = %q) = %.6g, %v; want %.6g (probability %.4g)", c.continuation, c.words, got, err, c.want, math.Exp(c.want))
		}
	}
}

// TestTask3_Stable: log-probabilities come from the softmax of the logits,
// and logits in the thousands (where exp overflows) give the same answer
// as the same logits minus 1000.
//
//grade:task 3 points 1
func TestTask3_Stable(t *testing.T) {
	defer check.Recover(t)
	lse := math.Log(math.Exp(1) + math.Exp(2) + math.Exp(3) + math.Exp(4))
	want := (4 - lse) + (1 - lse) + (4 - lse)
	for _, logits := range [][]float32{{1, 2, 3, 4}, {1001, 1002, 1003, 1004}, {-999, -998, -997, -996}} {
		got, err := SequenceLogProb(scoring(constLM(t, logits), fmt.Sprintf("SequenceLogProb(model with the logits %v at every step, [0], [3 0 3])", logits), 3), []int{0}, []int{3, 0, 3})
		if err != nil || math.Abs(got-want) > 1e-5 {
			t.Errorf("SequenceLogProb(model with the logits %v at every step, [0], [3 0 3]) = %.6g, %v; want %.6g", logits, got, err, want)
		}
	}
}

// TestTask3_GreedyIsNotTheMostLikely: greedy decoding takes The (0.5), then
// cat (0.3): probability 0.15. Searching every two-word sequence with
// SequenceLogProb finds A cat, 0.4 × 0.9 = 0.36.
//
//grade:task 3 points 2
func TestTask3_GreedyIsNotTheMostLikely(t *testing.T) {
	defer check.Recover(t)
	var greedy []int // the engine's greedy decoding, so this test does not depend on task 2
	for step, err := range decoding.Decode(context.Background(), treeLM(t), []int{bos}, decoding.Options{MaxNewTokens: 2}) {
		id := step.ID
		if err != nil {
			t.Fatalf("decoding.Decode on the two-word model: %v", err)
		}
		greedy = append(greedy, id)
	}
	if !slices.Equal(greedy, []int{the, cat}) {
		t.Fatalf("decoding.Decode gave %v; the test expected greedy decoding to give [The cat] = [%d %d]", greedy, the, cat)
	}
	greedyLP, err := SequenceLogProb(scoring(treeLM(t), "SequenceLogProb(two-word model, [<s>], greedy's [The cat])", len(greedy)), []int{bos}, greedy)
	if err != nil || math.Abs(greedyLP-math.Log(0.15)) > 1e-5 {
		t.Fatalf("SequenceLogProb(two-word model, [<s>], greedy's [The cat]) = %.6g, %v; want log 0.15 = %.6g", greedyLP, err, math.Log(0.15))
	}
	best, bestLP := []int(nil), math.Inf(-1)
	for first := range 10 {
		for second := range 10 {
			lp, err := SequenceLogProb(scoring(treeLM(t), fmt.Sprintf("SequenceLogProb(two-word model, [<s>], [%d %d])", first, second), 2), []int{bos}, []int{first, second})
			if err != nil {
				t.Fatalf("SequenceLogProb(two-word model, [<s>], [%d %d]) returned the error %v", first, second, err)
			}
			if lp > bestLP {
				best, bestLP = []int{first, second}, lp
			}
		}
	}
	if !slices.Equal(best, []int{a, cat}) || math.Abs(bestLP-math.Log(0.36)) > 1e-5 {
		t.Errorf("the most likely of all 100 two-token sequences by SequenceLogProb is %v with %.6g; want [A cat] = [%d %d] with log 0.36 = %.6g", best, bestLP, a, cat, math.Log(0.36))
	}
	if bestLP <= greedyLP {
		t.Errorf("the best sequence scores %.6g, no better than greedy's %.6g; want A cat (0.36) to beat greedy's The cat (0.15)", bestLP, greedyLP)
	}
}

// TestTask3_CourseModel: on the course's model, SequenceLogProb of a
// greedy and of a sampled continuation equals the sum of
// decoding.LogProbOf over their steps (to 1e-3).
//
//grade:task 3 points 1
func TestTask3_CourseModel(t *testing.T) {
	defer check.Recover(t)
	m, tok, err := models.Default()
	if err != nil {
		t.Fatalf("loading the course's model: %v", err)
	}
	prompt, err := tok.Encode("func (r *Reader) Read(p []byte) (n int, err error) {\n\t", true, false)
	if err != nil {
		t.Fatalf("engine's Encode: %v", err)
	}
	for _, seed := range []uint64{0, 3} {
		pick := decoding.Argmax
		if seed != 0 {
			s, err := decoding.NewSampler(1, 1, seed)
			if err != nil {
				t.Fatalf("decoding.NewSampler: %v", err)
			}
			pick = func(logits []float32) int { id, _ := s.Sample(logits); return id }
		}
		lm := engine.NewModelLM(m, 1)
		var continuation []int
		want := 0.0
		seq := slices.Clone(prompt)
		for range 15 {
			rows, err := lm.NextLogits(seq, 1)
			if err != nil {
				t.Fatalf("course model's NextLogits: %v", err)
			}
			id := pick(rows[0])
			want += decoding.LogProbOf(rows[0], id)
			continuation = append(continuation, id)
			seq = append(seq, id)
		}
		scored := bounded(t, engine.NewModelLM(m, 1), fmt.Sprintf("SequenceLogProb(course model, prompt, %q)", tok.DecodeAll(continuation)), len(continuation)+10)
		got, err := SequenceLogProb(scored, prompt, continuation)
		if err != nil || math.Abs(got-want) > 1e-3 {
			t.Errorf("SequenceLogProb(course model, prompt, %q) = %.6g, %v; want %.6g (the sum of decoding.LogProbOf over the 15 steps)", tok.DecodeAll(continuation), got, err, want)
		}
	}
}

// TestTask3_Errors: an empty prompt, a token outside the vocabulary and a
// model error are errors.
//
//grade:task 3 points 1
func TestTask3_Errors(t *testing.T) {
	defer check.Recover(t)
	if lp, err := SequenceLogProb(scoring(treeLM(t), "SequenceLogProb(model, empty prompt, [The])", 1), nil, []int{the}); err == nil {
		t.Errorf("SequenceLogProb(model, empty prompt, [The]) = %.4g with no error; want an error", lp)
	}
	for _, bad := range [][]int{{the, 10}, {-1}} {
		if lp, err := SequenceLogProb(scoring(treeLM(t), fmt.Sprintf("SequenceLogProb(10-token model, [<s>], %v)", bad), len(bad)), []int{bos}, bad); err == nil {
			t.Errorf("SequenceLogProb(10-token model, [<s>], %v) = %.4g with no error; want an error: %v holds a token outside 0..9", bad, lp, bad)
		}
	}
	lm := scoring(treeLM(t), "SequenceLogProb(model that fails, [<s>], [A cat])", 2)
	lm.failAt = 1
	if lp, err := SequenceLogProb(lm, []int{bos}, []int{a, cat}); !errors.Is(err, errModel) {
		t.Errorf("SequenceLogProb(model that fails, [<s>], [A cat]) = %.4g, %v; want the model's error (wrapped with %%w is fine)", lp, err)
	}
}
