package kvcache

// Cache is the KV cache of one attention layer for one sequence: the key
// and the value of every position so far. Attention is causal — position t
// only looks at positions 0…t — so a key or value, once computed, never
// changes, and each decoding step only has to add its own. Task 3.
//
// The fields below are a suggestion; change them as you like.
type Cache struct {
	nHeads, nKVHeads, headDim int
	keys, values              [][]float32 // keys[t], values[t]: position t, nKVHeads × headDim numbers
}

// NewCache returns an empty cache for a layer with nHeads query heads and
// nKVHeads key/value heads of headDim numbers each. Task 3.
func NewCache(nHeads, nKVHeads, headDim int) *Cache {
	return nil
}

// Append stores the key and the value of the next position, nKVHeads ×
// headDim numbers each (heads side by side, as in AttendHeads). The cache
// keeps its own copies: the caller may reuse k and v for the next
// position, as the engine reuses its buffers. Task 3.
//
// If k or v does not have nKVHeads × headDim numbers, Append stores
// nothing and returns an error saying so.
func (c *Cache) Append(k, v []float32) error {
	return nil
}

// Len is the number of positions stored. Task 3.
func (c *Cache) Len() int {
	return 0
}

// Attend returns the attention output of the newest position: its query q
// (nHeads × headDim numbers, heads side by side) attends over every cached
// position, 0 … Len()-1, which is exactly the context a causal model lets
// the newest position see. The result must be what AttendHeads gives over
// the same keys and values, recomputed from scratch. Task 3.
//
// Attend leaves the cache as it is. It returns nil if the cache is empty
// or len(q) is not nHeads × headDim.
func (c *Cache) Attend(q []float32) []float32 {
	return nil
}
