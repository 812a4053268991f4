package cot

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/decoding"
)

func ExampleProblem_Completion() {
	p, _ := NewProblem(357, 268, 3)
	fmt.Println(p.Prompt() + p.Completion(Direct))
	fmt.Println(p.Prompt() + p.Completion(Steps))
	// Output:
	// 357+268=625
	// 357+268=7+8+0=15 5+6+1=12 3+2+1=06 so 625
}

func TestLoad(t *testing.T) {
	var shapes []engine.Config
	for _, f := range Formats {
		m, tok, err := Load(f)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := NewTokenizer()
		if id, same := tok.SameVocabulary(want); !same {
			t.Errorf("the embedded tokenizer differs from NewTokenizer at token %d", id)
		}
		if m.Config.SeqLen < 2+2*MaxDigits+1+MaxNewTokens(MaxDigits) {
			t.Errorf("%s model: a context of %d tokens cannot hold the longest problem and its steps", f, m.Config.SeqLen)
		}
		shapes = append(shapes, m.Config)
	}
	if shapes[0] != shapes[1] {
		t.Errorf("the two models differ in shape: %v and %v", shapes[0], shapes[1])
	}
	if _, _, err := Load(Format(7)); err == nil || !strings.Contains(err.Error(), "Format(7)") {
		t.Errorf("Load(Format(7)) error = %v; want one naming the format", err)
	}
}

// TestEmbeddedModels checks the lesson's claim on the embedded models: on
// three-digit problems the model that writes its steps gets most answers
// right, far more than the direct one, at a higher cost in tokens.
func TestEmbeddedModels(t *testing.T) {
	ctx := context.Background()
	ps := Problems(3, 60, TestSeed)
	var scores []Score
	for _, f := range Formats {
		m, tok := MustLoad(f)
		s, err := Evaluate(ctx, m, tok, ps, decoding.Options{})
		if err != nil {
			t.Fatal(err)
		}
		scores = append(scores, s)
	}
	direct, steps := scores[0], scores[1]
	t.Logf("three digits: direct %v; steps %v", direct, steps)
	if steps.Accuracy() < 0.9 || steps.Accuracy() < direct.Accuracy()+0.5 {
		t.Errorf("three-digit accuracy: steps %.0f%%, direct %.0f%%; want steps at least 90%% and 50 points above direct", 100*steps.Accuracy(), 100*direct.Accuracy())
	}
	if steps.TokensPerProblem() < 5*direct.TokensPerProblem() {
		t.Errorf("tokens per answer: steps %.1f, direct %.1f; the steps should cost several times more", steps.TokensPerProblem(), direct.TokensPerProblem())
	}
}

func TestEvaluateMatchesSolve(t *testing.T) {
	ctx := context.Background()
	m, tok := MustLoad(Steps)
	ps := Problems(2, 9, 3)
	var want Score
	want.Problems = len(ps)
	for _, p := range ps {
		a, err := Solve(ctx, m, tok, p, decoding.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if a.Tokens > MaxNewTokens(p.Digits) {
			t.Errorf("%s: %d tokens, above the limit %d", p.Prompt(), a.Tokens, MaxNewTokens(p.Digits))
		}
		if got, ok := ParseAnswer(a.Completion); got != a.Answer || ok != a.Answered || a.Correct != (ok && got == p.Sum()) {
			t.Errorf("Solve(%s) = %+v: the answer does not match its completion", p.Prompt(), a)
		}
		want.Tokens += a.Tokens
		if a.Correct {
			want.Correct++
		}
	}
	got, err := Evaluate(ctx, m, tok, ps, decoding.Options{})
	if err != nil || got != want {
		t.Errorf("Evaluate = %+v, %v; one Solve after another gives %+v", got, err, want)
	}
	by, err := BySize(ctx, m, tok, 3, decoding.Options{})
	if err != nil || len(by) != MaxDigits || by[0].Problems != 3 {
		t.Errorf("BySize(3 per size) = %+v, %v; want %d scores of 3 problems", by, err, MaxDigits)
	}
}

func TestSampleAll(t *testing.T) {
	ctx := context.Background()
	m, tok := MustLoad(Steps)
	ps := Problems(4, 3, 8)
	opts := decoding.Options{Temperature: 1, Seed: 5}
	all, err := SampleAll(ctx, m, tok, ps, 4, opts)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range ps {
		o := opts
		o.Seed = decoding.CompletionSeed(opts.Seed, i)
		one, err := SampleAnswers(ctx, m, tok, p, 4, o)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(one) != fmt.Sprint(all[i]) {
			t.Errorf("SampleAll's samples of %s differ from SampleAnswers'", p.Prompt())
		}
		for _, s := range one {
			if want, ok := ParseAnswer(s.Text); ok && s.Answer != fmt.Sprint(want) || !ok && s.Answer != "" {
				t.Errorf("sample %q of %s has answer %q", s.Text, p.Prompt(), s.Answer)
			}
		}
	}
}

func TestVoteScore(t *testing.T) {
	ps := []Problem{{A: 1, B: 2, Digits: 1}, {A: 4, B: 4, Digits: 1}}
	samples := [][]decoding.Completion{
		{{Answer: "3", Tokens: 2}, {Answer: "4", Tokens: 2}, {Answer: "4", Tokens: 2}}, // right first, then outvoted
		{{Answer: "9", Tokens: 3}, {Answer: "8", Tokens: 3}, {Answer: "8", Tokens: 3}}, // wrong first, then right
	}
	for _, c := range []struct {
		n       int
		correct int
		tokens  int
	}{{1, 1, 5}, {2, 1, 10}, {3, 1, 15}} {
		s, err := VoteScore(ps, samples, c.n)
		if err != nil || s.Correct != c.correct || s.Tokens != c.tokens || s.Problems != 2 {
			t.Errorf("VoteScore(n=%d) = %+v, %v; want %d right, %d tokens", c.n, s, err, c.correct, c.tokens)
		}
	}
	if !VoteRight(ps[1], samples[1]) || VoteRight(ps[0], samples[0]) || !VoteRight(ps[0], samples[0][:2]) {
		t.Error("VoteRight: want [9 8 8] right for 4+4, [3 4 4] wrong and [3 4] right (a tie, 3 first) for 1+2")
	}
	if got := fmt.Sprint(Answers(append(samples[0], decoding.Completion{}))); got != "[3 4 4 ]" {
		t.Errorf("Answers = %s; want [3 4 4 ]", got)
	}
	if got := RightShare(ps[1], samples[1]); got != 2.0/3 {
		t.Errorf("RightShare of 8 among [9 8 8] = %v; want 2/3", got)
	}
	if _, err := VoteScore(ps, samples, 4); err == nil || !strings.Contains(err.Error(), "4 samples") {
		t.Errorf("VoteScore(n=4) with 3 samples: error %v; want one saying so", err)
	}
	if _, err := VoteScore(ps, samples[:1], 1); err == nil {
		t.Error("VoteScore with samples for 1 of 2 problems: no error")
	}
}

// TestEvaluateReportsAFailure: when the problems cannot be solved (the
// settings are impossible), Evaluate and SampleAll stop and return the
// error of a problem, Evaluate's naming it, rather than scores.
func TestEvaluateReportsAFailure(t *testing.T) {
	m, tok := MustLoad(Steps)
	ps := Problems(2, 20, 3)
	opts := decoding.Options{Temperature: -1}
	names := func(err error) bool {
		for _, p := range ps {
			if strings.Contains(err.Error(), p.Prompt()) {
				return true
			}
		}
		return false
	}
	var bad *decoding.SettingError
	if s, err := Evaluate(context.Background(), m, tok, ps, opts); !errors.As(err, &bad) || !names(err) {
		t.Errorf("Evaluate at temperature -1 = %+v, %v; want an *decoding.SettingError naming a problem", s, err)
	}
	if _, err := SampleAll(context.Background(), m, tok, ps, 2, opts); !errors.As(err, &bad) {
		t.Errorf("SampleAll at temperature -1: %v; want an *decoding.SettingError", err)
	}
}
