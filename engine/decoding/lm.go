package decoding

import (
	"errors"
	"fmt"
)

// LM is a language model seen from outside: given the tokens so far, it
// scores every possible next token. Decode runs every decoder against
// this small interface, so tests can drive them with hand-built
// distributions and the engine drives them with a Model (see ModelLM).
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
