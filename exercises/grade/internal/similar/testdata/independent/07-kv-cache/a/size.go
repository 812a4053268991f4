package kvcache

func CacheBytes(layers, kvHeads, headDim, positions, bytesPerValue int) int64 {
	perPosition := int64(layers) * int64(kvHeads) * int64(headDim) * int64(bytesPerValue)
	return perPosition * int64(positions) * 2
}

func UncachedPositions(prompt, n int) int64 {
	var total int64
	for i := 0; i < n; i++ {
		total += int64(prompt + i)
	}
	return total
}

func CachedPositions(prompt, n int) int64 {
	if n < 1 {
		return 0
	}
	return int64(prompt + n - 1)
}
