package speculative

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/decoding"
	"github.com/tokenbytoken/course/engine/models"
	"github.com/tokenbytoken/course/exercises/internal/check"
)

// chainLM is a hand-built model whose favourite next token depends only on
// the last one: next[last] gets logit 3, every other token 0.
type chainLM struct {
	next    []int
	context int
}

func (m chainLM) VocabSize() int     { return len(m.next) }
func (m chainLM) ContextLength() int { return m.context }

func (m chainLM) NextLogits(prefix []int, n int) ([][]float32, error) {
	if n < 1 || n > len(prefix) || len(prefix) > m.context {
		return nil, fmt.Errorf("NextLogits(%v, %d) on a model with a context of %d: need 1 ≤ n ≤ len(prefix) ≤ context", prefix, n, m.context)
	}
	rows := make([][]float32, n)
	for i := range rows {
		rows[i] = make([]float32, len(m.next))
		rows[i][m.next[prefix[len(prefix)-n+i]]] = 3
	}
	return rows, nil
}

// counting wraps a model and counts its passes; its budget stops code that
// keeps calling it.
type counting struct {
	LM
	calls  int
	budget *check.Budget
}

func (c *counting) NextLogits(prefix []int, n int) ([][]float32, error) {
	c.budget.Spend()
	c.calls++
	return c.LM.NextLogits(prefix, n)
}

// Hints for a budget's message: what bounds each model's passes.
const (
	targetHint = "every round adds at least one token, so maxNew tokens take at most maxNew rounds: does each of your rounds add one? A round whose proposals are all kept, or that has room for none (g = 0), ends with the bonus token, the argmax of the last row. And does the loop stop after maxNew tokens?"
	draftHint  = "a round makes at most γ draft passes, and there are at most maxNew rounds: does the draft stop proposing after g tokens, and the loop after maxNew tokens?"
)

// bounded wraps the target and the draft for one call of Greedy, doing (as
// the failure messages write it), which may make maxNew rounds: one target
// pass each, and γ draft passes. The budgets leave room for many more (a
// target pass per proposal, twice over), so that a wasteful solution meets
// TestTask4_Counts's message, not theirs: they are there for loops that
// never end.
func bounded(t *testing.T, doing string, target, draft LM, gamma, maxNew int) (tc, dc *counting) {
	rounds := max(maxNew, 1)
	tc = &counting{LM: target, budget: check.NewBudget(t, "the target's NextLogits").For(doing, 2*rounds*(max(gamma, 1)+1)+10, targetHint)}
	dc = &counting{LM: draft, budget: check.NewBudget(t, "the draft's NextLogits").For(doing, 2*rounds*max(gamma, 1)+10, draftHint)}
	return tc, dc
}

// The hand-built pair: the target goes 0 → 1 → 2 → 3 → 4 → 1 → …; the draft
// agrees except after 2, where it guesses 4. Token 5 ends the text, and
// endTarget goes 3 → 5.
const endToken = 5

var (
	target      = chainLM{next: []int{1, 2, 3, 4, 1, 1}, context: 64}
	draft       = chainLM{next: []int{1, 2, 4, 4, 1, 1}, context: 64}
	endTarget   = chainLM{next: []int{1, 2, 3, 5, 1, 1}, context: 64}
	endDraft    = chainLM{next: []int{1, 2, 4, 5, 1, 1}, context: 64} // agrees on the end
	endDraftBad = chainLM{next: []int{1, 2, 4, 4, 1, 1}, context: 64} // misses it
	wrongDraft  = chainLM{next: []int{0, 0, 0, 0, 0, 0}, context: 64} // always wrong after 0
)

func isEndToken(id int) bool { return id == endToken }

// greedyAlone is the target's own greedy continuation, one pass per token.
func greedyAlone(m LM, prompt []int, n int, isEnd func(int) bool) []int {
	seq := slices.Clone(prompt)
	var out []int
	for len(out) < n && len(seq) < m.ContextLength() {
		rows, err := m.NextLogits(seq, 1)
		if err != nil {
			panic(err)
		}
		id := decoding.Argmax(rows[0])
		out = append(out, id)
		seq = append(seq, id)
		if isEnd != nil && isEnd(id) {
			break
		}
	}
	return out
}

// TestTask4_HandModels: on the hand-built models, every γ and length gives
// the target's own greedy output, whatever the draft.
//
//grade:task 4 points 2
func TestTask4_HandModels(t *testing.T) {
	defer check.Recover(t)
	pairs := []struct {
		name          string
		target, draft LM
		isEnd         func(int) bool
	}{
		{"target with a draft that errs after 2", target, draft, nil},
		{"target with itself as the draft", target, target, nil},
		{"target with a draft that is always wrong", target, wrongDraft, nil},
		{"ending target with a draft that agrees on the end", endTarget, endDraft, isEndToken},
		{"ending target with a draft that misses the end", endTarget, endDraftBad, isEndToken},
	}
	fails := check.NewLimit(t, 4)
	defer fails.Close()
	for _, pair := range pairs {
		for gamma := 1; gamma <= 5; gamma++ {
			for _, n := range []int{1, 2, 7, 12} {
				want := greedyAlone(pair.target, []int{0}, n, pair.isEnd)
				call := fmt.Sprintf("Greedy(%s, prompt [0], γ %d, max %d)", pair.name, gamma, n)
				tc, dc := bounded(t, call, pair.target, pair.draft, gamma, n)
				res, err := Greedy(tc, dc, []int{0}, gamma, n, pair.isEnd)
				if err != nil {
					t.Fatalf("%s returned error %v", call, err)
				}
				if !slices.Equal(res.Tokens, want) {
					fails.Errorf("%s = %s; want the target's greedy %s", call, check.Vec(res.Tokens), check.Vec(want))
				}
			}
		}
	}
}

// TestTask4_Counts: accepted and rejected proposals, rounds, and passes of
// each model, worked out by hand.
//
//grade:task 4 points 2
func TestTask4_Counts(t *testing.T) {
	defer check.Recover(t)
	cases := []struct {
		name                                        string
		target, draft                               LM
		gamma, maxNew                               int
		isEnd                                       func(int) bool
		tokens                                      []int
		accepted, rejected, rounds, passes, drafted int
		why                                         string
	}{
		{"target, draft erring after 2", target, draft, 3, 8, nil, []int{1, 2, 3, 4, 1, 2, 3, 4}, 5, 1, 3, 3, 6,
			"round 1: proposals 1 2 4, the target wants 3 for the last; round 2: 4 1 2 all kept plus the bonus 3; round 3: 1 token left, no proposal, the target's 4"},
		{"target, itself as the draft", target, target, 3, 10, nil, []int{1, 2, 3, 4, 1, 2, 3, 4, 1, 2}, 7, 0, 3, 3, 7,
			"rounds of 3 + 1 bonus, 3 + 1, then 1 + 1 for the last 2 tokens"},
		{"ending target, draft agreeing on the end", endTarget, endDraft, 3, 20, isEndToken, []int{1, 2, 3, 5}, 3, 1, 2, 2, 4,
			"round 1: 1 2 kept, 4 replaced by 3; round 2: the draft proposes the end token and stops proposing; it is kept and ends the text"},
		{"ending target, draft missing the end", endTarget, endDraftBad, 3, 20, isEndToken, []int{1, 2, 3, 5}, 2, 2, 2, 2, 6,
			"round 2: the draft proposes 4 1 2, the target replaces 4 by the end token, which ends the text"},
	}
	fails := check.NewLimit(t, 3)
	defer fails.Close()
	for _, c := range cases {
		tc, dc := bounded(t, fmt.Sprintf("Greedy(%s, prompt [0], γ %d, max %d)", c.name, c.gamma, c.maxNew), c.target, c.draft, c.gamma, c.maxNew)
		res, err := Greedy(tc, dc, []int{0}, c.gamma, c.maxNew, c.isEnd)
		if err != nil {
			t.Fatalf("Greedy(%s, γ %d, max %d) returned error %v", c.name, c.gamma, c.maxNew, err)
		}
		if !slices.Equal(res.Tokens, c.tokens) || res.Accepted != c.accepted || res.Rejected != c.rejected || res.Rounds != c.rounds || tc.calls != c.passes || dc.calls != c.drafted {
			fails.Errorf("Greedy(%s, prompt [0], γ %d, max %d)\nyours:  tokens %s, accepted %d, rejected %d, rounds %d, target passes %d, draft passes %d\nwanted: tokens %s, accepted %d, rejected %d, rounds %d, target passes %d, draft passes %d\n(%s)",
				c.name, c.gamma, c.maxNew, check.Vec(res.Tokens), res.Accepted, res.Rejected, res.Rounds, tc.calls, dc.calls,
				check.Vec(c.tokens), c.accepted, c.rejected, c.rounds, c.passes, c.drafted, c.why)
		}
	}
}

// TestTask4_CourseModels: the course's target (models.Default) with its
// draft (models.Draft) gives, token for token, the target's greedy
// output, with one target pass per round, and the same counts as
// decoding.Speculation at temperature 0.
//
//grade:task 4 points 2
func TestTask4_CourseModels(t *testing.T) {
	defer check.Recover(t)
	m, tok, err := models.Default()
	if err != nil {
		t.Fatal(err)
	}
	d, _, err := models.Draft()
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		prompt        string
		gamma, maxNew int
		isEnd         func(int) bool
	}{
		{"func (b *Buffer) WriteString(s string) (n int, err error) {", 4, 40, nil},
		{"func (b *Buffer) Len() int {", 3, 30, tok.IsEnd},
	}
	for _, c := range cases {
		prompt, err := tok.Encode(c.prompt, true, false)
		if err != nil {
			t.Fatal(err)
		}
		want := greedyAlone(engine.NewModelLM(m, 1), prompt, c.maxNew, c.isEnd)
		call := fmt.Sprintf("Greedy(course target, course draft, %q, γ %d, max %d)", c.prompt, c.gamma, c.maxNew)
		tc, dc := bounded(t, call, engine.NewModelLM(m, 1), engine.NewModelLM(d, 1), c.gamma, c.maxNew)
		res, err := Greedy(tc, dc, prompt, c.gamma, c.maxNew, c.isEnd)
		if err != nil {
			t.Fatalf("%s returned error %v", call, err)
		}
		if !slices.Equal(res.Tokens, want) {
			t.Errorf("%s = %q;\nwant the target's greedy %q\nids: %s", call, tok.DecodeAll(res.Tokens), tok.DecodeAll(want), check.Diff(res.Tokens, want, 0))
			continue
		}
		var ref decoding.SpeculativeStats
		for step, err := range decoding.Decode(context.Background(), engine.NewModelLM(m, 1), prompt,
			decoding.Options{MaxNewTokens: c.maxNew, IsEnd: c.isEnd, Decoder: decoding.Speculation{Drafter: decoding.DraftLM{LM: engine.NewModelLM(d, 1)}, Gamma: c.gamma}}) {
			if err != nil {
				t.Fatal(err)
			}
			if step.Stats != nil {
				ref = *step.Stats.Report.(*decoding.SpeculativeStats)
			}
		}
		if res.Accepted != ref.Accepted || res.Rejected != ref.Rejected || res.Rounds != ref.TargetPasses || tc.calls != ref.TargetPasses {
			t.Errorf("%s: accepted %d, rejected %d, rounds %d, target passes %d; decoding.Speculation: accepted %d, rejected %d, %d rounds of one target pass",
				call, res.Accepted, res.Rejected, res.Rounds, tc.calls, ref.Accepted, ref.Rejected, ref.TargetPasses)
		}
	}
}

// TestTask4_Errors: impossible settings are errors; the context limits the
// length.
//
//grade:task 4 points 1
func TestTask4_Errors(t *testing.T) {
	defer check.Recover(t)
	short := chainLM{next: target.next, context: 6}
	tc, dc := bounded(t, "Greedy(target with a context of 6, draft, prompt [0], γ 3, max 20)", short, draft, 3, 20)
	res, err := Greedy(tc, dc, []int{0}, 3, 20, nil)
	if want := []int{1, 2, 3, 4, 1}; err != nil || !slices.Equal(res.Tokens, want) {
		t.Errorf("Greedy(target with a context of 6, draft, prompt [0], γ 3, max 20) = %s, %v; want %v, nil: room for 5 new tokens", check.Vec(res.Tokens), err, want)
	}
	small := chainLM{next: []int{1, 2, 3, 0}, context: 64}
	cases := []struct {
		name          string
		target, draft LM
		prompt        []int
		gamma, maxNew int
	}{
		{"γ 0", target, draft, []int{0}, 0, 8},
		{"max new tokens 0", target, draft, []int{0}, 3, 0},
		{"a draft with 4 tokens and a target with 6", target, small, []int{0}, 3, 8},
		{"an empty prompt", target, draft, nil, 3, 8},
		{"a prompt filling the context", short, draft, []int{0, 1, 2, 3, 4, 1}, 3, 8},
	}
	for _, c := range cases {
		tc, dc := bounded(t, "Greedy with "+c.name, c.target, c.draft, c.gamma, c.maxNew)
		if res, err := Greedy(tc, dc, c.prompt, c.gamma, c.maxNew, nil); err == nil {
			t.Errorf("Greedy with %s = %s, nil; want an error", c.name, check.Vec(res.Tokens))
		}
	}
}

// TestTask5_Formula: (1 − α^(γ+1)) / (1 − α), by hand and as the sum
// 1 + α + … + α^γ.
//
//grade:task 5 points 1
func TestTask5_Formula(t *testing.T) {
	defer check.Recover(t)
	cases := []struct {
		alpha float64
		gamma int
		want  float64
	}{
		{0.8, 4, 3.3616},  // (1 − 0.32768) / 0.2
		{0.3, 4, 1.42510}, // (1 − 0.00243) / 0.7, rounded
		{0.5, 2, 1.75},
		{0, 6, 1},
	}
	for _, c := range cases {
		if got := ExpectedTokensPerPass(c.alpha, c.gamma); math.Abs(got-c.want) > 1e-5 {
			t.Errorf("ExpectedTokensPerPass(%g, %d) = %.6g; want %.6g", c.alpha, c.gamma, got, c.want)
		}
	}
	for _, alpha := range []float64{0.1, 0.25, 0.5, 0.7, 0.9, 0.99} {
		var got, want []float64
		wrong := false
		for gamma := 1; gamma <= 8; gamma++ {
			var sum float64
			for k := range gamma + 1 {
				sum += math.Pow(alpha, float64(k))
			}
			g := ExpectedTokensPerPass(alpha, gamma)
			if math.Abs(g-sum) > 1e-9 {
				wrong = true
			}
			got, want = append(got, g), append(want, sum)
		}
		if wrong {
			msg := fmt.Sprintf("ExpectedTokensPerPass(%g, γ) for γ = 1…8 = %s; want 1 + α + … + α^γ = %s", alpha, check.Vec(got), check.Vec(want))
			if check.Vec(got) == check.Vec(want) {
				msg += "\n" + check.Diff(got, want, 1e-9)
			}
			t.Error(msg)
		}
	}
}

// TestTask5_AlphaOne: at α = 1 every proposal is kept and a round yields
// γ + 1 tokens; the fraction is 0/0 there and must not give NaN.
//
//grade:task 5 points 1
func TestTask5_AlphaOne(t *testing.T) {
	defer check.Recover(t)
	var atOne, near, want []float64
	wrongAtOne, wrongNear := false, false
	for gamma := 0; gamma <= 8; gamma++ {
		want = append(want, float64(gamma+1))
		got := ExpectedTokensPerPass(1, gamma)
		if got != float64(gamma+1) {
			wrongAtOne = true
		}
		atOne = append(atOne, got)
		got = ExpectedTokensPerPass(0.999999, gamma)
		if math.Abs(got-float64(gamma+1)) > 1e-3*float64(gamma+1) {
			wrongNear = true
		}
		near = append(near, got)
	}
	if wrongAtOne {
		t.Errorf("ExpectedTokensPerPass(1, γ) for γ = 0…8 = %s; want γ + 1 = %s (the limit of the fraction, 1 + 1 + … + 1)", check.Vec(atOne), check.Vec(want))
	}
	if wrongNear {
		t.Errorf("ExpectedTokensPerPass(0.999999, γ) for γ = 0…8 = %s; want close to γ + 1 = %s (within 0.1%%)", check.Vec(near), check.Vec(want))
	}
}
