package engine

import (
	"container/list"
	"errors"
	"fmt"
	"sync"

	"github.com/tokenbytoken/course/engine/internal/ggml"
)

// A server keeps many sequences' keys and values at once, and does not
// know how long each will grow. Giving each a cache in one piece for the
// whole context wastes most of it; growing one piece copies it. A
// BlockPool instead holds the keys and values in blocks of a few
// positions, from one budget set when it is made, and a PagedCache holds
// the blocks its sequence has filled: the block table of vLLM's
// PagedAttention. Attention reads a sequence's blocks in order (its
// pages), and computes the same numbers as over a cache in one piece.
//
// Blocks full of the same tokens hold the same keys and values, so
// sequences that start alike (a system prompt, the earlier turns of a
// chat) can share them: the pool remembers full blocks by their tokens
// and the block before them (a prefix cache), counts who holds each, and
// keeps them when nobody does, until their memory is needed.

// ErrPoolFull is what a pass returns (wrapped, with the numbers) when a
// BlockPool has no block left for a row: every block is held by a
// sequence. A scheduler then lets a sequence wait, or frees one's blocks
// and computes it again later.
var ErrPoolFull = errors.New("the KV block pool is full")

// BlockPool is the KV memory of many sequences, in blocks of BlockSize
// positions (every layer's keys and values for them). Blocks are made as
// sequences need them, up to the budget; a block nobody holds goes back
// to the pool, and a full block stays in the prefix cache until its
// memory is needed. Its methods are safe for concurrent use; each
// PagedCache is used by one goroutine at a time.
type BlockPool struct {
	mu     sync.Mutex
	model  *Model
	half   bool
	size   int // positions a block
	budget int // blocks at most
	floats int // numbers a block: 2 × layers × size × kv_dim
	made   int // blocks made so far
	free   []*block
	ids    uint64
	// cached are the full blocks whose tokens are known, by those tokens
	// and the block before; idle are those of them nobody holds, the
	// longest idle first: the prefix cache.
	cached map[prefixKey]*block
	idle   list.List
	stats  PoolStats
}

// PoolStats count what a BlockPool holds and did.
type PoolStats struct {
	Blocks  int // the budget, in blocks
	Made    int // blocks made so far (their memory is the pool's)
	Held    int // blocks held by sequences now
	Cached  int // blocks in the prefix cache, held or not
	Hits    int64
	Reused  int64 // positions taken from the prefix cache
	Evicted int64 // cached blocks whose memory was needed for others
	Copied  int64 // shared blocks copied before a sequence wrote into them
}

// block is BlockSize positions of keys and values: layer l's keys at
// 2l·size·kv_dim, its values after them, in the pool's numbers.
type block struct {
	id     uint64
	f32    []float32
	f16    []uint16
	refs   int // caches holding it
	key    prefixKey
	cached bool
	idle   *list.Element // its place among the idle cached blocks
}

// prefixKey names a full block by what its keys and values depend on:
// its tokens, the block before (which names all before it), and how its
// rows' attention was computed (bit i set: position i by tiles, as a long
// prompt is; see Model.TiledRun), which changes the numbers' rounding.
type prefixKey struct {
	parent uint64
	tokens string
	tiled  uint64
}

// NewBlockPool returns a pool of blocks of blockSize positions (1 to 64)
// for m's keys and values, of at most budget bytes. It refuses a budget
// too small for one block, with the size of one.
func (m *Model) NewBlockPool(blockSize int, budget int64) (*BlockPool, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if blockSize < 1 || blockSize > 64 {
		return nil, fmt.Errorf("KV block pool: a block of %d positions: must be 1 to 64", blockSize)
	}
	c := m.Config
	half := m.Matrices.Arithmetic == LlamaCpp
	p := &BlockPool{model: m, half: half, size: blockSize, floats: 2 * c.NLayers * blockSize * c.KVDim(), cached: map[prefixKey]*block{}}
	bytes := p.BlockBytes()
	if budget < bytes {
		return nil, fmt.Errorf("KV block pool: a budget of %d bytes holds no block of %d positions (%d bytes: 2 × %d layers × %d positions × %d kv_dim × %d bytes)",
			budget, blockSize, bytes, c.NLayers, blockSize, c.KVDim(), bytes/int64(p.floats))
	}
	p.budget = int(min(budget/bytes, int64(1<<30)))
	p.stats.Blocks = p.budget
	return p, nil
}

// BlockSize is the positions of a block.
func (p *BlockPool) BlockSize() int { return p.size }

// BlockBytes is the memory of one block.
func (p *BlockPool) BlockBytes() int64 {
	if p.half {
		return 2 * int64(p.floats)
	}
	return 4 * int64(p.floats)
}

// BlocksFor is the blocks a sequence of positions positions holds.
func (p *BlockPool) BlocksFor(positions int) int { return (positions + p.size - 1) / p.size }

// Available is the blocks a sequence can still get: those not made yet,
// those back in the pool, and the cached blocks nobody holds.
func (p *BlockPool) Available() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.budget - p.made + len(p.free) + p.idle.Len()
}

// Stats returns the pool's counts now.
func (p *BlockPool) Stats() PoolStats {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.stats
	s.Made, s.Cached = p.made, len(p.cached)
	s.Held = p.made - len(p.free) - p.idle.Len()
	return s
}

// take returns a block for one holder: one back in the pool, a new one
// within the budget, or the longest idle cached block. p.mu is held.
func (p *BlockPool) take() (*block, error) {
	var b *block
	switch {
	case len(p.free) > 0:
		b = p.free[len(p.free)-1]
		p.free = p.free[:len(p.free)-1]
	case p.made < p.budget:
		what := fmt.Sprintf("a KV block of %d positions (%d bytes)", p.size, p.BlockBytes())
		if err := checkMemory(what, p.BlockBytes()); err != nil {
			return nil, err
		}
		b = &block{}
		if p.half {
			b.f16 = make([]uint16, p.floats)
		} else {
			b.f32 = make([]float32, p.floats)
		}
		p.made++
	case p.idle.Len() > 0:
		b = p.idle.Remove(p.idle.Front()).(*block)
		b.idle = nil
		p.uncache(b)
		p.stats.Evicted++
	default:
		return nil, fmt.Errorf("%w: all %d blocks of %d positions are held", ErrPoolFull, p.budget, p.size)
	}
	p.ids++
	b.id, b.refs = p.ids, 1
	return b, nil
}

// hold adds a holder to b, taking it out of the idle blocks. p.mu is
// held.
func (p *BlockPool) hold(b *block) {
	if b.idle != nil {
		p.idle.Remove(b.idle)
		b.idle = nil
	}
	b.refs++
}

// drop removes a holder from b: with none left it waits in the prefix
// cache, or goes back to the pool. p.mu is held.
func (p *BlockPool) drop(b *block) {
	b.refs--
	if b.refs > 0 {
		return
	}
	if b.cached {
		b.idle = p.idle.PushBack(b)
		return
	}
	p.free = append(p.free, b)
}

// uncache takes b out of the prefix cache. p.mu is held.
func (p *BlockPool) uncache(b *block) {
	if b.cached {
		delete(p.cached, b.key)
		b.cached = false
	}
}

// keyOf names the block after parent (nil for the first) holding tokens,
// their attention by tiles where tiled says.
func keyOf(parent *block, tokens []int, tiled []bool) prefixKey {
	k := prefixKey{}
	if parent != nil {
		k.parent = parent.id
	}
	buf := make([]byte, 0, 4*len(tokens))
	for i, t := range tokens {
		buf = append(buf, byte(t), byte(t>>8), byte(t>>16), byte(t>>24))
		if tiled[i] {
			k.tiled |= 1 << i
		}
	}
	k.tokens = string(buf)
	return k
}

// PagedCache is a sequence's keys and values in blocks of a BlockPool: it
// holds the blocks its positions fill, shares the blocks of a cached
// prefix (Reuse), and copies a shared block before writing into it.
// Release gives its blocks back. It implements Cache.
type PagedCache struct {
	pool   *BlockPool
	blocks []*block
	n      int
	tokens []int  // the token at each position, as the passes wrote them
	tiled  []bool // whether each position's attention was by tiles
	known  int    // the first blocks the prefix cache has been told of
	views  []kvLayer
}

// NewCache returns an empty cache of the pool.
func (p *BlockPool) NewCache() *PagedCache {
	c := &PagedCache{pool: p, views: make([]kvLayer, p.model.Config.NLayers)}
	for l := range c.views {
		c.views[l].size = p.size
	}
	return c
}

// Len is the number of positions the cache holds.
func (c *PagedCache) Len() int { return c.n }

// Blocks is the number of blocks the cache holds.
func (c *PagedCache) Blocks() int { return len(c.blocks) }

func (c *PagedCache) layer(l int) kvLayer { return c.views[l] }

func (c *PagedCache) fits(m Config, half bool) bool {
	return c.pool.model.Config == m && c.pool.half == half
}

// setBlock puts b at index i of the block table (i = len appends).
func (c *PagedCache) setBlock(i int, b *block) {
	if i == len(c.blocks) {
		c.blocks = append(c.blocks, b)
	} else {
		c.blocks[i] = b
	}
	part := c.pool.floats / (2 * len(c.views))
	for l := range c.views {
		v := &c.views[l]
		k, e := 2*l*part, (2*l+1)*part
		if c.pool.half {
			v.halfKeys, v.halfValues = setPage(v.halfKeys, i, b.f16[k:e]), setPage(v.halfValues, i, b.f16[e:e+part])
		} else {
			v.keys, v.values = setPage(v.keys, i, b.f32[k:e]), setPage(v.values, i, b.f32[e:e+part])
		}
	}
}

func setPage[T float32 | uint16](pages [][]T, i int, page []T) [][]T {
	if i == len(pages) {
		return append(pages, page)
	}
	pages[i] = page
	return pages
}

// keep drops the blocks from index n on. c.pool.mu is held.
func (c *PagedCache) keep(n int) {
	for _, b := range c.blocks[n:] {
		c.pool.drop(b)
	}
	clear(c.blocks[n:])
	c.blocks = c.blocks[:n]
	for l := range c.views {
		v := &c.views[l]
		if c.pool.half {
			v.halfKeys, v.halfValues = v.halfKeys[:n], v.halfValues[:n]
		} else {
			v.keys, v.values = v.keys[:n], v.values[:n]
		}
	}
}

func (c *PagedCache) prepare(lo, end int) error {
	p := c.pool
	p.mu.Lock()
	defer p.mu.Unlock()
	// The blocks written from lo on become the cache's own: a shared one
	// is copied, and one the prefix cache names leaves it.
	for i := lo / p.size; i < len(c.blocks) && i*p.size < end; i++ {
		b := c.blocks[i]
		if b.refs == 1 {
			p.uncache(b)
			continue
		}
		own, err := p.take()
		if err != nil {
			return err
		}
		copy(own.f16, b.f16)
		copy(own.f32, b.f32)
		p.drop(b)
		c.setBlock(i, own)
		p.stats.Copied++
	}
	for len(c.blocks) < p.BlocksFor(end) {
		b, err := p.take()
		if err != nil {
			return fmt.Errorf("KV cache of %d positions, growing to %d: %w", c.n, end, err)
		}
		c.setBlock(len(c.blocks), b)
	}
	return nil
}

func (c *PagedCache) record(pos, token int, tiled bool) {
	for len(c.tokens) <= pos {
		c.tokens, c.tiled = append(c.tokens, 0), append(c.tiled, false)
	}
	c.tokens[pos], c.tiled[pos] = token, tiled
	c.known = min(c.known, pos/c.pool.size)
}

func (c *PagedCache) written(n int) {
	p := c.pool
	p.mu.Lock()
	defer p.mu.Unlock()
	c.n = n
	c.tokens, c.tiled = c.tokens[:n], c.tiled[:n]
	c.keep(p.BlocksFor(n))
	// Every full block becomes known to the prefix cache, unless a block
	// of the same tokens after the same block is there already.
	c.known = min(c.known, len(c.blocks))
	for i := c.known; (i+1)*p.size <= n; i++ {
		var parent *block
		if i > 0 {
			parent = c.blocks[i-1]
		}
		b := c.blocks[i]
		if !b.cached {
			k := keyOf(parent, c.tokens[i*p.size:(i+1)*p.size], c.tiled[i*p.size:(i+1)*p.size])
			if _, taken := p.cached[k]; !taken {
				b.key, b.cached = k, true
				p.cached[k] = b
			}
		}
		c.known = i + 1
	}
}

func (c *PagedCache) trim() {
	p := c.pool
	p.mu.Lock()
	defer p.mu.Unlock()
	c.keep(p.BlocksFor(c.n))
}

// Release gives the cache's blocks back to the pool (a full block stays
// in the prefix cache until its memory is needed), and empties it.
func (c *PagedCache) Release() {
	p := c.pool
	p.mu.Lock()
	defer p.mu.Unlock()
	c.keep(0)
	c.n, c.known = 0, 0
	c.tokens, c.tiled = c.tokens[:0], c.tiled[:0]
}

// Cached is how many of tokens' first positions an empty cache could take
// from the prefix cache: whole blocks that hold the same tokens after the
// same blocks, their attention computed where tiled says (as
// Model.TiledRun gives a prompt's), at most limit positions.
func (c *PagedCache) Cached(tokens []int, tiled []bool, limit int) int {
	return c.share(tokens, tiled, limit, false)
}

// Reuse takes the blocks Cached counts into the empty cache, which then
// holds their positions, and returns how many.
func (c *PagedCache) Reuse(tokens []int, tiled []bool, limit int) int {
	return c.share(tokens, tiled, limit, true)
}

func (c *PagedCache) share(tokens []int, tiled []bool, limit int, take bool) int {
	p := c.pool
	if c.n > 0 || len(c.blocks) > 0 || len(tiled) < len(tokens) {
		return 0
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	var parent *block
	n := 0
	for (n + p.size) <= min(len(tokens), limit) {
		b, ok := p.cached[keyOf(parent, tokens[n:n+p.size], tiled[n:n+p.size])]
		if !ok {
			break
		}
		if take {
			p.hold(b)
			c.setBlock(len(c.blocks), b)
		}
		parent = b
		n += p.size
	}
	if take && n > 0 {
		c.n, c.known = n, n/p.size
		c.tokens = append(c.tokens[:0], tokens[:n]...)
		c.tiled = append(c.tiled[:0], tiled[:n]...)
		p.stats.Hits++
		p.stats.Reused += int64(n)
	}
	return n
}

// TiledRun reports whether the attention of a run of n consecutive rows
// of one sequence in a pass (n at most Ubatch) is computed by tiles, as
// llama.cpp computes a long prompt's, rather than a row at a time, as a
// decoding step's: the two round differently, so a prefix cache shares
// keys and values only between runs computed the same way (and the rest
// of such a run, after the shared blocks, asks for tiles: Row.Tiled).
func (m *Model) TiledRun(n int) bool {
	return m.Matrices != nil && m.Matrices.Arithmetic == LlamaCpp && min(n, Ubatch) >= ggml.TileRows
}
