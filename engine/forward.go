package engine

import (
	"fmt"
	"math"
)

// State is one running sequence: the model, its KV cache and the scratch
// buffers of a forward pass. A State is not safe for concurrent use; make
// one per sequence.
type State struct {
	Model *Model
	Cache *KVCache

	x, xb, xb2 []float32 // residual stream and scratch, (dim)
	hb, hb2    []float32 // MLP hidden, (hidden_dim)
	q          []float32 // query, (dim)
	att        []float32 // attention scores, (n_heads, seq_len)
	logits     []float32 // output, (vocab)
}

// NewState makes a fresh sequence state with an empty KV cache.
func (m *Model) NewState() *State {
	c := m.Config
	return &State{
		Model: m, Cache: NewKVCache(c),
		x: make([]float32, c.Dim), xb: make([]float32, c.Dim), xb2: make([]float32, c.Dim),
		hb: make([]float32, c.HiddenDim), hb2: make([]float32, c.HiddenDim),
		q: make([]float32, c.Dim), att: make([]float32, c.NHeads*c.SeqLen),
		logits: make([]float32, c.VocabSize),
	}
}

// Forward runs the model on one token at position pos, with positions
// 0..pos-1 already in the KV cache, and returns the logits for the token
// that comes next: one score per vocabulary entry. The returned slice is
// reused by the next call.
func (s *State) Forward(token, pos int) ([]float32, error) {
	c := s.Model.Config
	if token < 0 || token >= c.VocabSize {
		return nil, fmt.Errorf("token id %d is outside the vocabulary (0..%d)", token, c.VocabSize-1)
	}
	if pos < 0 || pos >= c.SeqLen {
		return nil, fmt.Errorf("position %d is outside the model's context of %d tokens", pos, c.SeqLen)
	}
	s.forward(token, pos)
	return s.logits, nil
}

// forward is the Llama transformer, one token at a time.
func (s *State) forward(token, pos int) {
	m, w := s.Model, s.Model.Weights
	c := m.Config
	dim, hidden, kvDim, hs := c.Dim, c.HiddenDim, c.KVDim(), c.HeadSize()
	x := s.x

	// The token's embedding starts the residual stream.
	copy(x, w.TokenEmbedding[token*dim:(token+1)*dim])

	for l := range c.NLayers {
		// Attention block: normalise, project to query/key/value, rotate
		// by position, attend over the cache, project back, add.
		rmsnorm(s.xb, x, w.RMSAtt[l*dim:(l+1)*dim])
		k, v := s.Cache.Key(l, pos), s.Cache.Value(l, pos)
		matmul(s.q, s.xb, w.Wq[l*dim*dim:(l+1)*dim*dim])
		matmul(k, s.xb, w.Wk[l*kvDim*dim:(l+1)*kvDim*dim])
		matmul(v, s.xb, w.Wv[l*kvDim*dim:(l+1)*kvDim*dim])
		rope(s.q, pos, hs)
		rope(k, pos, hs)
		s.attention(l, pos)
		matmul(s.xb2, s.xb, w.Wo[l*dim*dim:(l+1)*dim*dim])
		add(x, s.xb2)

		// MLP block (SwiGLU): w2(silu(w1·x) * w3·x), added to the stream.
		rmsnorm(s.xb, x, w.RMSFFN[l*dim:(l+1)*dim])
		matmul(s.hb, s.xb, w.W1[l*hidden*dim:(l+1)*hidden*dim])
		matmul(s.hb2, s.xb, w.W3[l*hidden*dim:(l+1)*hidden*dim])
		swiglu(s.hb, s.hb2)
		matmul(s.xb, s.hb, w.W2[l*dim*hidden:(l+1)*dim*hidden])
		add(x, s.xb)
	}

	// Final norm, then the vocabulary projection gives one logit per token.
	rmsnorm(x, x, w.RMSFinal)
	matmul(s.logits, x, w.Classifier)
}

// attention computes, for every query head, softmax(q·K/√head_size)·V over
// positions 0..pos of layer l, writing the heads side by side into s.xb.
// Query head h reads key/value head h/KVMul (grouped-query attention).
func (s *State) attention(l, pos int) {
	c := s.Model.Config
	hs, kvMul, seqLen := c.HeadSize(), c.KVMul(), c.SeqLen
	scale := float32(1 / math.Sqrt(float64(hs)))
	for h := range c.NHeads {
		q := s.q[h*hs : (h+1)*hs]
		att := s.att[h*seqLen : h*seqLen+pos+1]
		kvOff := (h / kvMul) * hs
		for t := 0; t <= pos; t++ {
			att[t] = dot(q, s.Cache.Key(l, t)[kvOff:kvOff+hs]) * scale
		}
		softmax32(att)
		out := s.xb[h*hs : (h+1)*hs]
		clear(out)
		for t := 0; t <= pos; t++ {
			axpy(out, att[t], s.Cache.Value(l, t)[kvOff:kvOff+hs])
		}
	}
}
