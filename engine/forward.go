package engine

import (
	"fmt"
	"math"
	"time"
)

// State is one running sequence: the model, its KV cache and the scratch
// buffers of a forward pass. A State is not safe for concurrent use; make
// one per sequence.
type State struct {
	Model *Model
	Cache *KVCache
	// Profile, when not nil, receives the counted work and measured time
	// of every part of every forward pass. Leave it nil for full speed.
	Profile *Profile

	x, xb, xb2 []float32 // residual stream and scratch, (dim)
	hb, hb2    []float32 // MLP hidden, (hidden_dim)
	q          []float32 // query, (dim)
	att        []float32 // attention scores, (n_heads, seq_len)
	logits     []float32 // output, (vocab)

	rope  *ropeTable   // cos/sin of every rotation angle
	batch *batchBuffer // scratch for batched passes, made on first use
}

// NewState makes a fresh sequence state with an empty KV cache.
func (m *Model) NewState() *State { return newState(m, true) }

// newState makes a state, with a KV cache for the full context or none.
func newState(m *Model, cache bool) *State {
	c := m.Config
	var kv *KVCache
	if cache {
		kv = NewKVCache(c)
	}
	return &State{
		Model: m, Cache: kv,
		x: make([]float32, c.Dim), xb: make([]float32, c.Dim), xb2: make([]float32, c.Dim),
		hb: make([]float32, c.HiddenDim), hb2: make([]float32, c.HiddenDim),
		q: make([]float32, c.Dim), att: make([]float32, c.NHeads*c.SeqLen),
		logits: make([]float32, c.VocabSize),
		rope:   newRopeTable(c.SeqLen, c.HeadSize()),
	}
}

// Forward runs the model on one token at position pos, with positions
// 0..pos-1 already in the KV cache, and returns the logits for the token
// that comes next: one score per vocabulary entry. The returned slice is
// reused by the next call.
//
// This is the decode step: every weight matrix is multiplied by a single
// vector. To run many known tokens (a prompt) at once, use Prefill.
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
	dim, hidden, kvDim := c.Dim, c.HiddenDim, c.KVDim()
	x := s.x
	prof := s.Profile
	var t time.Time
	if prof != nil {
		t = time.Now()
	}

	// The token's embedding starts the residual stream.
	copy(x, w.TokenEmbedding[token*dim:(token+1)*dim])
	if prof != nil {
		t = prof.tick(PartEmbedding, t, Cost{})
	}

	for l := range c.NLayers {
		// Attention block: normalise, project to query/key/value, rotate
		// by position, attend over the cache, project back, add.
		rmsnorm(s.xb, x, w.RMSAtt[l*dim:(l+1)*dim])
		if prof != nil {
			t = prof.tick(PartNorm, t, Cost{})
		}
		k, v := s.Cache.Key(l, pos), s.Cache.Value(l, pos)
		matmul(s.q, s.xb, w.Wq[l*dim*dim:(l+1)*dim*dim])
		matmul(k, s.xb, w.Wk[l*kvDim*dim:(l+1)*kvDim*dim])
		matmul(v, s.xb, w.Wv[l*kvDim*dim:(l+1)*kvDim*dim])
		s.rope.apply(s.q, pos)
		s.rope.apply(k, pos)
		s.attention(l, pos)
		matmul(s.xb2, s.xb, w.Wo[l*dim*dim:(l+1)*dim*dim])
		add(x, s.xb2)
		if prof != nil {
			t = prof.tick(PartAttention, t, Cost{})
		}

		// MLP block (SwiGLU): w2(silu(w1·x) * w3·x), added to the stream.
		rmsnorm(s.xb, x, w.RMSFFN[l*dim:(l+1)*dim])
		if prof != nil {
			t = prof.tick(PartNorm, t, Cost{})
		}
		matmul(s.hb, s.xb, w.W1[l*hidden*dim:(l+1)*hidden*dim])
		matmul(s.hb2, s.xb, w.W3[l*hidden*dim:(l+1)*hidden*dim])
		swiglu(s.hb, s.hb2)
		matmul(s.xb, s.hb, w.W2[l*dim*hidden:(l+1)*dim*hidden])
		add(x, s.xb)
		if prof != nil {
			t = prof.tick(PartMLP, t, Cost{})
		}
	}

	// Final norm, then the vocabulary projection gives one logit per token.
	rmsnorm(x, x, w.RMSFinal)
	if prof != nil {
		t = prof.tick(PartNorm, t, Cost{})
	}
	matmul(s.logits, x, w.Classifier)
	if prof != nil {
		prof.tick(PartVocab, t, Cost{})
		prof.count(c, 1, pos, 1)
	}
}

// count adds the counted work of one pass over n tokens at pos.
func (p *Profile) count(c Config, n, pos, outputs int) {
	for part := range NumParts {
		w := c.PartCost(part, n, pos, outputs)
		p.Parts[part].FLOPs += w.FLOPs
		p.Parts[part].Bytes += w.Bytes
	}
	p.Tokens += int64(n)
	p.Passes++
}

// attention computes, for every query head, softmax(q·K/√head_size)·V over
// positions 0..pos of layer l, writing the heads side by side into s.xb.
// Query head h reads key/value head h/KVMul (grouped-query attention).
func (s *State) attention(l, pos int) {
	c := s.Model.Config
	keys, values := s.Cache.Layer(l, pos+1)
	attendOne(s.xb, s.q, keys, values, s.att, c, pos)
}

// attendOne is attention for one query position pos (all heads of q) over
// the keys and values of positions 0..pos, stored (position, kv_dim). att is
// scratch of at least n_heads × (pos+1) scores.
func attendOne(out, q, keys, values, att []float32, c Config, pos int) {
	hs, kvMul, kvDim := c.HeadSize(), c.KVMul(), c.KVDim()
	scale := float32(1 / math.Sqrt(float64(hs)))
	for h := range c.NHeads {
		qh := q[h*hs : (h+1)*hs]
		a := att[h*(pos+1) : (h+1)*(pos+1)]
		kvOff := (h / kvMul) * hs
		for t := 0; t <= pos; t++ {
			a[t] = dot(qh, keys[t*kvDim+kvOff:t*kvDim+kvOff+hs]) * scale
		}
		softmax32(a)
		o := out[h*hs : (h+1)*hs]
		clear(o)
		for t := 0; t <= pos; t++ {
			axpy(o, a[t], values[t*kvDim+kvOff:t*kvDim+kvOff+hs])
		}
	}
}
