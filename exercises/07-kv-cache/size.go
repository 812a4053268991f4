package kvcache

// CacheBytes is the memory the KV cache of one sequence takes: for each of
// the positions, each of the layers keeps a key and a value for each of
// the kvHeads key/value heads, headDim numbers each, of bytesPerValue
// bytes (4 for float32, 2 for 16-bit floats):
//
//	2 × layers × kvHeads × headDim × positions × bytesPerValue
//
// Task 4.
//
// Example: a Llama-2-7B-like shape — 32 layers, 32 key/value heads of 128,
// 4096 positions, 16-bit values — takes 2,147,483,648 bytes, 2 GiB.
func CacheBytes(layers, kvHeads, headDim, positions, bytesPerValue int) int64 {
	return 0
}

// UncachedPositions is how many token positions run through the model to
// generate n tokens after a prompt of prompt tokens without a KV cache.
// Task 4.
//
// Generating n tokens takes n steps, and step i (counting from 0) asks for
// the logits after prompt + i tokens. Without a cache each step runs all of
// them through the model again, so the total is
// prompt + (prompt+1) + … + (prompt+n-1). With a one-token prompt that is
// 1 + 2 + … + n = n(n+1)/2: it grows like n². Return 0 when n is 0 or
// less.
func UncachedPositions(prompt, n int) int64 {
	return 0
}

// CachedPositions is the same count with a KV cache: the first step runs
// the prompt's tokens, and every later step only the one new token, so
// prompt + n - 1 positions in all (0 when n is 0 or less). With a one-token
// prompt that is n: it grows like n. Task 4.
func CachedPositions(prompt, n int) int64 {
	return 0
}
