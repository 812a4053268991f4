package experiment

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/decoding"
)

// Answers to a chat request (notebooks 9 and 10): the prompt a chat
// template makes of a request, and answers found by beam search or drawn
// by sampling, set side by side.

// ChatIDs renders request as the user's turn of a chat in tok's chat
// template, ready for the assistant's answer, and returns the prompt's
// text and its tokens.
func ChatIDs(tok *engine.Tokenizer, request string) (string, []int, error) {
	prompt, err := tok.ChatPrompt([]engine.Message{{Role: "user", Content: request}}, true)
	if err != nil {
		return "", nil, err
	}
	ids, err := tok.Encode(prompt, true, false)
	if err != nil {
		return "", nil, err
	}
	return prompt, ids, nil
}

// Answer is one answer to a prompt and how likely the model found it.
type Answer struct {
	Label   string  // how it was made: "width 4", "sample, seed 1"
	Tokens  []int   // the generated tokens, the end token included if the model ended the answer
	LogProb float64 // the sum of the tokens' log-probabilities under the model
	Ended   bool    // the model ended the answer (rather than the length limit)
}

// PerToken is the answer's average log-probability per token: closer to 0
// means each token was more predictable.
func (a Answer) PerToken() float64 {
	if len(a.Tokens) == 0 {
		return 0
	}
	return a.LogProb / float64(len(a.Tokens))
}

// BeamAnswers runs a beam search of each width after prompt (up to maxNew
// tokens, length penalty alpha, each beam with its KV cache) and returns
// each search's best answer.
func BeamAnswers(m *engine.Model, tok *engine.Tokenizer, prompt []int, widths []int, maxNew int, alpha float64) ([]Answer, error) {
	var out []Answer
	for _, w := range widths {
		res, err := beamResult(engine.NewModelLM(m, 2*w), prompt, decoding.Options{MaxNewTokens: maxNew, IsEnd: tok.IsEnd, Decoder: decoding.Beam{Width: w, LengthPenalty: alpha}})
		if err != nil {
			return out, fmt.Errorf("width %d: %w", w, err)
		}
		out = append(out, Answer{Label: fmt.Sprintf("width %d", w), Tokens: res.Best.Tokens, LogProb: res.Best.CumLogProb, Ended: res.Best.Ended})
	}
	return out, nil
}

// beamResult runs decoding.Decode with opts, whose Decoder is a
// decoding.Beam, to its end and returns what the search found. It is
// notebook.BeamSearch again: this package draws nothing, so it does not
// import the package that draws.
func beamResult(lm decoding.LM, prompt []int, opts decoding.Options) (*decoding.BeamResult, error) {
	for step, err := range decoding.Decode(context.Background(), lm, prompt, opts) {
		if err != nil {
			return nil, err
		}
		if step.Finish != "" {
			res, _ := step.Stats.Report.(*decoding.BeamResult)
			return res, nil
		}
	}
	return nil, errors.New("beam search ended without a last step")
}

// SampledAnswers draws an answer after prompt for each seed, with
// decoding.Generate at temperature (no other sampling stage), up to maxNew
// tokens.
func SampledAnswers(m *engine.Model, tok *engine.Tokenizer, prompt string, maxNew int, temperature float64, seeds ...uint64) ([]Answer, error) {
	var out []Answer
	for _, seed := range seeds {
		a := Answer{Label: fmt.Sprintf("sample, seed %d", seed)}
		opts := decoding.Options{MaxNewTokens: maxNew, Temperature: temperature, Seed: seed}
		for step, err := range decoding.Generate(context.Background(), m, tok, prompt, opts) {
			if err != nil {
				return out, fmt.Errorf("seed %d: %w", seed, err)
			}
			if step.ID != decoding.NoToken {
				a.Tokens = append(a.Tokens, step.ID)
				a.LogProb += step.LogProb
			}
			a.Ended = step.Finish == decoding.FinishEOS
		}
		out = append(out, a)
	}
	return out, nil
}

// AnswersTable prints the answers, a line each: the label, the log-
// probability per token, the length, whether the model ended it, and the
// text (text turns tokens into text).
func AnswersTable(answers []Answer, text func(ids []int) string) string {
	var b strings.Builder
	for _, a := range answers {
		fmt.Fprintf(&b, "%-15s %6.2f per token, %2d tokens, ended: %-5v %q\n", a.Label+":", a.PerToken(), len(a.Tokens), a.Ended, text(a.Tokens))
	}
	return b.String()
}
