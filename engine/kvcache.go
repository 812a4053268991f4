package engine

// KVCache keeps the keys and values that every layer computed for every
// position so far. They never change once computed, so each new token only
// computes its own key and value and attends over the cache.
//
// Its size is 2 × layers × seq_len × kv_dim float32 values: see Bytes.
type KVCache struct {
	Keys   []float32 // (layer, position, kv_dim)
	Values []float32 // (layer, position, kv_dim)
	seqLen int
	kvDim  int
}

// NewKVCache allocates a cache for a model's full context.
func NewKVCache(c Config) *KVCache {
	n := c.NLayers * c.SeqLen * c.KVDim()
	return &KVCache{Keys: make([]float32, n), Values: make([]float32, n), seqLen: c.SeqLen, kvDim: c.KVDim()}
}

// Key returns the key slot of one layer at one position.
func (kv *KVCache) Key(layer, pos int) []float32 {
	o := (layer*kv.seqLen + pos) * kv.kvDim
	return kv.Keys[o : o+kv.kvDim]
}

// Value returns the value slot of one layer at one position.
func (kv *KVCache) Value(layer, pos int) []float32 {
	o := (layer*kv.seqLen + pos) * kv.kvDim
	return kv.Values[o : o+kv.kvDim]
}

// Bytes is the memory the cache holds.
func (kv *KVCache) Bytes() int64 { return int64(len(kv.Keys)+len(kv.Values)) * 4 }

// KVCacheBytes is the formula for the cache of positions tokens:
// 2 (keys and values) × layers × kv_heads × head_size × positions × 4 bytes.
func KVCacheBytes(c Config, positions int) int64 {
	return 2 * int64(c.NLayers) * int64(c.NKVHeads) * int64(c.HeadSize()) * int64(positions) * 4
}

// Layer returns the keys and values of one layer for positions 0..n-1, each
// laid out (position, kv_dim).
func (kv *KVCache) Layer(layer, n int) (keys, values []float32) {
	o := layer * kv.seqLen * kv.kvDim
	return kv.Keys[o : o+n*kv.kvDim], kv.Values[o : o+n*kv.kvDim]
}
