package speculative

import (
	"errors"
	"fmt"
	"slices"
)

// Result describes a speculative generation. Its acceptance rate α is
// Accepted / (Accepted + Rejected): the share of the proposals the target
// checked that it kept.
type Result struct {
	Tokens   []int // the generated tokens
	Accepted int   // proposals the target agreed with
	Rejected int   // proposals the target turned down (at most one per round)
	Rounds   int   // rounds, each one pass of the target
}

// Greedy is speculative decoding at temperature 0 (Task 4): its output is,
// token for token, the target's greedy continuation of prompt, made with
// one target pass per round instead of one per token.
//
// Let limit be maxNew, or fewer if the context would overflow: at most
// min(target.ContextLength(), draft.ContextLength()) − len(prompt). Each
// round:
//
//  1. Draft: g = min(gamma, limit − len(Tokens) − 1) proposals, each the
//     draft's argmax (lowest id on ties) after the sequence so far plus
//     the proposals before it, one draft.NextLogits(…, 1) call each;
//     proposing stops early right after a proposal that ends the text.
//  2. Verify: one target.NextLogits(sequence + proposals, g′+1) call,
//     where g′ is the number of proposals made; row i holds the target's
//     logits where proposal i stands, row g′ those after the last one.
//  3. Left to right, proposal i is accepted if it equals argmax(row i):
//     it is appended. The first that differs is rejected: argmax(row i)
//     is appended instead and the round ends.
//  4. If every proposal was accepted, argmax(row g′) is appended: the
//     bonus token, free because the target has already scored it.
//
// Generation stops as soon as an appended token ends the text (isEnd; nil
// means no token does), which is then the last token, or when limit tokens
// are generated. It returns an error if gamma < 1, maxNew < 1, the models'
// vocabulary sizes differ, the prompt is empty or leaves no room in the
// context, and passes on any model error.
func Greedy(target, draft LM, prompt []int, gamma, maxNew int, isEnd func(id int) bool) (Result, error) {
	var res Result
	context := min(target.ContextLength(), draft.ContextLength())
	switch {
	case gamma < 1:
		return res, fmt.Errorf("γ = %d: the draft must propose at least 1 token per round", gamma)
	case maxNew < 1:
		return res, fmt.Errorf("max new tokens = %d: must be at least 1", maxNew)
	case target.VocabSize() != draft.VocabSize():
		return res, fmt.Errorf("the draft scores %d tokens but the target %d: they must share one vocabulary", draft.VocabSize(), target.VocabSize())
	case len(prompt) == 0:
		return res, errors.New("empty prompt: need at least one token (BOS)")
	case len(prompt) >= context:
		return res, fmt.Errorf("prompt of %d tokens leaves no room in the context of %d tokens", len(prompt), context)
	}
	if isEnd == nil {
		isEnd = func(int) bool { return false }
	}
	limit := min(maxNew, context-len(prompt))
	seq := slices.Clone(prompt)

	// emit appends a decided token and reports whether generation goes on.
	emit := func(id int) bool {
		res.Tokens = append(res.Tokens, id)
		seq = append(seq, id)
		return !isEnd(id) && len(res.Tokens) < limit
	}

	for {
		// 1. Draft.
		g := min(gamma, limit-len(res.Tokens)-1)
		proposed := slices.Clone(seq)
		for range g {
			rows, err := draft.NextLogits(proposed, 1)
			if err != nil {
				return res, fmt.Errorf("draft model: %w", err)
			}
			x := argmax(rows[0])
			proposed = append(proposed, x)
			if isEnd(x) {
				break
			}
		}
		drafts := proposed[len(seq):]

		// 2. Verify, in one pass of the target.
		rows, err := target.NextLogits(proposed, len(drafts)+1)
		if err != nil {
			return res, fmt.Errorf("target model: %w", err)
		}
		if len(rows) != len(drafts)+1 {
			return res, fmt.Errorf("target model: asked for %d rows of logits, got %d", len(drafts)+1, len(rows))
		}
		res.Rounds++

		// 3. Accept while the draft agrees with the target.
		goOn, rejected := true, false
		for i, x := range drafts {
			if want := argmax(rows[i]); x != want {
				res.Rejected++
				rejected = true
				goOn = emit(want)
				break
			}
			res.Accepted++
			if goOn = emit(x); !goOn {
				break
			}
		}
		// 4. The bonus token.
		if goOn && !rejected {
			goOn = emit(argmax(rows[len(drafts)]))
		}
		if !goOn {
			return res, nil
		}
	}
}

// argmax is the index of the largest logit, the lowest on ties.
func argmax(logits []float32) int {
	best := 0
	for i, z := range logits {
		if z > logits[best] {
			best = i
		}
	}
	return best
}
