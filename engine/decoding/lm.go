package decoding

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"math"
)

// LM is a language model seen from outside: given the tokens so far, it
// scores every possible next token. Beam search and speculative decoding
// are written against this small interface, so tests can drive them with
// hand-built distributions and the engine drives them with a Model (see
// ModelLM).
type LM interface {
	// VocabSize is the number of tokens the model scores.
	VocabSize() int
	// ContextLength is the longest prefix the model accepts.
	ContextLength() int
	// NextLogits returns n rows of logits, 1 ≤ n ≤ len(prefix): row i
	// scores the token that follows prefix[:len(prefix)-n+1+i]. With n = 1
	// it is the usual next-token question; with n > 1 it checks several
	// proposed tokens at once, in a single pass. The rows may be reused by
	// the next call.
	NextLogits(prefix []int, n int) ([][]float32, error)
}

// checkLM reports a missing language model, or one that says what is
// wrong with it (ModelLM and NoCacheLM have a Validate method).
func checkLM(lm LM) error {
	if lm == nil {
		return errors.New("no language model (nil LM)")
	}
	if v, ok := lm.(interface{ Validate() error }); ok {
		if err := v.Validate(); err != nil {
			return err
		}
	}
	if lm.VocabSize() < 1 || lm.ContextLength() < 1 {
		return fmt.Errorf("language model has a vocabulary of %d tokens and a context of %d: both must be at least 1", lm.VocabSize(), lm.ContextLength())
	}
	return nil
}

// checkQuestion validates the arguments of NextLogits.
func checkQuestion(lm LM, prefix []int, n int) error {
	if n < 1 || n > len(prefix) {
		return fmt.Errorf("asked for %d rows of logits after a prefix of %d tokens: need 1 ≤ rows ≤ prefix length", n, len(prefix))
	}
	if len(prefix) > lm.ContextLength() {
		return fmt.Errorf("prefix of %d tokens is longer than the model's context of %d tokens", len(prefix), lm.ContextLength())
	}
	return nil
}

// DecodeOptions control Decode.
type DecodeOptions struct {
	// MaxNewTokens caps the generated tokens; 0 means until the context is
	// full.
	MaxNewTokens int
	// Pick chooses the next token from the logits: Argmax (nil means
	// Argmax) for greedy decoding, or any sampler of that shape. A pick
	// that returns an id outside the vocabulary — such as NoToken, which
	// Argmax returns when no logit is a number — ends the generation with
	// an error: the loop never appends a token that does not exist.
	Pick func(logits []float32) int
	// IsEnd reports whether a token ends the text (that token is the last
	// one yielded). Nil means no token does.
	IsEnd func(id int) bool
	// NoLogProbs leaves Step.LogProb NaN, not computed (see
	// Options.NoLogProbs).
	NoLogProbs bool
}

// Decode is the autoregressive loop over any LM: ask for the logits after
// the sequence, let Pick choose a token, yield it, append it, repeat. It
// is Generate's loop on token ids, for models that are not a Model with a
// KV cache — a NoCacheLM, a hand-built table — and for samplers written
// outside the engine. The steps carry ID, LogProb (under the model's own
// distribution) and Pos; there is no text without a tokenizer.
//
// It stops after MaxNewTokens tokens, after a token for which IsEnd
// reports true, when the context is full, or when ctx is done (checked
// after every token); the last step says which in Finish. Bad settings —
// no model, a negative MaxNewTokens, an empty prompt or one that leaves no
// room — are the only value yielded.
func Decode(ctx context.Context, lm LM, prompt []int, opts DecodeOptions) iter.Seq2[Step, error] {
	return func(yield func(Step, error) bool) {
		if err := checkStart(ctx, lm, prompt, opts.MaxNewTokens, "maxNew"); err != nil {
			yield(Step{}, err)
			return
		}
		pick := opts.Pick
		if pick == nil {
			pick = Argmax
		}
		vocab := lm.VocabSize()
		d := newDecoding(ctx, prompt, lm.ContextLength(), opts.MaxNewTokens, opts.IsEnd)
		d.sample(yield, func(logits []float32, seq []int) (Step, error) {
			id := pick(logits)
			if id < 0 || id >= vocab {
				return Step{}, fmt.Errorf("pick returned token id %d after %d tokens, outside the vocabulary (0..%d)", id, len(seq), vocab-1)
			}
			lp := math.NaN()
			if !opts.NoLogProbs {
				lp = LogProbOf(logits, id)
			}
			return Step{ID: id, LogProb: lp}, nil
		}, lmNext(lm))
	}
}

// lmNext asks lm for the logits after a sequence.
func lmNext(lm LM) func(seq []int) ([]float32, error) {
	return func(seq []int) ([]float32, error) {
		rows, err := lm.NextLogits(seq, 1)
		if err == nil && len(rows) != 1 {
			err = fmt.Errorf("asked for 1 row of logits, got %d", len(rows))
		}
		if err != nil {
			return nil, err
		}
		return rows[0], nil
	}
}

// checkStart does the checks every decoder over an LM shares before any
// work: a context, a model, a length limit that is 0 or positive (named
// limit in the error), and a prompt that leaves room in the context.
func checkStart(ctx context.Context, lm LM, prompt []int, maxNew int, limit string) error {
	if ctx == nil {
		return errors.New("nil context: pass context.Background() for no deadline")
	}
	if err := checkLM(lm); err != nil {
		return err
	}
	if maxNew < 0 {
		return fmt.Errorf("%s = %d: must be 0 (until the context is full) or positive", limit, maxNew)
	}
	return checkPrompt(prompt, lm.ContextLength())
}

// checkPrompt reports a prompt that is empty or leaves no room to
// generate in a context of ctxLen tokens.
func checkPrompt(prompt []int, ctxLen int) error {
	if len(prompt) == 0 {
		return errors.New("empty prompt: need at least one token (BOS)")
	}
	if len(prompt) >= ctxLen {
		return fmt.Errorf("prompt of %d tokens leaves no room in the model's context of %d tokens", len(prompt), ctxLen)
	}
	return nil
}

// checkRows checks what an LM answered: n rows of vocab logits each, every
// one a number (or -Inf) and not all -Inf.
func checkRows(rows [][]float32, n, vocab int) error {
	if len(rows) != n {
		return fmt.Errorf("asked for %d rows of logits, got %d", n, len(rows))
	}
	for i, r := range rows {
		if len(r) != vocab {
			return fmt.Errorf("row %d has %d logits for a vocabulary of %d", i, len(r), vocab)
		}
		if err := checkScores(r, fmt.Sprintf("row %d of its logits", i)); err != nil {
			return err
		}
	}
	return nil
}
