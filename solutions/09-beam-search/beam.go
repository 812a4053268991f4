// Package beam is exercise 09 of the Token by Token track: beam search.
//
// Greedy decoding commits to the likeliest token at every step and never
// looks back. Beam search keeps the B likeliest partial sequences (the
// beams), extends each by one token, and keeps the B likeliest of all the
// extensions, step after step. Sequences that end the text are set aside as
// finished hypotheses and ranked by a length-normalised score, so that short
// answers do not win just because they multiply fewer probabilities.
//
// The types here mirror the course's engine (decoding.Beam) without
// importing it: LM has the method set of decoding.LM, so the course's model,
// served by engine.NewModelLM, can be searched by your code.
package beam

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
)

// LM is a language model seen from outside: given the tokens so far, it
// scores every possible next token. It has the method set of the engine's
// decoding.LM, so *engine.ModelLM satisfies it.
type LM interface {
	// VocabSize is the number of tokens the model scores.
	VocabSize() int
	// ContextLength is the longest prefix the model accepts.
	ContextLength() int
	// NextLogits returns n rows of logits, 1 ≤ n ≤ len(prefix): row i
	// scores the token that follows prefix[:len(prefix)-n+1+i]. With n = 1
	// it is the usual next-token question.
	NextLogits(prefix []int, n int) ([][]float32, error)
}

// Beam is a partial sequence: the tokens generated after the prompt (the
// prompt itself is not included) and their total log-probability given
// the prompt.
type Beam struct {
	Tokens  []int
	LogProb float64
}

// Step is one step of beam search with the given width (Task 2).
//
// Every beam is extended by one token: the model is asked once per beam,
// NextLogits(prompt + beam.Tokens, 1), and each token id of the
// vocabulary gives a candidate with Tokens = beam.Tokens + [id] and
// LogProb = beam.LogProb + log softmax(logits)[id]. All candidates of all
// beams are ranked together, best first: higher LogProb first; on equal
// LogProb, the lexicographically smaller Tokens first (compare token ids
// left to right, as slices.Compare does).
//
// Going down that ranking:
//   - a candidate whose last token ends the text (isEnd reports true) is
//     returned in ended if its rank is below width (rank 0 is the best);
//     otherwise it is dropped;
//   - the first width candidates that do not end the text are returned in
//     live.
//
// Both lists are in ranking order. Ended candidates take places in the
// ranking, but never places among the live beams: live is always width
// long unless the candidates run out. isEnd nil means no token ends the
// text. The returned Tokens are new slices: they never share memory with
// the input beams or with each other. A width below 1 or a model error
// is returned as an error.
//
// Only each beam's best tokens can make the cut, so it is enough to
// propose, per beam, its likeliest tokens until width of them do not end
// the text: that is what this solution does.
func Step(lm LM, prompt []int, beams []Beam, width int, isEnd func(id int) bool) (live, ended []Beam, err error) {
	if width < 1 {
		return nil, nil, fmt.Errorf("beam width = %d: must be at least 1", width)
	}
	if isEnd == nil {
		isEnd = func(int) bool { return false }
	}
	var cands []Beam
	for _, b := range beams {
		seq := slices.Concat(prompt, b.Tokens)
		rows, err := lm.NextLogits(seq, 1)
		if err != nil {
			return nil, nil, err
		}
		if len(rows) != 1 {
			return nil, nil, fmt.Errorf("asked for 1 row of logits, got %d", len(rows))
		}
		logp := logSoftmax(rows[0])
		for _, id := range proposals(logp, width, isEnd) {
			cands = append(cands, Beam{
				Tokens:  append(slices.Clip(b.Tokens), id), // Clip: always a new array
				LogProb: b.LogProb + logp[id],
			})
		}
	}
	slices.SortStableFunc(cands, func(x, y Beam) int {
		if c := cmp.Compare(y.LogProb, x.LogProb); c != 0 {
			return c
		}
		return slices.Compare(x.Tokens, y.Tokens)
	})
	for rank, c := range cands {
		switch {
		case isEnd(c.Tokens[len(c.Tokens)-1]):
			if rank < width {
				ended = append(ended, c)
			}
		case len(live) < width:
			live = append(live, c)
		}
	}
	return live, ended, nil
}

// proposals returns one beam's candidate tokens, likeliest first (lower id
// first on ties): the width likeliest, and more until width of them do not
// end the text. Any other token has width better tokens of the same beam
// above it, so it can neither rank below width nor be among the first
// width live candidates.
func proposals(logp []float64, width int, isEnd func(int) bool) []int {
	order := make([]int, len(logp))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(logp[b], logp[a]) })
	var out []int
	nonEnd := 0
	for _, id := range order {
		if len(out) >= width && nonEnd >= width {
			break
		}
		out = append(out, id)
		if !isEnd(id) {
			nonEnd++
		}
	}
	return out
}

// Options control a beam search.
type Options struct {
	// Width is the number of beams kept after each step (at least 1).
	// Width 1 is greedy decoding.
	Width int
	// MaxNewTokens is the longest continuation considered (at least 1).
	MaxNewTokens int
	// LengthPenalty is α in Score: 0 ranks finished hypotheses by their
	// raw log-probability, α > 0 favours longer ones, α < 0 shorter ones.
	LengthPenalty float64
	// IsEnd reports whether a token ends the text. Nil means none does.
	IsEnd func(id int) bool
}

// Hypothesis is a finished candidate answer.
type Hypothesis struct {
	Tokens  []int   // the generated tokens, ending with the end token if Ended
	LogProb float64 // total log-probability of Tokens given the prompt
	Score   float64 // Score(LogProb, len(Tokens), LengthPenalty)
	Ended   bool    // false when cut at the length limit
}

// Search finds a high-probability continuation of prompt by beam search
// (Task 3).
//
// It starts from one empty beam and repeats Step with opts.Width. Every
// ended candidate becomes a Hypothesis with Ended = true; after the last
// step (step number maxNew, where maxNew is opts.MaxNewTokens, or fewer
// if the model's context would overflow: at most ContextLength() −
// len(prompt)), the live beams become hypotheses too, with Ended = false.
// It also stops when no beam is left alive.
//
// Each hypothesis is scored by Score(LogProb, len(Tokens),
// opts.LengthPenalty). It returns the best opts.Width hypotheses (fewer if
// fewer were found), best first: higher Score first; on equal Score, the
// lexicographically smaller Tokens first.
//
// It returns an error if opts.Width < 1, opts.MaxNewTokens < 1, the length
// penalty is NaN or infinite, the prompt is empty, or the prompt leaves no
// room in the context (len(prompt) ≥ ContextLength()); model errors are
// returned too.
//
// This solution also stops early, as the engine does, once opts.Width
// hypotheses are finished and no live beam can reach the score of the
// worst of them: a beam's log-probability only falls as it grows, so its
// best possible score is its LogProb divided by the largest length
// normaliser it can still get. Stopping early changes nothing in the
// result, only the number of model calls.
func Search(lm LM, prompt []int, opts Options) ([]Hypothesis, error) {
	switch {
	case opts.Width < 1:
		return nil, fmt.Errorf("beam width = %d: must be at least 1", opts.Width)
	case opts.MaxNewTokens < 1:
		return nil, fmt.Errorf("max new tokens = %d: must be at least 1", opts.MaxNewTokens)
	case math.IsNaN(opts.LengthPenalty) || math.IsInf(opts.LengthPenalty, 0):
		return nil, fmt.Errorf("length penalty = %v: must be a finite number", opts.LengthPenalty)
	case len(prompt) == 0:
		return nil, errors.New("empty prompt: beam search needs at least one token (BOS)")
	case len(prompt) >= lm.ContextLength():
		return nil, fmt.Errorf("prompt of %d tokens leaves no room in the model's context of %d tokens", len(prompt), lm.ContextLength())
	}
	maxNew := min(opts.MaxNewTokens, lm.ContextLength()-len(prompt))
	alpha := opts.LengthPenalty
	finish := func(b Beam, ended bool) Hypothesis {
		return Hypothesis{Tokens: b.Tokens, LogProb: b.LogProb, Score: Score(b.LogProb, len(b.Tokens), alpha), Ended: ended}
	}

	live := []Beam{{}}
	var done []Hypothesis
	for depth := 1; depth <= maxNew && len(live) > 0; depth++ {
		next, ended, err := Step(lm, prompt, live, opts.Width, opts.IsEnd)
		if err != nil {
			return nil, err
		}
		for _, b := range ended {
			done = append(done, finish(b, true))
		}
		live = next
		if depth == maxNew {
			for _, b := range live {
				done = append(done, finish(b, false))
			}
			break
		}
		if len(done) >= opts.Width {
			sortHypotheses(done)
			worst := done[opts.Width-1].Score
			// The largest normaliser a beam can still get: at its current
			// length if α < 0, at the length limit if α > 0.
			norm := max(math.Pow((5+float64(depth))/6, alpha), math.Pow((5+float64(maxNew))/6, alpha))
			if !slices.ContainsFunc(live, func(b Beam) bool { return b.LogProb/norm >= worst }) {
				break
			}
		}
	}
	sortHypotheses(done)
	return done[:min(len(done), opts.Width)], nil
}

// sortHypotheses orders hypotheses best first: higher Score, then the
// lexicographically smaller Tokens.
func sortHypotheses(h []Hypothesis) {
	slices.SortStableFunc(h, func(x, y Hypothesis) int {
		if c := cmp.Compare(y.Score, x.Score); c != 0 {
			return c
		}
		return slices.Compare(x.Tokens, y.Tokens)
	})
}
