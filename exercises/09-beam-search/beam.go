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
// Every beam is extended by one token: ask the model once per beam,
// NextLogits(prompt + beam.Tokens, 1), and let each token id of the
// vocabulary give a candidate with Tokens = beam.Tokens + [id] and
// LogProb = beam.LogProb + log softmax(logits)[id]. Rank all candidates of
// all beams together, best first: higher LogProb first; on equal LogProb,
// the lexicographically smaller Tokens first (compare token ids left to
// right, as slices.Compare does).
//
// Then go down that ranking:
//   - a candidate whose last token ends the text (isEnd reports true) is
//     returned in ended if its rank is below width (rank 0 is the best);
//     otherwise it is dropped;
//   - the first width candidates that do not end the text are returned in
//     live.
//
// Return both lists in ranking order. Ended candidates take places in the
// ranking, but never places among the live beams: live is always width
// long unless the candidates run out. isEnd nil means no token ends the
// text. The returned Tokens must be new slices that never share memory
// with the input beams or with each other. Return an error for a width
// below 1, and any error of the model.
//
// Example, width 2, from the empty beam, where the model gives </s> 0.5,
// a 0.3, b 0.2: ended = [{[</s>] log 0.5}], live = [{[a] log 0.3},
// {[b] log 0.2}].
func Step(lm LM, prompt []int, beams []Beam, width int, isEnd func(id int) bool) (live, ended []Beam, err error) {
	return nil, nil, nil
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
// Start from one empty beam and repeat Step with opts.Width. Every ended
// candidate becomes a Hypothesis with Ended = true. After the last step
// (step number maxNew, where maxNew is opts.MaxNewTokens, or fewer if the
// model's context would overflow: at most ContextLength() − len(prompt)),
// the live beams become hypotheses too, with Ended = false. Stop as well
// when no beam is left alive.
//
// Score each hypothesis with Score(LogProb, len(Tokens),
// opts.LengthPenalty). Return the best opts.Width hypotheses (fewer if
// fewer were found), best first: higher Score first; on equal Score, the
// lexicographically smaller Tokens first.
//
// Return an error if opts.Width < 1, opts.MaxNewTokens < 1, the length
// penalty is NaN or infinite, the prompt is empty, or the prompt leaves no
// room in the context (len(prompt) ≥ ContextLength()); return model errors
// too.
//
// Optional: you may stop early, as the engine does, once opts.Width
// hypotheses are finished and no live beam can still reach the score of
// the worst of them. The result must be the same as without stopping early.
func Search(lm LM, prompt []int, opts Options) ([]Hypothesis, error) {
	return nil, nil
}
