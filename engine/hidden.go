package engine

import (
	"errors"
	"slices"
)

// Hidden runs tokens through a fresh state of m (all but the last as a
// prefill, the last as one decode step) and returns the model's final
// hidden state after the last token — the residual stream once the final
// RMSNorm has been applied, the d numbers the vocabulary projection
// multiplies — together with the logits made from it. Both are copies:
// logits[i] is the dot product of row i of m.Weights.Classifier with
// hidden, up to the rounding of float32 sums.
func (m *Model) Hidden(tokens []int) (hidden, logits []float32, err error) {
	if len(tokens) == 0 {
		return nil, nil, errors.New("Hidden needs at least one token")
	}
	st := m.NewState()
	last := len(tokens) - 1
	if last > 0 {
		if _, err := st.Prefill(tokens[:last], 0); err != nil {
			return nil, nil, err
		}
	}
	out, err := st.Forward(tokens[last], last)
	if err != nil {
		return nil, nil, err
	}
	// The decode step normalises the residual stream in place before the
	// projection, so after it s.x is the final hidden state.
	return slices.Clone(st.x), slices.Clone(out), nil
}
