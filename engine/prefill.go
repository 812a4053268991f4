package engine

import (
	"context"
	"errors"
	"fmt"

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
	rows := make([][]float32, len(tokens))
	for i := range rows {
		rows[i] = s.outLogits(i)
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

// prefill runs tokens at positions pos..pos+n-1 of the state's cache as
// one batch, and leaves the logits of the last position in s.logits, or
// of every position in s.batch.logits when all is set.
func (s *State) prefill(ctx context.Context, tokens []int, pos int, all bool) error {
	if err := s.Reserve(pos + len(tokens)); err != nil {
		return err
	}
	s.rows, s.outs = s.rows[:0], s.outs[:0]
	for i, id := range tokens {
		s.rows = append(s.rows, row{token: id, pos: pos + i, kv: s.Cache})
		if all {
			s.outs = append(s.outs, i)
		}
	}
	if !all {
		s.outs = append(s.outs, len(tokens)-1)
	}
	if err := s.pass(ctx, s.rows, s.outs); err != nil {
		return err
	}
	s.Cache.n = pos + len(tokens)
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

// byTokens calls f(i0, i1) for runs of tokens i0..i1-1 that together
// cover the n tokens of a batched pass once, sharing them among the cores
// when the work (in multiply-adds) is worth it: one run per core, each
// starting at a multiple of step tokens, as w's kernel takes them
// (Matrix.Inputs), so that no core's run ends in tokens its kernel
// multiplies fewer at a time.
// Each core then reads all the layer's weights, but once for a whole run
// of tokens, and the pass hands work to the cores twice a layer instead
// of once for every product. Fewer, longer runs read the weights fewer
// times, so there are no more runs than cores. With a profile, f does all
// the tokens at once on the caller, so the profile's clock ticks in order.
func (s *State) byTokens(n int, w *Matrix, work int, f func(part, i0, i1 int)) {
	workers := maxWorkers()
	if s.Profile != nil || workers < 2 || n < 2 || work < parallelThreshold {
		f(0, 0, n)
		return
	}
	step := w.Inputs()
	groups := (n + step - 1) / step
	runs := min(groups, workers)
	parallelFor(runs, true, func(_, r0, r1 int) {
		f(r0, min(n, step*(groups*r0/runs)), min(n, step*(groups*r1/runs)))
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
	mulTokens(out, w, n, v, true)
}

// rmsnormRows applies rmsnorm to every row of width dim.
func rmsnormRows(out, x, weight []float32, dim int, eps float32) {
	for i := 0; i < len(x); i += dim {
		rmsnorm(out[i:i+dim], x[i:i+dim], weight, eps)
	}
}
