package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tokenbytoken/course/engine/internal/f16"
	"github.com/tokenbytoken/course/engine/internal/ggml"
	"github.com/tokenbytoken/course/engine/internal/quant"
)

// Prefill runs a whole run of known tokens (typically the prompt) through
// the model in one batched pass: tokens[i] sits at position pos+i, and
// positions 0..pos-1 must already be in the KV cache. Every weight matrix
// is multiplied by a matrix of many tokens' rows at once (matrix-matrix,
// see matmulTokens), so each weight is read from memory once for a whole
// run of tokens instead of once per token, and the tokens are shared
// among the cores (see byTokens). Attention is causal: each position
// sees itself and the positions before it. The keys and values of every
// position are written to the cache, so decoding can continue at
// pos+len(tokens).
//
// It returns the logits after the last token: the same numbers, up to
// float32 rounding, that calling Forward on each token in turn would give.
// The returned slice is reused by the next call.
func (s *State) Prefill(tokens []int, pos int) ([]float32, error) {
	return s.PrefillContext(context.Background(), tokens, pos)
}

// PrefillContext is Prefill that stops early when ctx is done: it checks
// ctx between the parts of every layer (three times a layer), so
// a long prompt is given up within a fraction of a pass, and returns ctx's
// error. The cache then
// holds only part of positions pos.. (a later pass from pos overwrites
// them).
func (s *State) PrefillContext(ctx context.Context, tokens []int, pos int) ([]float32, error) {
	if err := s.checkRun(tokens, pos); err != nil {
		return nil, err
	}
	if len(tokens) == 1 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		return s.Forward(tokens[0], pos)
	}
	if err := s.prefill(ctx, tokens, pos, false); err != nil {
		return nil, err
	}
	if err := checkLogits(s.logits, pos+len(tokens)-1); err != nil {
		return nil, err
	}
	return s.logits, nil
}

// PrefillAll is Prefill returning the logits after every token: row i
// scores the token that follows tokens[i]. Speculative decoding uses it to
// check γ drafted tokens with a single pass of the target model. The rows
// are reused by the next call.
func (s *State) PrefillAll(tokens []int, pos int) ([][]float32, error) {
	if err := s.checkRun(tokens, pos); err != nil {
		return nil, err
	}
	if len(tokens) == 1 {
		logits, err := s.Forward(tokens[0], pos)
		if err != nil {
			return nil, err
		}
		return [][]float32{logits}, nil
	}
	if err := s.prefill(context.Background(), tokens, pos, true); err != nil {
		return nil, err
	}
	b := s.batch
	v := s.Model.Config.VocabSize
	rows := make([][]float32, len(tokens))
	for i := range rows {
		rows[i] = b.logits[i*v : (i+1)*v]
		if err := checkLogits(rows[i], pos+i); err != nil {
			return nil, err
		}
	}
	return rows, nil
}

// checkRun rejects a state without a model, and a run of tokens that is
// empty, holds an id outside the vocabulary, or does not fit in the
// context.
func (s *State) checkRun(tokens []int, pos int) error {
	if s.Model == nil {
		return errors.New("prefill: state has no model")
	}
	c := s.Model.Config
	if len(tokens) == 0 {
		return fmt.Errorf("prefill: no tokens")
	}
	if pos < 0 || pos > c.SeqLen || len(tokens) > c.SeqLen-pos {
		return fmt.Errorf("prefill: %d tokens at position %d do not fit the model's context of %d tokens", len(tokens), pos, c.SeqLen)
	}
	for i, id := range tokens {
		if id < 0 || id >= c.VocabSize {
			return fmt.Errorf("prefill: token %d has id %d, outside the vocabulary (0..%d)", i, id, c.VocabSize-1)
		}
	}
	return nil
}

// batchBuffer holds the activations of a batched pass, one row per token.
// The State (forward.go) keeps it beside the decode step's buffers, as one
// State runs both kinds of pass over one cache: that is why forward.go and
// this file use each other's declarations.
type batchBuffer struct {
	n          int       // capacity in tokens
	x, xb, xb2 []float32 // (n, dim)
	q          []float32 // (n, dim)
	hb, hb2    []float32 // (n, hidden)
	att        []float32 // attention scores, (workers, n_heads, seq_len)
	logits     []float32 // (n, vocab), only when every position's logits are asked for
	// vecs are each run of tokens' inputs prepared for the matrices that
	// read them (see byTokens), a set per core; cls is the classifier's.
	vecs   []tokenVecs
	cls    quant.Vec
	kv     []float32 // scratch keys and values for passes without a cache (float32 numbers)
	halfKV []uint16  // the same, in llama.cpp's arithmetic (f16 numbers)
	// k and v are the keys and values of the pass before they are
	// rounded into an f16 cache (LlamaCpp arithmetic), (n, kv_dim).
	k, v []float32
}

// buffers returns scratch for n tokens at positions pos..pos+n-1, growing
// it when needed, or a *MemoryError when it would not fit in memory.
func (s *State) buffers(n, pos int, logits bool) (*batchBuffer, error) {
	c := s.Model.Config
	b := s.batch
	att := maxWorkers() * c.NHeads * (pos + n)
	if b != nil && b.n >= n && len(b.att) < att {
		// Only the attention scores outgrew their buffer, as they do
		// with every later batch (a verification pass of speculative
		// decoding): grow them alone, with room for as many positions
		// again, instead of every activation.
		grown := min(2*att, maxWorkers()*c.NHeads*c.SeqLen)
		if err := checkMemory(fmt.Sprintf("the attention scores of a batched pass (%d floats)", grown), 4*int64(grown)); err != nil {
			return nil, err
		}
		b.att = make([]float32, max(grown, att))
	}
	if b == nil || b.n < n || len(b.att) < att {
		rows := max(n, 0)
		if b != nil {
			rows = max(rows, b.n)
		}
		kv := 0 // keys and values of the pass, before the f16 cache
		if s.arith == LlamaCpp {
			kv = 2 * c.KVDim()
		}
		floats := int64(rows)*int64(4*c.Dim+2*c.HiddenDim+kv) + int64(att)
		what := fmt.Sprintf("the activations of a batched pass over %d tokens (%d × (4 × %d dim + 2 × %d hidden + %d) floats, and %d attention scores)", rows, rows, c.Dim, c.HiddenDim, kv, att)
		if err := checkMemory(what, 4*floats); err != nil {
			return nil, err
		}
		b = &batchBuffer{
			n: rows, x: make([]float32, rows*c.Dim), xb: make([]float32, rows*c.Dim), xb2: make([]float32, rows*c.Dim),
			q: make([]float32, rows*c.Dim), hb: make([]float32, rows*c.HiddenDim), hb2: make([]float32, rows*c.HiddenDim),
			att: make([]float32, att),
		}
		if kv > 0 {
			b.k, b.v = make([]float32, rows*c.KVDim()), make([]float32, rows*c.KVDim())
		}
		s.batch = b
	}
	if logits && len(b.logits) < n*c.VocabSize {
		what := fmt.Sprintf("the logits of %d positions (%d × %d vocabulary × 4 bytes)", b.n, b.n, c.VocabSize)
		if err := checkMemory(what, 4*int64(b.n)*int64(c.VocabSize)); err != nil {
			return nil, err
		}
		b.logits = make([]float32, b.n*c.VocabSize)
	}
	return b, nil
}

// prefill is the batched transformer. It fills the cache for positions
// pos..pos+n-1 and leaves the logits of the last position in s.logits, or
// of every position in s.batch.logits when all is set.
func (s *State) prefill(ctx context.Context, tokens []int, pos int, all bool) error {
	if err := s.Reserve(pos + len(tokens)); err != nil {
		return err
	}
	return s.batched(ctx, tokens, pos, all, s.Cache.layer)
}

// batched runs n = len(tokens) tokens at positions pos..pos+n-1. layerKV
// returns the key and value storage of layer l for positions 0..n-1, laid
// out (position, kv_dim), in float32 or, in llama.cpp's arithmetic, f16
// numbers; the pass writes the new positions' keys and values there and
// attends over all of them. It stops with ctx's error when ctx is done at
// any of the three checks of a layer.
func (s *State) batched(ctx context.Context, tokens []int, pos int, all bool, layerKV func(l, n int) kvLayer) error {
	w, c := s.Model.Matrices, s.Model.Config
	eps := c.normEps()
	n := len(tokens)
	dim, hidden, kvDim := c.Dim, c.HiddenDim, c.KVDim()
	b, err := s.buffers(n, pos, all)
	if err != nil {
		return err
	}
	x, xb, xb2, q := b.x[:n*dim], b.xb[:n*dim], b.xb2[:n*dim], b.q[:n*dim]
	hb, hb2 := b.hb[:n*hidden], b.hb2[:n*hidden]
	prof := s.Profile
	var t time.Time
	if prof != nil {
		t = time.Now()
	}

	for i, id := range tokens {
		w.Embedding.Row(id, x[i*dim:(i+1)*dim])
	}
	if len(b.vecs) < maxWorkers() {
		b.vecs = make([]tokenVecs, maxWorkers())
	}
	if prof != nil {
		t = prof.tick(PartEmbedding, t, Cost{})
	}

	for l := range c.NLayers {
		if err := ctx.Err(); err != nil {
			return err
		}
		kl := layerKV(l, pos+n)
		// The pass's keys and values: straight into a float32 cache, or
		// first in float32, then rounded into an f16 one.
		k, v := b.k, b.v
		if s.arith != LlamaCpp {
			k, v = kl.keys[pos*kvDim:], kl.values[pos*kvDim:]
		}
		L := &w.Layers[l]

		// Up to attention, every token is worked on by itself: the
		// tokens are shared among the cores, tokens i0..i1-1 to each.
		s.byTokens(n, n*dim*(dim+2*kvDim), func(part, i0, i1 int) {
			m, vs := i1-i0, &b.vecs[part]
			xr, xbr := x[i0*dim:i1*dim], xb[i0*dim:i1*dim]
			s.rmsnormRows(xbr, xr, L.RMSAtt, dim, eps)
			if prof != nil {
				t = prof.tick(PartNorm, t, Cost{})
			}
			L.Wq.PrepareBatch(xbr, m, &vs.q)
			matmulTokens(q[i0*dim:], L.Wq, m, &vs.q)
			matmulTokens(k[i0*kvDim:], L.Wk, m, tokensFor(L.Wk, xbr, m, &vs.q, &vs.k))
			matmulTokens(v[i0*kvDim:], L.Wv, m, tokensFor(L.Wv, xbr, m, &vs.q, &vs.v))
			for i := i0; i < i1; i++ {
				s.rotate(q[i*dim:(i+1)*dim], pos+i)
				s.rotate(k[i*kvDim:(i+1)*kvDim], pos+i)
				if s.arith == LlamaCpp {
					at := (pos + i) * kvDim
					f16.Encode(kl.halfKeys[at:at+kvDim], k[i*kvDim:(i+1)*kvDim])
					f16.Encode(kl.halfValues[at:at+kvDim], v[i*kvDim:(i+1)*kvDim])
				}
			}
		})
		if err := ctx.Err(); err != nil {
			return err
		}
		// Causal attention: position pos+i sees positions 0..pos+i.
		// Positions are independent, so they are shared among the cores.
		if s.arith == LlamaCpp {
			s.attendBatchLlamaCpp(xb, q, kl.halfKeys, kl.halfValues, pos, n)
		} else {
			stride := c.NHeads * (pos + n)
			parallelFor(n, n*(pos+n)*dim >= 1<<15, func(worker, i0, i1 int) {
				att := b.att[worker*stride : (worker+1)*stride]
				for i := i0; i < i1; i++ {
					attendHeads(xb[i*dim:(i+1)*dim], q[i*dim:(i+1)*dim], kl.keys, kl.values, att, c, pos+i, 0, c.NHeads)
				}
			})
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		// From there to the end of the layer, every token by itself again.
		s.byTokens(n, n*dim*(dim+3*hidden), func(part, i0, i1 int) {
			m, vs := i1-i0, &b.vecs[part]
			xr, xbr, xb2r := x[i0*dim:i1*dim], xb[i0*dim:i1*dim], xb2[i0*dim:i1*dim]
			L.Wo.PrepareBatch(xbr, m, &vs.o)
			matmulTokens(xb2r, L.Wo, m, &vs.o)
			add(xr, xb2r)
			if prof != nil {
				t = prof.tick(PartAttention, t, Cost{})
			}
			s.rmsnormRows(xbr, xr, L.RMSFFN, dim, eps)
			if prof != nil {
				t = prof.tick(PartNorm, t, Cost{})
			}
			hbr, hb2r := hb[i0*hidden:i1*hidden], hb2[i0*hidden:i1*hidden]
			L.W1.PrepareBatch(xbr, m, &vs.gate)
			matmulTokens(hbr, L.W1, m, &vs.gate)
			matmulTokens(hb2r, L.W3, m, tokensFor(L.W3, xbr, m, &vs.gate, &vs.up))
			s.swiglu(hbr, hb2r)
			L.W2.PrepareBatch(hbr, m, &vs.down)
			matmulTokens(xbr, L.W2, m, &vs.down)
			add(xr, xbr)
			if prof != nil {
				t = prof.tick(PartMLP, t, Cost{})
			}
		})
	}

	outputs := 1
	if all {
		outputs = n
		s.rmsnormRows(x, x, w.RMSFinal, dim, eps)
		if prof != nil {
			t = prof.tick(PartNorm, t, Cost{})
		}
		matmulBatch(b.logits[:n*c.VocabSize], x, w.Classifier, n, &b.cls)
		copy(s.logits, b.logits[(n-1)*c.VocabSize:n*c.VocabSize])
	} else {
		last := x[(n-1)*dim : n*dim]
		s.rmsnorm(last, last, w.RMSFinal, eps)
		if prof != nil {
			t = prof.tick(PartNorm, t, Cost{})
		}
		matmul(s.logits, last, w.Classifier, &s.vcls)
	}
	if prof != nil {
		prof.tick(PartVocab, t, Cost{})
		prof.count(c, n, pos, outputs)
	}
	return nil
}

// rmsnormRows is rmsnorm in the model's arithmetic on every row of width
// dim.
func (s *State) rmsnormRows(out, x, weight []float32, dim int, eps float32) {
	if s.arith == LlamaCpp {
		rmsnormRowsLlamaCpp(out, x, weight, dim, eps)
		return
	}
	rmsnormRows(out, x, weight, dim, eps)
}

// rotate applies the rotary embedding of position pos to vec, a run of
// heads, in the model's arithmetic.
func (s *State) rotate(vec []float32, pos int) {
	if s.arith == LlamaCpp {
		s.ropeCpp.apply(vec, pos, 0, len(vec))
		return
	}
	s.rope.apply(vec, pos)
}

// swiglu is SwiGLU in the model's arithmetic.
func (s *State) swiglu(gate, up []float32) {
	if s.arith == LlamaCpp {
		ggml.SwiGLU(gate, up)
		return
	}
	swiglu(gate, up)
}

// attendBatchLlamaCpp is the attention of a batch of n tokens at positions
// pos..pos+n-1 into xb, over keys and values in f16, as llama.cpp
// computes it: the tokens in batches of ubatch, as llama.cpp decodes a
// long prompt, each batch of TileRows tokens or more by tiles
// (ggml.AttendTiled), a smaller one a token at a time (ggml.Attend), as a
// decoding step. The heads, and the tiles' rows, are shared among the
// cores.
func (s *State) attendBatchLlamaCpp(xb, q []float32, keys, values []uint16, pos, n int) {
	c := s.Model.Config
	dim, hs, kvMul, kvDim := c.Dim, c.HeadSize(), c.KVMul(), c.KVDim()
	scale := attentionScale(c)
	for u0 := 0; u0 < n; u0 += ubatch {
		u1 := min(u0+ubatch, n)
		rows := u1 - u0
		work := rows * (pos + u1) * dim
		if rows < ggml.TileRows {
			parallelFor(rows, work >= 1<<15, func(worker, i0, i1 int) {
				for i := u0 + i0; i < u0+i1; i++ {
					attendHeadsLlamaCpp(&s.flash[worker], xb[i*dim:(i+1)*dim], q[i*dim:(i+1)*dim], keys, values, c, pos+i, 0, c.NHeads)
				}
			})
			continue
		}
		// Work items: a head's rows in blocks of TileRows.
		blocks := (rows + ggml.TileRows - 1) / ggml.TileRows
		parallelFor(c.NHeads*blocks, work >= 1<<15, func(worker, j0, j1 int) {
			for j := j0; j < j1; j++ {
				h, r0 := j/blocks, u0+j%blocks*ggml.TileRows
				r1 := min(r0+ggml.TileRows, u1)
				kvOff := (h / kvMul) * hs
				ggml.AttendTiled(xb[r0*dim+h*hs:], dim, q[r0*dim+h*hs:], dim, hs, r1-r0, pos+r0,
					keys[kvOff:], values[kvOff:], kvDim, scale, &s.flash[worker])
			}
		})
	}
}

// byTokens calls f(i0, i1) for runs of tokens i0..i1-1 that together
// cover the n tokens of a batched pass once, sharing them among the cores
// when the work (in multiply-adds) is worth it: one run per core, each
// starting at a multiple of 3 tokens, as the matrix kernel takes them.
// Each core then reads all the layer's weights, but once for a whole run
// of tokens, and the pass hands work to the cores twice a layer instead
// of once for every product. Fewer, longer runs read the weights fewer
// times, so there are no more runs than cores. With a profile, f does all
// the tokens at once on the caller, so the profile's clock ticks in order.
func (s *State) byTokens(n, work int, f func(part, i0, i1 int)) {
	workers := maxWorkers()
	if s.Profile != nil || workers < 2 || n < 2 || work < parallelThreshold {
		f(0, 0, n)
		return
	}
	groups := (n + 2) / 3
	runs := min(groups, workers)
	parallelFor(runs, true, func(_, r0, r1 int) {
		f(r0, min(n, 3*(groups*r0/runs)), min(n, 3*(groups*r1/runs)))
	})
}

// tokenVecs are one run of tokens' inputs, prepared for the matrices of a
// layer that read them (see Matrix.Prepare): the normalised stream for q
// (and k and v, when their types can share it), the heads for wo, the
// normalised stream for the gate (and up), and the gate's output for down.
type tokenVecs struct {
	q, k, v, o, gate, up, down quant.Vec
}

// tokensFor returns a Vec that holds the n rows of x prepared for w's
// products: shared, when it was prepared from x for a matrix whose products
// w can share, or own, prepared now.
func tokensFor(w *Matrix, x []float32, n int, shared, own *quant.Vec) *quant.Vec {
	if w.Prepared(shared) {
		return shared
	}
	w.PrepareBatch(x, n, own)
	return own
}

// matmulBatch computes out = X·Wᵀ for n input rows at once: X is (n,
// cols), and out is (n, rows). The rows of W are shared among the cores,
// and each weight is read once for all n rows.
func matmulBatch(out, x []float32, w *Matrix, n int, v *quant.Vec) {
	w.PrepareBatch(x, n, v)
	blocks := (w.Rows() + 3) / 4
	parallelFor(blocks, n*w.Rows()*w.Cols() >= parallelThreshold, func(_, b0, b1 int) {
		w.MulBatch(out, v, 0, n, 4*b0, min(4*b1, w.Rows()))
	})
}

// rmsnormRows applies rmsnorm to every row of width dim.
func rmsnormRows(out, x, weight []float32, dim int, eps float32) {
	for i := 0; i < len(x); i += dim {
		rmsnorm(out[i:i+dim], x[i:i+dim], weight, eps)
	}
}
