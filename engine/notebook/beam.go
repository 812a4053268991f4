package notebook

import (
	"context"
	"errors"
	"fmt"
	"html"
	"math"
	"strings"

	"github.com/tokenbytoken/course/engine"
)

// Beam search (notebook 9): a language model small enough to write by
// hand, and the text of generated tokens.

// BeamSearch runs engine.BeamSearch to its end and returns what it found:
// the explored tree and the best hypotheses, for drawing.
func BeamSearch(lm engine.LM, prompt []int, opts engine.BeamOptions) (*engine.BeamResult, error) {
	for step, err := range engine.BeamSearch(context.Background(), lm, prompt, opts) {
		if err != nil {
			return nil, err
		}
		if step.Finish != "" {
			return step.Stats.Beam, nil
		}
	}
	return nil, errors.New("beam search ended without a last step")
}

// WordLM is a hand-built language model over a few words, for trees small
// enough to check by hand: the probability of the next word depends only
// on the last one, Next[last][word]. A word missing from its row gets
// probability 0 (logit −Inf) and can never follow; a word without a row
// has no continuation at all. Token i is Words[i].
type WordLM struct {
	Words []string
	Next  map[string]map[string]float64
}

// VocabSize is the number of words.
func (m WordLM) VocabSize() int { return len(m.Words) }

// ContextLength is 16 words, more than the trees need.
func (m WordLM) ContextLength() int { return 16 }

// NextLogits returns, for each of the last n prefixes, the log-probability
// of every word after the prefix's last word (engine.LM).
func (m WordLM) NextLogits(prefix []int, n int) ([][]float32, error) {
	rows := make([][]float32, n)
	for i := range rows {
		last := m.Words[prefix[len(prefix)-n+i]]
		rows[i] = make([]float32, len(m.Words))
		for id, w := range m.Words {
			rows[i][id] = float32(math.Log(m.Next[last][w]))
		}
	}
	return rows, nil
}

// Text joins the words of token ids.
func (m WordLM) Text(ids []int) string {
	var b strings.Builder
	for _, id := range ids {
		b.WriteString(m.Words[id])
	}
	return b.String()
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
func BeamHypothesesHTML(res *engine.BeamResult, text func(ids []int) string) string {
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
