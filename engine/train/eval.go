package train

import (
	"errors"
	"fmt"
	"math"

	"github.com/tokenbytoken/course/engine"
)

// EvalResult is how well a model predicts a text.
type EvalResult struct {
	Bytes  int     // bytes of text
	Tokens int     // tokens predicted (the text's tokens; BOS is given)
	Nats   float64 // total -ln p over those tokens
}

// NatsPerToken is the mean cross-entropy per token.
func (r EvalResult) NatsPerToken() float64 { return r.Nats / float64(r.Tokens) }

// BitsPerByte is the total information the model needs to encode the text,
// in bits, divided by its length in bytes: comparable across tokenizers,
// and with compressors (a compressed file of s bytes is 8·s bits).
func (r EvalResult) BitsPerByte() float64 { return r.Nats / math.Ln2 / float64(r.Bytes) }

// Evaluate measures how well the model predicts text: the text is encoded
// as the engine does (BOS, then its tokens) and every token is scored given
// the ones before it. Texts longer than the model's context are scored in
// windows that overlap by half, so every token after the first window sees
// at least half a context of history.
//
// Texts shorter than the context are run in one window of their own length,
// so the memory, which grows with the square of the window, is that of the
// text; a window too big for the memory available is refused. A model
// whose loss is not a number (NaN or infinite weights) is an error.
func Evaluate(m *engine.Model, tok *engine.Tokenizer, text string) (EvalResult, error) {
	if text == "" {
		return EvalResult{}, fmt.Errorf("the text is empty: nothing to evaluate")
	}
	if err := m.Validate(); err != nil {
		return EvalResult{}, err
	}
	if tok == nil {
		return EvalResult{}, errors.New("no tokenizer (nil *engine.Tokenizer)")
	}
	if tok.VocabSize() != m.Config.VocabSize {
		return EvalResult{}, fmt.Errorf("tokenizer has %d tokens but the model has vocab_size %d", tok.VocabSize(), m.Config.VocabSize)
	}
	p, err := ParamsFromModel(m)
	if err != nil {
		return EvalResult{}, err
	}
	ids, err := NewEncoder(tok).Encode(text)
	if err != nil {
		return EvalResult{}, err
	}
	seq := append([]int32{int32(tok.BOS())}, ids...)
	T := m.Config.SeqLen
	stride := max(T/2, 1)
	var starts []int
	for a := 0; ; a += stride {
		starts = append(starts, a)
		if a+T >= len(seq)-1 {
			break
		}
	}
	if len(starts) == 1 {
		T = len(seq) - 1 // one window: as long as the text, no longer
	}
	B := min(4, len(starts))
	if err := checkNet(m.Config, B, T, false); err != nil {
		return EvalResult{}, err
	}
	n := newNet(p, B, T)
	tokens, targets := make([]int32, B*T), make([]int32, B*T)
	res := EvalResult{Bytes: len(text)}
	scored := 0 // targets seq[1..scored] are done
	for i := 0; i < len(starts); i += B {
		for b := range B {
			row := tokens[b*T : (b+1)*T]
			trow := targets[b*T : (b+1)*T]
			for t := range T {
				row[t], trow[t] = 0, -1
			}
			if i+b >= len(starts) {
				continue
			}
			a := starts[i+b]
			for t := range T {
				j := a + t + 1 // index of the target
				if j >= len(seq) {
					break
				}
				row[t] = seq[a+t]
				if j > scored {
					trow[t] = seq[j]
				}
			}
			scored = min(a+T, len(seq)-1)
		}
		n.forward(tokens, targets)
		for r, t := range targets {
			if t >= 0 {
				if nll := n.rowNLL[r]; math.IsNaN(nll) || math.IsInf(nll, 0) {
					return res, fmt.Errorf("the model's loss on token %d of the text is %v: its weights or activations are not finite numbers", starts[i+r/T]+r%T+1, nll)
				}
				res.Nats += n.rowNLL[r]
				res.Tokens++
			}
		}
	}
	return res, nil
}
