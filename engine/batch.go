package engine

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/tokenbytoken/course/engine/internal/f16"
	"github.com/tokenbytoken/course/engine/internal/ggml"
	"github.com/tokenbytoken/course/engine/internal/quant"
)

// One forward pass runs a batch of rows. Each row is a token at a
// position of a sequence, and the keys and values it computes go to that
// sequence's cache, as a row of llama.cpp's llama_batch does. A decoding
// step of one sequence is a batch of one row; a prompt's prefill is a
// batch of one sequence's consecutive positions; speculative
// verification checks its drafted tokens as one such batch; and a server
// runs the next token of every sequence it serves, and chunks of new
// prompts, as one batch (see Pass). Every weight matrix is then read once
// for all the rows.

// Row is one row of a batch: Token at position Pos of the sequence whose
// keys and values Cache holds. Logits asks for the row's logits, the
// scores of the token that follows it.
//
// Tiled asks that the row's attention be computed by tiles, as llama.cpp
// computes the rows of a prompt of TileRows (64) tokens or more, even in
// a shorter run of rows (a model of LlamaCpp arithmetic; other models
// ignore it). A row's numbers by tiles do not depend on the rows around
// it, so the rest of a prompt whose start came from a prefix cache, run
// Tiled, gets the numbers the whole prompt gets.
type Row struct {
	Token, Pos int
	Cache      Cache
	Logits     bool
	Tiled      bool
}

// Cache is where one sequence's keys and values stay between passes: a
// KVCache, in one piece that grows, or a PagedCache, in blocks of a
// BlockPool. A pass reads either the same way, and gives the same
// numbers from both.
type Cache interface {
	// Len is the number of positions the cache holds.
	Len() int

	kvStore
	// fits reports whether the cache is of the shape and numbers of a
	// model of shape c whose cache holds f16 numbers when half is set.
	fits(c Config, half bool) bool
	// prepare makes room for positions up to end-1, about to be written
	// from lo on (positions from lo on are replaced).
	prepare(lo, end int) error
	// record notes the token whose keys and values a pass wrote at pos,
	// and whether its attention was by tiles.
	record(pos, token int, tiled bool)
	// written sets the length after a pass that wrote up to n-1.
	written(n int)
	// trim gives back the room prepare took beyond Len, after a pass
	// that did not run.
	trim()
}

// Pass runs forward passes of one model over batches of rows that may
// belong to different sequences, each with its own cache (see
// Model.NewCache). It holds the scratch of a pass, grown to the largest
// batch run, and is not safe for concurrent use.
type Pass struct {
	st     State // scratch only: the rows bring their caches
	rows   []row
	outs   []int
	tiled  []bool
	logits [][]float32
}

// NewPass returns a Pass for m. It allocates nothing until its first
// batch.
func (m *Model) NewPass() *Pass { return &Pass{st: State{Model: m, noCache: true}} }

// NewCache returns an empty KV cache for m, in m's numbers (f16 for a
// model of LlamaCpp arithmetic, float32 otherwise), that grows with the
// positions a Pass writes to it, up to the model's context.
func (m *Model) NewCache() (*KVCache, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return newKVCache(m.Config, m.Matrices.Arithmetic == LlamaCpp), nil
}

// Forward runs one batch and returns the logits of the rows that asked
// for them, in the rows' order; they are reused by the next call. Each
// row writes its key and value at its position of its cache, and attends
// to positions 0..Pos of that cache: positions before the batch's rows
// of a cache must already be in it (its Len), and a cache's rows must be
// consecutive positions, in any order in the batch. A cache then holds
// Len = its last row's position + 1 (positions written before at or
// after the batch's first row are replaced, as when a sequence is cut
// back). It stops with ctx's error when ctx is done, checking between the
// parts of every layer.
//
// The rows' results are those of running each sequence's rows alone, up
// to float32 rounding.
func (p *Pass) Forward(ctx context.Context, batch []Row) ([][]float32, error) {
	s := &p.st
	if len(batch) == 0 {
		return nil, fmt.Errorf("pass: an empty batch")
	}
	if err := s.Reserve(0); err != nil {
		return nil, err
	}
	c := s.Model.Config
	p.rows, p.outs = p.rows[:0], p.outs[:0]
	// Each cache's rows: the first and last position, and how many.
	type span struct{ lo, hi, n int }
	spans := map[Cache]span{}
	for i, r := range batch {
		switch {
		case r.Token < 0 || r.Token >= c.VocabSize:
			return nil, fmt.Errorf("pass: row %d: token id %d is outside the vocabulary (0..%d)", i, r.Token, c.VocabSize-1)
		case r.Pos < 0 || r.Pos >= c.SeqLen:
			return nil, fmt.Errorf("pass: row %d: position %d is outside the model's context of %d tokens", i, r.Pos, c.SeqLen)
		case r.Cache == nil:
			return nil, fmt.Errorf("pass: row %d has no cache", i)
		case !r.Cache.fits(c, s.arith == LlamaCpp):
			return nil, fmt.Errorf("pass: row %d: its cache is not one of this model's (make it with Model.NewCache)", i)
		}
		sp, seen := spans[r.Cache]
		if !seen {
			sp = span{r.Pos, r.Pos, 0}
		}
		spans[r.Cache] = span{min(sp.lo, r.Pos), max(sp.hi, r.Pos), sp.n + 1}
		p.rows = append(p.rows, row{token: r.Token, pos: r.Pos, kv: r.Cache, tiled: r.Tiled})
		if r.Logits {
			p.outs = append(p.outs, i)
		}
	}
	// Each cache's rows must be consecutive positions, once each, the
	// first of them no later than what the cache holds.
	for kv, sp := range spans {
		if sp.hi-sp.lo+1 != sp.n {
			return nil, fmt.Errorf("pass: a cache's %d rows are not consecutive positions, once each (they run from %d to %d)", sp.n, sp.lo, sp.hi)
		}
		if sp.lo > kv.Len() {
			return nil, fmt.Errorf("pass: a row at position %d follows a cache that holds positions 0..%d only", sp.lo, kv.Len()-1)
		}
	}
	undo := func() {
		for kv := range spans {
			kv.trim()
		}
	}
	for kv, sp := range spans {
		if err := kv.prepare(sp.lo, sp.hi+1); err != nil {
			undo()
			return nil, err
		}
	}
	if err := s.pass(ctx, p.rows, p.outs); err != nil {
		undo()
		return nil, err
	}
	p.tiled = slices.Grow(p.tiled[:0], len(batch))[:len(batch)]
	clear(p.tiled)
	for _, t := range s.batch.tiles {
		for i := t[0]; i < t[1]; i++ {
			p.tiled[i] = true
		}
	}
	for i, r := range batch {
		r.Cache.record(r.Pos, r.Token, p.tiled[i])
	}
	for kv, sp := range spans {
		kv.written(sp.hi + 1)
	}
	p.logits = p.logits[:0]
	for k, i := range p.outs {
		logits := s.outLogits(k)
		if err := checkLogits(logits, batch[i].Pos); err != nil {
			return nil, fmt.Errorf("pass: row %d: %w", i, err)
		}
		p.logits = append(p.logits, logits)
	}
	return p.logits, nil
}

// row is a row of a pass as the pass reads it: a token, its position,
// and where its sequence's keys and values are.
type row struct {
	token, pos int
	kv         kvStore
	tiled      bool // attended by tiles whatever its run's length (Row.Tiled)
}

// kvStore is where a sequence's keys and values are: a Cache, or the
// scratch of a pass without a cache, which holds one layer at a time.
type kvStore interface {
	// layer views the keys and values of layer l, with room for the
	// positions of the pass.
	layer(l int) kvLayer
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
	att        []float32 // attention scores, (workers, n_heads, positions)
	logits     []float32 // (n, vocab), the logits of the rows asked for
	// vecs are each run of tokens' inputs prepared for the matrices that
	// read them (see byTokens), a set per core; cls is the classifier's.
	vecs   []tokenVecs
	cls    quant.Vec
	kv     []float32 // scratch keys and values for passes without a cache (float32 numbers)
	halfKV []uint16  // the same, in llama.cpp's arithmetic (f16 numbers)
	// k and v are the keys and values of the pass before they go to
	// the rows' caches, (n, kv_dim).
	k, v []float32
	// attend are the rows whose attention is done a row at a time, and
	// tiles the runs of rows done by tiles (llama.cpp's arithmetic).
	attend []int
	tiles  [][2]int
	// gather is each core's room for a head's keys and values gathered
	// from the pages of a PagedCache of float32 numbers.
	gather [][]float32
}

// buffers returns scratch for n rows attending over up to positions
// positions, with room for the logits of outputs rows when there are
// more than one, growing it when needed, or a *MemoryError when it would
// not fit in memory.
func (s *State) buffers(n, positions, outputs int) (*batchBuffer, error) {
	c := s.Model.Config
	b := s.batch
	att := maxWorkers() * c.NHeads * positions
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
		kv := 2 * c.KVDim() // keys and values of the pass, before the caches
		floats := int64(rows)*int64(4*c.Dim+2*c.HiddenDim+kv) + int64(att)
		what := fmt.Sprintf("the activations of a batched pass over %d tokens (%d × (4 × %d dim + 2 × %d hidden + %d) floats, and %d attention scores)", rows, rows, c.Dim, c.HiddenDim, kv, att)
		if err := checkMemory(what, 4*floats); err != nil {
			return nil, err
		}
		old := b
		b = &batchBuffer{
			n: rows, x: make([]float32, rows*c.Dim), xb: make([]float32, rows*c.Dim), xb2: make([]float32, rows*c.Dim),
			q: make([]float32, rows*c.Dim), hb: make([]float32, rows*c.HiddenDim), hb2: make([]float32, rows*c.HiddenDim),
			att: make([]float32, att), k: make([]float32, rows*c.KVDim()), v: make([]float32, rows*c.KVDim()),
		}
		if old != nil {
			b.kv, b.halfKV, b.logits = old.kv, old.halfKV, old.logits
		}
		s.batch = b
	}
	if len(b.logits) < outputs*c.VocabSize {
		what := fmt.Sprintf("the logits of %d positions (%d × %d vocabulary × 4 bytes)", b.n, b.n, c.VocabSize)
		if err := checkMemory(what, 4*int64(b.n)*int64(c.VocabSize)); err != nil {
			return nil, err
		}
		b.logits = make([]float32, b.n*c.VocabSize)
	}
	return b, nil
}

// outLogits is the k-th of the rows' logits the last pass kept.
func (s *State) outLogits(k int) []float32 {
	v := s.Model.Config.VocabSize
	return s.batch.logits[k*v : (k+1)*v]
}

// pass is the batched transformer over rows, whose caches have room for
// their positions. It writes every row's key and value to its cache and
// leaves the logits of the rows numbered in outs in s.batch.logits, in
// the order of outs, and the last of them in s.logits too. It stops with ctx's error
// when ctx is done at any of the three checks of a layer.
func (s *State) pass(ctx context.Context, rows []row, outs []int) error {
	w, c := s.Model.Matrices, s.Model.Config
	eps := c.normEps()
	n := len(rows)
	dim, hidden, kvDim := c.Dim, c.HiddenDim, c.KVDim()
	positions := 0
	for _, r := range rows {
		positions = max(positions, r.pos+1)
	}
	b, err := s.buffers(n, positions, len(outs))
	if err != nil {
		return err
	}
	if s.ropeCpp != nil {
		s.ropeCpp.extend(positions)
	} else {
		s.rope.extend(positions)
	}
	x, xb, xb2, q := b.x[:n*dim], b.xb[:n*dim], b.xb2[:n*dim], b.q[:n*dim]
	hb, hb2 := b.hb[:n*hidden], b.hb2[:n*hidden]
	k, v := b.k[:n*kvDim], b.v[:n*kvDim]
	prof := s.Profile
	var t time.Time
	if prof != nil {
		t = time.Now()
	}

	for i, r := range rows {
		w.Embedding.Row(r.token, x[i*dim:(i+1)*dim])
	}
	if len(b.vecs) < maxWorkers() {
		b.vecs = make([]tokenVecs, maxWorkers())
	}
	s.planAttention(rows)
	if prof != nil {
		t = prof.tick(PartEmbedding, t, Cost{})
	}

	for l := range c.NLayers {
		if err := ctx.Err(); err != nil {
			return err
		}
		L := &w.Layers[l]

		// Up to attention, every token is worked on by itself: the
		// tokens are shared among the cores, tokens i0..i1-1 to each.
		// Each row's key and value go to its sequence's cache, in the
		// cache's numbers.
		s.byTokens(n, L.Wq, n*dim*(dim+2*kvDim), func(part, i0, i1 int) {
			m, vs := i1-i0, &b.vecs[part]
			xr, xbr := x[i0*dim:i1*dim], xb[i0*dim:i1*dim]
			s.rmsnormRows(xbr, xr, L.RMSAtt, dim, eps)
			if prof != nil {
				t = prof.tick(PartNorm, t, Cost{})
			}
			L.Wq.PrepareBatch(xbr, m, &vs.q)
			mulTokens(q[i0*dim:], L.Wq, m, &vs.q, m == n)
			mulTokens(k[i0*kvDim:], L.Wk, m, tokensFor(L.Wk, xbr, m, &vs.q, &vs.k), m == n)
			mulTokens(v[i0*kvDim:], L.Wv, m, tokensFor(L.Wv, xbr, m, &vs.q, &vs.v), m == n)
			for i := i0; i < i1; i++ {
				r := rows[i]
				ki, vi := k[i*kvDim:(i+1)*kvDim], v[i*kvDim:(i+1)*kvDim]
				s.rotate(q[i*dim:(i+1)*dim], r.pos)
				s.rotate(ki, r.pos)
				kl := r.kv.layer(l)
				pg, at := kl.at(r.pos, kvDim)
				if s.arith == LlamaCpp {
					f16.Encode(kl.halfKeys[pg][at:at+kvDim], ki)
					f16.Encode(kl.halfValues[pg][at:at+kvDim], vi)
				} else {
					copy(kl.keys[pg][at:at+kvDim], ki)
					copy(kl.values[pg][at:at+kvDim], vi)
				}
			}
		})
		if err := ctx.Err(); err != nil {
			return err
		}
		// Causal attention: each row sees positions 0..pos of its own
		// sequence.
		s.attendRows(l, rows, xb, q)
		if err := ctx.Err(); err != nil {
			return err
		}
		// From there to the end of the layer, every token by itself again.
		s.byTokens(n, L.W1, n*dim*(dim+3*hidden), func(part, i0, i1 int) {
			m, vs := i1-i0, &b.vecs[part]
			xr, xbr, xb2r := x[i0*dim:i1*dim], xb[i0*dim:i1*dim], xb2[i0*dim:i1*dim]
			L.Wo.PrepareBatch(xbr, m, &vs.o)
			mulTokens(xb2r, L.Wo, m, &vs.o, m == n)
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
			mulTokens(hbr, L.W1, m, &vs.gate, m == n)
			mulTokens(hb2r, L.W3, m, tokensFor(L.W3, xbr, m, &vs.gate, &vs.up), m == n)
			s.swiglu(hbr, hb2r)
			L.W2.PrepareBatch(hbr, m, &vs.down)
			mulTokens(xbr, L.W2, m, &vs.down, m == n)
			add(xr, xbr)
			if prof != nil {
				t = prof.tick(PartMLP, t, Cost{})
			}
		})
	}

	// The logits of the rows asked for, by one matrix-matrix product
	// however many they are, so that a row's logits are the same numbers
	// whatever else runs beside it.
	if m := len(outs); m > 0 {
		for k, i := range outs {
			copy(xb[k*dim:(k+1)*dim], x[i*dim:(i+1)*dim])
		}
		s.rmsnormRows(xb[:m*dim], xb[:m*dim], w.RMSFinal, dim, eps)
		if prof != nil {
			t = prof.tick(PartNorm, t, Cost{})
		}
		matmulBatch(b.logits[:m*c.VocabSize], xb[:m*dim], w.Classifier, m, &b.cls)
		copy(s.logits, b.logits[(m-1)*c.VocabSize:m*c.VocabSize])
	}
	if prof != nil {
		prof.tick(PartVocab, t, Cost{})
		s.countRows(rows, outs)
	}
	return nil
}

// countRows adds the counted work of a pass over rows to the profile, a
// run of consecutive positions of one sequence at a time.
func (s *State) countRows(rows []row, outs []int) {
	c, prof := s.Model.Config, s.Profile
	want := make(map[int]bool, len(outs))
	for _, i := range outs {
		want[i] = true
	}
	for i0 := 0; i0 < len(rows); {
		i1 := runEnd(rows, i0)
		outputs := 0
		for i := i0; i < i1; i++ {
			if want[i] {
				outputs++
			}
		}
		prof.work(c, i1-i0, rows[i0].pos, outputs)
		i0 = i1
	}
	prof.Passes++
}

// runEnd returns the end of the run of rows starting at i0: rows of one
// sequence at consecutive positions.
func runEnd(rows []row, i0 int) int {
	i := i0 + 1
	for i < len(rows) && rows[i].kv == rows[i0].kv && rows[i].pos == rows[i-1].pos+1 {
		i++
	}
	return i
}

// planAttention sorts the rows of a pass by how their attention is done:
// a row at a time, or, in llama.cpp's arithmetic, by tiles. llama.cpp
// runs a long prompt in batches of Ubatch tokens, and attends a batch of
// TileRows tokens or more by tiles (ggml.AttendTiled), a smaller one a
// token at a time, as a decoding step (ggml.Attend): each run of one
// sequence's consecutive rows is cut the same way, so that its numbers
// are llama.cpp's. Rows that ask for tiles (Row.Tiled) get them in a
// shorter batch too.
func (s *State) planAttention(rows []row) {
	b := s.batch
	b.attend, b.tiles = b.attend[:0], b.tiles[:0]
	for i0 := 0; i0 < len(rows); {
		i1 := runEnd(rows, i0)
		for u0 := i0; u0 < i1; u0 += Ubatch {
			u1 := min(u0+Ubatch, i1)
			if s.arith == LlamaCpp && u1-u0 >= ggml.TileRows {
				b.tiles = append(b.tiles, [2]int{u0, u1})
				continue
			}
			for i := u0; i < u1; {
				j := i + 1
				if s.arith == LlamaCpp && rows[i].tiled {
					for j < u1 && rows[j].tiled {
						j++
					}
					b.tiles = append(b.tiles, [2]int{i, j})
				} else {
					b.attend = append(b.attend, i)
				}
				i = j
			}
		}
		i0 = i1
	}
}

// attendRows is the attention of layer l for every row of a pass, into
// xb, each row's query in q: each row over positions 0..pos of its own
// sequence, the rows (and the tiles' heads) shared among the cores.
func (s *State) attendRows(l int, rows []row, xb, q []float32) {
	c, b := s.Model.Config, s.batch
	dim := c.Dim
	if len(b.gather) < maxWorkers() {
		b.gather = make([][]float32, maxWorkers())
	}
	if len(b.attend) > 0 {
		work := 0
		for _, i := range b.attend {
			work += (rows[i].pos + 1) * dim
		}
		stride := len(b.att) / maxWorkers()
		parallelFor(len(b.attend), work >= 1<<15, func(worker, j0, j1 int) {
			for _, i := range b.attend[j0:j1] {
				r := rows[i]
				kl := r.kv.layer(l)
				out, qi := xb[i*dim:(i+1)*dim], q[i*dim:(i+1)*dim]
				if s.arith == LlamaCpp {
					attendHeadsLlamaCpp(&s.flash[worker], out, qi, &kl, c, r.pos, 0, c.NHeads)
					continue
				}
				att := b.att[worker*stride : (worker+1)*stride]
				if len(kl.keys) == 1 {
					attendHeads(out, qi, kl.keys[0], kl.values[0], att, c, r.pos, 0, c.NHeads)
					continue
				}
				b.gather[worker] = slices.Grow(b.gather[worker][:0], 2*(r.pos+1)*c.HeadSize())[:2*(r.pos+1)*c.HeadSize()]
				attendHeadsPaged(out, qi, &kl, att, b.gather[worker], c, r.pos, 0, c.NHeads)
			}
		})
	}
	for _, tile := range b.tiles {
		s.attendTiles(l, rows, tile[0], tile[1], xb, q)
	}
}

// attendTiles is the attention of rows i0..i1-1, consecutive positions
// of one sequence, by llama.cpp's tiles (ggml.AttendTiled): work items
// are a head's rows in blocks of TileRows, shared among the cores.
func (s *State) attendTiles(l int, rows []row, i0, i1 int, xb, q []float32) {
	c := s.Model.Config
	dim, hs, kvMul := c.Dim, c.HeadSize(), c.KVMul()
	scale := attentionScale(c)
	pos0, end := rows[i0].pos, rows[i1-1].pos+1
	kl := rows[i0].kv.layer(l)
	n := i1 - i0
	blocks := (n + ggml.TileRows - 1) / ggml.TileRows
	parallelFor(c.NHeads*blocks, n*end*dim >= 1<<15, func(worker, j0, j1 int) {
		for j := j0; j < j1; j++ {
			h, r0 := j/blocks, j%blocks*ggml.TileRows
			r1 := min(r0+ggml.TileRows, n)
			kv := kl.heads(h/kvMul, c)
			at := (i0 + r0) * dim
			ggml.AttendTiledPages(xb[at+h*hs:], dim, q[at+h*hs:], dim, hs, r1-r0, pos0+r0, &kv, scale, &s.flash[worker])
		}
	})
}

// mulTokens is matmulTokens for m tokens of a pass, prepared in v. When
// they are all the pass's tokens (byTokens did not share them among the
// cores: a batch of a few rows, a decoding step of one or a few
// sequences), the rows of w are shared among the cores instead, in blocks
// of 4, as matmulBatch shares the classifier's. Each number is computed
// the same way whatever the ranges (Matrix.MulBatch), so either way gives
// the same bits.
func mulTokens(out []float32, w *Matrix, m int, v *quant.Vec, all bool) {
	if !all || maxWorkers() < 2 || m*w.Rows()*w.Cols() < parallelThreshold {
		matmulTokens(out, w, m, v)
		return
	}
	blocks := (w.Rows() + 3) / 4
	parallelFor(blocks, true, func(_, b0, b1 int) {
		w.MulBatch(out, v, 0, m, 4*b0, min(4*b1, w.Rows()))
	})
}
