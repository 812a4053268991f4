package engine

import "fmt"

// KVCache keeps the keys and values that every layer computed for every
// position so far. They never change once computed, so each new token only
// computes its own key and value and attends over the cache.
//
// Its size is 2 × layers × positions × kv_dim float32 values (see
// KVCacheBytes). A State's cache starts empty and grows with the sequence,
// so a model with a long context costs only what a generation uses;
// NewKVCache makes one for the whole context at once.
type KVCache struct {
	Keys   []float32 // (layer, position, kv_dim), room for Capacity positions
	Values []float32 // (layer, position, kv_dim), room for Capacity positions
	layers int
	kvDim  int
	room   int // positions allocated per layer
	seqLen int // the model's context: the cache never grows past it
}

// NewKVCache allocates a cache for a model's full context. It refuses a
// shape that is not a valid model, and a cache bigger than the memory
// available (with the numbers in the error).
func NewKVCache(c Config) (*KVCache, error) {
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("KV cache: %w", err)
	}
	kv := &KVCache{layers: c.NLayers, kvDim: c.KVDim(), seqLen: c.SeqLen}
	if err := kv.grow(c.SeqLen); err != nil {
		return nil, err
	}
	return kv, nil
}

// newKVCache returns an empty cache for a valid shape; it grows on demand.
func newKVCache(c Config) *KVCache {
	return &KVCache{layers: c.NLayers, kvDim: c.KVDim(), seqLen: c.SeqLen}
}

// Capacity is the number of positions the cache has room for now.
func (kv *KVCache) Capacity() int { return kv.room }

// reserve makes room for at least positions positions (never more than the
// context): it doubles the room, so that a sequence growing one token at a
// time copies each key only a few times, or takes exactly what is asked
// when doubling would not fit in memory.
func (kv *KVCache) reserve(positions int) error {
	if positions <= kv.room {
		return nil
	}
	if positions > kv.seqLen {
		return fmt.Errorf("KV cache: %d positions do not fit the model's context of %d", positions, kv.seqLen)
	}
	if double := min(max(2*kv.room, 64), kv.seqLen); double > positions && kv.grow(double) == nil {
		return nil
	}
	return kv.grow(positions)
}

// grow reallocates the cache with room for exactly positions positions,
// keeping the positions already computed.
func (kv *KVCache) grow(positions int) error {
	n := int64(kv.layers) * int64(positions) * int64(kv.kvDim)
	what := fmt.Sprintf("the KV cache for %d positions (2 × %d layers × %d positions × %d kv_dim × 4 bytes)", positions, kv.layers, positions, kv.kvDim)
	if err := checkMemory(what, 2*4*n); err != nil {
		return err
	}
	keys, values := make([]float32, n), make([]float32, n)
	if kv.room > 0 {
		old, now := kv.room*kv.kvDim, positions*kv.kvDim
		for l := range kv.layers {
			copy(keys[l*now:], kv.Keys[l*old:(l+1)*old])
			copy(values[l*now:], kv.Values[l*old:(l+1)*old])
		}
	}
	kv.Keys, kv.Values, kv.room = keys, values, positions
	return nil
}

// Key returns the key slot of one layer at one position (below Capacity).
func (kv *KVCache) Key(layer, pos int) []float32 {
	o := (layer*kv.room + pos) * kv.kvDim
	return kv.Keys[o : o+kv.kvDim]
}

// Value returns the value slot of one layer at one position (below
// Capacity).
func (kv *KVCache) Value(layer, pos int) []float32 {
	o := (layer*kv.room + pos) * kv.kvDim
	return kv.Values[o : o+kv.kvDim]
}

// Bytes is the memory the cache holds now.
func (kv *KVCache) Bytes() int64 { return int64(len(kv.Keys)+len(kv.Values)) * 4 }

// KVCacheBytes is the formula for the cache of positions tokens:
// 2 (keys and values) × layers × kv_heads × head_size × positions × 4 bytes.
func KVCacheBytes(c Config, positions int) int64 {
	return 2 * int64(c.NLayers) * int64(c.NKVHeads) * int64(c.HeadSize()) * int64(positions) * 4
}

// Layer returns the keys and values of one layer for positions 0..n-1, each
// laid out (position, kv_dim). n must be at most Capacity.
func (kv *KVCache) Layer(layer, n int) (keys, values []float32) {
	o := layer * kv.room * kv.kvDim
	return kv.Keys[o : o+n*kv.kvDim], kv.Values[o : o+n*kv.kvDim]
}
