package engine

import (
	"context"
	"errors"
	"fmt"
)

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

// VocabSize is the model's vocabulary size (0 without a model).
func (m *NoCacheLM) VocabSize() int {
	if m == nil || m.Model == nil {
		return 0
	}
	return m.Model.Config.VocabSize
}

// ContextLength is the model's context in tokens (0 without a model).
func (m *NoCacheLM) ContextLength() int {
	if m == nil || m.Model == nil {
		return 0
	}
	return m.Model.Config.SeqLen
}

// Validate reports a missing or broken model.
func (m *NoCacheLM) Validate() error {
	if m == nil || m.Model == nil {
		return errors.New("NoCacheLM has no model")
	}
	return m.Model.Validate()
}

// NextLogits implements LM by running the whole prefix through the model.
func (m *NoCacheLM) NextLogits(prefix []int, n int) ([][]float32, error) {
	if m == nil || m.Model == nil {
		return nil, errors.New("NoCacheLM has no model")
	}
	if err := checkQuestion(m, prefix, n); err != nil {
		return nil, err
	}
	if m.st == nil || m.st.Model != m.Model {
		m.st = &State{Model: m.Model, noCache: true}
	}
	st := m.st
	if err := st.checkRun(prefix, 0); err != nil {
		return nil, err
	}
	total := len(prefix)
	if err := st.Reserve(total); err != nil {
		return nil, err
	}
	st.Profile = m.Profile
	c := m.Model.Config
	b, err := st.buffers(total, total, n)
	if err != nil {
		return nil, err
	}
	kvDim := c.KVDim()
	half := st.arith == LlamaCpp
	if have := max(len(b.kv), len(b.halfKV)); have < 2*total*kvDim || half != (b.halfKV != nil) {
		size := 4
		if half {
			size = 2
		}
		what := fmt.Sprintf("the keys and values of %d positions (2 × %d positions × %d kv_dim × %d bytes)", b.n, b.n, kvDim, size)
		if err := checkMemory(what, 2*int64(size)*int64(b.n)*int64(kvDim)); err != nil {
			return nil, err
		}
		b.kv, b.halfKV = nil, nil
		if half {
			b.halfKV = make([]uint16, 2*b.n*kvDim)
		} else {
			b.kv = make([]float32, 2*b.n*kvDim)
		}
	}
	// Every layer gets the same scratch: it is overwritten layer after
	// layer, which is exactly what having no cache means.
	scratch := &scratchKV{kvLayer{size: total}}
	if half {
		scratch.halfKeys, scratch.halfValues = [][]uint16{b.halfKV[:total*kvDim]}, [][]uint16{b.halfKV[total*kvDim : 2*total*kvDim]}
	} else {
		scratch.keys, scratch.values = [][]float32{b.kv[:total*kvDim]}, [][]float32{b.kv[total*kvDim : 2*total*kvDim]}
	}
	st.rows, st.outs = st.rows[:0], st.outs[:0]
	for i, id := range prefix {
		st.rows = append(st.rows, row{token: id, pos: i, kv: scratch})
		if i >= total-n {
			st.outs = append(st.outs, i)
		}
	}
	if err := st.pass(context.Background(), st.rows, st.outs); err != nil {
		return nil, err
	}
	m.Passes++
	m.Positions += int64(total)
	rows := make([][]float32, n)
	for i := range rows {
		rows[i] = st.outLogits(i)
		if err := checkLogits(rows[i], total-n+i); err != nil {
			return nil, err
		}
	}
	return rows, nil
}

// scratchKV is where a pass without a cache keeps keys and values: room
// for one layer's, which every layer overwrites.
type scratchKV struct{ kvLayer }

func (s *scratchKV) layer(int) kvLayer { return s.kvLayer }
