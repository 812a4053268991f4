package engine

import (
	"errors"
	"fmt"
)

// ModelLM serves a Model as a language model that scores next tokens
// (package engine/decoding's LM interface). It keeps up to States
// sequences with their KV caches and answers each question by extending the
// one sharing the longest start with the prefix, running only the new
// tokens through the model (in one batched pass). Callers that move back
// and forth between a few sequences (beam search keeps one per beam)
// should set States to about twice their number; a single sequence that
// only grows or is cut back (speculative decoding) needs just one.
type ModelLM struct {
	Model *Model
	// States is the most sequences kept at once; 0 means 1.
	States int
	// Profile, when not nil, collects the cost of every pass.
	Profile *Profile
	// Passes counts the questions that ran the model, each one pass over
	// its new tokens (split in two when tokens come before the rows asked
	// for, so that only those rows pay for the vocabulary projection);
	// Positions counts the positions they ran through the model (a cache
	// hit runs fewer than asked for).
	Passes, Positions int64

	slots []*lmSlot
	clock int64
}

// lmSlot is one kept sequence: a State whose cache holds tokens.
type lmSlot struct {
	st     *State
	tokens []int
	used   int64 // clock of the last use, to evict the least recently used
}

// NewModelLM wraps a model, keeping up to states sequences (at least 1).
func NewModelLM(m *Model, states int) *ModelLM { return &ModelLM{Model: m, States: states} }

// VocabSize is the model's vocabulary size (0 without a model).
func (m *ModelLM) VocabSize() int {
	if m == nil || m.Model == nil {
		return 0
	}
	return m.Model.Config.VocabSize
}

// ContextLength is the model's context in tokens (0 without a model).
func (m *ModelLM) ContextLength() int {
	if m == nil || m.Model == nil {
		return 0
	}
	return m.Model.Config.SeqLen
}

// Validate reports a missing or broken model.
func (m *ModelLM) Validate() error {
	if m == nil || m.Model == nil {
		return errors.New("ModelLM has no model")
	}
	return m.Model.Validate()
}

// NextLogits implements LM.
func (m *ModelLM) NextLogits(prefix []int, n int) ([][]float32, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if err := checkQuestion(m, prefix, n); err != nil {
		return nil, err
	}
	slot, reuse, err := m.pick(prefix, len(prefix)-n)
	if err != nil {
		return nil, err
	}
	slot.tokens = append(slot.tokens[:reuse], prefix[reuse:]...)
	m.clock++
	slot.used = m.clock
	slot.st.Profile = m.Profile
	rows, err := m.run(slot.st, prefix[reuse:], reuse, n)
	if err != nil {
		return nil, err
	}
	m.Passes++
	m.Positions += int64(len(prefix) - reuse)
	return rows, nil
}

// run feeds tokens to st from position pos and returns the logits of the
// last n of them. The vocabulary projection (one row of logits per
// vocabulary token, the largest matrix of a small model) is paid only for
// those n: a prompt asked for its next token projects one position, not
// every position of the prompt. When some tokens come before the n, they
// go through a pass of their own without logits first.
func (m *ModelLM) run(st *State, tokens []int, pos, n int) ([][]float32, error) {
	if n == 1 {
		logits, err := st.Prefill(tokens, pos)
		if err != nil {
			return nil, err
		}
		return [][]float32{logits}, nil
	}
	if before := len(tokens) - n; before > 0 {
		if _, err := st.Prefill(tokens[:before], pos); err != nil {
			return nil, err
		}
		tokens, pos = tokens[before:], pos+before
	}
	return st.PrefillAll(tokens, pos)
}

// pick chooses the kept sequence to extend to prefix and how many of its
// positions (at most limit) can be reused.
func (m *ModelLM) pick(prefix []int, limit int) (*lmSlot, int, error) {
	var best *lmSlot
	bestLen := -1
	for _, s := range m.slots {
		if l := min(commonPrefix(s.tokens, prefix), limit); l > bestLen || l == bestLen && len(s.tokens) < len(best.tokens) {
			best, bestLen = s, l
		}
	}
	// Extending in place is free when it destroys nothing: the sequence
	// is a prefix of the question, or no other sequence may be kept.
	if best != nil && (len(best.tokens) <= bestLen || max(m.States, 1) == 1) {
		return best, bestLen, nil
	}
	var slot *lmSlot
	if len(m.slots) < max(m.States, 1) {
		slot = &lmSlot{st: m.Model.NewState()}
		m.slots = append(m.slots, slot)
	} else {
		slot = m.slots[0]
		for _, s := range m.slots {
			if s.used < slot.used {
				slot = s
			}
		}
		if slot == best {
			return best, bestLen, nil
		}
		slot.tokens = slot.tokens[:0]
	}
	if best == nil || bestLen == 0 {
		return slot, 0, nil
	}
	// Copy the shared positions' keys and values from the best match.
	if err := slot.st.Reserve(len(prefix)); err != nil {
		return nil, 0, err
	}
	if err := slot.st.Cache.CopyPrefix(best.st.Cache, bestLen); err != nil {
		return nil, 0, err
	}
	slot.tokens = append(slot.tokens[:0], best.tokens[:bestLen]...)
	return slot, bestLen, nil
}

// commonPrefix is the length of the longest common start of a and b.
func commonPrefix(a, b []int) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// checkQuestion validates the arguments of NextLogits.
func checkQuestion(lm interface{ ContextLength() int }, prefix []int, n int) error {
	if n < 1 || n > len(prefix) {
		return fmt.Errorf("asked for %d rows of logits after a prefix of %d tokens: need 1 ≤ rows ≤ prefix length", n, len(prefix))
	}
	if len(prefix) > lm.ContextLength() {
		return fmt.Errorf("prefix of %d tokens is longer than the model's context of %d tokens", len(prefix), lm.ContextLength())
	}
	return nil
}
