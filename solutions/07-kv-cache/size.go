package kvcache

// CacheBytes is the memory the KV cache of one sequence takes: a key and a
// value (the 2) per layer, key/value head and position, headDim numbers of
// bytesPerValue bytes each.
func CacheBytes(layers, kvHeads, headDim, positions, bytesPerValue int) int64 {
	return 2 * int64(layers) * int64(kvHeads) * int64(headDim) * int64(positions) * int64(bytesPerValue)
}

// UncachedPositions is prompt + (prompt+1) + … + (prompt+n-1): without a
// cache, every step runs the whole sequence so far through the model.
func UncachedPositions(prompt, n int) int64 {
	if n <= 0 {
		return 0
	}
	p, k := int64(prompt), int64(n)
	return k*p + k*(k-1)/2
}

// CachedPositions is prompt + n - 1: with a cache, the first step runs the
// prompt and every later step one token.
func CachedPositions(prompt, n int) int64 {
	if n <= 0 {
		return 0
	}
	return int64(prompt) + int64(n) - 1
}
