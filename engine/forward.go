package engine

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/tokenbytoken/course/engine/internal/f16"
	"github.com/tokenbytoken/course/engine/internal/ggml"
	"github.com/tokenbytoken/course/engine/internal/quant"
	"github.com/tokenbytoken/course/engine/internal/simd"
)

// State is one running sequence: the model, its KV cache and the scratch
// buffers of a forward pass. A State is not safe for concurrent use; make
// one per sequence.
//
// Nothing is allocated until the first pass, and the cache and the
// attention scratch then grow with the positions actually run (see
// Reserve), so a model whose header claims a context of a million tokens
// costs only what is generated.
type State struct {
	Model *Model
	// Cache holds the keys and values of the positions run so far; it is
	// made by the first pass.
	Cache *KVCache
	// Profile, when not nil, receives the counted work and measured time
	// of every part of every forward pass. Leave it nil for full speed.
	Profile *Profile

	config     Config     // the shape the buffers below were made for
	arith      Arithmetic // and the arithmetic
	noCache    bool       // a state for NoCacheLM: no KV cache of its own
	x, xb, xb2 []float32  // residual stream and scratch, (dim)
	hb, hb2    []float32  // MLP hidden, (hidden_dim)
	q          []float32  // query, (dim)
	att        []float32  // attention scores, (n_heads, positions)
	logits     []float32  // output, (vocab)

	rope  *ropeTable   // cos/sin of every rotation angle so far (RunC)
	batch *batchBuffer // scratch for batched passes, made on first use
	rows  []row        // a batched pass's rows, and the rows whose
	outs  []int        // logits it keeps

	// With LlamaCpp arithmetic: the rotations as llama.cpp computes them,
	// the step's key and value before they are rounded into the cache,
	// and attention's scratch, one per core.
	ropeCpp *ropeLlamaCpp
	k, v    []float32 // (kv_dim)
	flash   []ggml.Scratch

	// The step's inputs prepared for the matrices that read them (see
	// Matrix.Prepare): xb for q, k and v (each its own, when their types
	// cannot share one), the heads for wo, xb for the MLP's gate and up,
	// hb for its down projection, x for the classifier.
	vq, vk, vv, vo, v1, v3, v2, vcls quant.Vec

	// mats are the Matrices the buffers were made for: the model is
	// validated again only when they or its shape change.
	mats *Matrices

	// The attention of the current decode step, for the cores to share
	// by heads: heads, bound once to the state, does heads h0..h1-1 of
	// layer stepLayer at position stepPos, so that sharing them allocates
	// nothing.
	stepLayer, stepPos int
	heads              func(worker, h0, h1 int)
	groups             func(worker, g0, g1 int) // attendGroups, bound once
}

// Reserve checks the model and makes room for positions 0..positions-1 in
// the cache and the attention scratch at once, refusing with a
// *MemoryError when they do not fit in the memory available. Forward and
// Prefill call it themselves; calling it first (decoding.Generate does, with the
// prompt plus the tokens it may generate) turns a generation that would
// run out of memory half-way into an error before any work.
func (s *State) Reserve(positions int) error {
	if s.Model == nil {
		return errors.New("state has no model")
	}
	c := s.Model.Config
	if s.config != c || s.mats != s.Model.Matrices || s.x == nil {
		// First pass, or the model was given other weights or another
		// shape: check it, and start afresh.
		if err := s.Model.Validate(); err != nil {
			return err
		}
		arith := s.Model.Matrices.Arithmetic
		*s = State{Model: s.Model, Profile: s.Profile, noCache: s.noCache, config: c, arith: arith, mats: s.Model.Matrices,
			x: make([]float32, c.Dim), xb: make([]float32, c.Dim), xb2: make([]float32, c.Dim),
			hb: make([]float32, c.HiddenDim), hb2: make([]float32, c.HiddenDim),
			q: make([]float32, c.Dim), logits: make([]float32, c.VocabSize),
			rope: &ropeTable{half: c.HeadSize() / 2, theta: c.ropeTheta()},
		}
		if arith == LlamaCpp {
			s.ropeCpp = newRopeLlamaCpp(c)
			s.k, s.v = make([]float32, c.KVDim()), make([]float32, c.KVDim())
			s.flash = make([]ggml.Scratch, maxWorkers())
		}
		if !s.noCache {
			s.Cache = newKVCache(c, arith == LlamaCpp)
		}
	}
	if positions < 0 || positions > c.SeqLen {
		return fmt.Errorf("%d positions do not fit the model's context of %d tokens", positions, c.SeqLen)
	}
	room := positions
	if s.Cache != nil {
		if err := s.Cache.reserve(positions); err != nil {
			return err
		}
		room = s.Cache.Capacity()
	}
	if need := c.NHeads * room; len(s.att) < need {
		what := fmt.Sprintf("the attention scores for %d positions (%d heads × %d positions × 4 bytes)", room, c.NHeads, room)
		if err := checkMemory(what, 4*int64(need)); err != nil {
			return err
		}
		s.att = make([]float32, need)
	}
	if s.ropeCpp != nil {
		s.ropeCpp.extend(room)
	} else {
		s.rope.extend(room)
	}
	if len(s.flash) < maxWorkers() && s.arith == LlamaCpp {
		s.flash = make([]ggml.Scratch, maxWorkers())
	}
	return nil
}

// Forward runs the model on one token at position pos, with positions
// 0..pos-1 already in the KV cache, and returns the logits for the token
// that comes next: one score per vocabulary entry. The returned slice is
// reused by the next call.
//
// This is the decode step: every weight matrix is multiplied by a single
// vector. To run many known tokens (a prompt) at once, use Prefill. An
// error reports a token or position out of range, a model whose weights do
// not fit its shape, memory that ran out, or logits that are not finite
// numbers (the model's weights or activations overflowed).
func (s *State) Forward(token, pos int) ([]float32, error) {
	if s.Model == nil {
		return nil, errors.New("state has no model")
	}
	c := s.Model.Config
	if token < 0 || token >= c.VocabSize {
		return nil, fmt.Errorf("token id %d is outside the vocabulary (0..%d)", token, c.VocabSize-1)
	}
	if pos < 0 || pos >= c.SeqLen {
		return nil, fmt.Errorf("position %d is outside the model's context of %d tokens", pos, c.SeqLen)
	}
	if err := s.Reserve(pos + 1); err != nil {
		return nil, err
	}
	s.forward(token, pos)
	if s.Cache != nil {
		s.Cache.n = pos + 1
	}
	if err := checkLogits(s.logits, pos); err != nil {
		return nil, err
	}
	return s.logits, nil
}

// checkLogits returns an error naming the first logit that is NaN or
// infinite: no distribution can be made from it. pos is the position whose
// logits they are.
func checkLogits(logits []float32, pos int) error {
	if id := firstNonFinite(logits); id >= 0 {
		return fmt.Errorf("the model's logits after position %d are not numbers: token %d's is %v (its weights or activations overflowed float32)", pos, id, logits[id])
	}
	return nil
}

// forward is the Llama transformer, one token at a time.
func (s *State) forward(token, pos int) {
	m, w := s.Model, s.Model.Matrices
	c := m.Config
	eps := c.normEps()
	x := s.x
	prof := s.Profile
	var t time.Time
	if prof != nil {
		t = time.Now()
	}

	// The token's embedding starts the residual stream.
	w.Embedding.Row(token, x)
	if prof != nil {
		t = prof.tick(PartEmbedding, t, Cost{})
	}

	for l := range c.NLayers {
		L := &w.Layers[l]
		// Attention block: normalise, project to query/key/value, rotate
		// by position, attend over the cache, project back, add.
		s.rmsnorm(s.xb, x, L.RMSAtt, eps)
		if prof != nil {
			t = prof.tick(PartNorm, t, Cost{})
		}
		if s.byGroups() {
			// On several cores, each key/value head's rows of q, k
			// and v and the attention of the query heads that read
			// it are done in one go (see attendGroups), the heads
			// side by side into xb2, as xb is still being read.
			if s.groups == nil {
				s.groups = s.attendGroups
			}
			s.stepLayer, s.stepPos = l, pos
			s.prepareQKV(L)
			parallelFor(c.NKVHeads, true, s.groups)
			L.Wo.Prepare(s.xb2, &s.vo)
			inParallel(rowJob{out: s.xb, v: &s.vo, w: L.Wo, residual: x})
		} else {
			// q, k and v are computed in one hand-off to the cores,
			// each range of rows of q and k rotated as soon as it is
			// done; then attention, the heads side by side into xb.
			s.prepareQKV(L)
			qkv := s.qkvJobs(l, pos)
			inParallel(qkv[:]...)
			s.rotateAndStore(l, pos, 0, c.NKVHeads)
			s.attention(l, pos)
			L.Wo.Prepare(s.xb, &s.vo)
			inParallel(rowJob{out: s.xb2, v: &s.vo, w: L.Wo, residual: x})
		}
		if prof != nil {
			t = prof.tick(PartAttention, t, Cost{})
		}

		// MLP block (SwiGLU): w2(silu(w1·x) * w3·x), added to the stream.
		s.rmsnorm(s.xb, x, L.RMSFFN, eps)
		if prof != nil {
			t = prof.tick(PartNorm, t, Cost{})
		}
		L.W1.Prepare(s.xb, &s.v1)
		s.gateUp(L)
		L.W2.Prepare(s.hb, &s.v2)
		inParallel(rowJob{out: s.xb, v: &s.v2, w: L.W2, residual: x})
		if prof != nil {
			t = prof.tick(PartMLP, t, Cost{})
		}
	}

	// Final norm, then the vocabulary projection gives one logit per token.
	s.rmsnorm(x, x, w.RMSFinal, eps)
	if prof != nil {
		t = prof.tick(PartNorm, t, Cost{})
	}
	matmul(s.logits, x, w.Classifier, &s.vcls)
	if prof != nil {
		prof.tick(PartVocab, t, Cost{})
		prof.count(c, 1, pos, 1)
	}
}

// rmsnorm is RMSNorm in the model's arithmetic.
func (s *State) rmsnorm(out, x, weight []float32, eps float32) {
	if s.arith == LlamaCpp {
		rmsnormLlamaCpp(out, x, weight, eps)
		return
	}
	rmsnorm(out, x, weight, eps)
}

// gateUp sets hb to the MLP's gate, silu(w1·xb)·(w3·xb), xb prepared for
// w1 in v1: in one hand-off to the cores, each range of rows gated as
// soon as it is done, or, in llama.cpp's arithmetic, both products in one
// hand-off and then SwiGLU as llama.cpp computes it.
func (s *State) gateUp(L *Layer) {
	up := vecFor(L.W3, s.xb, &s.v1, &s.v3)
	if s.arith == LlamaCpp {
		inParallel(rowJob{out: s.hb, v: &s.v1, w: L.W1}, rowJob{out: s.hb2, v: up, w: L.W3})
		ggml.SwiGLU(s.hb, s.hb2)
		return
	}
	inParallel(rowJob{out: s.hb, v: &s.v1, w: L.W1, up: s.hb2, vUp: up, wUp: L.W3})
}

// prepareQKV prepares xb for layer L's query, key and value projections:
// once, when their types can share it.
func (s *State) prepareQKV(L *Layer) {
	L.Wq.Prepare(s.xb, &s.vq)
	vecFor(L.Wk, s.xb, &s.vq, &s.vk)
	vecFor(L.Wv, s.xb, &s.vq, &s.vv)
}

// attention computes, for every query head, softmax(q·K/√head_size)·V over
// positions 0..pos of layer l, writing the heads side by side into s.xb.
// Query head h reads key/value head h/KVMul (grouped-query attention).
// Heads are independent; late in a long sequence they are shared among the
// cores.
func (s *State) attention(l, pos int) {
	c := s.Model.Config
	if (pos+1)*c.Dim < attentionThreshold || maxWorkers() < 2 {
		s.attendHeads(0, s.xb, l, pos, 0, c.NHeads)
		return
	}
	if s.heads == nil {
		s.heads = s.attendShare
	}
	s.stepLayer, s.stepPos = l, pos
	parallelFor(c.NHeads, true, s.heads)
}

// attendHeads is the attention of heads h0..h1-1 of s.q at position pos of
// layer l, into out, in the model's arithmetic; worker is the core's
// number, for its scratch.
func (s *State) attendHeads(worker int, out []float32, l, pos, h0, h1 int) {
	c := s.Model.Config
	kl := s.Cache.layer(l)
	if s.arith == LlamaCpp {
		attendHeadsLlamaCpp(&s.flash[worker], out, s.q, &kl, c, pos, h0, h1)
		return
	}
	attendHeads(out, s.q, kl.keys[0], kl.values[0], s.att, c, pos, h0, h1)
}

// attendHeadsLlamaCpp is attendHeads in llama.cpp's arithmetic, over keys
// and values in f16, in one piece or in pages: each head as llama.cpp's
// flash attention computes a decoding step (ggml.Attend).
func attendHeadsLlamaCpp(scratch *ggml.Scratch, out, q []float32, kl *kvLayer, c Config, pos, h0, h1 int) {
	hs, kvMul := c.HeadSize(), c.KVMul()
	scale := attentionScale(c)
	// The query heads of one key/value head go together, whose sums the
	// kernels can run side by side (ggml.AttendHeadsPages).
	for h := h0; h < h1; {
		g := h / kvMul
		e := min(h1, (g+1)*kvMul)
		kv := kl.heads(g, c)
		ggml.AttendHeadsPages(out[h*hs:e*hs], q[h*hs:e*hs], e-h, &kv, pos+1, scale, scratch)
		h = e
	}
}

// attendHeadsPaged is attendHeads over keys and values of float32 numbers
// in pages: each key/value head's keys and values are gathered in order
// into gather (2 × (pos+1) × head_size numbers), and attended there, so
// that every number is the one attendHeads computes over a cache in one
// piece.
func attendHeadsPaged(out, q []float32, kl *kvLayer, att, gather []float32, c Config, pos, h0, h1 int) {
	hs, kvMul, kvDim := c.HeadSize(), c.KVMul(), c.KVDim()
	n := pos + 1
	keys, values := gather[:n*hs], gather[n*hs:2*n*hs]
	one := c
	// One key/value head and its query heads, as attendHeads reads them.
	one.Dim, one.NHeads, one.NKVHeads = kvMul*hs, kvMul, 1
	for g := h0 / kvMul; g*kvMul < h1; g++ {
		for t := range n {
			p, o := kl.at(t, kvDim)
			copy(keys[t*hs:(t+1)*hs], kl.keys[p][o+g*hs:])
			copy(values[t*hs:(t+1)*hs], kl.values[p][o+g*hs:])
		}
		a0, a1 := max(h0, g*kvMul), min(h1, (g+1)*kvMul)
		base := g * kvMul * hs
		attendHeads(out[base:], q[base:], keys, values, att, one, pos, a0-g*kvMul, a1-g*kvMul)
	}
}

// attentionScale is llama.cpp's 1/√head_size, in float32.
func attentionScale(c Config) float32 {
	return 1 / float32(math.Sqrt(float64(float32(c.HeadSize()))))
}

// qkvJobs is the step's projections of xb to q, and to k and v in the
// cache at position pos of layer l, q and k rotated: rows of them are
// what attendGroups, and all of them what forward, hands to the cores.
// xb is already prepared for them (prepareQKV). In llama.cpp's
// arithmetic k and v go to s.k and s.v, and rotateAndStore rotates q and
// k and rounds k and v into the cache.
func (s *State) qkvJobs(l, pos int) [3]rowJob {
	L := &s.Model.Matrices.Layers[l]
	vk, vv := &s.vq, &s.vq
	if !L.Wk.Prepared(vk) {
		vk = &s.vk
	}
	if !L.Wv.Prepared(vv) {
		vv = &s.vv
	}
	if s.arith == LlamaCpp {
		return [3]rowJob{{out: s.q, v: &s.vq, w: L.Wq}, {out: s.k, v: vk, w: L.Wk}, {out: s.v, v: vv, w: L.Wv}}
	}
	return [3]rowJob{
		{out: s.q, v: &s.vq, w: L.Wq, rope: s.rope, pos: pos},
		{out: s.Cache.Key(l, pos), v: vk, w: L.Wk, rope: s.rope, pos: pos},
		{out: s.Cache.Value(l, pos), v: vv, w: L.Wv},
	}
}

// rotateAndStore finishes the rows of key/value heads g0..g1-1 (and of
// the query heads that read them) that qkvJobs computed, in llama.cpp's
// arithmetic: it rotates q and k, and rounds k and v into the cache at
// position pos of layer l. (In run.c's the jobs did it all.)
func (s *State) rotateAndStore(l, pos, g0, g1 int) {
	if s.arith != LlamaCpp {
		return
	}
	c := s.Model.Config
	hs, kvMul := c.HeadSize(), c.KVMul()
	k0, k1 := g0*hs, g1*hs
	s.ropeCpp.apply(s.q, pos, k0*kvMul, k1*kvMul)
	s.ropeCpp.apply(s.k, pos, k0, k1)
	f16.Encode(s.Cache.HalfKey(l, pos)[k0:k1], s.k[k0:k1])
	f16.Encode(s.Cache.HalfValue(l, pos)[k0:k1], s.v[k0:k1])
}

// byGroups says whether this step's q, k and v and its attention are
// shared among the cores by key/value head (attendGroups) rather than in
// two hand-offs, the rows of q, k and v and then the heads. That saves a
// hand-off a layer, and attention is shared from the first position on.
// It needs two cores and two key/value heads or more, products large
// enough to be worth sharing (as inParallel decides), and a head size
// that is a multiple of 4, so that each head's rows are whole blocks of
// Gemv's and every number comes out the same, bit for bit, as on one
// core.
func (s *State) byGroups() bool {
	c := s.Model.Config
	return maxWorkers() >= 2 && c.NKVHeads >= 2 && c.HeadSize()%4 == 0 &&
		(c.Dim+2*c.KVDim())*c.Dim >= parallelThreshold
}

// attendGroups does key/value heads g0..g1-1 of the step (stepLayer at
// stepPos): their rows of k and v, written to the cache, the rows of q of
// the query heads that read them, k and q rotated, then those query
// heads' attention, into xb2.
func (s *State) attendGroups(worker, g0, g1 int) {
	c := s.Model.Config
	l, pos := s.stepLayer, s.stepPos
	hs, kvMul := c.HeadSize(), c.KVMul()
	qkv := s.qkvJobs(l, pos)
	qkv[0].do(g0*kvMul*hs, g1*kvMul*hs)
	qkv[1].do(g0*hs, g1*hs)
	qkv[2].do(g0*hs, g1*hs)
	s.rotateAndStore(l, pos, g0, g1)
	s.attendHeads(worker, s.xb2, l, pos, g0*kvMul, g1*kvMul)
}

// attendShare is heads h0..h1-1 of the step's attention (see attention).
func (s *State) attendShare(worker, h0, h1 int) {
	s.attendHeads(worker, s.xb, s.stepLayer, s.stepPos, h0, h1)
}

// attentionThreshold is the work (positions × dim) above which a decode
// step splits its attention heads across cores. Each unit costs a
// multiply-add for the score, one for the output, and a share of an
// exponential, so it pays off earlier than a matrix product (see
// parallelThreshold).
const attentionThreshold = 1 << 15

// attendHeads is attention for one query position pos and heads h0..h1-1
// of q, over the keys and values of positions 0..pos, stored (position,
// kv_dim). att is scratch for n_heads × (pos+1) scores. It uses the
// vectorised kernels when the CPU and the head size allow (see
// attentionKernels), the plain loops otherwise.
func attendHeads(out, q, keys, values, att []float32, c Config, pos, h0, h1 int) {
	attendHeadsUsing(attentionKernels && simd.Available && c.HeadSize()%8 == 0, out, q, keys, values, att, c, pos, h0, h1)
}

// attentionKernels says whether attention may use engine/internal/simd's
// Scores and WeightedSum in place of the plain loops scores and
// weightedSum. The tests turn it off to compare the two.
var attentionKernels = true

// attendHeadsUsing is attendHeads with the choice made: with fast, the
// scores and the weighted sum of the values are the kernel's, which give
// the plain loops' results up to rounding (they sum in another order).
func attendHeadsUsing(fast bool, out, q, keys, values, att []float32, c Config, pos, h0, h1 int) {
	hs, kvMul, kvDim := c.HeadSize(), c.KVMul(), c.KVDim()
	scale := float32(1 / math.Sqrt(float64(hs)))
	for h := h0; h < h1; h++ {
		qh, o := q[h*hs:(h+1)*hs], out[h*hs:(h+1)*hs]
		a := att[h*(pos+1) : (h+1)*(pos+1)]
		kvOff := (h / kvMul) * hs
		if fast {
			simd.Scores(a, qh, keys[kvOff:], kvDim, scale)
			// The weights are left unnormalised, exp(score − max), and the
			// output divided by their sum once: hs divisions, not pos+1.
			inv := softmaxWeights(a)
			simd.WeightedSum(o, a, values[kvOff:], kvDim)
			for i := range o {
				o[i] *= inv
			}
			continue
		}
		// Score of every position: q·k / √head_size.
		scores(a, qh, keys[kvOff:], kvDim, scale)
		softmaxFlush(a)
		// Output: the values, weighted by the attention probabilities.
		weightedSum(o, a, values[kvOff:], kvDim)
	}
}

// softmaxWeights is softmaxFlush with the kernels' maximum and
// exponentials, and without the last division: it sets x[i] = exp(x[i] − max), 0 below
// 2^-126, and returns 1/Σ, the factor that turns them into
// probabilities. Scores that are NaN or +Inf make every weight NaN, as in
// softmaxFlush.
func softmaxWeights(x []float32) float32 {
	mx := simd.Max(x) // NaN if any score is NaN
	if !(mx < float32(math.Inf(1))) {
		for i := range x {
			x[i] = float32(math.NaN())
		}
		return 1
	}
	return 1 / simd.ExpSum(x, mx)
}

// softmaxFlush is softmax32 for attention weights, except that weights
// below the smallest normal float32 (about 1.2e-38) become exactly 0.
// Processors handle such "subnormal" numbers far more slowly than others,
// and far-back positions of a long sequence easily get weights like
// exp(-90). Dropping them changes no result: the largest weight is at
// least 1/positions, so against the sums they join they are far below half
// a unit in the last place.
//
// A score that is NaN or +Inf (weights that are not numbers) makes every
// weight NaN, so that it reaches the logits and is reported there, rather
// than silently zeroing the head.
func softmaxFlush(x []float32) {
	mx := x[0]
	for _, v := range x[1:] {
		mx = max(mx, v) // NaN if any score is NaN
	}
	if !(mx < float32(math.Inf(1))) {
		for i := range x {
			x[i] = float32(math.NaN())
		}
		return
	}
	var sum float32
	for i, v := range x {
		var e float32
		// exp(d) < 2^-126 exactly when d < -126·ln 2; skip exp there.
		if d := float64(v - mx); d > -87.3365 {
			if e = float32(math.Exp(d)); e < smallestNormal {
				e = 0
			}
		}
		x[i] = e
		sum += e
	}
	for i, e := range x {
		if e != 0 {
			x[i] = e / sum
		}
	}
}

// smallestNormal is the smallest positive normal float32, 2^-126.
const smallestNormal = 0x1p-126

// scores sets a[t] = q·k_t × scale, where k_t = keys[t*stride:][:len(q)].
// Each dot product is summed in order; for short heads four positions are
// computed side by side, so the four running sums keep the processor busy
// instead of waiting on each other.
func scores(a, q, keys []float32, stride int, scale float32) {
	hs := len(q)
	t := 0
	if hs < shortVector {
		for ; t+4 <= len(a); t += 4 {
			k0 := keys[t*stride:][:hs]
			k1 := keys[(t+1)*stride:][:hs]
			k2 := keys[(t+2)*stride:][:hs]
			k3 := keys[(t+3)*stride:][:hs]
			var s0, s1, s2, s3 float32
			for i, qi := range q {
				s0 += qi * k0[i]
				s1 += qi * k1[i]
				s2 += qi * k2[i]
				s3 += qi * k3[i]
			}
			a[t], a[t+1], a[t+2], a[t+3] = s0*scale, s1*scale, s2*scale, s3*scale
		}
	}
	for ; t < len(a); t++ {
		a[t] = dot(q, keys[t*stride:][:hs]) * scale
	}
}

// weightedSum sets out = Σ_t w[t] · v_t, where v_t = values[t*stride:]
// [:len(out)]. Every output element sums over t in order, exactly as
// adding w[t]·v_t into a zeroed out one t at a time (axpy) would; for short
// heads it runs four elements side by side and keeps the sums in
// registers.
func weightedSum(out, w, values []float32, stride int) {
	hs := len(out)
	if hs >= shortVector {
		clear(out)
		for t, wt := range w {
			axpy(out, wt, values[t*stride:][:hs])
		}
		return
	}
	i := 0
	for ; i+4 <= hs; i += 4 {
		var s0, s1, s2, s3 float32
		for t, wt := range w {
			v := values[t*stride+i:][:4]
			s0 += wt * v[0]
			s1 += wt * v[1]
			s2 += wt * v[2]
			s3 += wt * v[3]
		}
		out[i], out[i+1], out[i+2], out[i+3] = s0, s1, s2, s3
	}
	for ; i < hs; i++ {
		var s float32
		for t, wt := range w {
			s += wt * values[t*stride+i]
		}
		out[i] = s
	}
}
