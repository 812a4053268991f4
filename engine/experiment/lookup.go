package experiment

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/decoding"
)

// Prompt lookup on a real model (notebook 10): what the lookup guesses at
// every position of a text, the first token speculative decoding draws
// after a guess, and prompt lookup dressed as a language model.

// LookupGuess is what prompt lookup proposes for one token of a text, and
// what the target thinks of it there.
type LookupGuess struct {
	Actual int     // the token the text has here
	Guess  int     // the token the lookup proposes; decoding.NoToken when it finds no match
	P      float64 // the target's probability of Guess here (temperature 1); 0 without a guess
	Top    int     // the target's most likely token here
}

// Right reports whether the lookup guessed the text's token.
func (g LookupGuess) Right() bool { return g.Guess == g.Actual }

// LookupGuesses asks lookup, before every token of text (which follows
// prompt), for its one-token guess from the tokens before it, and scores
// each guess with lm in a single pass over the whole text.
func LookupGuesses(lm decoding.LM, prompt, text []int, lookup decoding.PromptLookup) ([]LookupGuess, error) {
	if len(prompt) == 0 || len(text) == 0 {
		return nil, fmt.Errorf("prompt of %d tokens and text of %d: both need at least one", len(prompt), len(text))
	}
	seq := slices.Concat(prompt, text)
	rows, err := lm.NextLogits(seq[:len(seq)-1], len(text))
	if err != nil {
		return nil, err
	}
	guesses := make([]LookupGuess, len(text))
	for i, id := range text {
		prop, err := lookup.Draft(decoding.DraftRequest{Seq: seq[:len(prompt)+i], Max: 1})
		if err != nil {
			return nil, err
		}
		g := LookupGuess{Actual: id, Guess: decoding.NoToken, Top: decoding.Argmax(rows[i])}
		if len(prop.Tokens) > 0 {
			g.Guess = prop.Tokens[0]
			g.P = decoding.Softmax(rows[i])[g.Guess]
		}
		guesses[i] = g
	}
	return guesses, nil
}

// LookupShares counts the guesses: the share of the text's tokens the
// lookup guessed right, guessed wrong, and had no guess for.
func LookupShares(guesses []LookupGuess) (right, wrong, none float64) {
	for _, g := range guesses {
		switch {
		case g.Guess == decoding.NoToken:
			none++
		case g.Right():
			right++
		default:
			wrong++
		}
	}
	n := float64(max(1, len(guesses)))
	return right / n, wrong / n, none / n
}

// FirstDraws counts, over seeds 1 … draws, the first token that
// decoding.Speculation makes after seq with drafter (γ = 1) at temperature:
// counts[id] is how many draws gave token id. Every draw asks the target
// the same questions, so its answers are computed once and remembered;
// what varies with the seed is only the acceptance test and the draws it
// makes.
func FirstDraws(target decoding.LM, drafter decoding.Drafter, seq []int, temperature float64, draws int) ([]int, error) {
	if draws < 1 {
		return nil, fmt.Errorf("%d draws: need at least 1", draws)
	}
	lm := &rememberLM{LM: target}
	counts := make([]int, target.VocabSize())
	for seed := 1; seed <= draws; seed++ {
		id := decoding.NoToken
		opts := decoding.Options{MaxNewTokens: 2, Temperature: temperature, Seed: uint64(seed), Decoder: decoding.Speculation{Drafter: drafter, Gamma: 1}}
		for step, err := range decoding.Decode(context.Background(), lm, seq, opts) {
			if err != nil {
				return nil, err
			}
			id = step.ID
			break // the first token is all this needs
		}
		if id < 0 || id >= len(counts) {
			return nil, fmt.Errorf("seed %d: no first token", seed)
		}
		counts[id]++
	}
	return counts, nil
}

// rememberLM remembers the answers of an LM to the questions it was asked,
// up to rememberMax of them (a question asked again is answered from
// memory; past the limit, new questions are passed on without being kept).
type rememberLM struct {
	decoding.LM
	answers map[string][][]float32
}

func (r *rememberLM) NextLogits(prefix []int, n int) ([][]float32, error) {
	key := fmt.Sprint(n, prefix)
	if rows, ok := r.answers[key]; ok {
		return rows, nil
	}
	rows, err := r.LM.NextLogits(prefix, n)
	if err != nil || len(r.answers) >= rememberMax {
		return rows, err
	}
	kept := make([][]float32, len(rows))
	for i, row := range rows {
		kept[i] = slices.Clone(row) // the LM may reuse its rows
	}
	if r.answers == nil {
		r.answers = map[string][][]float32{}
	}
	r.answers[key] = kept
	return kept, nil
}

const rememberMax = 16

// LookupLM is prompt lookup dressed as a language model, for code that
// drafts with an LM (such as exercise 10's Greedy): its logits after a
// prefix are 0 for the token that Lookup proposes from the prefix and −1
// for every other token, so its argmax is the lookup's guess. Without a
// match every logit is 0, and the argmax is token 0, a guess the target
// will almost surely reject.
type LookupLM struct {
	Lookup  decoding.PromptLookup
	Vocab   int // vocabulary size: the target's
	Context int // context length: the target's
}

// VocabSize is the vocabulary's size.
func (l LookupLM) VocabSize() int { return l.Vocab }

// ContextLength is the context's length.
func (l LookupLM) ContextLength() int { return l.Context }

// NextLogits implements decoding.LM: row i guesses the token after
// prefix[:len(prefix)-n+1+i].
func (l LookupLM) NextLogits(prefix []int, n int) ([][]float32, error) {
	if l.Vocab < 1 {
		return nil, errors.New("LookupLM has no vocabulary (Vocab 0)")
	}
	if n < 1 || n > len(prefix) {
		return nil, fmt.Errorf("asked for %d rows of logits after a prefix of %d tokens: need 1 ≤ rows ≤ prefix length", n, len(prefix))
	}
	rows := make([][]float32, n)
	for i := range rows {
		row := make([]float32, l.Vocab)
		prop, err := l.Lookup.Draft(decoding.DraftRequest{Seq: prefix[:len(prefix)-n+1+i], Max: 1})
		if err != nil {
			return nil, err
		}
		if len(prop.Tokens) > 0 {
			if id := prop.Tokens[0]; id >= 0 && id < l.Vocab {
				for j := range row {
					row[j] = -1
				}
				row[id] = 0
			}
		}
		rows[i] = row
	}
	return rows, nil
}

// LookupDrawsAt draws the token after seq draws times at temperature, two
// ways: from m alone (TargetDraws) and by speculative decoding with prompt
// lookup drafting (FirstDraws). It returns both counts, and p, m's exact
// distribution there at temperature.
func LookupDrawsAt(m *engine.Model, seq []int, temperature float64, draws int) (p []float64, alone, spec []int, err error) {
	if p, err = NextTokenDistribution(m, seq, temperature); err != nil {
		return nil, nil, nil, err
	}
	if alone, err = TargetDraws(m, seq, temperature, draws); err != nil {
		return nil, nil, nil, err
	}
	if spec, err = FirstDraws(engine.NewModelLM(m, 1), decoding.PromptLookup{}, seq, temperature, draws); err != nil {
		return nil, nil, nil, err
	}
	return p, alone, spec, nil
}
