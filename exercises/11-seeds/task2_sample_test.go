package seeds

import (
	"context"
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

// funcLM is a test model whose logits are a function of the prefix; its
// budget stops code that keeps asking.
type funcLM struct {
	vocab, ctx int
	logits     func(prefix []int) []float32
	budget     *check.Budget
}

// sampleHint says what bounds a sample's model calls, for a budget's
// message.
const sampleHint = "Sample asks the model once per token, n times at most, and Branch twice that: does your loop stop after n tokens, at an end token and when the context is full?"

// newFuncLM returns a funcLM whose budget allows what a sample and a branch
// of the whole context need, in the test or, after calling, in one call of
// the code under test.
func newFuncLM(t *testing.T, vocab, ctx int, logits func(prefix []int) []float32) *funcLM {
	l := &funcLM{vocab: vocab, ctx: ctx, logits: logits, budget: check.NewBudget(t, "the model's NextLogits")}
	return l.calling("your code (in " + t.Name() + ")")
}

// calling starts l's budget again for the call doing (as the failure
// messages write it), and returns l.
func (l *funcLM) calling(doing string) *funcLM {
	l.budget.For(doing, 2*l.ctx+10, sampleHint)
	return l
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

func (l *funcLM) VocabSize() int     { return l.vocab }
func (l *funcLM) ContextLength() int { return l.ctx }
func (l *funcLM) NextLogits(prefix []int, n int) ([][]float32, error) {
	l.budget.Spend()
	if n != 1 || len(prefix) == 0 || len(prefix) > l.ctx {
		return nil, fmt.Errorf("test model asked for %d rows after a prefix of %d tokens; it answers 1 row after 1 to %d tokens", n, len(prefix), l.ctx)
	}
	return [][]float32{l.logits(prefix)}, nil
}

// flatLM gives every one of its vocab tokens the same logit: at
// temperature 1 each draw is uniform, so different seeds part at once.
func flatLM(t *testing.T, vocab, ctx int) *funcLM {
	return newFuncLM(t, vocab, ctx, func([]int) []float32 { return make([]float32, vocab) })
}

// peakedLM has 11 tokens whose logits, a permutation of 0…10, depend on the
// last token: a distribution with one clear favourite at every step.
func peakedLM(t *testing.T) *funcLM {
	return newFuncLM(t, 11, 64, func(prefix []int) []float32 {
		last := prefix[len(prefix)-1]
		z := make([]float32, 11)
		for i := range z {
			z[i] = float32((7*i + 3*last) % 11)
		}
		return z
	})
}

// greedyPath is the greedy continuation of peakedLM after prompt, worked out
// without any sampling code: the token i with (7i + 3·last) mod 11 = 10.
func greedyPath(prompt []int, n int) []int {
	last := prompt[len(prompt)-1]
	var out []int
	for range n {
		for i := range 11 {
			if (7*i+3*last)%11 == 10 {
				out = append(out, i)
				last = i
				break
			}
		}
	}
	return out
}

// scripted hands out chosen coins and counts how many were taken; a few
// past its script, its budget stops code that keeps drawing.
type scripted struct {
	coins  []float32
	taken  int
	budget *check.Budget
}

// coinHint says how many coins a pick takes, for a budget's message.
const coinHint = "Pick takes one coin at a positive temperature and none at temperature 0: is a loop drawing again and again?"

// coinsFor returns scripted coins for the call doing (as the failure
// messages write it).
func coinsFor(t *testing.T, doing string, coins ...float32) *scripted {
	return &scripted{coins: coins, budget: check.NewBudget(t, "Float32").For(doing, len(coins)+20, coinHint)}
}

// boundedCoins is a source of coins, such as *decoding.RNG, whose calls a
// budget bounds.
type boundedCoins struct {
	Coins
	budget *check.Budget
}

func (c boundedCoins) Float32() float32 {
	c.budget.Spend()
	return c.Coins.Float32()
}

func (s *scripted) Float32() float32 {
	s.budget.Spend()
	s.taken++
	if s.taken > len(s.coins) {
		return 0.5
	}
	return s.coins[s.taken-1]
}

// TestTask2_Probs: softmax(logits / T) on hand-computed cases, for logits
// of ±1000 too, within 1e-6.
//
//grade:task 2 points 1
func TestTask2_Probs(t *testing.T) {
	defer check.Recover(t)
	for _, c := range []struct {
		logits []float32
		temp   float64
		want   []float64
	}{
		{[]float32{1, 2, 3}, 1, []float64{0.0900306, 0.2447285, 0.6652410}},
		{[]float32{1, 2, 3}, 0.5, []float64{0.0158762, 0.1173104, 0.8668133}}, // logits 2, 4, 6
		{[]float32{1, 2, 3}, 2, []float64{0.1863237, 0.3071959, 0.5064804}},   // logits 0.5, 1, 1.5
		{[]float32{1000, -1000, 999}, 1, []float64{0.7310586, 0, 0.2689414}},  // no overflow
		{[]float32{-1000, -1000}, 0.1, []float64{0.5, 0.5}},                   // no underflow
		{[]float32{0, float32(math.Inf(-1)), 0}, 1, []float64{0.5, 0, 0.5}},   // a banned token
	} {
		in := slices.Clone(c.logits)
		got := Probs(in, c.temp)
		ok := len(got) == len(c.want)
		for i := 0; ok && i < len(got); i++ {
			ok = math.Abs(float64(got[i])-c.want[i]) <= 1e-6
		}
		if !ok {
			t.Errorf("Probs(%v, %g) = %s; want %s (within 1e-6)", c.logits, c.temp, check.Vec(got), check.Vec(c.want))
		}
		if !slices.Equal(in, c.logits) {
			t.Errorf("Probs(%v, %g) changed its input to %s; it must leave the logits alone", c.logits, c.temp, check.Vec(in))
		}
	}
}

// TestTask2_Draw: the inverse CDF on hand-picked coins, including a
// probability-0 token, which is never drawn, and a total that rounding
// left below 1.
//
//grade:task 2 points 1
func TestTask2_Draw(t *testing.T) {
	defer check.Recover(t)
	for _, c := range []struct {
		probs []float32
		coin  float32
		want  int
	}{
		{[]float32{0.2, 0.5, 0.3}, 0, 0},
		{[]float32{0.2, 0.5, 0.3}, 0.1, 0},
		{[]float32{0.2, 0.5, 0.3}, 0.25, 1},
		{[]float32{0.2, 0.5, 0.3}, 0.69, 1},
		{[]float32{0.2, 0.5, 0.3}, 0.71, 2},
		{[]float32{0.2, 0.5, 0.3}, 0.9999, 2},
		{[]float32{0, 1, 0}, 0, 1},
		{[]float32{0.5, 0, 0.5}, 0.5, 2},
		{[]float32{0.25, 0.25, 0.25, 0.2}, 0.97, 3}, // the total is 0.95
	} {
		if got := Draw(c.probs, c.coin); got != c.want {
			t.Errorf("Draw(%v, %g) = %d; want %d", c.probs, c.coin, got, c.want)
		}
	}
}

// TestTask2_Pick: one coin per token at a positive temperature and none at
// temperature 0 (greedy, first on ties); the temperature shapes the draw;
// and on 3000 random logit vectors, Pick with decoding.NewRNG(seed) picks
// exactly what the engine's Sampler picks with the same seed.
//
//grade:task 2 points 2
func TestTask2_Pick(t *testing.T) {
	defer check.Recover(t)
	flat := []float32{0, 0, 0, 0}
	for _, c := range []struct {
		coin float32
		want int
	}{{0.1, 0}, {0.3, 1}, {0.6, 2}, {0.9, 3}} {
		s := coinsFor(t, fmt.Sprintf("Pick(%v, 1, coin %g)", flat, c.coin), c.coin)
		if got := Pick(flat, 1, s); got != c.want || s.taken != 1 {
			t.Errorf("Pick(%v, 1, coin %g) = %d after taking %d coins; want %d after exactly 1", flat, c.coin, got, s.taken, c.want)
		}
	}
	s := coinsFor(t, "Pick([1 3 3 2], 0, coins)", 0.99)
	if got := Pick([]float32{1, 3, 3, 2}, 0, s); got != 1 || s.taken != 0 {
		t.Errorf("Pick([1 3 3 2], 0, coins) = %d after taking %d coins; want 1 (greedy, the first of the tied largest) after none", got, s.taken)
	}
	// Logits [0 1], coin 0.15: p(0) is 0.119 at T = 0.5 and 0.378 at T = 2.
	for _, c := range []struct {
		temp float64
		want int
	}{{0.5, 1}, {2, 0}} {
		if got := Pick([]float32{0, 1}, c.temp, coinsFor(t, fmt.Sprintf("Pick([0 1], %g, coin 0.15)", c.temp), 0.15)); got != c.want {
			t.Errorf("Pick([0 1], %g, coin 0.15) = %d; want %d", c.temp, got, c.want)
		}
	}

	r := rand.New(rand.NewPCG(11, 7))
	for _, temp := range []float64{0.3, 0.7, 1, 1.5} {
		seed := r.Uint64()
		mine := boundedCoins{decoding.NewRNG(seed), check.NewBudget(t, "Float32").For(fmt.Sprintf("Pick, 750 times at temperature %g with decoding.NewRNG(%d),", temp, seed), 7500, coinHint)}
		ref, err := decoding.NewSampler(temp, 1, seed)
		if err != nil {
			t.Fatalf("decoding.NewSampler(%g, 1, %d): %v", temp, seed, err)
		}
		for i := range 750 {
			logits := make([]float32, 1+r.IntN(40))
			for j := range logits {
				logits[j] = float32(3 * r.NormFloat64())
			}
			want, _ := ref.Sample(logits)
			if got := Pick(logits, temp, mine); got != want {
				t.Fatalf("temperature %g, seed %d, draw %d: Pick(%s, %g, rng) = %d; the engine's sampler picks %d.\nCompute Probs in float32 exactly as its doc says, and take one coin per pick",
					temp, seed, i+1, check.Vec(logits), temp, got, want)
			}
		}
	}
}

// TestTask2_SameSeed: the same seed gives the same tokens, different seeds
// give different ones on a flat distribution, the tokens are the engine's
// loop's with its sampler, and temperature 0 is greedy whatever the seed.
// Also: an end token stops the sample (and is kept), so does a full
// context.
//
//grade:task 2 points 2
func TestTask2_SameSeed(t *testing.T) {
	defer check.Recover(t)
	lm, prompt := flatLM(t, 50, 64), []int{0}
	a, errA := Sample(lm.calling("Sample(flat, [0], 20, 1, seed 7)"), prompt, 20, 1, 7, nil)
	b, errB := Sample(lm.calling("Sample(flat, [0], 20, 1, seed 7)"), prompt, 20, 1, 7, nil)
	c, errC := Sample(lm.calling("Sample(flat, [0], 20, 1, seed 8)"), prompt, 20, 1, 8, nil)
	if errA != nil || errB != nil || errC != nil {
		t.Fatalf("Sample on a flat 50-token model: errors %v, %v, %v", errA, errB, errC)
	}
	if len(a) != 20 || !slices.Equal(a, b) {
		t.Fatalf("Sample(flat, [0], 20, 1, seed 7) twice gave %s and %s; want the same 20 tokens\n%s", check.Vec(a), check.Vec(b), check.Diff(b, a, 0))
	}
	if slices.Equal(a, c) {
		t.Errorf("Sample(flat, [0], 20, 1, …) gave %s for seeds 7 and 8 alike; want different tokens (each draw is uniform over 50)", check.Vec(a))
	}
	ref, _ := decoding.NewSampler(1, 1, 7)
	var want []int
	for step, err := range decoding.Decode(context.Background(), lm, prompt, decoding.Options{MaxNewTokens: 20, Decoder: decoding.Pick(func(l []float32) int { id, _ := ref.Sample(l); return id })}) {
		id := step.ID
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, id)
	}
	if !slices.Equal(a, want) {
		t.Errorf("Sample(flat, [0], 20, 1, seed 7) = %s; the engine's loop and sampler with seed 7 give %s\n%s", check.Vec(a), check.Vec(want), check.Diff(a, want, 0))
	}

	pk := peakedLM(t)
	g1, err1 := Sample(pk.calling("Sample(peaked, [4], 12, temperature 0, seed 1)"), []int{4}, 12, 0, 1, nil)
	g2, err2 := Sample(pk.calling("Sample(peaked, [4], 12, temperature 0, seed 99)"), []int{4}, 12, 0, 99, nil)
	if gw := greedyPath([]int{4}, 12); err1 != nil || err2 != nil || !slices.Equal(g1, gw) || !slices.Equal(g2, gw) {
		t.Errorf("Sample(peaked, [4], 12, temperature 0, seeds 1 and 99) = %s, %s (errors %v, %v); want the greedy path %s for both", check.Vec(g1), check.Vec(g2), err1, err2, check.Vec(gw))
	}

	prompt = make([]int, 1, 8)
	k := 3 // the first token from the fourth on that has not appeared before
	for k < len(a)-1 && slices.Contains(a[:k], a[k]) {
		k++
	}
	end, err := Sample(lm.calling(fmt.Sprintf("Sample(flat, [0], 30, 1, seed 7) with token %d ending the text", a[k])), prompt, 30, 1, 7, func(id int) bool { return id == a[k] })
	if err != nil || !slices.Equal(end, a[:k+1]) {
		t.Errorf("Sample(flat, [0], 30, 1, seed 7) with token %d ending the text = %s (error %v); want %s, ending with that token", a[k], check.Vec(end), err, check.Vec(a[:k+1]))
	}
	full, err := Sample(flatLM(t, 50, 6).calling("Sample on a flat model with a context of 6, after a 1-token prompt, 30 tokens asked"), prompt, 30, 1, 7, nil)
	if err != nil || !slices.Equal(full, a[:5]) {
		t.Errorf("Sample on a flat model with a context of 6, after a 1-token prompt, 30 tokens asked = %s (error %v); want the 5 tokens %v that fill the context", check.Vec(full), err, a[:5])
	}
	if got := prompt[:cap(prompt)]; !slices.Equal(got, make([]int, 8)) {
		t.Errorf("Sample wrote into the array behind its prompt: %s; build the sequence in a new slice", check.Vec(got))
	}
}

// TestTask2_CourseModel: on the course's model, Sample gives exactly the
// tokens of decoding.Generate with the same Seed and Temperature, for three
// seeds at two temperatures, and greedy at temperature 0.
//
//grade:task 2 points 2
func TestTask2_CourseModel(t *testing.T) {
	defer check.Recover(t)
	m, tok, err := models.Default()
	if err != nil {
		t.Fatalf("models.Default(): %v", err)
	}
	const prompt, n = "func (b *Buffer) Len() int {", 24
	ids, err := tok.Encode(prompt, true, false)
	if err != nil {
		t.Fatal(err)
	}
	lm := engine.NewModelLM(m, 1)
	for _, temp := range []float64{0.8, 1, 0} {
		for seed := uint64(1); seed <= 3; seed++ {
			var want []int
			for step, err := range decoding.Generate(context.Background(), m, tok, prompt, decoding.Options{MaxNewTokens: n, Temperature: temp, Seed: seed}) {
				if err != nil {
					t.Fatal(err)
				}
				want = append(want, step.ID)
			}
			bounded := boundedLM{lm, check.NewBudget(t, "the model's NextLogits").For(fmt.Sprintf("Sample(the course model, %q, %d, %g, seed %d, tok.IsEnd)", prompt, n, temp, seed), n+10, sampleHint)}
			got, err := Sample(bounded, ids, n, temp, seed, tok.IsEnd)
			if err != nil || !slices.Equal(got, want) {
				t.Fatalf("Sample(the course model, %q, %d, %g, seed %d, tok.IsEnd) = %s (error %v);\ndecoding.Generate with Temperature %g, Seed %d gives %s\n%s",
					prompt, n, temp, seed, check.Vec(got), err, temp, seed, check.Vec(want), check.Diff(got, want, 0))
			}
		}
	}
}
