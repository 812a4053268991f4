package notebook

import (
	"context"
	"errors"
	"fmt"
	"html"
	"strings"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/decoding"
)

// Beam search (notebook 9): a language model small enough to write by
// hand, and the text of generated tokens.

// BeamSearch runs decoding.Decode with opts, whose Decoder is a
// decoding.Beam, to its end and returns what the search found: the
// explored tree and the best hypotheses, for drawing.
func BeamSearch(lm decoding.LM, prompt []int, opts decoding.Options) (*decoding.BeamResult, error) {
	if _, ok := opts.Decoder.(decoding.Beam); !ok {
		return nil, fmt.Errorf("opts.Decoder = %T: BeamSearch runs a decoding.Beam", opts.Decoder)
	}
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

// GeneratedText is the text of tokens generated after the token prev (the
// prompt's last): each decoded after the one before it, an end-of-text
// token as nothing.
func GeneratedText(tok *engine.Tokenizer, prev int, ids []int) string {
	var b strings.Builder
	for _, id := range ids {
		if !tok.IsEnd(id) {
			b.WriteString(tok.Decode(prev, id))
		}
		prev = id
	}
	return b.String()
}

// BeamHypothesesHTML is a table of a beam search's finished candidates,
// best first (the winner in bold): the length in tokens, the
// log-probability, the score the length penalty gives it, and the text
// (text turns token ids into text). Above it, one line names the winner's
// length.
func BeamHypothesesHTML(res *decoding.BeamResult, text func(ids []int) string) string {
	var b strings.Builder
	if len(res.Hypotheses) > 0 {
		fmt.Fprintf(&b, `<p style="font-family: monospace">The winner: %d tokens, log p %.2f.</p>`, len(res.Best.Tokens), res.Best.CumLogProb)
	}
	b.WriteString(`<table style="font-family: var(--jp-code-font-family, monospace)"><tr><th>tokens</th><th>log p</th><th>score</th><th style="text-align: left">text</th></tr>`)
	for i, h := range res.Hypotheses {
		style := ""
		if i == 0 {
			style = ` style="font-weight: bold"`
		}
		fmt.Fprintf(&b, `<tr%s><td>%d</td><td>%.2f</td><td>%.2f</td><td style="text-align: left; white-space: pre">%s</td></tr>`,
			style, len(h.Tokens), h.CumLogProb, h.Score, html.EscapeString(fmt.Sprintf("%q", text(h.Tokens))))
	}
	b.WriteString(`</table>`)
	return b.String()
}
