package decoding

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/tokenbytoken/course/engine"
)

// Test-time compute: instead of trusting one generated answer, generate
// several and combine them. Self-consistency samples N completions of the
// same prompt (each may reason its own way), reads the final answer of each
// and keeps the answer most of them reach (Majority). Best-of-N keeps the
// one completion that a scoring function likes best (BestOfN). Both cost N
// generations: the same loop, run N times.

// Completion is one of several completions of the same prompt.
type Completion struct {
	Seed    uint64       // the sampler's seed for this completion
	Text    string       // the completion, without the prompt
	Answer  string       // the answer read from Text ("" when none was found)
	Tokens  int          // tokens generated, the end-of-text token included
	LogProb float64      // sum of the generated tokens' log-probabilities
	Finish  FinishReason // why this completion ended
}

// HasAnswer reports whether an answer was read from the completion.
func (s Completion) HasAnswer() bool { return s.Answer != "" }

// MeanLogProb is the completion's log-probability per generated token: a
// score for BestOfN that does not favour short completions the way the
// total LogProb does. It is -Inf for a completion with no tokens.
func (s Completion) MeanLogProb() float64 {
	if s.Tokens == 0 {
		return math.Inf(-1)
	}
	return s.LogProb / float64(s.Tokens)
}

// CompletionSeed is the seed of the i-th completion drawn by GenerateN
// from base seed base. Neighbouring seeds of a xorshift generator start
// with nearly the same numbers, so the seeds are spread out by the
// SplitMix64 mix: generating with Options.Seed = CompletionSeed(base, i)
// reproduces completion i.
func CompletionSeed(base uint64, i int) uint64 {
	z := base + uint64(i+1)*0x9E3779B97F4A7C15
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// GenerateN generates n completions of prompt with the settings in opts,
// the i-th with Options.Seed = CompletionSeed(opts.Seed, i), and reads each
// one's answer with answer (nil keeps the whole completion, trimmed of
// spaces, as the answer). With Temperature 0 every completion is the same
// greedy one, so a vote over them is pointless: sample at a temperature
// above 0. Each Completion's LogProb needs the tokens' log-probabilities,
// so opts.NoLogProbs is ignored.
//
// A completion that ends for any reason (end of text, length limit,
// cancelled context) is kept, with its Finish reason; answer decides
// whether a cut-off text still holds an answer. Errors are those of
// Generate (bad options, a prompt that does not fit) and a non-positive n.
func GenerateN(ctx context.Context, m *engine.Model, tok *engine.Tokenizer, prompt string, n int, opts Options, answer func(text string) (string, bool)) ([]Completion, error) {
	if n < 1 {
		return nil, fmt.Errorf("GenerateN: n = %d completions; need at least 1", n)
	}
	if answer == nil {
		answer = func(text string) (string, bool) {
			text = strings.TrimSpace(text)
			return text, text != ""
		}
	}
	out := make([]Completion, 0, n)
	for i := range n {
		o := opts
		o.Seed = CompletionSeed(opts.Seed, i)
		o.NoLogProbs = false // Completion.LogProb sums them
		s := Completion{Seed: o.Seed}
		var text strings.Builder
		for step, err := range Generate(ctx, m, tok, prompt, o) {
			if err != nil {
				return out, fmt.Errorf("GenerateN: completion %d of %d: %w", i+1, n, err)
			}
			text.WriteString(step.Text)
			if step.ID != NoToken {
				s.Tokens++
				s.LogProb += step.LogProb
			}
			s.Finish = step.Finish
		}
		s.Text = text.String()
		if a, ok := answer(s.Text); ok {
			s.Answer = a
		}
		out = append(out, s)
	}
	return out, nil
}

// Vote is the outcome of a majority vote.
type Vote struct {
	Answer  string        // the answer with the most votes
	Votes   int           // how many samples gave it
	Counted int           // samples that had an answer
	Total   int           // all samples, with or without an answer
	Tally   []AnswerCount // every answer and its votes: most votes first, ties in order of first appearance
}

// AnswerCount is one answer of a vote and how many samples gave it.
type AnswerCount struct {
	Answer string
	Votes  int
}

// Share is the fraction of all samples that voted for the winner.
func (v Vote) Share() float64 {
	if v.Total == 0 {
		return 0
	}
	return float64(v.Votes) / float64(v.Total)
}

// ErrNoAnswer is returned (wrapped) by Majority and MajorityOf when no
// sample had an answer to vote for.
var ErrNoAnswer = errors.New("no sample has an answer")

// Majority returns the answer given most often. Empty answers ("" — a
// sample where no answer was found) are not votes, but count in Total. A
// tie goes to the tied answer that appears first in answers, so the result
// never depends on map order: the same answers always give the same vote.
func Majority(answers []string) (Vote, error) {
	v := Vote{Total: len(answers)}
	index := map[string]int{} // answer → its place in v.Tally
	for _, a := range answers {
		if a == "" {
			continue
		}
		v.Counted++
		i, seen := index[a]
		if !seen {
			i = len(v.Tally)
			index[a] = i
			v.Tally = append(v.Tally, AnswerCount{Answer: a})
		}
		v.Tally[i].Votes++
	}
	if v.Counted == 0 {
		if len(answers) == 0 {
			return v, fmt.Errorf("majority vote over no samples: %w", ErrNoAnswer)
		}
		return v, fmt.Errorf("majority vote over %d samples: %w (every answer is empty)", len(answers), ErrNoAnswer)
	}
	// A stable sort keeps first appearance as the tie-break.
	slices.SortStableFunc(v.Tally, func(a, b AnswerCount) int { return cmp.Compare(b.Votes, a.Votes) })
	v.Answer, v.Votes = v.Tally[0].Answer, v.Tally[0].Votes
	return v, nil
}

// MajorityOf is Majority over the samples' answers.
func MajorityOf(samples []Completion) (Vote, error) {
	answers := make([]string, len(samples))
	for i, s := range samples {
		answers[i] = s.Answer
	}
	return Majority(answers)
}

// BestOfN returns the index of the sample with the highest score, such as
// Completion.MeanLogProb (the model's own confidence) or a checker's verdict.
// Ties go to the earliest sample; a NaN score never wins. It fails when
// there are no samples, score is nil, or every score is NaN.
func BestOfN(samples []Completion, score func(Completion) float64) (int, error) {
	if len(samples) == 0 {
		return -1, errors.New("best of N: no samples to choose from")
	}
	if score == nil {
		return -1, errors.New("best of N: score function is nil")
	}
	best, bestScore := -1, math.Inf(-1)
	for i, s := range samples {
		v := score(s)
		if math.IsNaN(v) {
			continue
		}
		if best < 0 || v > bestScore {
			best, bestScore = i, v
		}
	}
	if best < 0 {
		return -1, fmt.Errorf("best of N: all %d scores are NaN", len(samples))
	}
	return best, nil
}
