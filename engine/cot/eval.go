package cot

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/decoding"
	"github.com/tokenbytoken/course/engine/internal/parallel"
)

// MaxNewTokens is how many tokens a completion of a problem may take: a
// step is 9 characters, and the answer at most MaxDigits+1 digits.
func MaxNewTokens(digits int) int { return 9*digits + 3 + digits + 1 + 1 }

// Attempt is one completion of a problem and what it was worth.
type Attempt struct {
	Problem    Problem
	Completion string
	Answer     int  // the answer read from Completion (see ParseAnswer)
	Answered   bool // whether there was one
	Correct    bool // whether it equals Problem.Sum()
	Tokens     int  // tokens generated, the end-of-text token included
}

// Solve runs the model on one problem with the given sampling settings
// (the zero Options are greedy decoding) and reads its answer.
func Solve(ctx context.Context, m *engine.Model, tok *engine.Tokenizer, p Problem, opts decoding.Options) (Attempt, error) {
	if opts.MaxNewTokens == 0 {
		opts.MaxNewTokens = MaxNewTokens(p.Digits)
	}
	a := Attempt{Problem: p}
	var sb strings.Builder
	for step, err := range decoding.Generate(ctx, m, tok, p.Prompt(), opts) {
		if err != nil {
			return a, fmt.Errorf("solving %s: %w", p.Prompt(), err)
		}
		sb.WriteString(step.Text)
		if step.ID != decoding.NoToken {
			a.Tokens++
		}
	}
	a.Completion = sb.String()
	a.Answer, a.Answered = ParseAnswer(a.Completion)
	a.Correct = a.Answered && a.Answer == p.Sum()
	return a, nil
}

// Score is how a way of answering did over a set of problems.
type Score struct {
	Problems int // problems attempted
	Correct  int // problems answered right
	Tokens   int // tokens generated over all of them
}

// Accuracy is the fraction of problems answered right.
func (s Score) Accuracy() float64 {
	if s.Problems == 0 {
		return 0
	}
	return float64(s.Correct) / float64(s.Problems)
}

// TokensPerProblem is the average cost of one answer, in generated tokens.
func (s Score) TokensPerProblem() float64 {
	if s.Problems == 0 {
		return 0
	}
	return float64(s.Tokens) / float64(s.Problems)
}

// String is "83% right, 31.0 tokens per problem".
func (s Score) String() string {
	return fmt.Sprintf("%.0f%% right, %.1f tokens per problem", 100*s.Accuracy(), s.TokensPerProblem())
}

// Evaluate solves every problem with one completion each (Solve) and adds
// up the results. The problems are shared among the machine's cores.
func Evaluate(ctx context.Context, m *engine.Model, tok *engine.Tokenizer, problems []Problem, opts decoding.Options) (Score, error) {
	attempts := make([]Attempt, len(problems))
	err := forEach(len(problems), func(i int) error {
		var err error
		attempts[i], err = Solve(ctx, m, tok, problems[i], opts)
		return err
	})
	if err != nil {
		return Score{}, err
	}
	s := Score{Problems: len(problems)}
	for _, a := range attempts {
		s.Tokens += a.Tokens
		if a.Correct {
			s.Correct++
		}
	}
	return s, nil
}

// answerString reads a completion's answer as a string for engine's votes.
func answerString(text string) (string, bool) {
	v, ok := ParseAnswer(text)
	if !ok {
		return "", false
	}
	return strconv.Itoa(v), true
}

// SampleAnswers draws n completions of the problem (decoding.GenerateN) at the
// given settings, which should sample (Temperature above 0), and reads
// each one's answer.
func SampleAnswers(ctx context.Context, m *engine.Model, tok *engine.Tokenizer, p Problem, n int, opts decoding.Options) ([]decoding.Completion, error) {
	if opts.MaxNewTokens == 0 {
		opts.MaxNewTokens = MaxNewTokens(p.Digits)
	}
	return decoding.GenerateN(ctx, m, tok, p.Prompt(), n, opts, answerString)
}

// BySize evaluates the model on count problems of every size, 1 to
// MaxDigits digits (Problems(d, count, TestSeed)): score i is for i+1
// digits.
func BySize(ctx context.Context, m *engine.Model, tok *engine.Tokenizer, count int, opts decoding.Options) ([]Score, error) {
	scores := make([]Score, MaxDigits)
	for d := 1; d <= MaxDigits; d++ {
		var err error
		if scores[d-1], err = Evaluate(ctx, m, tok, Problems(d, count, TestSeed), opts); err != nil {
			return nil, err
		}
	}
	return scores, nil
}

// SampleAll draws n completions of every problem (SampleAnswers), sharing
// the problems among the machine's cores: samples[i] are problem i's.
// Problem i samples from the seed decoding.CompletionSeed(opts.Seed, i), so that
// no two problems share their random numbers: with one seed for all, the
// first sample of every problem would be equally lucky or unlucky.
func SampleAll(ctx context.Context, m *engine.Model, tok *engine.Tokenizer, problems []Problem, n int, opts decoding.Options) ([][]decoding.Completion, error) {
	samples := make([][]decoding.Completion, len(problems))
	err := forEach(len(problems), func(i int) error {
		o := opts
		o.Seed = decoding.CompletionSeed(opts.Seed, i)
		var err error
		samples[i], err = SampleAnswers(ctx, m, tok, problems[i], n, o)
		return err
	})
	return samples, err
}

// VoteScore scores self-consistency with n votes: for every problem, the
// majority answer of its first n samples (decoding.MajorityOf), right or
// wrong. Tokens counts the n completions that vote; a problem none of whose
// samples has an answer is wrong.
func VoteScore(problems []Problem, samples [][]decoding.Completion, n int) (Score, error) {
	if len(samples) != len(problems) {
		return Score{}, fmt.Errorf("%d problems but samples for %d", len(problems), len(samples))
	}
	s := Score{Problems: len(problems)}
	for i, p := range problems {
		if n < 1 || n > len(samples[i]) {
			return Score{}, fmt.Errorf("a vote of %d samples, but problem %d (%s) has %d", n, i, p.Prompt(), len(samples[i]))
		}
		for _, x := range samples[i][:n] {
			s.Tokens += x.Tokens
		}
		if VoteRight(p, samples[i][:n]) {
			s.Correct++
		}
	}
	return s, nil
}

// VoteRight reports whether the majority answer of the samples
// (decoding.MajorityOf) is the problem's sum. Samples without an answer do
// not vote; if none has one, the vote is wrong.
func VoteRight(p Problem, samples []decoding.Completion) bool {
	v, err := decoding.MajorityOf(samples)
	return err == nil && v.Answer == strconv.Itoa(p.Sum())
}

// Answers lists the samples' answers, "" for a sample without one: what
// decoding.Majority votes over.
func Answers(samples []decoding.Completion) []string {
	out := make([]string, len(samples))
	for i, s := range samples {
		out[i] = s.Answer
	}
	return out
}

// RightShare is the fraction of a problem's samples whose answer is right.
func RightShare(p Problem, samples []decoding.Completion) float64 {
	if len(samples) == 0 {
		return 0
	}
	right := 0
	for _, x := range samples {
		if x.Answer == strconv.Itoa(p.Sum()) {
			right++
		}
	}
	return float64(right) / float64(len(samples))
}

// forEach calls f(0), …, f(n-1), shared among the cores by the engine's
// team (engine/internal/parallel), and returns the error of the first
// problem that failed. Once one fails, the problems not yet started are
// skipped.
func forEach(n int, f func(i int) error) error {
	var (
		mu      sync.Mutex
		first   error
		firstAt = n
		failed  atomic.Bool
	)
	parallel.For(n, true, func(_, start, end int) {
		for i := start; i < end && !failed.Load(); i++ {
			if err := f(i); err != nil {
				mu.Lock()
				if i < firstAt {
					first, firstAt = err, i
				}
				mu.Unlock()
				failed.Store(true)
				return
			}
		}
	})
	return first
}
