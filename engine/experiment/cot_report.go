package experiment

import (
	"fmt"
	"strings"

	"github.com/tokenbytoken/course/engine/cot"
)

// Sentences for notebook 13 that state what its cells measured, so that the
// text never repeats a number typed in by hand: each takes the cell's
// scores and says what they show.

// FormatsBySize sums up cot.BySize's scores of the two formats (index d-1
// for d digits) in three lines: each model's lowest and highest accuracy
// from two digits on, both at one digit, and what an answer of the largest
// size costs in tokens with steps and without.
func FormatsBySize(direct, steps []cot.Score) (string, error) {
	if len(direct) != len(steps) {
		return "", fmt.Errorf("scores for %d sizes of direct answers but %d with steps", len(direct), len(steps))
	}
	if len(direct) < 2 {
		return "", fmt.Errorf("scores for %d sizes: need at least 2 (one digit, then more)", len(direct))
	}
	for d := range direct {
		if direct[d].Problems == 0 || steps[d].Problems == 0 {
			return "", fmt.Errorf("no problems scored at %d digits", d+1)
		}
	}
	last := len(direct)
	var b strings.Builder
	dLo, dHi := accuracyRange(direct[1:])
	sLo, sHi := accuracyRange(steps[1:])
	fmt.Fprintf(&b, "from 2 to %d digits: the steps model is right on %s of the problems, the direct model on %s\n",
		last, percentRange(sLo, sHi), percentRange(dLo, dHi))
	one := "at 1 digit"
	if direct[0].Correct < direct[0].Problems && steps[0].Correct < steps[0].Problems {
		one = "at 1 digit neither is perfect"
	}
	fmt.Fprintf(&b, "%s: the steps model is right on %d of %d, the direct model on %d of %d\n",
		one, steps[0].Correct, steps[0].Problems, direct[0].Correct, direct[0].Problems)
	st, dt := steps[last-1].TokensPerProblem(), direct[last-1].TokensPerProblem()
	fmt.Fprintf(&b, "a %d-digit answer costs %.1f tokens with steps and %.1f without: %.1f times as many",
		last, st, dt, st/dt)
	return b.String(), nil
}

// accuracyRange returns the lowest and highest accuracy among scores.
func accuracyRange(scores []cot.Score) (lo, hi float64) {
	lo, hi = scores[0].Accuracy(), scores[0].Accuracy()
	for _, s := range scores[1:] {
		lo, hi = min(lo, s.Accuracy()), max(hi, s.Accuracy())
	}
	return lo, hi
}

// percentRange is "94% to 100%", or "94%" when both ends round alike.
func percentRange(lo, hi float64) string {
	l, h := fmt.Sprintf("%.0f%%", 100*lo), fmt.Sprintf("%.0f%%", 100*hi)
	if l == h {
		return l
	}
	return l + " to " + h
}

// VoteSummary says what majority votes of ns[i] samples (votes[i], from
// cot.VoteScore) did against greedy decoding on the same problems: the
// accuracy of each vote, then whether a single sample started below greedy
// and how the best vote compares with it, in problems.
func VoteSummary(name string, ns []int, votes []cot.Score, greedy cot.Score) (string, error) {
	if len(ns) != len(votes) || len(ns) == 0 {
		return "", fmt.Errorf("%d vote sizes but %d scores: need one score per size, at least one", len(ns), len(votes))
	}
	for i, v := range votes {
		if v.Problems != greedy.Problems || v.Problems == 0 {
			return "", fmt.Errorf("the vote of %d scored %d problems, greedy decoding %d: need the same, at least one", ns[i], v.Problems, greedy.Problems)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s, right on %d problems: ", name, greedy.Problems)
	best := 0
	for i, v := range votes {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%.0f%% with %s", 100*v.Accuracy(), samplesWord(ns[i]))
		if v.Correct > votes[best].Correct {
			best = i
		}
	}
	fmt.Fprintf(&b, "; %.0f%% greedy\n", 100*greedy.Accuracy())
	if ns[0] == 1 {
		fmt.Fprintf(&b, "  one sample is %s greedy decoding; ", comparedTo(votes[0].Correct-greedy.Correct))
	} else {
		b.WriteString("  ")
	}
	fmt.Fprintf(&b, "the best vote, of %s, is %s greedy decoding", samplesWord(ns[best]), comparedTo(votes[best].Correct-greedy.Correct))
	return b.String(), nil
}

// samplesWord is "one sample" or "9 samples".
func samplesWord(n int) string {
	if n == 1 {
		return "one sample"
	}
	return fmt.Sprintf("%d samples", n)
}

// comparedTo says how a count that differs by diff problems from another
// stands against it: "2 problems below", "as good as", "1 problem above".
func comparedTo(diff int) string {
	word := "problems"
	if diff == 1 || diff == -1 {
		word = "problem"
	}
	switch {
	case diff > 0:
		return fmt.Sprintf("%d %s above", diff, word)
	case diff < 0:
		return fmt.Sprintf("%d %s below", -diff, word)
	}
	return "as good as"
}

// Exposure is how often a training run of the addition task showed the
// model the problems of one size.
type Exposure struct {
	Examples int     // training examples of this size
	Distinct int     // distinct problems of this size
	Read     float64 // the run's tokens over the training stream's: how many times it read the stream, on average
}

// PerProblem is how many times the run showed one problem of this size,
// on average: its copies in the training examples times the share of the
// stream the run read (it reads random windows, so this is an expectation).
func (e Exposure) PerProblem() float64 {
	return float64(e.Examples) / float64(e.Distinct) * e.Read
}

// TrainingExposure counts, for a training run p of format f (one of
// cot.Presets), the examples of the given size among the run's training
// examples (cot.Examples with the run's count and seed), the distinct
// problems of that size, and how many times over the run read its
// training stream: steps × batch × window tokens, over the stream's
// tokens (cot.Data's stream).
func TrainingExposure(p cot.Preset, f cot.Format, digits int) (Exposure, error) {
	if digits < 1 || digits > cot.MaxDigits {
		return Exposure{}, fmt.Errorf("problems of %d digits: the task has 1 to %d", digits, cot.MaxDigits)
	}
	if p.Examples < 1 {
		return Exposure{}, fmt.Errorf("a run of %d training examples: need at least one", p.Examples)
	}
	// The sizes and problems drawn do not depend on the format, and a
	// steps example is the direct one with digits steps of nine characters
	// and "so " inserted: the cheap direct texts give both streams.
	texts := cot.Examples(cot.Direct, p.Examples, p.ExamplesSeed)
	e := Exposure{Distinct: distinctProblems(digits)}
	// The task's tokenizer never merges (cot.NewTokenizer): an example is
	// <s>, the leading space, one token per character and </s>, so the
	// stream's length needs no encoding.
	stream := 0
	for _, t := range texts {
		size := strings.IndexByte(t, '+')
		if size == digits {
			e.Examples++
		}
		stream += len(t) + 3
		if f == cot.Steps {
			stream += 9*size + len("so ")
		}
	}
	c := p.Train
	e.Read = float64(c.Steps) * float64(c.BatchSize) * float64(c.Model.SeqLen) / float64(stream)
	return e, nil
}

// distinctProblems is how many problems of the given size cot.Problems can
// draw: every pair of numbers with exactly that many digits (0 to 9 for
// one digit).
func distinctProblems(digits int) int {
	n := 10
	if digits > 1 {
		n = 9
		for range digits - 1 {
			n *= 10
		}
	}
	return n * n
}

// CommonestLastDigit finds the digit most of the attempts' answers end in
// (the smallest such digit on a tie) and returns it, how many answers end
// in it, and how many of the problems' right sums do: a model that falls
// back on a fixed guess writes one digit far more often than the sums have
// it. Attempts without an answer count for the sums only.
func CommonestLastDigit(attempts []cot.Attempt) (digit, answers, sums int) {
	var count [10]int
	for _, a := range attempts {
		if a.Answered && a.Answer >= 0 {
			count[a.Answer%10]++
		}
	}
	for d := range count {
		if count[d] > count[digit] {
			digit = d
		}
	}
	for _, a := range attempts {
		if a.Problem.Sum()%10 == digit {
			sums++
		}
	}
	return digit, count[digit], sums
}

// OffBy counts the wrong answers and, among them, those that miss the sum
// by at most d (d = 1: off by one). An attempt without an answer is wrong
// and never near.
func OffBy(attempts []cot.Attempt, d int) (near, wrong int) {
	for _, a := range attempts {
		if a.Correct {
			continue
		}
		wrong++
		if diff := a.Answer - a.Problem.Sum(); a.Answered && diff >= -d && diff <= d {
			near++
		}
	}
	return near, wrong
}
