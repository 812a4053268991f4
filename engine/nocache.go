package engine

// NoCacheLM runs a Model without a KV cache: every question recomputes
// every position of the prefix from scratch. It gives the same logits as
// the cached path (up to float32 rounding) and exists to show what the
// cache saves: generating n tokens costs about n²/2 token-computations
// instead of n.
//
// It still needs room for keys and values while a pass runs, because
// every position attends to the ones before it — but only for one layer
// at a time (layers run in turn and no keys are kept), so its scratch is
// 2 × positions × kv_dim floats instead of the cache's
// 2 × layers × seq_len × kv_dim.
type NoCacheLM struct {
	Model *Model
	// Profile, when not nil, collects the cost of every pass.
	Profile *Profile
	// Passes counts forward passes; Positions counts the positions they
	// ran through the model.
	Passes, Positions int64

	st *State // scratch buffers; its Cache is nil
}

// NewNoCacheLM wraps a model for cache-free generation.
func NewNoCacheLM(m *Model) *NoCacheLM { return &NoCacheLM{Model: m} }

// VocabSize is the model's vocabulary size.
func (m *NoCacheLM) VocabSize() int { return m.Model.Config.VocabSize }

// ContextLength is the model's context in tokens.
func (m *NoCacheLM) ContextLength() int { return m.Model.Config.SeqLen }

// NextLogits implements LM by running the whole prefix through the model.
func (m *NoCacheLM) NextLogits(prefix []int, n int) ([][]float32, error) {
	if err := checkQuestion(m, prefix, n); err != nil {
		return nil, err
	}
	if m.st == nil {
		m.st = newState(m.Model, false)
	}
	st := m.st
	if err := st.checkRun(prefix, 0); err != nil {
		return nil, err
	}
	st.Profile = m.Profile
	c := m.Model.Config
	total := len(prefix)
	b := st.buffers(total, n > 1)
	kvDim := c.KVDim()
	if len(b.kv) < 2*total*kvDim {
		b.kv = make([]float32, 2*b.n*kvDim)
	}
	keys, values := b.kv[:total*kvDim], b.kv[total*kvDim:2*total*kvDim]
	// Every layer gets the same scratch: it is overwritten layer after
	// layer, which is exactly what having no cache means.
	st.batched(prefix, 0, n > 1, func(_, _ int) ([]float32, []float32) { return keys, values })
	m.Passes++
	m.Positions += int64(total)
	if n == 1 {
		return [][]float32{st.logits}, nil
	}
	rows := make([][]float32, n)
	v := c.VocabSize
	for i := range rows {
		r := total - n + i
		rows[i] = b.logits[r*v : (r+1)*v]
	}
	return rows, nil
}
