package experiment

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/decoding"
)

// GenerateText runs decoding.Generate on prompt with opts and returns the
// text the reader would see (the steps' Text joined) and the last step,
// which carries the finish reason and the statistics.
func GenerateText(ctx context.Context, m *engine.Model, tok *engine.Tokenizer, prompt string, opts decoding.Options) (string, decoding.Step) {
	var text strings.Builder
	var last decoding.Step
	for step, err := range decoding.Generate(ctx, m, tok, prompt, opts) {
		if err != nil {
			panic(err)
		}
		text.WriteString(step.Text)
		last = step
	}
	return text.String(), last
}

// EndChances reads text token by token (within m's context) and returns,
// for every token after BOS, its piece and the probability the model gives,
// right after it, to the text ending there: the end-of-text token, plus
// BOS where the two differ (a generated BOS ends the text too).
func EndChances(m *engine.Model, tok *engine.Tokenizer, text string) (pieces []string, pEnd []float64) {
	ids, err := tok.Encode(text, true, false)
	if err != nil {
		panic(err)
	}
	st := m.NewState()
	for pos, id := range ids[:min(len(ids), m.Config.SeqLen)] {
		logits, err := st.Forward(id, pos)
		if err != nil {
			panic(err)
		}
		if pos == 0 {
			continue // BOS: nothing read yet
		}
		p := decoding.Softmax(logits)
		end := p[tok.EOS()]
		if tok.BOS() != tok.EOS() {
			end += p[tok.BOS()]
		}
		pieces = append(pieces, tok.Decode(ids[pos-1], id))
		pEnd = append(pEnd, end)
	}
	return pieces, pEnd
}

// MaxIndex returns the index of the largest of xs (the first one if several
// tie), or -1 for none.
func MaxIndex(xs []float64) int {
	best := -1
	for i, x := range xs {
		if best < 0 || x > xs[best] {
			best = i
		}
	}
	return best
}

// GreedyPieces returns the pieces of up to n tokens of a greedy
// continuation of prompt.
func GreedyPieces(m *engine.Model, tok *engine.Tokenizer, prompt string, n int) []string {
	var pieces []string
	for step, err := range decoding.Generate(context.Background(), m, tok, prompt, decoding.Options{MaxNewTokens: n}) {
		if err != nil {
			panic(err)
		}
		pieces = append(pieces, step.Piece)
	}
	return pieces
}

// StraddlingStop picks a stop sequence that exists in the text of pieces
// only across a token boundary: the last (up to) 2 bytes of one piece
// joined to the first (up to) 2 of the next, valid UTF-8, at a boundary
// after the second piece, and found nowhere earlier in the text. ok is
// false if no boundary gives one.
func StraddlingStop(pieces []string) (stop string, ok bool) {
	text := strings.Join(pieces, "")
	offset := 0
	for i := 0; i+1 < len(pieces); i++ {
		a, b := pieces[i], pieces[i+1]
		offset += len(a)
		if i < 1 || a == "" || b == "" {
			continue
		}
		s := a[len(a)-min(2, len(a)):] + b[:min(2, len(b))]
		start := offset - min(2, len(a))
		if utf8.ValidString(s) && strings.Index(text, s) == start {
			return s, true
		}
	}
	return "", false
}

// EndChancesAfter runs prompt through m, then the tokens ids one at a time,
// and returns the probability the model gives to ending the text at each
// point: pEnd[0] right after the prompt, pEnd[i] right after ids[:i], up to
// pEnd[len(ids)]. Ending is any token for which tok.IsEnd is true: the
// end-of-text token, and a chat model's end of turn (<|im_end|>). The
// prompt is encoded as Generate encodes it, special tokens included.
func EndChancesAfter(m *engine.Model, tok *engine.Tokenizer, prompt string, ids []int) ([]float64, error) {
	if m == nil || tok == nil {
		return nil, fmt.Errorf("EndChancesAfter needs a model and a tokenizer (got model %v, tokenizer %v)", m != nil, tok != nil)
	}
	start, err := tok.Encode(prompt, true, false)
	if err != nil {
		return nil, err
	}
	if n := len(start) + len(ids); n > m.Config.SeqLen {
		return nil, fmt.Errorf("the prompt (%d tokens) and %d more make %d, more than the model's context of %d", len(start), len(ids), n, m.Config.SeqLen)
	}
	var ends []int
	for id := range m.Config.VocabSize {
		if tok.IsEnd(id) {
			ends = append(ends, id)
		}
	}
	chance := func(logits []float32) float64 {
		p := decoding.Softmax(logits)
		sum := 0.0
		for _, id := range ends {
			sum += p[id]
		}
		return sum
	}
	st := m.NewState()
	logits, err := st.Prefill(start, 0)
	if err != nil {
		return nil, err
	}
	out := []float64{chance(logits)}
	for i, id := range ids {
		if id < 0 || id >= m.Config.VocabSize {
			return nil, fmt.Errorf("token %d (ids[%d]) is outside the vocabulary of %d", id, i, m.Config.VocabSize)
		}
		if logits, err = st.Forward(id, len(start)+i); err != nil {
			return nil, err
		}
		out = append(out, chance(logits))
	}
	return out, nil
}
